package singletable

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/codec"
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
	blk  *changeBlock // where list lives while it fits in one (see with)
	cond Cond
}

// changeBlock holds the first changes of a chain: a chain of a few
// changes (the usual update) costs one allocation, not one per change.
// used counts the slots taken: a Changes extends its list in place only
// by taking the next free slot, so that two Changes extended from one
// never share a change.
type changeBlock struct {
	used  atomic.Int32
	items [2]change
}

// with is c plus one change, c left as it was.
func (c Changes) with(op changeOp, field string, v any) Changes {
	n := len(c.list)
	ch := change{op, field, v}
	switch {
	case c.blk != nil && n < len(c.blk.items) && c.blk.used.CompareAndSwap(int32(n), int32(n+1)):
		c.blk.items[n] = ch
		c.list = c.blk.items[:n+1]
	case n < len(changeBlock{}.items):
		blk := &changeBlock{}
		blk.used.Store(int32(n + 1))
		if n > 0 {
			copy(blk.items[:], c.list)
		}
		blk.items[n] = ch
		c.list, c.blk = blk.items[:n+1], blk
	default:
		c.list, c.blk = append(c.list[:n:n], ch), nil
	}
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

// updateSettings adds up an update's changes and options. Returned as a
// value, for the caller to hold on its stack: only options (applied
// through interfaces) need a settings on the heap.
func updateSettings(op string, ch Changes, opts []UpdateOption) (settings, error) {
	if len(opts) == 0 {
		return settings{changes: ch.list, cond: ch.cond}, nil
	}
	s := &settings{changes: ch.list, cond: ch.cond}
	if err := applyAll(op, s, opts); err != nil {
		return settings{}, err
	}
	return *s, nil
}

// maxUpdateAttempts bounds the writes of an Update that reads first: each
// failed one whose read fields changed meanwhile is planned and sent again.
const maxUpdateAttempts = 4

// UpdateInput is the UpdateItem request Update sends. An update that changes a unique field is a
// transaction built from the stored item, so it has no UpdateItem request:
// see TxUpdate and DB.TransactInput. Nor has an update that would read the
// item first (an index key needs fields it does not give, see Update): it
// is a *ReadNeededError (ErrReadNeeded) naming the fields, and given them
// too, or given the item as the caller holds it (Current), it is one
// request.
func (e *Entity[T]) UpdateInput(db *DB, key T, ch Changes, opts ...UpdateOption) (*dynamodb.UpdateItemInput, error) {
	op := e.m.ops.update
	sv, err := updateSettings(op, ch, opts)
	s := &sv
	if err != nil {
		return nil, err
	}
	kv := reflect.ValueOf(&key).Elem()
	if f := e.m.changedUnique(s); f != "" {
		how := "build it with TxUpdate and DB.TransactInput"
		if e.m.managed.expires != nil {
			how = "the guards carry the expiry it reads"
		}
		return nil, &InputError{Op: op, Reason: "the update changes " + e.m.describeGuarded(f) + ", so Update reads the item and sends a transaction; " + how}
	}
	acts, err := e.m.planUpdate(nil, db, op, kv, kv, s, nil)
	if s.current != nil {
		acts, _, err = e.m.replanCurrent(nil, db, op, kv, s, acts, err)
	}
	if err != nil {
		return nil, noReadError(err, s, "Update would read them first (a strongly consistent GetItem); Set them too, or give Current, for one request")
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
// *ReadNeededError, before sending). Current gives the fields instead of
// the read: one request, conditioned on them being as given, and a
// *StaleError naming the field (no read, no retry) when they are not. See
// docs/rules.md.
//
// With Upsert, an item the update creates is what Put of the same value
// would store: every attribute, every index key its values give (reading
// first whether the item exists when a new item's index key reads fields
// the update does not give), the version and the timestamps; an existing
// item changes only in what the update names, and keeps the index keys its
// stored fields give. Where the two differ (zero values to fill), Update
// sends the update of an existing item first and, when the item is absent,
// the creation: one request for an existing item, two for a new one (see
// docs/rules.md, Upserts). TxUpdate and UpdateInput send once: an upsert
// there sets no zero values. An item that has
// expired (see Expires) is absent to an upsert as to every read: Update
// deletes it and makes a new one (a TxUpdate upsert fails on it).
//
// On an entity with a version field, a key whose version is non-zero must
// match the stored one (else a *VersionConflictError), and the stored
// version goes up by one; the updated timestamp is set, and the created one
// if the item has none. An update that changes a Unique field reads the item
// first and is sent as a transaction (see Unique).
func (e *Entity[T]) Update(ctx context.Context, db *DB, key T, ch Changes, opts ...UpdateOption) (T, error) {
	var out T
	op := e.m.ops.update
	sv, err := updateSettings(op, ch, opts)
	s := &sv
	if err != nil {
		return out, err
	}
	p := e.copyOf(&key)
	defer e.recycle(p)
	kv := reflect.ValueOf(p).Elem()
	unique := e.m.changedUnique(s) != ""
	acts, err := e.m.planUpdate(nil, db, op, kv, kv, s, nil)
	if s.current != nil {
		if unique {
			// Moving a guard needs the whole item: Update reads it anyway.
			if _, err := e.m.currentValue(op, kv, s.current); err != nil {
				return out, err
			}
		} else {
			var given *storedRead
			if acts, given, err = e.m.replanCurrent(nil, db, op, kv, s, acts, err); given != nil || err != nil {
				if err != nil {
					return out, noReadError(err, s, "")
				}
				// The caller said what the item holds: a stale copy
				// fails (*StaleError) rather than being read again.
				return e.sendUpdate(ctx, db, acts[0], p)
			}
		}
	}
	if err == nil && !unique {
		if s.upsert && e.m.upsertFills(s) {
			return e.upsertTwice(ctx, db, p, kv, s)
		}
		out, err := e.sendUpdate(ctx, db, acts[0], p)
		if s.upsert && e.m.removeExpired(ctx, db, err) {
			// It found an expired item, now deleted: the same update
			// makes a new one, planned again (the Client may have
			// modified the first request).
			if acts, err = e.m.planUpdate(nil, db, op, kv, kv, s, nil); err != nil {
				return out, err
			}
			return e.sendUpdate(ctx, db, acts[0], p)
		}
		return out, err
	}
	return e.updateRead(ctx, db, key, kv, *s, unique, err)
}

// upsertFills reports whether an item the upsert creates gets attributes
// the update does not name (zero values Put stores): then the forms for an
// existing item and for a new one differ (see upsertTwice).
func (m *entityModel) upsertFills(s *settings) bool {
	fills, err := m.zeroFills(s)
	return err != nil || len(fills) > 0
}

// upsertTwice is Update of an upsert whose forms differ: first the update
// of an existing item (conditioned on it existing, no zero values), and
// only when the item turns out absent (the failed condition returns no
// item) the creation of a new one (conditioned on it still being absent,
// with every zero value Put stores). An existing item, the common case,
// costs one request, a new one two. A writer that creates or deletes the
// item in between makes the other form fail likewise: it alternates, up to
// maxUpdateAttempts writes of each, then returns a *ReadChangedError.
func (e *Entity[T]) upsertTwice(ctx context.Context, db *DB, p *T, kv reflect.Value, s *settings) (T, error) {
	var out T
	op := e.m.ops.update
	for attempt := 1; ; attempt++ {
		for _, exists := range [2]bool{true, false} {
			rd := &storedRead{found: exists, value: reflect.New(e.m.typ).Elem(),
				attrs: map[string]types.AttributeValue{}, check: map[string]types.AttributeValue{}}
			e.m.baseValue(rd.value, kv, time.Time{})
			acts, err := e.m.planUpdate(nil, db, op, kv, kv, s, rd)
			if err != nil {
				return out, noReadError(err, s, "")
			}
			if out, err = e.sendUpdate(ctx, db, acts[0], p); err == nil {
				return out, nil
			}
			var ce *ConditionError
			if !errors.As(err, &ce) {
				return out, err
			}
			switch {
			case exists && len(ce.Item) == 0:
				// Absent: create it.
			case exists && e.m.removeExpired(ctx, db, err):
				// Expired, now deleted: create it anew.
			case !exists && len(ce.Item) > 0:
				// Created meanwhile: update it.
				if attempt == maxUpdateAttempts {
					k, _ := e.m.key(kv)
					return out, &ReadChangedError{Op: op, Key: k, Attempts: attempt, Err: err}
				}
			default:
				// The caller's condition, the version ...: as it is.
				return out, err
			}
		}
	}
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
		again, rerr := e.m.readStored(ctx, db, op, kv, fields, unique)
		if rerr != nil || (again.same(rd) && !removed) {
			return out, err
		}
		if attempt == maxUpdateAttempts {
			k, _ := e.m.key(kv)
			return out, &ReadChangedError{Op: op, Key: k, Fields: fields, Attempts: attempt, Err: err}
		}
		rd = again
	}
}

// sendUpdate sends an Update's single action and decodes the item after it
// into *into, which it returns: the key's copy (see copyOf), of no more
// use once the update is done, so that the result costs no allocation of
// its own.
func (e *Entity[T]) sendUpdate(ctx context.Context, db *DB, a *action, into *T) (T, error) {
	var zero T
	res, err := db.client.UpdateItem(ctx, a.updateItemInput(db))
	if err != nil {
		return zero, a.sendError(err)
	}
	if len(res.Attributes) == 0 {
		// DynamoDB always answers ReturnValues ALL_NEW with the item: a
		// Client that does not (a mock, a wrapper) is at fault, not the item.
		return zero, fmt.Errorf("singletable: %s %s: UpdateItem answered without the item (Update asks for ReturnValues ALL_NEW): a Client must return it, as DynamoDB does; with singletabletest.Client, set UpdateItemFunc", a.op, formatKey(a.keyAttrs()))
	}
	*into = zero
	err = e.m.decode(res.Attributes, reflect.ValueOf(into).Elem())
	return *into, err
}

// TxUpdate adds Update of the item whose key fields are set in key (see
// Update). A transaction cannot read mid-way, so an update whose index key needs
// fields it neither changes nor gives (which Update would read) is a
// *ReadNeededError naming them: Set them too, or give the item as the
// caller holds it with Current (the transaction is then conditioned on
// those fields being unchanged, and a stale copy cancels it with a
// *StaleError naming the field). When
// a change touches a unique field, key must also hold the field's current
// value: the transaction moves the guard from it to the new value, and is
// conditioned on the item holding it (so a wrong one cancels the
// transaction rather than orphaning a guard).
func (e *Entity[T]) TxUpdate(tx *Tx, key T, ch Changes, opts ...UpdateOption) {
	op := e.m.ops.update
	sv, err := updateSettings(op, ch, opts)
	s := &sv
	if err != nil {
		tx.add(nil, err)
		return
	}
	if f := e.m.changedUnique(s); f != "" && e.m.managed.expires != nil {
		// The guards carry the item's expiry, which only a read tells.
		tx.add(nil, &InputError{Op: op, Reason: "the update changes " + e.m.describeGuarded(f) + " of an entity that expires, whose guard items carry the item's expiry: use Update, which reads the item first (a transaction cannot)"})
		return
	}
	p := e.copyOf(&key)
	kv := reflect.ValueOf(p).Elem()
	n := len(tx.actions)
	acts, err := e.m.planUpdate(tx.actions, tx.db, op, kv, kv, s, nil)
	if s.current != nil {
		acts, _, err = e.m.replanCurrent(tx.actions, tx.db, op, kv, s, acts, err)
	}
	e.recycle(p)
	if err != nil {
		tx.add(nil, noReadError(err, s, "a transaction cannot read the item mid-way; Set them too, or give the item as you hold it (Current)"))
		return
	}
	if acts[n].update == "" {
		// A transaction's Update needs an expression.
		tx.add(nil, &InputError{Op: op, Reason: "the update changes nothing: each change stores a zero value that Put leaves out (an omitempty field)"})
		return
	}
	tx.add(acts, nil)
}

// updateAction is an Update's action with room for what its request
// holds, so that it is allocated with the action rather than bit by bit.
// It holds no settings: the caller's stay on its stack (see planUpdate).
type updateAction struct {
	action
	// primary holds its table key's values.
	primary [2]types.AttributeValueMemberS
	// acts is room for the plan of an Update, this action alone.
	acts [1]*action
	// nums is room for the numbers the update gives (its changes' values,
	// Increment's zero): see updatePlan.room.
	nums [2]types.AttributeValueMemberN
}

// plainUpdateAction is the updateAction of an entity without index keys
// to write, with room for the strings its changes give.
type plainUpdateAction struct {
	updateAction
	strs [2]types.AttributeValueMemberS
}

// indexedUpdateAction is the updateAction of an entity with index keys
// to write, with room for the index key values the update sets (see
// keyValue) besides the strings its changes give.
type indexedUpdateAction struct {
	updateAction
	strs [6]types.AttributeValueMemberS
}

// newUpdateAction allocates an update's action, and a room that hands out
// the room for values it holds (to release once the plan is made).
func (m *entityModel) newUpdateAction() (*updateAction, codec.Room) {
	for _, ei := range m.indexes {
		if ei.writes() {
			u := new(indexedUpdateAction)
			return &u.updateAction, codec.NewRoom(u.strs[:], u.nums[:])
		}
	}
	u := new(plainUpdateAction)
	return &u.updateAction, codec.NewRoom(u.strs[:], u.nums[:])
}

// planUpdate plans Update of the item whose key fields are set in key. old
// holds the unique values the item has now (key itself for TxUpdate, the
// stored item for Update). read is what Update read of the item first, or
// nil: the update is then conditioned on what it read, and an upsert of an
// item not found stores every attribute Put would.
func (m *entityModel) planUpdate(dst []*action, db *DB, op string, key, old reflect.Value, given *settings, read *storedRead) ([]*action, error) {
	if err := db.checkTable(op, m); err != nil {
		return nil, err
	}
	if len(given.changes) == 0 {
		return nil, &InputError{Op: op, Reason: "no change given: pass Set, Remove, Add, Increment ..."}
	}
	if read == nil { // the first plan of the update: later ones keep its shard
		if err := m.chooseShard(op, key, given); err != nil {
			return nil, err
		}
	}
	// The action and room for its values in one allocation; the
	// settings are the caller's, on its stack (nothing the plan keeps
	// points to them); the builder is recycled (see updateCache).
	u, room := m.newUpdateAction()
	k, kf, err := m.keyFacts(key, u.primary[:])
	if err != nil {
		room.Release()
		return nil, err
	}
	s := given
	b := m.updates.builder()
	a := &u.action
	*a = action{kind: actUpdate, op: op, m: m, key: k, id: kf.id, bytes: kf.keyBytes, whenMissing: failNotFound}
	if s.upsert {
		a.whenMissing = failCondition
	}
	plan := updatePlan{read: read, room: room}
	defer func() {
		plan.releaseNext()
		plan.room.Release()
		m.updates.releaseBuilder(b)
	}()
	w := write{a: a, now: m.managed.clock(db), b: b, key: key, old: old, upsert: given.upsert}
	s = m.managed.beforeUpdate(&w, s, &plan)
	newItem := read != nil && !read.found
	if err := m.planChanges(op, key, s, b, &plan); err != nil {
		return nil, err
	}
	if len(plan.ranges) > 0 {
		for _, rc := range plan.ranges {
			w.hold(rc.cond())
		}
		a.extra = &actionExtra{ranges: plan.ranges}
	}
	if min := kf.keyBytes + plan.storedBytes; min > maxItemBytes {
		return nil, &LimitError{Op: op, Reason: fmt.Sprintf("the update stores %d bytes of values, which with the key make an item of at least %d bytes; DynamoDB's limit is 400 KB (%d bytes)", plan.storedBytes, min, maxItemBytes)}
	}
	if s.upsert {
		if newItem {
			// Zero values fill only an item the upsert creates: on one that
			// exists they would bring back attributes nobody named.
			fills, err := m.zeroFills(s)
			if err != nil {
				return nil, &InputError{Op: op, Reason: err.Error()}
			}
			for _, f := range fills {
				plan.update.Act(expr.ClauseSet, b.Name(f.attr), " = ", b.Value(f.av))
			}
		}
		// A new item must still decode as this entity, and carry its key fields.
		plan.update.Act(expr.ClauseSet, b.Name(m.table.typeAttr), " = ", b.Value(expr.S(m.name)))
		for _, f := range m.keyFieldList {
			av, err := m.encodeValue(f.GoName, key.FieldByIndex(f.Index).Interface(), false)
			if err != nil {
				return nil, &InputError{Op: op, Reason: err.Error()}
			}
			plan.update.Act(expr.ClauseSet, b.Name(f.Attr), " = ", b.Value(av))
		}
	}
	switch {
	case newItem:
		w.cond = m.table.notExists
	case !s.upsert || read != nil:
		w.cond = m.table.exists
	}
	if s.upsert && !newItem && m.upsertsReplace() {
		// To every read an expired item is absent, so an upsert does not
		// update it (its stale attributes would come back, or stay hidden
		// behind the past expiry): Update deletes it first and sends again
		// (removeExpired); a transaction fails.
		w.check(Not(m.expiredBy(w.now)))
		if a.extra == nil {
			a.extra = new(actionExtra)
		}
		a.extra.liveAt = w.now.Unix()
	}
	if read != nil && read.given {
		if a.extra == nil {
			a.extra = new(actionExtra)
		}
		a.extra.given = read
	}
	if read != nil && read.found {
		// The fields read must still hold what the plan was made from.
		for _, name := range read.fields {
			f, _ := m.fields.ByGoName(name)
			if v, ok := read.attrs[f.Attr]; ok {
				w.check(Eq(name, v))
			} else {
				w.check(NotExists(name))
			}
		}
	}
	if err := m.managed.onUpdate(&w, &plan); err != nil {
		return nil, err
	}
	var text [512]byte
	a.update = m.updates.shared.Intern(plan.update.Append(text[:0]))
	a.bytes += len(a.update)
	if err := checkExpression(op, "update", a.update); err != nil {
		return nil, err
	}
	if dst == nil {
		dst = u.acts[:0]
	}
	acts, err := w.finish(dst, s.cond, b)
	if err != nil {
		return nil, err
	}
	if plan.need != nil {
		plan.need.op = op
		return nil, plan.need
	}
	return acts, nil
}

// zeroFill is an attribute Put stores for a field an upsert does not
// touch: its zero value.
type zeroFill struct {
	attr string
	av   types.AttributeValue
}

// zeroFills lists, for an upsert, the attributes Put stores for the fields
// the update does not touch (their zero values; Put leaves out the
// omitempty ones): what an item the upsert creates gets besides what the
// update names. Key fields and managed fields are not among them.
func (m *entityModel) zeroFills(s *settings) ([]zeroFill, error) {
	zero := make(map[string]types.AttributeValue, len(m.fields.List))
	if _, err := m.plan.Encode(reflect.New(m.typ).Elem(), zero); err != nil {
		return nil, err
	}
	var out []zeroFill
	for i := range m.fields.List {
		f := &m.fields.List[i]
		av, ok := zero[f.Attr]
		if !ok || m.keyFields[f.GoName] || m.managed.manages(f) || touches(s.changes, f.GoName) {
			continue
		}
		out = append(out, zeroFill{f.Attr, av})
	}
	return out, nil
}

// readStored reads what Update needs of the stored item (strongly
// consistent): fields, projected to their attributes, or the whole item
// when full (an update that moves a unique guard needs its old values).
// For an item not found, the value holds the key fields only.
func (m *entityModel) readStored(ctx context.Context, db *DB, op string, key reflect.Value, fields []string, full bool) (*storedRead, error) {
	k, err := m.key(key)
	if err != nil {
		return nil, err
	}
	in := &dynamodb.GetItemInput{TableName: aws.String(db.name), Key: k, ConsistentRead: aws.Bool(true)}
	if !full {
		// The partition key tells whether the item exists, the type
		// whether it is this entity's.
		var b expr.Builder
		var proj strings.Builder
		for i, a := range append([]string{m.table.pk, m.table.typeAttr}, m.attrsOf(fields)...) {
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
	r := &storedRead{found: len(res.Item) > 0, fields: fields, value: reflect.New(m.typ).Elem(),
		attrs: map[string]types.AttributeValue{}, check: map[string]types.AttributeValue{}}
	if r.found {
		if err := m.decode(res.Item, r.value); err != nil {
			return nil, err
		}
		for _, a := range m.attrsOf(fields) {
			if v, ok := res.Item[a]; ok {
				r.attrs[a], r.check[a] = v, v
			}
		}
		for _, f := range m.managed.unique {
			if v, ok := res.Item[f.Attr]; ok && full {
				r.check[f.Attr] = v
			}
		}
		if exp := m.managed.expires; exp != nil && full {
			// The guards carry the expiry read (guardExpiry).
			if v, ok := res.Item[exp.Attr]; ok {
				r.attrs[exp.Attr], r.check[exp.Attr] = v, v
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
		if f, ok := m.fields.ByGoName(name); ok {
			out = append(out, f.Attr)
		}
	}
	return out
}
