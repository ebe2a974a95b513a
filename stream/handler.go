package stream

import (
	"context"
	"errors"
	"fmt"
	"log"
	"slices"

	"github.com/aws/aws-lambda-go/events"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/bridge"
)

// Handler dispatches the stream records of a table, each to the function
// registered for its entity and event (On). Records are handled one at a
// time, in order; the first that fails stops the batch (see Process).
// Register every function before the first record comes; then it is safe
// for concurrent use.
//
// Records of a defined entity with no function registered for their event
// are skipped: that is the subscription. Records of the library's own
// unique-value guard items (type "_unique", partition key "_unique#..."),
// which every write of an entity with unique fields puts in the stream, are
// skipped too. Records of no defined entity (an unknown type attribute, or
// keys no entity's templates parse) fail, unless an OnUnknown function
// takes them. An untyped record whose keys parse as one entity is that
// entity's, even when an attribute has the wrong type: its decode fails the
// record, which never reaches OnUnknown.
type Handler struct {
	table     *st.Table
	handlers  map[string][]entityFunc // by entity name
	unknown   func(ctx context.Context, rec Record, err error) error
	onFailure func(ctx context.Context, err *RecordError)
}

type entityFunc struct {
	events []EventType // nil: every event
	fn     func(ctx context.Context, rec Record) error
}

// Option configures a Handler: OnUnknown or OnFailure. It is an
// interface only those implement, so that no other value, and no zero
// one, passes for an option; NewHandler refuses a nil Option.
type Option interface {
	apply(h *Handler) error
}

// option is the one implementation of Option.
type option func(h *Handler) error

func (o option) apply(h *Handler) error { return o(h) }

// nilFunc refuses an option given a nil function.
func nilFunc(name string) error {
	return &st.InputError{Op: "stream.NewHandler", Reason: name + ": the function is nil"}
}

// OnUnknown gives the records of no defined entity to fn, with the
// *singletable.UnknownEntityError that says why: fn returns nil to skip
// the record (after logging it, say), or an error to fail it. Without
// OnUnknown such a record fails. A nil fn makes NewHandler fail.
func OnUnknown(fn func(ctx context.Context, rec Record, err error) error) Option {
	return option(func(h *Handler) error {
		if fn == nil {
			return nilFunc("OnUnknown")
		}
		h.unknown = fn
		return nil
	})
}

// OnFailure gives fn the failure that stopped a batch in HandleLambda,
// which returns it to Lambda only as a sequence number. Without OnFailure
// it is written to the standard logger (the function's log). A nil fn
// makes NewHandler fail.
func OnFailure(fn func(ctx context.Context, err *RecordError)) Option {
	return option(func(h *Handler) error {
		if fn == nil {
			return nilFunc("OnFailure")
		}
		h.onFailure = fn
		return nil
	})
}

// NewHandler returns a handler for the stream records of table t. A nil
// table, a nil Option or an option given a nil function is an
// *singletable.InputError (matching singletable.ErrInvalidInput) naming
// it.
func NewHandler(t *st.Table, opts ...Option) (*Handler, error) {
	if t == nil {
		return nil, &st.InputError{Op: "stream.NewHandler", Reason: "the table is nil"}
	}
	h := &Handler{table: t, handlers: map[string][]entityFunc{}}
	for i, o := range opts {
		if o == nil {
			return nil, &st.InputError{Op: "stream.NewHandler", Reason: fmt.Sprintf("option %d is nil", i+1)}
		}
		if err := o.apply(h); err != nil {
			return nil, err
		}
	}
	return h, nil
}

// On registers fn for the records of entity e, decoded into a Change[T]
// (see Decode): for the given events, or for every event if none is
// given. Several functions may be registered for one entity; each record
// goes to every function that takes its event, in registration order.
//
// On panics with an *singletable.InputError if h, e or fn is nil, h was
// not made by NewHandler, or an event is none of EventInsert, EventModify,
// EventRemove: a registration that could never run is a programming
// error, found when the handler is built rather than when records are
// lost.
func On[T any](h *Handler, e *st.Entity[T], fn func(ctx context.Context, c Change[T]) error, events ...EventType) {
	refuse := func(reason string) { panic(&st.InputError{Op: "stream.On", Reason: reason}) }
	switch {
	case h == nil:
		refuse("the handler is nil")
	case h.table == nil:
		refuse("the handler was not made by NewHandler")
	case e == nil:
		refuse("the entity is nil")
	case fn == nil:
		refuse("the function for entity " + e.Name() + " is nil")
	}
	for _, ev := range events {
		if !ev.valid() {
			refuse(fmt.Sprintf("event %q is none of INSERT, MODIFY, REMOVE", string(ev)))
		}
	}
	name := e.Name()
	h.handlers[name] = append(h.handlers[name], entityFunc{events: events, fn: func(ctx context.Context, rec Record) error {
		c, err := Decode(e, rec)
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

// Error names the record, its entity when known, and the failure.
func (e *RecordError) Error() string {
	what := "stream record " + e.SequenceNumber
	if e.Entity != "" {
		what += " (" + e.Entity + ")"
	}
	return "singletable: " + what + ": " + e.Err.Error()
}

// Unwrap returns the failure, for errors.Is and errors.As.
func (e *RecordError) Unwrap() error { return e.Err }

// Process handles records in order and stops at the first that fails,
// returning its *RecordError (nil if every record was handled). It stops
// rather than going on because the records of one shard are in order: a
// later change to the same item must not be applied before an earlier one
// that failed, and everything from the failed record on is delivered
// again anyway (see HandleLambda).
//
// A Handler not made by NewHandler (a zero Handler, or a nil one) fails
// the first record with an *singletable.InputError.
func (h *Handler) Process(ctx context.Context, records []Record) *RecordError {
	for _, rec := range records {
		if err := h.handle(ctx, rec); err != nil {
			return err
		}
	}
	return nil
}

// handle dispatches one record.
func (h *Handler) handle(ctx context.Context, rec Record) *RecordError {
	fail := func(entity string, err error) *RecordError {
		return &RecordError{SequenceNumber: rec.SequenceNumber, EventID: rec.EventID, Entity: entity, Err: err}
	}
	if h == nil || h.table == nil {
		return fail("", &st.InputError{Op: "stream.Handler", Reason: "the handler was not made by NewHandler"})
	}
	if err := rec.check(); err != nil {
		return fail("", err)
	}
	if h.isGuardRecord(rec) {
		// Written by the library beside an item with unique fields: not
		// an entity's change, and failing it would stop the shard at every
		// Create of such an item.
		return nil
	}
	entity, err := h.table.EntityOf(rec.image())
	if err != nil {
		var unknown *st.UnknownEntityError
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
// records before it, and none after it is lost. The error is nil (an
// error makes Lambda retry the whole batch) but at a record without a
// sequence number (see below); a record's failure
// goes to OnFailure. A record the library cannot convert fails the same
// way.
//
// A record without a sequence number (FromLambda refuses it) cannot be
// reported: an empty ItemIdentifier would make Lambda fail the whole batch
// unsaid. At such a record HandleLambda returns its *RecordError instead,
// and Lambda retries the whole batch, the records before it included.
func (h *Handler) HandleLambda(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
	for _, r := range ev.Records {
		rec, err := FromLambda(r)
		var failed *RecordError
		if err != nil {
			failed = &RecordError{SequenceNumber: r.Change.SequenceNumber, EventID: r.EventID, Err: err}
		} else {
			failed = h.handle(ctx, rec)
		}
		if failed != nil {
			h.reportFailure(ctx, failed)
			if failed.SequenceNumber == "" {
				return events.DynamoDBEventResponse{}, failed
			}
			return events.DynamoDBEventResponse{BatchItemFailures: []events.DynamoDBBatchItemFailure{{ItemIdentifier: failed.SequenceNumber}}}, nil
		}
	}
	return events.DynamoDBEventResponse{}, nil
}

func (h *Handler) reportFailure(ctx context.Context, err *RecordError) {
	if h != nil && h.onFailure != nil {
		h.onFailure(ctx, err)
		return
	}
	log.Print(fmt.Sprint(err, "; reported in BatchItemFailures for retry"))
}

// isGuardRecord reports whether a stream record is of a unique-value guard
// item: its partition key is in the guard namespace (every view carries the
// keys), or, for a record without keys, its image's type is the guard type.
func (h *Handler) isGuardRecord(rec Record) bool {
	item := rec.Keys
	if item == nil {
		item = rec.image()
	}
	return bridge.IsGuardItem(h.table, item)
}
