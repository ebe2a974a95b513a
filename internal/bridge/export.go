package bridge

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Package export's part of the bridge: a plain-data description of a
// table's model, for the exports and the model document, and the item a
// Go value is stored as. What the public API already gives (the table's
// keys, indexes and their projections, TTL, stream, billing: Table and
// CreateTableInput; Lint; Sheet) is not repeated here.

// ExportModel describes the entities and the named reads of a table, in
// declaration order.
type ExportModel struct {
	Entities []ExportEntity
	Reads    []ExportRead
}

// ExportEntity is one entity: its key templates, the index keys it writes,
// its stored fields and its managed fields (Go field names; "" when the
// entity has none).
type ExportEntity struct {
	Name         string
	PK, SK       string // primary key templates; SK "" without a sort key
	Indexes      []ExportIndexKey
	Fields       []ExportField
	Version      string
	Created      string
	Updated      string
	Unique       []string
	Expires      string
	ExpiresAfter time.Duration
	Shard        string // the shard field and count ("Shard of 8"); "" unsharded
}

// ExportIndexKey is what an entity writes into one global secondary index.
type ExportIndexKey struct {
	Index  string
	PK, SK string // templates; SK "" when the index has no sort key
	// PKFrom and SKFrom say where a key attribute's value comes from:
	// "" (written from the template), "table key" or "field".
	PKFrom, SKFrom string
	// When names the fields of its When condition, WhenText is the
	// condition itself (Status = "OPEN"); Sparse the fields whose absent
	// value leaves the item out of the index (When's excepted).
	When     []string
	WhenText string
	Sparse   []string
}

// ExportField is one stored field of an entity.
type ExportField struct {
	GoName string
	Attr   string
	// Type is the DynamoDB type the field is stored as: S, N, B, BOOL, L,
	// M, SS, NS or BS.
	Type string
}

// ExportRead is one named pattern or collection.
type ExportRead struct {
	Name         string
	Collection   bool
	Operation    string // GetItem or Query; "" when the declaration failed
	Index        string // "" for the table
	KeyCondition string
	Entities     []string
	Descending   bool
	FanOut       string // "fan-out over 8 shards"; "" for one partition
	SkipsExpired bool
	// ExpiryRefused: the read as declared is refused (the core's
	// checkExpiry): its index does not project the TTL attribute of
	// entities that expire; FetchFull() or IncludeExpired() lets it run.
	ExpiryRefused bool
	Err           string // why the declaration failed; "" when it did not
}

// Export describes table (a *singletable.Table); set by the root package.
var Export func(table any) *ExportModel

// ExportItem renders v (a value of an entity's Go type, or a pointer to
// one) as the item the named entity (or, for entity "", the one entity of
// v's type) stores on table, keys and index keys included, managed fields
// as v holds them (no clock, no version): the entity's name and the item,
// or an error naming the value's type.
var ExportItem func(table any, entity string, v any) (string, map[string]types.AttributeValue, error)

// SchemaDifferences is what EnsureTable finds different between table's
// model and a described table (keys, key attribute types, missing indexes,
// index keys and projections), each a sentence; set by the root package.
var SchemaDifferences func(table any, d *types.TableDescription) []string
