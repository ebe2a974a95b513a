package singletable

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/expr"
)

// changeOp is an update operator: an index into operators.
type changeOp int

const (
	changeSet changeOp = iota
	changeRemove
	changeAdd
	changeDeleteFromSet
	changeAppend
	changePrepend
	changeSetIfNotExists
	changeIncrement
	changeDecrement
)

// change is one field change of an Update.
type change struct {
	op    changeOp
	field string // a field path: "Status", "Address.City", "Tags[0]"
	value any
}

// Changes is what an Update does to an item: field changes, built by
// chaining (Set("Status", "SHIPPED").Increment("Count", 1).Remove("Note")),
// and the condition the item must meet (If). A Changes is a value: each
// method returns a new one and leaves its receiver as it was, so a common
// part can be extended in several ways. The zero Changes changes nothing
// (an update of nothing is an error).
//
// Every change names a field by its Go name, or a path below it:
// "Address.City" (a field of a nested struct, by Go name, or a map key),
// "Tags[0]" (a list element). Values of top-level fields are encoded by the
// field's own `dynamodbav` rules; values below them plainly. Changes whose
// new value DynamoDB computes from the stored one (Add, Increment, Decrement,
// Append, Prepend, DeleteFromSet, SetIfNotExists) cannot be applied to a
// field that an index key, an index's When condition or a Unique declaration
// reads, since the request could not recompute what depends on it: use Set.
type Changes struct {
	list []change
	cond Cond
}

// with is c plus one change. The list is copied, never appended to in
// place, so that two Changes extended from one do not share a change.
func (c Changes) with(op changeOp, field string, v any) Changes {
	c.list = append(c.list[:len(c.list):len(c.list)], change{op, field, v})
	return c
}

// If adds a condition the item must meet for the update to happen; when it
// does not, the update fails with a *ConditionError (ErrConditionFailed).
// Several If must all hold.
func (c Changes) If(cond Cond) Changes {
	c.cond = And(c.cond, cond)
	return c
}

// Set sets a field (by Go name, or a path below it) to v, encoded by the
// field's `dynamodbav` rules. Setting an omitempty field (at any depth
// through structs) to its zero value removes the attribute, as Put would
// leave it out. nil is a value only of pointer, map, slice and interface
// fields (a NULL attribute); for any other field it is an error.
func (c Changes) Set(field string, v any) Changes { return c.with(changeSet, field, v) }

// Remove removes a field's attribute (or a nested part) from the item.
func (c Changes) Remove(field string) Changes { return c.with(changeRemove, field, nil) }

// Add adds v to a number field (use a negative v to subtract), or adds the
// elements of v to a set field (v may be a set or a single element). A
// missing attribute counts as 0 or the empty set. DynamoDB allows Add on
// top-level fields only.
func (c Changes) Add(field string, v any) Changes { return c.with(changeAdd, field, v) }

// DeleteFromSet removes the elements of v (a set, or a single element) from
// a set field: DynamoDB's DELETE action, on top-level fields only. (It is
// not named Delete, which deletes the item.)
func (c Changes) DeleteFromSet(field string, v any) Changes {
	return c.with(changeDeleteFromSet, field, v)
}

// Append appends v (a list, or a single element) to a list field; a missing
// list counts as empty: SET f = list_append(if_not_exists(f, []), v).
func (c Changes) Append(field string, v any) Changes { return c.with(changeAppend, field, v) }

// Prepend puts v (a list, or a single element) in front of a list field; a
// missing list counts as empty.
func (c Changes) Prepend(field string, v any) Changes { return c.with(changePrepend, field, v) }

// SetIfNotExists sets a field to v only if the item has no value for it:
// SET f = if_not_exists(f, v). The zero value of an omitempty field is no
// value (Put never stores it), so it sets nothing.
func (c Changes) SetIfNotExists(field string, v any) Changes {
	return c.with(changeSetIfNotExists, field, v)
}

// Increment adds n to a number field, a missing one counting as 0:
// SET f = if_not_exists(f, 0) + n. Unlike Add it works on nested paths.
func (c Changes) Increment(field string, n any) Changes { return c.with(changeIncrement, field, n) }

// Decrement subtracts n from a number field, a missing one counting as 0:
// SET f = if_not_exists(f, 0) - n. Combine it with If(Ge(field, n)) to keep
// the field from going negative.
func (c Changes) Decrement(field string, n any) Changes { return c.with(changeDecrement, field, n) }

// Set starts Changes with Changes.Set.
func Set(field string, v any) Changes { return Changes{}.Set(field, v) }

// Remove starts Changes with Changes.Remove.
func Remove(field string) Changes { return Changes{}.Remove(field) }

// Add starts Changes with Changes.Add.
func Add(field string, v any) Changes { return Changes{}.Add(field, v) }

// DeleteFromSet starts Changes with Changes.DeleteFromSet.
func DeleteFromSet(field string, v any) Changes { return Changes{}.DeleteFromSet(field, v) }

// Append starts Changes with Changes.Append.
func Append(field string, v any) Changes { return Changes{}.Append(field, v) }

// Prepend starts Changes with Changes.Prepend.
func Prepend(field string, v any) Changes { return Changes{}.Prepend(field, v) }

// SetIfNotExists starts Changes with Changes.SetIfNotExists.
func SetIfNotExists(field string, v any) Changes { return Changes{}.SetIfNotExists(field, v) }

// Increment starts Changes with Changes.Increment.
func Increment(field string, n any) Changes { return Changes{}.Increment(field, n) }

// Decrement starts Changes with Changes.Decrement.
func Decrement(field string, n any) Changes { return Changes{}.Decrement(field, n) }

// NoRead forbids Update the read it makes when an index key needs fields
// the update neither changes nor gives (see Update): such an update fails
// with a *ReadNeededError naming them, before anything is sent, so that the
// caller can Set them too.
func NoRead() UpdateOption { return updateOpt{setNoRead} }

func setNoRead(s *settings) { s.noRead = true }

// updateSettings adds up an update's changes and options. It always
// allocates: the changes are the update's own.
func updateSettings(op string, ch Changes, opts []UpdateOption) (*settings, error) {
	s := &settings{changes: ch.list, cond: ch.cond}
	if err := applyAll(op, s, opts); err != nil {
		return nil, err
	}
	return s, nil
}

// ErrReadNeeded matches a *ReadNeededError.
var ErrReadNeeded = errors.New("singletable: the update needs fields it does not give")

// ReadNeededError reports an update that must recompute an index key from
// fields it neither changes nor gives. Update reads them (see Update); the
// ways that cannot read fail with this error before sending anything:
// Update with NoRead, TxUpdate (a transaction cannot read mid-way), and
// UpdateInput (the dry run of a single request, which the read and its
// condition would change). It matches ErrReadNeeded and ErrInvalidInput.
type ReadNeededError struct {
	Op     string   // e.g. "Order.Update"
	Index  string   // the first index whose key needs them
	Fields []string // every field Update would read, sorted
	Reason string
}

func (e *ReadNeededError) Error() string { return "singletable: " + e.Op + ": " + e.Reason }

// Is makes errors.Is(err, ErrReadNeeded) and errors.Is(err,
// ErrInvalidInput) true.
func (e *ReadNeededError) Is(target error) bool {
	return target == ErrReadNeeded || target == ErrInvalidInput
}

// ErrReadChanged matches a *ReadChangedError.
var ErrReadChanged = errors.New("singletable: the fields an update read kept changing")

// ReadChangedError reports an Update that read fields an index key needs
// and, each of Attempts times, found them changed by another writer before
// its write (whose condition then failed). Nothing was written. It matches
// ErrReadChanged and wraps the last write's error (ErrConditionFailed).
type ReadChangedError struct {
	Op       string
	Key      map[string]types.AttributeValue
	Fields   []string // the fields read
	Attempts int      // the writes sent
	Err      error    // the last write's error
}

func (e *ReadChangedError) Error() string {
	return fmt.Sprintf("singletable: %s: %s changed under each of %d attempts to update the item (%s): %v",
		e.Op, strings.Join(e.Fields, ", "), e.Attempts, formatKey(e.Key), e.Err)
}

// Is makes errors.Is(err, ErrReadChanged) true.
func (e *ReadChangedError) Is(target error) bool { return target == ErrReadChanged }

func (e *ReadChangedError) Unwrap() error { return e.Err }

// maxUpdateAttempts bounds the writes of an Update that reads first: each
// failed one whose read fields changed meanwhile is planned and sent again.
const maxUpdateAttempts = 4

// UpdateInput is the UpdateItem request Update sends. An update that changes a unique field is a
// transaction built from the stored item, so it has no UpdateItem request:
// see TxUpdate and DB.TransactInput. Nor has an update that would read the
// item first (an index key needs fields it does not give, see Update): it
// is a *ReadNeededError (ErrReadNeeded) naming the fields, and given them
// too it is one request.
func (e *Entity[T]) UpdateInput(db *DB, key T, ch Changes, opts ...UpdateOption) (*dynamodb.UpdateItemInput, error) {
	op := e.m.ops.update
	s, err := updateSettings(op, ch, opts)
	if err != nil {
		return nil, err
	}
	kv := reflect.ValueOf(&key).Elem()
	if f := e.m.changedUnique(s); f != "" {
		return nil, &InputError{Op: op, Reason: "the update changes unique field " + f + ", so Update reads the item and sends a transaction; build it with TxUpdate and DB.TransactInput"}
	}
	acts, err := e.m.planUpdate(nil, db, op, kv, kv, s, nil)
	if err != nil {
		return nil, noReadError(err, s, "Update would read them first (a strongly consistent GetItem); Set them too for one request")
	}
	return acts[0].updateItemInput(db), nil
}

// noReadError turns a *readNeeded into the *ReadNeededError of a caller
// that cannot read: advice says why and what to do (NoRead's own advice
// when that option forbade the read).
func noReadError(err error, s *settings, advice string) error {
	var need *readNeeded
	if !errors.As(err, &need) {
		return err
	}
	if s.noRead {
		advice = "Set them too (to their current values if they do not change)"
	}
	return need.explain(advice)
}

// planChanges resolves the field changes and recomputes every index key
// that depends on a changed field, so that index keys are never stale.
func (m *entityModel) planChanges(op string, keyValue reflect.Value, s *settings, b *expr.Builder, plan *updatePlan) error {
	fail := func(format string, args ...any) error {
		return &InputError{Op: op, Reason: fmt.Sprintf(format, args...)}
	}
	plan.m, plan.key, plan.changes = m, keyValue, s.changes
	r := resolver{m: m, b: b}
	for i, c := range s.changes {
		o := &operators[c.op]
		top := topField(c.field)
		nested := top != c.field
		f, ok := m.fields.ByGoName(top)
		if !ok {
			if top == "" {
				return fail("%s(%q): empty field name", o.name, c.field)
			}
			return fail("%s(%q): no such field: %v", o.name, c.field, r.unknownField(top))
		}
		if m.keyFields[top] {
			return fail("%s(%q): the field is part of the primary key (%s); delete the item and create it under the new key",
				o.name, c.field, m.primaryTemplates())
		}
		if m.w.version != nil && top == m.w.version.GoName {
			return fail("%s(%q): the version field is managed by the library: every write stores it plus one", o.name, c.field)
		}
		for _, prev := range s.changes[:i] {
			if p := prev.field; overlaps(p, c.field) {
				if p == c.field {
					return fail("field %s is changed twice in one update", c.field)
				}
				return fail("changes to %s and %s overlap; DynamoDB takes one change per document path", p, c.field)
			}
		}
		if nested && o.topLevel {
			return fail("%s(%q): DynamoDB applies %s to top-level attributes only", o.name, c.field, o.name)
		}
		if o.skipOmittedZero && m.omitsZero(c.field, c.value) {
			// Put never stores this zero value: setting it where there is
			// none would store what Put leaves out, and keep a later
			// SetIfNotExists from storing a real value.
			continue
		}
		p, _, err := r.path(c.field)
		if err != nil {
			return fail("%s(%q): %v", o.name, c.field, err)
		}
		var av types.AttributeValue
		if o.value != noValue {
			if c.value == nil && !nested && !nillable(f.Type) {
				// A NULL in place of a string or a number would read back as
				// its zero value, and match no condition on it (nor a guard).
				return fail("%s(%q): the field is a %s, which nil is not a value of: Remove the field, or give its zero value", o.name, c.field, f.Type)
			}
			// By the field's own rules, at any depth.
			if av, err = m.encodeValue(c.field, c.value, o.value == elementValue); err != nil {
				return fail("%s(%q): %v", o.name, c.field, err)
			}
		}
		// A raw AttributeValue tells nothing the model could check.
		if _, raw := c.value.(types.AttributeValue); o.settable && !nested && !raw && !m.settable(f) {
			return fail("%s(%q): the field is promoted through an unexported embedded pointer", o.name, c.field)
		}
		if o.check != nil {
			if av, err = o.check(m, c, f, av); err != nil {
				return fail("%s(%q): %v", o.name, c.field, err)
			}
			if av == nil {
				plan.act(clauseRemove, p) // what Put leaves out
				continue
			}
		}
		plan.render(o, b, p, av)
	}
	for _, c := range s.changes {
		_, raw := c.value.(types.AttributeValue)
		if top := topField(c.field); (c.unknown() || raw) && m.isUnique(top) {
			return fail("%s(%q): field %s is declared Unique, and its new value must be known to keep its guard item: Set the whole field to a Go value",
				operators[c.op].name, c.field, top)
		}
	}

	var need *readNeeded
	for _, ei := range m.indexes {
		if !ei.writes() {
			continue // its keys are the table's or fields': nothing to recompute
		}
		affected := false
		for _, c := range s.changes {
			top := topField(c.field)
			if !ei.dependsOn(top) {
				continue
			}
			if c.unknown() {
				return fail("%s(%q): index %s's key or condition reads %s, and this change leaves its new value to DynamoDB: use Set with the whole value",
					operators[c.op].name, c.field, ei.index.name, top)
			}
			affected = true
		}
		if !affected && !s.upsert {
			continue
		}
		if !affected && plan.read != nil && plan.read.found {
			continue // an existing item keeps the keys its stored fields give
		}
		var missing []string
		for _, f := range ei.inputs() {
			if !plan.known(f) {
				missing = append(missing, f)
			}
		}
		if len(missing) > 0 {
			switch {
			case affected && plan.leaves(ei):
				// The item leaves the index whatever the other fields hold.
				plan.act(clauseRemove, b.Name(ei.index.pk))
				if ei.index.sk != "" {
					plan.act(clauseRemove, b.Name(ei.index.sk))
				}
				continue
			case !affected:
				// An upsert: an existing item keeps its keys, and a new one
				// gets the keys its zero values give, if any.
				if _, _, ok, err := m.indexKey(ei, plan.nextValue()); err != nil || !ok {
					if err != nil {
						return err
					}
					continue
				}
			}
			need = need.add(ei, missing)
			continue
		}
		pk, sk, ok, err := m.indexKey(ei, plan.nextValue())
		if err != nil {
			return err
		}
		if !ok {
			if ei.pkFrom == keyOwn {
				plan.act(clauseRemove, b.Name(ei.index.pk))
			}
			if ei.index.sk != "" && ei.skFrom == keyOwn {
				plan.act(clauseRemove, b.Name(ei.index.sk))
			}
			continue
		}
		if ei.pkFrom == keyOwn {
			plan.act(clauseSet, b.Name(ei.index.pk), " = ", b.Value(expr.S(pk)))
		}
		if ei.index.sk != "" && ei.skFrom == keyOwn {
			plan.act(clauseSet, b.Name(ei.index.sk), " = ", b.Value(expr.S(sk)))
		}
	}
	if need != nil {
		// Returned by planUpdate once everything else is checked, so that
		// no read is sent for an update that would fail anyway.
		need.op = op
		plan.need = need
	}
	return nil
}

// leaves reports whether the update takes the item out of sparse index ei
// by the fields it gives: every field the index's When condition reads is
// known, and the condition is false.
func (p *updatePlan) leaves(ei *entityIndex) bool {
	if ei.when == nil {
		return false
	}
	for _, f := range ei.whenFields {
		if !p.known(f) {
			return false
		}
	}
	return !ei.when(p.nextValue())
}

// readNeeded is planChanges' answer when index keys need fields the update
// neither gives nor has read: Update reads them and plans again; the
// callers that cannot read turn it into a *ReadNeededError.
type readNeeded struct {
	op      string
	first   *entityIndex // the first index that needs a read
	missing []string     // what first needs, sorted
	fields  []string     // what every such index needs, sorted
}

func (r *readNeeded) Error() string {
	return r.explain("Set them too (to their current values if they do not change)").Error()
}

// add records that index ei needs fields missing.
func (r *readNeeded) add(ei *entityIndex, missing []string) *readNeeded {
	slices.Sort(missing)
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
	return &ReadNeededError{Op: r.op, Index: r.first.index.name, Fields: r.fields,
		Reason: fmt.Sprintf("the change to index %s's key (%s) also needs %s: %s",
			r.first.index.name, r.first.describe(), strings.Join(r.missing, ", "), advice)}
}

// overlaps reports whether two document paths overlap: equal, or one
// inside the other.
func overlaps(a, b string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	return a == b || (strings.HasPrefix(b, a) && (b[len(a)] == '.' || b[len(a)] == '['))
}

// asSet turns a single element into a one-element set when the field is a
// set (a slice or a map other than []byte), for Add and DeleteFromSet.
func asSet(av types.AttributeValue, field reflect.Type) types.AttributeValue {
	k := field.Kind()
	if (k != reflect.Slice && k != reflect.Map && k != reflect.Array) || field.Elem().Kind() == reflect.Uint8 && k == reflect.Slice {
		return nil
	}
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		return &types.AttributeValueMemberSS{Value: []string{v.Value}}
	case *types.AttributeValueMemberN:
		return &types.AttributeValueMemberNS{Value: []string{v.Value}}
	case *types.AttributeValueMemberB:
		return &types.AttributeValueMemberBS{Value: [][]byte{v.Value}}
	}
	return nil
}

// changedUnique names a unique field the update changes; "" if none.
func (m *entityModel) changedUnique(s *settings) string {
	for _, c := range s.changes {
		if top := topField(c.field); m.isUnique(top) {
			return top
		}
	}
	return ""
}

// primaryTemplates describes the primary key templates for messages.
func (m *entityModel) primaryTemplates() string {
	if m.sk == nil {
		return fmt.Sprintf("%s %q", m.table.pk, m.pk.raw)
	}
	return fmt.Sprintf("%s %q, %s %q", m.table.pk, m.pk.raw, m.table.sk, m.sk.raw)
}

// describe names an index key's templates for messages.
func (ei *entityIndex) describe() string {
	s := fmt.Sprintf("%s %q", ei.index.pk, ei.pk.raw)
	if ei.sk != nil {
		s += fmt.Sprintf(", %s %q", ei.index.sk, ei.sk.raw)
	}
	if ei.when != nil {
		s += fmt.Sprintf(", when %s", strings.Join(ei.whenFields, ", "))
	}
	return s
}

// Update changes fields of the item whose primary key fields are set in
// key, and returns the item as it is afterwards. Every index key that
// depends on a changed field is recomputed in the same request (or removed,
// when a key field becomes empty or the index's When condition stops
// holding), so index keys are never stale. Changing a primary-key field is
// an error. Without Upsert, a missing item is ErrNotFound.
//
// When an index key also reads fields the update neither changes nor gives
// (Set("Status", s) under the key STATUS#{Status}#{Date}), Update first
// reads them (a strongly consistent GetItem of only those attributes), then
// sends the update conditioned on them being unchanged (and on the item
// existing, or, for an upsert of a missing item, not existing). If another
// writer changed them in between, it reads and sends again, up to 4 times,
// then returns a *ReadChangedError. A change that takes the item out of a
// sparse index (its When condition is false by the fields given) needs no
// read: the index's keys are removed. NoRead forbids the read (a
// *ReadNeededError, before sending). See docs/rules.md.
//
// With Upsert, an item the update creates is what Put of the same value
// would store: every attribute, every index key its values give (reading
// first whether the item exists when a new item's index key reads fields
// the update does not give), the version and the timestamps; an existing
// item keeps the index keys its stored fields give.
//
// On an entity with a version field, a key whose version is non-zero must
// match the stored one (else a *VersionConflictError), and the stored
// version goes up by one; the updated timestamp is set, and the created one
// if the item has none. An update that changes a Unique field reads the item
// first and is sent as a transaction (see Unique).
func (e *Entity[T]) Update(ctx context.Context, db *DB, key T, ch Changes, opts ...UpdateOption) (T, error) {
	var out T
	op := e.m.ops.update
	s, err := updateSettings(op, ch, opts)
	if err != nil {
		return out, err
	}
	kv := reflect.ValueOf(&key).Elem()
	unique := e.m.changedUnique(s) != ""
	acts, err := e.m.planUpdate(nil, db, op, kv, kv, s, nil)
	var need *readNeeded
	switch {
	case err == nil && !unique:
		return e.sendUpdate(ctx, db, acts[0])
	case err == nil:
		// A unique field changes: read the item to learn the old value.
	case errors.As(err, &need) && !s.noRead:
	default:
		return out, noReadError(err, s, "")
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
			k, _ := e.m.key(kv)
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
		} else if out, err = e.sendUpdate(ctx, db, acts[0]); err == nil {
			return out, nil
		}
		if !errors.Is(err, ErrConditionFailed) {
			return out, err
		}
		// Was it the fields read that changed? Read again to know, and
		// to plan the next attempt.
		again, rerr := e.m.readStored(ctx, db, op, kv, fields, unique)
		if rerr != nil || again.same(rd) {
			return out, err
		}
		if attempt == maxUpdateAttempts {
			k, _ := e.m.key(kv)
			return out, &ReadChangedError{Op: op, Key: k, Fields: fields, Attempts: attempt, Err: err}
		}
		rd = again
	}
}

// sendUpdate sends an Update's single action and decodes the item after it.
func (e *Entity[T]) sendUpdate(ctx context.Context, db *DB, a *action) (T, error) {
	var out T
	res, err := db.client.UpdateItem(ctx, a.updateItemInput(db))
	if err != nil {
		return out, a.sendError(err)
	}
	err = e.m.decode(res.Attributes, reflect.ValueOf(&out).Elem())
	return out, err
}

// nillable reports whether nil is a value of type t (stored as NULL).
func nillable(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Map, reflect.Slice:
		return true
	}
	return false
}
