package singletable

// Reading first, phase 3: an update whose index keys need fields it
// neither changes nor gives reads them (a strongly consistent GetItem),
// plans on what it read, and sends again if they changed meanwhile
// (updateRead); given Current, it takes them from the caller's copy
// instead. What must be read, what the read records and whether a given
// copy is stale are the write engine's decisions (internal/write's
// read.go: ReadNeeded, Stored, GivenRead); here are the requests, the
// retry and the public errors.

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"time"
	"unsafe"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/codec"
	writes "github.com/singletable/singletable/internal/write"
)

// updateRead is Update for an update that reads the item first: its plan
// without a read failed with planErr (a *writes.ReadNeeded), or it changes a
// unique field. (Apart from Update, so that the common update declares
// none of what this one needs, which the compiler would allocate anyway.)
func (m *entityModel) updateRead(ctx context.Context, db *DB, key unsafe.Pointer, kv reflect.Value, sv settings, unique bool, planErr error) (reflect.Value, error) {
	var out reflect.Value
	s := &sv
	op := m.ops.update
	var need *writes.ReadNeeded
	switch {
	case planErr == nil:
		// A unique field changes: read the item to learn the old value.
	case errors.As(planErr, &need) && !s.noRead:
	default:
		return out, noReadError(planErr, s, "")
	}
	var fields []string
	if need != nil {
		fields = need.Fields
	}
	rd, err := m.readStored(ctx, db, op, kv, fields, unique)
	for attempt := 1; ; attempt++ {
		if err != nil {
			return out, err
		}
		if !rd.Found && !s.upsert {
			k, _ := m.Key(kv)
			return out, &notFoundError{op: op, key: k}
		}
		old := kv
		if unique {
			old = rd.Value
		}
		acts, err := m.planUpdate(nil, db, op, kv, old, s, rd)
		if err != nil {
			return out, err
		}
		if len(acts) > 1 {
			// A transaction moves guards: read the item back (the Get of
			// the key given), into a value of its own, the copy done with,
			// since a transaction returns no item.
			if err = db.sendActions(ctx, op, acts, s); err == nil {
				kv.Set(m.valueAt(key))
				out = reflect.New(m.Type).Elem()
				return out, m.get(ctx, db, kv, out, []GetOption{ConsistentRead()})
			}
		} else if out, err = m.sendUpdate(ctx, db, acts[0], kv); err == nil {
			// One UpdateItem (no guard moves: a unique value set to what
			// the item holds), which returned the item.
			return out, nil
		}
		if !errors.Is(err, ErrConditionFailed) {
			return out, err
		}
		// Was it the fields read that changed, or an expired item that
		// an upsert deleted? Read again to know, and to plan the next
		// attempt.
		removed := s.upsert && m.removeExpired(ctx, db, err)
		db.retrying(attempt) // what follows is the library's retry (meter.go)
		again, rerr := m.readStored(ctx, db, op, kv, fields, unique)
		if rerr != nil || (again.Same(rd) && !removed) {
			return out, err
		}
		if attempt == maxUpdateAttempts {
			k, _ := m.Key(kv)
			return out, &ReadChangedError{Op: op, Key: k, Fields: fields, Attempts: attempt, Err: err}
		}
		rd = again
	}
}

// readStored reads what Update needs of the stored item (strongly
// consistent): fields, projected to their attributes, or the whole item
// when full (an update that moves a unique guard needs its old values).
// For an item not found, the value holds the key fields only. What it
// projects and records is the write engine's (internal/write's read.go).
func (m *entityModel) readStored(ctx context.Context, db *DB, op string, key reflect.Value, fields []string, full bool) (*writes.Stored, error) {
	k, err := m.Key(key)
	if err != nil {
		return nil, err
	}
	in := &dynamodb.GetItemInput{TableName: aws.String(db.name), Key: k, ConsistentRead: aws.Bool(true)}
	if !full {
		in.ProjectionExpression, in.ExpressionAttributeNames = writes.ReadProjection(m.Entity, fields)
	}
	res, err := db.client.GetItem(ctx, in)
	if err != nil {
		return nil, opError(op, err)
	}
	r := writes.NewStored(m.Entity, len(res.Item) > 0, fields)
	if r.Found {
		if err := m.decode(res.Item, r.Value); err != nil {
			return nil, err
		}
		r.Record(m.Entity, res.Item, full, m.managed.guarded(), m.managed.expires)
	}
	writes.BaseValue(m.Entity, nil, r.Value, key, time.Time{})
	return r, nil
}

// StaleError is an update given Current whose item no longer holds what the
// current value gave: Field (a Go field the update took from it) is stored
// as Stored, not as Given (nil for absent). Nothing was written. It matches
// ErrConditionFailed, and errors.As finds the *ConditionError inside it
// (whose Item is the item as stored); in a transaction it is the failed
// action's TxFailure.Err.
type StaleError struct {
	*ConditionError
	Field         string
	Given, Stored types.AttributeValue
}

func (e *StaleError) Error() string {
	return fmt.Sprintf("singletable: %s %s: the current value given is stale: the item holds %s %s, not %s",
		e.Op, formatKey(e.Key), e.Field, formatValue(e.Stored), formatValue(e.Given))
}

// Unwrap gives errors.Is/As the *ConditionError (and ErrConditionFailed).
func (e *StaleError) Unwrap() error { return e.ConditionError }

// replanCurrent plans again, from Current's value, an update whose plan
// without a read (acts, planErr) needs fields it does not give. It checks
// the value first (the entity's type, the key updated), whatever the plan
// needs. read is the stand-in read the new plan was made from, nil when
// the update needed nothing of the value (acts and planErr are then
// returned as they were).
func (m *entityModel) replanCurrent(dst []*action, db *DB, op string, key reflect.Value, s *settings, acts []*action, planErr error) (_ []*action, read *writes.Stored, err error) {
	cur, err := m.currentValue(op, key, s.current)
	if err != nil {
		return nil, nil, err
	}
	var need *writes.ReadNeeded
	if !errors.As(planErr, &need) {
		return acts, nil, planErr
	}
	if read, err = writes.GivenRead(m.Entity, cur, key, need.Fields); err != nil {
		return nil, nil, &InputError{Op: op, Reason: "Current: " + err.Error()}
	}
	acts, err = m.planUpdate(dst, db, op, key, key, s, read)
	return acts, read, err
}

// currentValue is Current's value v as a struct value of the entity, its
// key the key updated; else an *InputError, before anything is sent.
func (m *entityModel) currentValue(op string, key reflect.Value, g *givenValue) (reflect.Value, error) {
	v := g.v
	cur := reflect.ValueOf(v)
	if cur.Kind() == reflect.Pointer && cur.Type().Elem() == m.Type {
		if cur.IsNil() {
			return cur, &InputError{Op: op, Reason: "Current: the value is a nil pointer"}
		}
		cur = cur.Elem()
	}
	if !cur.IsValid() || cur.Type() != m.Type {
		return cur, &InputError{Op: op, Reason: fmt.Sprintf("Current: the value is a %T, not a %s (the entity's type)", v, m.Type)}
	}
	want, err := m.Key(key)
	if err != nil {
		return cur, err
	}
	got, err := m.Key(cur)
	if err != nil {
		return cur, &InputError{Op: op, Reason: "Current: " + err.Error()}
	}
	if !codec.EqualItems(got, want) {
		return cur, &InputError{Op: op, Reason: fmt.Sprintf("Current: the value is the item %s, not the item updated %s", formatKey(got), formatKey(want))}
	}
	return cur, nil
}
