// Package observe tells a Go callback about every request a DB sends:
// which operation, entity and access pattern it served, what it returned or
// wrote, what it consumed, how long it took and how it failed. Metrics and
// traces named after the access pattern rather than the table (which, in a
// single-table design, says nothing) are built on it: see package
// otelobserve for OpenTelemetry, and docs/observability.md for Prometheus
// and expvar.
//
// The callback is a plain func: package observe and the core import no
// telemetry library.
package observe

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/bridge"
)

// Request is one request a DB sent.
type Request struct {
	// Operation is the DynamoDB API called: GetItem, PutItem, UpdateItem,
	// DeleteItem, Query, Scan, BatchGetItem, BatchWriteItem,
	// TransactWriteItems, TransactGetItems.
	Operation string
	// Op is the library's operation, as its errors name it: "Order.Put",
	// "OrdersByUser" (a pattern's read), "BatchWrite", "Transact".
	Op string
	// Entity is the entity the request is for; "" when it is for several
	// (a collection, a batch or transaction of several entities).
	Entity string
	// Name is the access pattern, collection or relation read; "" for a
	// write or an entity's own read (Get, Scan).
	Name string
	// Index is the global secondary index read; "" for the table.
	Index string
	// Items is how many items the request returned (a Query's or Scan's
	// Count: items matched after its filter, or counted with Select
	// COUNT), or wrote.
	Items int
	// Retry is how many times the library had sent this request's items
	// before: a batch resending what DynamoDB left unprocessed or
	// throttled, an Update reading again and writing again after another
	// writer changed the fields it read. The AWS SDK's own retries (of throttled or failed HTTP
	// requests, inside the SDK's retryer) happen inside one Client call
	// and are invisible here: configure and observe them on the SDK's
	// client (its Retryer and middleware).
	Retry int
	// Duration is the time the Client call took, SDK retries included.
	Duration time.Duration
	// Err is the Client's error, nil on success.
	Err error
	// ReadUnits and WriteUnits are the capacity units the request
	// consumed as DynamoDB reported them (0 without WithCapacity: the
	// request did not ask). With Estimated they are the library's
	// estimate of a request DynamoDB billed without reporting it: a
	// failed conditional write, a cancelled transaction.
	ReadUnits, WriteUnits float64
	Estimated             bool
}

// Class is what kind of failure a request's error is: "" for none, then
// "condition" (a failed condition), "cancelled" (a cancelled
// transaction), "throttled", "validation", "conflict" (a transaction
// conflict), "context" (the context ended), "other". A transaction
// cancelled because an action was throttled is "throttled", one cancelled
// by a conflict "conflict", as DynamoDB reports both as cancellations.
func (r *Request) Class() string { return Class(r.Err) }

// Class classifies err as Request.Class does.
func Class(err error) string {
	if err == nil {
		return ""
	}
	var ccf *types.ConditionalCheckFailedException
	var tce *types.TransactionCanceledException
	var tc *types.TransactionConflictException
	switch {
	case errors.As(err, &ccf):
		return "condition"
	case errors.As(err, &tce):
		return cancelClass(tce)
	case errors.As(err, &tc):
		return "conflict"
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return "context"
	}
	var ae smithy.APIError
	if errors.As(err, &ae) {
		switch ae.ErrorCode() {
		case "ProvisionedThroughputExceededException", "ThrottlingException", "Throttling",
			"RequestLimitExceeded", "LimitExceededException":
			return "throttled"
		case "ValidationException":
			return "validation"
		}
	}
	return "other"
}

// cancelClass classes a cancelled transaction by its reasons: DynamoDB
// reports a throttled or conflicting transaction as a cancellation whose
// reason says so, and a dashboard of throttles or conflicts must count it.
func cancelClass(tce *types.TransactionCanceledException) string {
	class := "cancelled"
	for _, r := range tce.CancellationReasons {
		switch aws.ToString(r.Code) {
		case "ThrottlingError", "ProvisionedThroughputExceeded", "RequestLimitExceeded":
			return "throttled"
		case "TransactionConflict":
			class = "conflict"
		}
	}
	return class
}

// Option configures With: WithoutCapacity.
type Option interface{ apply(*bridge.Observer) }

type option func(*bridge.Observer)

func (f option) apply(o *bridge.Observer) { f(o) }

// WithoutCapacity makes the DB's requests not ask for their consumed
// capacity (the observer then sees 0 units): With asks by default, which
// adds a few bytes to each response and costs no capacity.
func WithoutCapacity() Option { return option(func(o *bridge.Observer) { o.Capacity = false }) }

// With is a DB option that calls f once after each request the DB sends,
// from the goroutine that sent it (a fan-out's or a batch's may be
// several at once: f must be safe for concurrent use, and quick). Every
// request asks for its consumed capacity unless WithoutCapacity is given.
// A DB derived with DB.WithClient keeps the observer; given several
// observers (or capacity.Total), a DB calls each. A nil f is a
// programming error, which With panics on (an *singletable.InputError).
func With(f func(Request), opts ...Option) st.DBOption {
	if f == nil {
		panic(&st.InputError{Op: "observe.With", Reason: "the observer func is nil"})
	}
	o := &bridge.Observer{Capacity: true}
	for i, opt := range opts {
		if opt == nil {
			panic(&st.InputError{Op: "observe.With", Reason: fmt.Sprintf("option %d of %d is nil", i+1, len(opts))})
		}
		opt.apply(o)
	}
	o.Observe = func(r bridge.Request) {
		f(Request{Operation: r.Operation, Op: r.Op, Entity: r.Entity, Name: r.Name, Index: r.Index, Items: r.Items,
			Retry: r.Retry, Duration: r.Duration, Err: r.Err, ReadUnits: r.Read, WriteUnits: r.Write, Estimated: r.Estimated})
	}
	return bridge.Capacity.Observe(o).(st.DBOption)
}

// Tee is an observer that calls each of fs in turn.
func Tee(fs ...func(Request)) func(Request) {
	return func(r Request) {
		for _, f := range fs {
			f(r)
		}
	}
}

// Recorder keeps every request it observes, for a report after a run
// (capacity.Compare) or a test: pass its Observe to With.
type Recorder struct {
	mu   sync.Mutex
	reqs []Request
}

// Observe records r.
func (rec *Recorder) Observe(r Request) {
	rec.mu.Lock()
	rec.reqs = append(rec.reqs, r)
	rec.mu.Unlock()
}

// Requests returns a copy of the requests recorded so far, in the order
// they finished.
func (rec *Recorder) Requests() []Request {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]Request(nil), rec.reqs...)
}

// Reset forgets the requests recorded so far.
func (rec *Recorder) Reset() {
	rec.mu.Lock()
	rec.reqs = nil
	rec.mu.Unlock()
}
