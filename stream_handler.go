package singletable

import (
	"context"
	"errors"
	"fmt"
	"log"
	"slices"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// StreamHandler dispatches the stream records of a table, each to the
// function registered for its entity and event (On). Records are handled
// one at a time, in order; the first that fails stops the batch (see
// Process). Register every function before the first record comes; then
// it is safe for concurrent use.
//
// Records of a defined entity with no function registered for their event
// are skipped: that is the subscription. Records of the library's own
// unique-value guard items (type "_unique", partition key "_unique#..."),
// which every write of an entity with unique fields puts in the stream, are
// skipped too. Records of no defined entity (an unknown type attribute, or
// keys no entity's templates parse) fail, unless an OnUnknown function
// takes them.
type StreamHandler struct {
	table     *Table
	handlers  map[string][]streamFunc // by entity name
	unknown   func(ctx context.Context, rec Record, err error) error
	onFailure func(ctx context.Context, err *RecordError)
}

type streamFunc struct {
	events []EventType // nil: every event
	fn     func(ctx context.Context, rec Record) error
}

// StreamHandlerOption configures a StreamHandler.
type StreamHandlerOption func(*StreamHandler)

// OnUnknown gives the records of no defined entity to fn, with the
// *UnknownEntityError that says why: fn returns nil to skip the record
// (after logging it, say), or an error to fail it. Without OnUnknown such
// a record fails.
func OnUnknown(fn func(ctx context.Context, rec Record, err error) error) StreamHandlerOption {
	return func(h *StreamHandler) { h.unknown = fn }
}

// OnFailure gives fn the failure that stopped a batch in HandleLambda,
// which returns it to Lambda only as a sequence number. Without OnFailure
// it is written to the standard logger (the function's log).
func OnFailure(fn func(ctx context.Context, err *RecordError)) StreamHandlerOption {
	return func(h *StreamHandler) { h.onFailure = fn }
}

// NewStreamHandler returns a handler for the stream records of table t.
func NewStreamHandler(t *Table, opts ...StreamHandlerOption) *StreamHandler {
	h := &StreamHandler{table: t, handlers: map[string][]streamFunc{}}
	for _, o := range opts {
		o(h)
	}
	return h
}

// On registers fn for the records of entity e, decoded into a Change[T]:
// for the given events, or for every event if none is given. Several
// functions may be registered for one entity; each record goes to every
// function that takes its event, in registration order.
func On[T any](h *StreamHandler, e *Entity[T], fn func(ctx context.Context, c Change[T]) error, events ...EventType) {
	h.handlers[e.m.name] = append(h.handlers[e.m.name], streamFunc{events: events, fn: func(ctx context.Context, rec Record) error {
		c, err := e.Change(rec)
		if err != nil {
			return err
		}
		return fn(ctx, c)
	}})
}

// RecordError is the failure of one stream record: its sequence number and
// event ID, its entity when known, and why.
type RecordError struct {
	SequenceNumber string
	EventID        string
	Entity         string // empty when the record's entity is unknown
	Err            error
}

func (e *RecordError) Error() string {
	what := "stream record " + e.SequenceNumber
	if e.Entity != "" {
		what += " (" + e.Entity + ")"
	}
	return "singletable: " + what + ": " + e.Err.Error()
}

func (e *RecordError) Unwrap() error { return e.Err }

// Process handles records in order and stops at the first that fails,
// returning its *RecordError (nil if every record was handled). It stops
// rather than going on because the records of one shard are in order: a
// later change to the same item must not be applied before an earlier one
// that failed, and everything from the failed record on is delivered
// again anyway (see HandleLambda).
func (h *StreamHandler) Process(ctx context.Context, records []Record) *RecordError {
	for _, rec := range records {
		if err := h.handle(ctx, rec); err != nil {
			return err
		}
	}
	return nil
}

// handle dispatches one record.
func (h *StreamHandler) handle(ctx context.Context, rec Record) *RecordError {
	fail := func(entity string, err error) *RecordError {
		return &RecordError{SequenceNumber: rec.SequenceNumber, EventID: rec.EventID, Entity: entity, Err: err}
	}
	if err := rec.check(); err != nil {
		return fail("", err)
	}
	if h.table.isGuardRecord(rec) {
		// Written by the library beside an item with unique fields: not
		// an entity's change, and failing it would stop the shard at every
		// Create of such an item.
		return nil
	}
	entity, err := h.table.EntityOf(rec.image())
	if err != nil {
		var unknown *UnknownEntityError
		if errors.As(err, &unknown) && h.unknown != nil {
			err = h.unknown(ctx, rec, err)
		}
		if err != nil {
			return fail("", err)
		}
		return nil
	}
	for _, f := range h.handlers[entity] {
		if f.events != nil && !slices.Contains(f.events, rec.Event) {
			continue
		}
		if err := f.fn(ctx, rec); err != nil {
			return fail(entity, err)
		}
	}
	return nil
}

// HandleLambda is a Lambda function's handler for the table's stream
// (lambda.Start(h.HandleLambda)): it handles the event's records in order
// and, at the first that fails, stops and reports that record's sequence
// number in BatchItemFailures. With ReportBatchItemFailures enabled on the
// event source mapping, Lambda then checkpoints before it and delivers it
// and every later record again, so one bad record does not replay the
// records before it, and none after it is lost. The error is always nil
// (an error would make Lambda retry the whole batch); a record's failure
// goes to OnFailure. A record the library cannot convert fails the same way.
func (h *StreamHandler) HandleLambda(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
	for _, r := range ev.Records {
		rec, err := LambdaRecord(r)
		var failed *RecordError
		if err != nil {
			failed = &RecordError{SequenceNumber: r.Change.SequenceNumber, EventID: r.EventID, Err: err}
		} else {
			failed = h.handle(ctx, rec)
		}
		if failed != nil {
			h.reportFailure(ctx, failed)
			return events.DynamoDBEventResponse{BatchItemFailures: []events.DynamoDBBatchItemFailure{{ItemIdentifier: failed.SequenceNumber}}}, nil
		}
	}
	return events.DynamoDBEventResponse{}, nil
}

func (h *StreamHandler) reportFailure(ctx context.Context, err *RecordError) {
	if h.onFailure != nil {
		h.onFailure(ctx, err)
		return
	}
	log.Print(fmt.Sprint(err, "; reported in BatchItemFailures for retry"))
}

// isGuardRecord reports whether a stream record is of a unique-value guard
// item: its partition key is in the guard namespace (every view carries the
// keys), or, for a record without keys, its image's type is the guard type.
func (t *Table) isGuardRecord(rec Record) bool {
	item := rec.Keys
	if item == nil {
		item = rec.image()
	}
	if pk, ok := item[t.pk].(*types.AttributeValueMemberS); ok {
		return isGuardKey([]byte(pk.Value), t.delim)
	}
	typ, ok := item[t.typeAttr].(*types.AttributeValueMemberS)
	return ok && typ.Value == guardType
}
