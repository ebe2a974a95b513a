package bridge

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// What packages capacity and observe need of the root: options that ask
// for consumed capacity and observe requests, and the model's view of an
// entity's items for estimates. Filled in by the root's
// bridge_capacity.go.

// Sink receives the consumed capacity of every request of one call, as
// the service reported it (or, Estimated, as the library estimated it for
// a request the service billed without reporting it). Write says whether
// the request was a write. It may be called from several goroutines at
// once (fan-out, batches): a Sink locks.
type Sink interface {
	Add(write bool, cc *types.ConsumedCapacity, estimated bool)
}

// Request is one request sent, as the root tells an observer.
type Request struct {
	Operation string // the DynamoDB API: GetItem, Query, TransactWriteItems ...
	Op        string // the library's operation, as errors name it
	Entity    string // the entity, "" for a read of several (a collection)
	Name      string // the pattern, collection or relation; "" for a write
	Index     string // the index read, "" for the table
	Items     int    // items returned, counted (Select COUNT) or written
	Retry     int    // how many times the library sent this request's items before
	Duration  time.Duration
	Err       error
	// Read and Write are the capacity units the request consumed; with
	// Estimated, the library's estimate of a request billed without a
	// report (a failed condition, a cancelled transaction).
	Read, Write float64
	Estimated   bool
}

// Observer is what a DB calls once per request sent.
type Observer struct {
	// Capacity says whether every request asks for its consumed capacity.
	Capacity bool
	// Observe is called after each request, or nil.
	Observe func(Request)
	// Sink, when not nil, collects the consumed capacity of every request
	// of the DB.
	Sink Sink
}

// EstimatedError wraps the service's error of a request it billed
// without saying how much (a failed conditional write, a cancelled
// transaction): Units is the library's estimate.
type EstimatedError struct {
	Err         error
	Read, Write float64
}

func (e *EstimatedError) Error() string { return e.Err.Error() }
func (e *EstimatedError) Unwrap() error { return e.Err }

// Capacity is filled in by the root.
var Capacity struct {
	// Option is an option (a value of every operation's option
	// interfaces) that asks each request of the call for its consumed
	// capacity and hands it to sink.
	Option func(sink Sink) any
	// Observe is a singletable.DBOption adding o to the DB's observer:
	// Capacity if either asks, both Observe funcs, both Sinks.
	Observe func(o *Observer) any
	// Client is the client db (a *singletable.DB) sends the requests of
	// one call through: op, entity, name and index tell the observer what
	// for; sink, when not nil, collects the call's consumed capacity. A
	// singletable.Client.
	Client func(db any, op, entity, name, index string, sink Sink) any
	// Model describes an entity (a singletable.AnyEntity) for estimates.
	Model func(entity any) *CapacityModel
	// Pattern describes a pattern, a collection or an entity's query (a
	// *singletable.Pattern[T], a *singletable.Collection) for estimates.
	Pattern func(p any) *CapacityRead
	// Reads lists the named reads of table (a *singletable.Table), in
	// the sheet's order; Entities its entities, each for Model.
	Reads    func(table any) []*CapacityRead
	Entities func(table any) []any
}

// CapacityModel is what estimates need of an entity.
type CapacityModel struct {
	Entity string
	Table  string
	// Item is the item Put writes for v (a T or *T), with its size.
	Item func(v any) (map[string]types.AttributeValue, error)
	// Indexes are the table's GSIs the entity may be written to.
	Indexes []CapacityIndex
	// Unique is the number of unique fields: each a guard item, and a
	// transaction.
	Unique int
	// GuardIndexes are the table's indexes whose key attributes a guard
	// item carries (an index keyed on the table's own keys): each guard
	// item has an entry there too.
	GuardIndexes []string
	// UniqueAttrs are the unique fields' attributes: a write that changes
	// one moves its guard item.
	UniqueAttrs []string
	// UniqueScopes are the attributes of their scopes, in the same order
	// ("" for a field unique table-wide): a change of one moves the guard
	// too.
	UniqueScopes []string
}

// CapacityIndex is a GSI as estimates see it.
type CapacityIndex struct {
	Name string
	// Projection is ALL, KEYS_ONLY or INCLUDE; Include the attributes
	// an INCLUDE index adds; Keys the attributes of the table's and the
	// index's keys (and the entity type) that every projection holds.
	Projection string
	Include    []string
	Keys       []string
	// In reports whether the item is in the index (its key attributes
	// are all set).
	In func(item map[string]types.AttributeValue) bool
}

// CapacityRead is what estimates need of a read.
type CapacityRead struct {
	Name      string
	Operation string // Query or GetItem
	Index     string // "" for the table
	// Projection is the index's (ALL for the table); Include and Keys as
	// for CapacityIndex.
	Projection string
	Include    []string
	Keys       []string
	Entities   []string
}
