package singletable

// An update, in phases, each in its own file:
//
//   - update.go: the public entries (Update, UpdateInput, TxUpdate) and
//     the flow between the phases;
//   - update_changes.go: the Changes an update is given;
//   - update_compile.go: the shape of the changes, checked against the
//     model once and cached (internal/write: writes.Compile, writes.Cache);
//   - update_bind.go: the values bound into a request on that shape, with
//     update_next.go (what the item becomes) and the engine's operator
//     table, set operands and Increment's room (internal/write);
//   - update_read.go: reading the item first, only when the shape needs
//     it (an index key's fields the update does not give), and retrying;
//     Current, which gives those fields instead.

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"time"
	"unsafe"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/singletable/singletable/internal/noescape"
	writes "github.com/singletable/singletable/internal/write"
)

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
	return e.m.updateInput(db, reflect.ValueOf(&key).Elem(), ch, opts)
}

// updateInput builds the single request of an Update of the item whose key
// fields are set in struct value kv.
func (m *entityModel) updateInput(db *DB, kv reflect.Value, ch Changes, opts []UpdateOption) (*dynamodb.UpdateItemInput, error) {
	op := m.ops.update
	sv, err := updateSettings(op, ch, opts)
	s := &sv
	if err != nil {
		return nil, err
	}
	if f := m.changedUnique(s); f != "" {
		how := "build it with TxUpdate and DB.TransactInput"
		if m.managed.expires != nil {
			how = "the guards carry the expiry it reads"
		}
		return nil, &InputError{Op: op, Reason: "the update changes " + m.describeGuarded(f) + ", so Update reads the item and sends a transaction; " + how}
	}
	acts, ok := []*action(nil), false
	if len(opts) == 0 && m.skeletal() {
		acts, ok, err = m.planPlainUpdate(nil, db, op, kv, s)
	}
	if !ok {
		acts, err = m.planUpdate(nil, db, op, kv, kv, s, nil)
	}
	if s.current != nil {
		acts, _, err = m.replanCurrent(nil, db, op, kv, s, acts, err)
	}
	if err != nil {
		return nil, noReadError(err, s, "Update would read them first (a strongly consistent GetItem); Set them too, or give Current, for one request")
	}
	return acts[0].UpdateItemInput(db.name), nil
}

// noReadError turns a *writes.ReadNeeded into the *ReadNeededError of a caller
// that cannot read: advice says why and what to do (NoRead's own advice
// when that option forbade the read).
func noReadError(err error, s *settings, advice string) error {
	var need *writes.ReadNeeded
	if !errors.As(err, &need) {
		return err
	}
	if s.noRead {
		advice = "Set them too (to their current values if they do not change)"
	}
	return need.Explain(advice)
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
//
// Only the entity's own item is updated: the condition holds the item's
// type attribute to the entity's name (under WithTypeAttribute's "keys",
// an item without it passes), so another entity's item at the key is left
// as it is and the update fails with an *EntityMismatchError
// (ErrWrongEntity); under "omit" too, an item that names another type is
// refused, one without the attribute passes. The item returned
// is decoded after the write: a stored attribute that does not decode as
// the field (written by other code) makes Update return a *DecodeError
// although the update was made, so do not repeat such an update blindly
// (Increment, Append would apply twice).
func (e *Entity[T]) Update(ctx context.Context, db *DB, key T, ch Changes, opts ...UpdateOption) (T, error) {
	var out T
	err := e.m.update(ctx, db, unsafe.Pointer(&key), unsafe.Pointer(&out), ch, opts)
	return out, err
}

// update is Update of the item whose key fields are set in the value at
// key, planned with a copy of it (see copyOf); the item after it, if any,
// is copied to the value at out (the generic entry's result, zero until
// then).
func (m *entityModel) update(ctx context.Context, db *DB, key, out unsafe.Pointer, ch Changes, opts []UpdateOption) error {
	op := m.ops.update
	if len(opts) == 0 && m.skeletal() {
		if done, err := m.updatePlain(ctx, db, key, out, ch); done {
			return err
		}
	}
	sv, err := updateSettings(op, ch, opts)
	s := &sv
	if err != nil {
		return err
	}
	db = db.metered(s, op, m.Name) // its reads, writes and retries
	kv, h := m.copyOf(key)
	res, err := m.updateCopy(ctx, db, key, kv, s)
	if res.IsValid() {
		m.setAt(out, res)
	}
	m.recycle(kv, h)
	return err
}

// updatePlain is update given no options, of an entity whose updates may
// take skeletons (see planPlainUpdate): planned with the key where it is
// (it only reads it; no shard to choose, no unique value to keep) and the
// item after it decoded where out points, without the copies. done is
// false, and nothing sent, when the update does not go in one request
// (it reads the item first) or fails to plan: update then does it all,
// and says what is wrong.
func (m *entityModel) updatePlain(ctx context.Context, db *DB, key, out unsafe.Pointer, ch Changes) (done bool, err error) {
	op := m.ops.update
	s := settings{changes: ch.list, cond: ch.cond}
	acts, ok, err := m.planPlainUpdate(nil, db, op, m.valueAt(key), &s)
	if !ok || err != nil {
		return false, nil
	}
	db = db.metered(&s, op, m.Name)
	_, err = m.sendUpdate(ctx, db, acts[0], reflect.NewAt(m.Type, noescape.Pointer(out)).Elem())
	return true, err
}

// updateCopy is Update planned with kv, a copy of the key at key, and
// returns the item after it (kv, or a value of its own; invalid: none).
// An update that could take a skeleton has tried it (updatePlain).
func (m *entityModel) updateCopy(ctx context.Context, db *DB, key unsafe.Pointer, kv reflect.Value, s *settings) (reflect.Value, error) {
	op := m.ops.update
	unique := m.changedUnique(s) != ""
	acts, err := m.planUpdate(nil, db, op, kv, kv, s, nil)
	if s.current != nil {
		if unique {
			// Moving a guard needs the whole item: Update reads it anyway.
			if _, err := m.currentValue(op, kv, s.current); err != nil {
				return reflect.Value{}, err
			}
		} else {
			var given *writes.Stored
			if acts, given, err = m.replanCurrent(nil, db, op, kv, s, acts, err); given != nil || err != nil {
				if err != nil {
					return reflect.Value{}, noReadError(err, s, "")
				}
				// The caller said what the item holds: a stale copy
				// fails (*StaleError) rather than being read again.
				return m.sendUpdate(ctx, db, acts[0], kv)
			}
		}
	}
	if err == nil && !unique {
		if s.upsert && m.upsertFills(s) {
			return m.upsertTwice(ctx, db, kv, s)
		}
		out, err := m.sendUpdate(ctx, db, acts[0], kv)
		if s.upsert && m.removeExpired(ctx, db, err) {
			// It found an expired item, now deleted: the same update
			// makes a new one, planned again (the Client may have
			// modified the first request).
			if acts, err = m.planUpdate(nil, db, op, kv, kv, s, nil); err != nil {
				return out, err
			}
			return m.sendUpdate(ctx, db, acts[0], kv)
		}
		return out, err
	}
	return m.updateRead(ctx, db, key, kv, *s, unique, err)
}

// upsertFills reports whether an item the upsert creates gets attributes
// the update does not name (zero values Put stores): then the forms for an
// existing item and for a new one differ (see upsertTwice).
func (m *entityModel) upsertFills(s *settings) bool {
	fills, err := writes.ZeroFills(m.Entity, s.changes, m.managed.manages)
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
func (m *entityModel) upsertTwice(ctx context.Context, db *DB, kv reflect.Value, s *settings) (reflect.Value, error) {
	var out reflect.Value
	op := m.ops.update
	for attempt := 1; ; attempt++ {
		for _, exists := range [2]bool{true, false} {
			rd := writes.NewStored(m.Entity, exists, nil)
			writes.BaseValue(m.Entity, nil, rd.Value, kv, time.Time{})
			acts, err := m.planUpdate(nil, db, op, kv, kv, s, rd)
			if err != nil {
				return out, noReadError(err, s, "")
			}
			if out, err = m.sendUpdate(ctx, db, acts[0], kv); err == nil {
				return out, nil
			}
			var ce *ConditionError
			if !errors.As(err, &ce) {
				return out, err
			}
			switch {
			case exists && len(ce.Item) == 0:
				// Absent: create it.
			case exists && m.removeExpired(ctx, db, err):
				// Expired, now deleted: create it anew.
			case !exists && len(ce.Item) > 0:
				// Created meanwhile: update it.
				if attempt == maxUpdateAttempts {
					k, _ := m.Key(kv)
					return out, &ReadChangedError{Op: op, Key: k, Attempts: attempt, Err: err}
				}
			default:
				// The caller's condition, the version ...: as it is.
				return out, err
			}
		}
	}
}

// sendUpdate sends an Update's single action and decodes the item after it
// into into, which it returns (invalid when there is no item): the key's
// copy (see copyOf), of no more use once the update is done, so that the
// result costs no allocation of its own.
func (m *entityModel) sendUpdate(ctx context.Context, db *DB, a *action, into reflect.Value) (reflect.Value, error) {
	res, err := db.client.UpdateItem(ctx, a.UpdateItemInput(db.name))
	if err != nil {
		return reflect.Value{}, a.sendError(err)
	}
	if len(res.Attributes) == 0 {
		// DynamoDB always answers ReturnValues ALL_NEW with the item: a
		// Client that does not (a mock, a wrapper) is at fault, not the item.
		return reflect.Value{}, fmt.Errorf("singletable: %s %s: UpdateItem answered without the item (Update asks for ReturnValues ALL_NEW): a Client must return it, as DynamoDB does; with singletabletest.Client, set UpdateItemFunc", a.op, formatKey(a.sentKey()))
	}
	into.SetZero()
	return into, m.decode(res.Attributes, into)
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
	e.m.txUpdate(tx, unsafe.Pointer(&key), ch, opts)
}

// txUpdate adds an Update of the item whose key fields are set in the value
// at key to tx, planned with a copy of it (see copyOf).
func (m *entityModel) txUpdate(tx *Tx, key unsafe.Pointer, ch Changes, opts []UpdateOption) {
	op := m.ops.update
	if len(opts) == 0 && m.skeletal() {
		// Planned with the key where it is, which it only reads (see
		// updatePlain).
		s := settings{changes: ch.list, cond: ch.cond}
		n := len(tx.actions)
		if acts, ok, err := m.planPlainUpdate(tx.actions, tx.db, op, m.valueAt(key), &s); ok {
			txAddUpdate(tx, op, acts, n, &s, err)
			return
		}
	}
	sv, err := updateSettings(op, ch, opts)
	s := &sv
	if err != nil {
		tx.add(nil, err)
		return
	}
	if f := m.changedUnique(s); f != "" && m.managed.expires != nil {
		// The guards carry the item's expiry, which only a read tells.
		tx.add(nil, &InputError{Op: op, Reason: "the update changes " + m.describeGuarded(f) + " of an entity that expires, whose guard items carry the item's expiry: use Update, which reads the item first (a transaction cannot)"})
		return
	}
	kv, h := m.copyOf(key)
	n := len(tx.actions)
	acts, err := m.planUpdate(tx.actions, tx.db, op, kv, kv, s, nil) // a skeleton was tried above
	if s.current != nil {
		acts, _, err = m.replanCurrent(tx.actions, tx.db, op, kv, s, acts, err)
	}
	m.recycle(kv, h)
	txAddUpdate(tx, op, acts, n, s, err)
}

// txAddUpdate adds to tx what planning a TxUpdate (settings s) gave: its
// actions (the update's at n), or the error.
func txAddUpdate(tx *Tx, op string, acts []*action, n int, s *settings, err error) {
	if err != nil {
		tx.add(nil, noReadError(err, s, "a transaction cannot read the item mid-way; Set them too, or give the item as you hold it (Current)"))
		return
	}
	if acts[n].Update == "" {
		// A transaction's Update needs an expression.
		tx.add(nil, &InputError{Op: op, Reason: "the update changes nothing: each change stores a zero value that Put leaves out (an omitempty field)"})
		return
	}
	tx.add(acts, nil)
}

// changedUnique names a unique field the update changes, or the expiry
// field of an entity with unique fields (whose guards carry the expiry);
// "" if none.
func (m *entityModel) changedUnique(s *settings) string {
	exp := m.managed.expires
	for _, c := range s.changes {
		top := topField(c.Field)
		if m.managed.isUnique(top) || (exp != nil && top == exp.GoName && len(m.managed.unique) > 0) {
			return top
		}
	}
	return ""
}

// describeGuarded names what changedUnique returned, for messages.
func (m *entityModel) describeGuarded(field string) string {
	if m.managed.isUnique(field) {
		return m.managed.describeGuard(field)
	}
	return "the expiry " + field + " of an entity with unique fields"
}
