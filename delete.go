package singletable

import (
	"context"
	"reflect"
	"unsafe"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
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
// conditioned on the item still holding them.
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
		cur, found, err := m.readCurrent(ctx, db, op, kv)
		if err != nil {
			return err
		}
		if !found {
			// A missing item fails MustExist, and a version check (as the
			// condition would without unique fields).
			if s.mustExist || acts[0].Versioned {
				k, _ := m.Key(kv)
				return &notFoundError{op: op, key: k}
			}
			return nil
		}
		if acts, err = m.planDelete(nil, db, op, kv, cur, writeOne, s); err != nil {
			return err
		}
	}
	return db.sendActions(ctx, op, acts, s)
}

// TxDelete adds Delete of the item whose key fields are set in key (see
// Delete). On an entity with unique fields, key
// must hold the item's unique values: their guards are deleted with it, and
// the transaction is conditioned on the item holding them.
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
	if err := db.checkTable(op, m); err != nil {
		return nil, err
	}
	a, dst := newAction(dst)
	*a = action{Action: writes.Action{Kind: actDelete}, op: op, m: m}
	w := write{a: a, mode: mode, key: key, old: old}
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
// struct value; found is false when there is none.
func (m *entityModel) readCurrent(ctx context.Context, db *DB, op string, key reflect.Value) (reflect.Value, bool, error) {
	v := reflect.New(m.Type).Elem()
	k, err := m.Key(key)
	if err != nil {
		return v, false, err
	}
	res, err := db.client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(db.name), Key: k, ConsistentRead: aws.Bool(true)})
	if err != nil {
		return v, false, opError(op, err)
	}
	if len(res.Item) == 0 {
		return v, false, nil
	}
	if err := m.decode(res.Item, v); err != nil {
		return v, false, err
	}
	return v, true, nil
}
