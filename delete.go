package singletable

import (
	"context"
	"errors"
	"reflect"
	"time"
	"unsafe"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/codec"
	writes "github.com/singletable/singletable/internal/write"
)

// Delete and its transaction action: one planner, planDelete, for them and
// for the deletes of a BatchWrite.

// DeleteInput is the DeleteItem request Delete sends. For an entity with unique fields Delete is a transaction: see TxDelete
// and DB.TransactInput.
func (e *Entity[T]) DeleteInput(db *DB, key T, opts ...DeleteOption) (*dynamodb.DeleteItemInput, error) {
	return e.m.deleteInput(db, reflect.ValueOf(&key).Elem(), opts)
}

// deleteInput builds the single request of a Delete of the item whose key
// fields are set in struct value key.
func (m *entityModel) deleteInput(db *DB, key reflect.Value, opts []DeleteOption) (*dynamodb.DeleteItemInput, error) {
	op := m.ops.delete
	s, err := collect(op, opts)
	if err != nil {
		return nil, err
	}
	if m.managed.deleteReads() {
		_, err := singleInput(op, make([]*action, 2), "TxDelete")
		return nil, err
	}
	acts, err := m.planDelete(nil, db, op, key, key, writeOne, s)
	if err != nil {
		return nil, err
	}
	return acts[0].DeleteItemInput(db.name), nil
}

// Delete removes the item whose primary key fields are set in key. Deleting
// a missing item succeeds, unless MustExist is given (then ErrNotFound).
// Another entity's item at the key is not deleted: the condition holds the
// item's type attribute to the entity (see Update), and Delete fails with an
// *EntityMismatchError (ErrWrongEntity).
//
// On an entity with a version field, a key whose version is non-zero must
// match the stored one (else a *VersionConflictError). On an entity with
// unique fields, Delete reads the item first (strongly consistent) to learn
// its unique values, then deletes it and its guard items in one transaction
// conditioned on the item still holding them. If another writer changes
// them meanwhile, it reads and sends again, up to 4 times, then returns a
// *ReadChangedError; an item deleted meanwhile is deleted, as a missing
// one. An item that has expired (see Expires) is deleted alone, on the
// condition that it still has: its guards are free, maybe another item's
// by now, and expire with it.
func (e *Entity[T]) Delete(ctx context.Context, db *DB, key T, opts ...DeleteOption) error {
	return e.m.delete(ctx, db, unsafe.Pointer(&key), opts)
}

// delete plans and sends a Delete of the item whose key fields are set in
// the value at key, through a copy of it (see copyOf).
func (m *entityModel) delete(ctx context.Context, db *DB, key unsafe.Pointer, opts []DeleteOption) error {
	op := m.ops.delete
	s, err := collect(op, opts)
	if err != nil {
		return err
	}
	db = db.metered(s, op, m.Name) // its read and its write
	kv, h := m.copyOf(key)
	defer m.recycle(kv, h)
	acts, err := m.planDelete(nil, db, op, kv, kv, writeOne, s) // checks everything before any read
	if err != nil {
		return err
	}
	if m.managed.deleteReads() {
		return m.deleteRead(ctx, db, op, kv, acts[0].Versioned, s)
	}
	return db.sendActions(ctx, op, acts, s)
}

// deleteRead is Delete of an entity with unique fields: it reads the item
// to learn the values whose guards it deletes, and reads again when the
// transaction fails on an item that changed meanwhile (see Delete).
// versioned: the key gives a version, which a missing item fails.
func (m *entityModel) deleteRead(ctx context.Context, db *DB, op string, kv reflect.Value, versioned bool, s *settings) error {
	cur, item, err := m.readCurrent(ctx, db, op, kv)
	for attempt := 1; ; attempt++ {
		if err != nil {
			return err
		}
		if len(item) == 0 {
			// A missing item fails MustExist, and a version check (as the
			// condition would without unique fields).
			if s.mustExist || versioned {
				k, _ := m.Key(kv)
				return &notFoundError{op: op, key: k}
			}
			return nil
		}
		now := m.managed.clock(db)
		expired := m.managed.expires != nil && (expiryCheck{attr: m.table.schema.TTLAttr, now: now.Unix()}).expired(item)
		acts, err := m.planDeleteOver(nil, db, op, kv, cur, expired, now, writeOne, s)
		if err != nil {
			return err
		}
		if err = db.sendActions(ctx, op, acts, s); err == nil {
			return nil
		}
		var vc *VersionConflictError
		if !errors.Is(err, ErrConditionFailed) || errors.As(err, &vc) {
			return err
		}
		// The item as the failure returned it: still holding the values
		// read, the caller's condition failed, and no read is needed.
		if failed := failedItem(err); len(failed) > 0 && m.sameGuarded(item, failed) {
			return err
		}
		// Did the item change (its values, its expiry) or go? Read again
		// to know, and to plan the next attempt.
		db.retrying(attempt) // what follows is the library's retry (meter.go)
		again, agItem, rerr := m.readCurrent(ctx, db, op, kv)
		if rerr != nil || (len(agItem) > 0 && m.sameGuarded(item, agItem)) {
			return err // the caller's condition: as it is
		}
		if attempt == maxUpdateAttempts {
			k, _ := m.Key(kv)
			return &ReadChangedError{Op: op, Key: k, Fields: m.deleteReadFields(), Attempts: attempt, Err: err}
		}
		cur, item = again, agItem
	}
}

// failedItem is the stored item a failed delete's condition returned
// (the item's own action, in a transaction): nil when there is none.
func failedItem(err error) map[string]types.AttributeValue {
	var te *TxError
	if errors.As(err, &te) {
		for _, f := range te.Actions {
			if f.Guard == "" && f.Op == "Delete" && f.Code == "ConditionalCheckFailed" {
				return f.Item
			}
		}
		return nil
	}
	var ce *ConditionError
	if errors.As(err, &ce) {
		return ce.Item
	}
	return nil
}

// deleteReadFields names what a Delete that reads relies on (see
// sameGuarded), for a *ReadChangedError.
func (m *entityModel) deleteReadFields() []string {
	var names []string
	for _, f := range m.managed.guarded() {
		names = append(names, f.GoName)
	}
	if exp := m.managed.expires; exp != nil {
		names = append(names, exp.GoName)
	}
	return names
}

// sameGuarded reports whether two stored items of the entity hold the same
// unique values and scopes, and the same expiry: what a Delete relies on.
func (m *entityModel) sameGuarded(a, b map[string]types.AttributeValue) bool {
	for _, f := range m.managed.guarded() {
		if !codec.Equal(a[f.Attr], b[f.Attr]) {
			return false
		}
	}
	if exp := m.managed.expires; exp != nil {
		return codec.Equal(a[exp.Attr], b[exp.Attr])
	}
	return true
}

// TxDelete adds Delete of the item whose key fields are set in key (see
// Delete). On an entity with unique fields, key
// must hold the item's unique values: their guards are deleted with it, and
// the transaction is conditioned on the item holding them (an absent item
// holds none). A transaction cannot read the expiry: over an expired item
// whose value another item has claimed since, it fails; Delete deletes it.
func (e *Entity[T]) TxDelete(tx *Tx, key T, opts ...DeleteOption) {
	e.m.txDelete(tx, unsafe.Pointer(&key), opts)
}

// txDelete adds a Delete of the item whose key fields are set in the value
// at key to tx, planned with a copy of it (see copyOf).
func (m *entityModel) txDelete(tx *Tx, key unsafe.Pointer, opts []DeleteOption) {
	op := m.ops.delete
	s, err := collect(op, opts)
	if err != nil {
		tx.add(nil, err)
		return
	}
	kv, h := m.copyOf(key)
	acts, err := m.planDelete(tx.actions, tx.db, op, kv, kv, writeOne, s)
	m.recycle(kv, h)
	tx.add(acts, err)
}

// planDelete plans a delete of the item whose key fields are set in key:
// Delete (writeOne) or a BatchWrite's delete (writeBatch: no condition).
// old holds its unique values (key itself for TxDelete, the stored item for
// Delete).
func (m *entityModel) planDelete(dst []*action, db *DB, op string, key, old reflect.Value, mode writeMode, s *settings) ([]*action, error) {
	return m.planDeleteOver(dst, db, op, key, old, false, time.Time{}, mode, s)
}

// planDeleteOver is planDelete over a stored item that has expired by now
// (oldExpired), whose guards it leaves (see onDelete).
func (m *entityModel) planDeleteOver(dst []*action, db *DB, op string, key, old reflect.Value, oldExpired bool, now time.Time, mode writeMode, s *settings) ([]*action, error) {
	if err := db.checkTable(op, m); err != nil {
		return nil, err
	}
	a, dst := newAction(dst)
	*a = action{Action: writes.Action{Kind: actDelete}, op: op, m: m}
	w := write{a: a, mode: mode, key: key, old: old, now: now, oldExpired: oldExpired}
	// Only the entity's own item is deleted (ownConds); a batch's delete
	// takes no condition.
	switch {
	case s.mustExist:
		w.cond = m.own.exists
		a.WhenMissing = failNotFound
	case mode != writeBatch:
		w.cond = m.own.absentOrOwn
	}
	// The hooks first: a batch refuses an entity before its keys are read.
	if err := m.managed.onDelete(&w); err != nil {
		return nil, err
	}
	k, kf, err := m.KeyFacts(key, nil)
	if err != nil {
		return nil, err
	}
	a.Key, a.ID, a.Bytes = k, kf.ID, kf.KeyBytes
	return w.finish(dst, s.cond, nil)
}

// readCurrent reads the stored item (strongly consistent) into a new
// struct value, and returns it as stored too (nil when there is none).
func (m *entityModel) readCurrent(ctx context.Context, db *DB, op string, key reflect.Value) (reflect.Value, map[string]types.AttributeValue, error) {
	v := reflect.New(m.Type).Elem()
	k, err := m.Key(key)
	if err != nil {
		return v, nil, err
	}
	res, err := db.client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(db.name), Key: k, ConsistentRead: aws.Bool(true)})
	if err != nil {
		return v, nil, opError(op, err)
	}
	if len(res.Item) == 0 {
		return v, nil, nil
	}
	if err := m.decode(res.Item, v); err != nil {
		return v, nil, err
	}
	return v, res.Item, nil
}
