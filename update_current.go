package singletable

import (
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/codec"
)

// An update given Current takes the fields its index keys need from the
// caller's copy of the item instead of reading them: the copy stands in for
// the read (a storedRead), so the plan, and the condition that the fields
// are still as read, are the read path's own.

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
func (m *entityModel) replanCurrent(dst []*action, db *DB, op string, key reflect.Value, s *settings, acts []*action, planErr error) (_ []*action, read *storedRead, err error) {
	cur, err := m.currentValue(op, key, s.current)
	if err != nil {
		return nil, nil, err
	}
	var need *readNeeded
	if !errors.As(planErr, &need) {
		return acts, nil, planErr
	}
	if read, err = m.givenRead(cur, key, need.fields); err != nil {
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
	if cur.Kind() == reflect.Pointer && cur.Type().Elem() == m.typ {
		if cur.IsNil() {
			return cur, &InputError{Op: op, Reason: "Current: the value is a nil pointer"}
		}
		cur = cur.Elem()
	}
	if !cur.IsValid() || cur.Type() != m.typ {
		return cur, &InputError{Op: op, Reason: fmt.Sprintf("Current: the value is a %T, not a %s (the entity's type)", v, m.typ)}
	}
	want, err := m.key(key)
	if err != nil {
		return cur, err
	}
	got, err := m.key(cur)
	if err != nil {
		return cur, &InputError{Op: op, Reason: "Current: " + err.Error()}
	}
	if !codec.EqualItems(got, want) {
		return cur, &InputError{Op: op, Reason: fmt.Sprintf("Current: the value is the item %s, not the item updated %s", formatKey(got), formatKey(want))}
	}
	return cur, nil
}

// givenRead is what a read of fields would have found, taken from cur: an
// item that exists, holding each field's attribute as Put stores it.
func (m *entityModel) givenRead(cur, key reflect.Value, fields []string) (*storedRead, error) {
	item := make(map[string]types.AttributeValue, len(m.fields.List))
	if _, err := m.plan.Encode(cur, item); err != nil {
		return nil, err
	}
	r := &storedRead{found: true, given: true, fields: fields, value: reflect.New(m.typ).Elem(),
		attrs: map[string]types.AttributeValue{}, check: map[string]types.AttributeValue{}}
	for _, name := range fields {
		f, ok := m.fields.ByGoName(name)
		if !ok {
			continue
		}
		if fv, ok := settableField(r.value, f.Index); ok {
			fv.Set(fieldValue(f, cur))
		}
		if v, ok := item[f.Attr]; ok {
			r.attrs[f.Attr], r.check[f.Attr] = v, v
		}
	}
	m.baseValue(r.value, key, time.Time{})
	return r, nil
}

// staleField names the first field taken from Current's value that item
// holds otherwise, with the two values; "" when they all agree.
func (r *storedRead) staleField(m *entityModel, item map[string]types.AttributeValue) (name string, given, stored types.AttributeValue) {
	for _, name := range r.fields {
		f, ok := m.fields.ByGoName(name)
		if !ok {
			continue
		}
		given, stored = r.attrs[f.Attr], item[f.Attr]
		if (given == nil) != (stored == nil) || (given != nil && !codec.Equal(given, stored)) {
			return name, given, stored
		}
	}
	return "", nil, nil
}
