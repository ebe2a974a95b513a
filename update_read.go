package singletable

// Reading first: an update whose index keys need fields it neither
// changes nor gives reads them (a strongly consistent GetItem), plans on
// what it read, and sends again if they changed meanwhile (updateRead);
// given Current, it takes them from the caller's copy instead.

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/codec"
	"github.com/singletable/singletable/internal/expr"
	"github.com/singletable/singletable/internal/model"
	"github.com/singletable/singletable/internal/read"
)

// An update given Current takes the fields its index keys need from the
// caller's copy of the item instead of reading them: the copy stands in for
// the read (a storedRead), so the plan, and the condition that the fields
// are still as read, are the read path's own.

// storedRead is what Update read of the stored item, strongly consistent,
// before planning: the fields the update needs and does not give.
type storedRead struct {
	found bool
	// given: the caller gave the fields (Current), nothing was read; a
	// failed condition is then a *StaleError (see staleField).
	given bool
	// fields are the Go fields read, sorted; attrs their attributes as
	// stored (absent ones missing).
	fields []string
	attrs  map[string]types.AttributeValue
	// check holds the attributes whose change makes another attempt
	// worth it: attrs, and the unique fields when the update moves a guard.
	check map[string]types.AttributeValue
	// value holds the key fields and the fields read; for an item not
	// found, the key fields and the created timestamp a new one gets.
	value reflect.Value
}

// has reports whether the read tells field goName's value: every field
// of an item that does not exist (an upsert creates it from zero values).
func (r *storedRead) has(goName string) bool {
	return r != nil && (!r.found || slices.Contains(r.fields, goName))
}

// same reports whether two reads of the item saw the same thing: both
// found it or neither, with the same attributes to check.
func (r *storedRead) same(o *storedRead) bool {
	if r.found != o.found || len(r.check) != len(o.check) {
		return false
	}
	for a, v := range r.check {
		if !reflect.DeepEqual(v, o.check[a]) {
			return false
		}
	}
	return true
}

// updateRead is Update for an update that reads the item first: its plan
// without a read failed with planErr (a *readNeeded), or it changes a
// unique field. (Apart from Update, so that the common update declares
// none of what this one needs, which the compiler would allocate anyway.)
func (e *Entity[T]) updateRead(ctx context.Context, db *DB, key T, kv reflect.Value, sv settings, unique bool, planErr error) (T, error) {
	var out T
	s := &sv
	op := e.m.ops.update
	var need *readNeeded
	switch {
	case planErr == nil:
		// A unique field changes: read the item to learn the old value.
	case errors.As(planErr, &need) && !s.noRead:
	default:
		return out, noReadError(planErr, s, "")
	}
	var fields []string
	if need != nil {
		fields = need.fields
	}
	rd, err := e.m.readStored(ctx, db, op, kv, fields, unique)
	for attempt := 1; ; attempt++ {
		if err != nil {
			return out, err
		}
		if !rd.found && !s.upsert {
			k, _ := e.m.Key(kv)
			return out, &notFoundError{op: op, key: k}
		}
		old := kv
		if unique {
			old = rd.value
		}
		acts, err := e.m.planUpdate(nil, db, op, kv, old, s, rd)
		if err != nil {
			return out, err
		}
		if unique {
			if err = db.sendActions(ctx, op, acts, s); err == nil {
				return e.Get(ctx, db, key, ConsistentRead())
			}
		} else if out, err = e.sendUpdate(ctx, db, acts[0], kv.Addr().Interface().(*T)); err == nil {
			return out, nil
		}
		if !errors.Is(err, ErrConditionFailed) {
			return out, err
		}
		// Was it the fields read that changed, or an expired item that
		// an upsert deleted? Read again to know, and to plan the next
		// attempt.
		removed := s.upsert && e.m.removeExpired(ctx, db, err)
		db.retrying(attempt) // what follows is the library's retry (meter.go)
		again, rerr := e.m.readStored(ctx, db, op, kv, fields, unique)
		if rerr != nil || (again.same(rd) && !removed) {
			return out, err
		}
		if attempt == maxUpdateAttempts {
			k, _ := e.m.Key(kv)
			return out, &ReadChangedError{Op: op, Key: k, Fields: fields, Attempts: attempt, Err: err}
		}
		rd = again
	}
}

// readStored reads what Update needs of the stored item (strongly
// consistent): fields, projected to their attributes, or the whole item
// when full (an update that moves a unique guard needs its old values).
// For an item not found, the value holds the key fields only.
func (m *entityModel) readStored(ctx context.Context, db *DB, op string, key reflect.Value, fields []string, full bool) (*storedRead, error) {
	k, err := m.Key(key)
	if err != nil {
		return nil, err
	}
	in := &dynamodb.GetItemInput{TableName: aws.String(db.name), Key: k, ConsistentRead: aws.Bool(true)}
	if !full {
		// The partition key tells whether the item exists, the type
		// whether it is this entity's.
		var b expr.Builder
		var proj strings.Builder
		head := []string{m.table.schema.PK, m.table.schema.TypeAttr}
		if m.table.schema.TypeByKeys && m.table.schema.SK != "" {
			// An item without the type is told apart by its keys: both.
			head = append(head, m.table.schema.SK)
		}
		for i, a := range append(head, m.attrsOf(fields)...) {
			if i > 0 {
				proj.WriteString(", ")
			}
			proj.WriteString(b.Name(a))
		}
		in.ProjectionExpression, in.ExpressionAttributeNames = aws.String(proj.String()), b.Names
	}
	res, err := db.client.GetItem(ctx, in)
	if err != nil {
		return nil, opError(op, err)
	}
	r := &storedRead{found: len(res.Item) > 0, fields: fields, value: reflect.New(m.Type).Elem(),
		attrs: map[string]types.AttributeValue{}, check: map[string]types.AttributeValue{}}
	if r.found {
		if err := m.decode(res.Item, r.value); err != nil {
			return nil, err
		}
		// attrs go into the requests that follow, which a Client may
		// modify down to the values; check is the library's own record of
		// what was read, so it holds copies.
		for _, a := range m.attrsOf(fields) {
			if v, ok := res.Item[a]; ok {
				r.attrs[a], r.check[a] = v, read.CopyValue(v)
			}
		}
		for _, f := range m.managed.guarded() {
			if v, ok := res.Item[f.Attr]; ok && full {
				r.check[f.Attr] = read.CopyValue(v)
			}
		}
		if exp := m.managed.expires; exp != nil && full {
			// The guards carry the expiry read (guardExpiry).
			if v, ok := res.Item[exp.Attr]; ok {
				r.attrs[exp.Attr], r.check[exp.Attr] = v, read.CopyValue(v)
			}
		}
	}
	m.baseValue(r.value, key, time.Time{})
	return r, nil
}

// attrsOf maps Go field names to their attribute names.
func (m *entityModel) attrsOf(fields []string) []string {
	out := make([]string, 0, len(fields))
	for _, name := range fields {
		if f, ok := m.Fields.ByGoName(name); ok {
			out = append(out, f.Attr)
		}
	}
	return out
}

// readNeeded is planChanges' answer when index keys need fields the update
// neither gives nor has read: Update reads them and plans again; the
// callers that cannot read turn it into a *ReadNeededError.
type readNeeded struct {
	op      string
	first   *model.EntityIndex // the first index that needs a read
	missing []string           // what first needs, sorted
	fields  []string           // what every such index needs, sorted
	// expiry is the expiry field of an upsert that needs to know whether
	// the item exists (ExpiresAfter gives only a new item its expiry),
	// when no index needs a read.
	expiry *codec.Field
}

func (r *readNeeded) Error() string {
	return r.explain("Set them too (to their current values if they do not change)").Error()
}

// needExists records that the upsert needs to know whether the item
// exists, to give a new one the expiry of field f (see
// expiryField.onUpdate in managed_expiry.go).
func (r *readNeeded) needExists(f *codec.Field) *readNeeded {
	if r == nil {
		r = &readNeeded{}
	}
	r.expiry = f
	return r
}

// add records that index ei needs fields missing (sorted, not modified).
func (r *readNeeded) add(ei *model.EntityIndex, missing []string) *readNeeded {
	if r == nil {
		r = &readNeeded{first: ei, missing: missing}
	}
	for _, f := range missing {
		if !slices.Contains(r.fields, f) {
			r.fields = append(r.fields, f)
		}
	}
	slices.Sort(r.fields)
	return r
}

// explain is the *ReadNeededError for a caller that cannot read, advice
// saying what to do instead.
func (r *readNeeded) explain(advice string) *ReadNeededError {
	if r.first == nil {
		f := r.expiry.GoName
		return &ReadNeededError{Op: r.op,
			Reason: fmt.Sprintf("the upsert gives a new item ExpiresAfter's expiry, and an existing one keeps its own (or none): whether the item exists needs a read (Update reads first); Set %s, or SetIfNotExists(%q, ...) for the expiry of an item that has none, to send it as one request", f, f)}
	}
	return &ReadNeededError{Op: r.op, Index: r.first.Index.Name, Fields: r.fields,
		Reason: fmt.Sprintf("the change to index %s's key (%s) also needs %s: %s",
			r.first.Index.Name, r.first.Describe(), strings.Join(r.missing, ", "), advice)}
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

// givenRead is what a read of fields would have found, taken from cur: an
// item that exists, holding each field's attribute as Put stores it.
func (m *entityModel) givenRead(cur, key reflect.Value, fields []string) (*storedRead, error) {
	item := make(map[string]types.AttributeValue, len(m.Fields.List))
	if _, err := m.Plan.Encode(cur, item); err != nil {
		return nil, err
	}
	r := &storedRead{found: true, given: true, fields: fields, value: reflect.New(m.Type).Elem(),
		attrs: map[string]types.AttributeValue{}, check: map[string]types.AttributeValue{}}
	for _, name := range fields {
		f, ok := m.Fields.ByGoName(name)
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
		f, ok := m.Fields.ByGoName(name)
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
