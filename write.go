package singletable

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/expr"
)

// The requests of one action.

func (a *action) returnOld() types.ReturnValuesOnConditionCheckFailure {
	if a.cond == "" {
		return ""
	}
	return types.ReturnValuesOnConditionCheckFailureAllOld
}

// condExpr is the action's ConditionExpression: nil when there is none,
// else a pointer into the action, which outlives its request anyway (one
// allocation less per expression).
func (a *action) condExpr() *string {
	if a.cond == "" {
		return nil
	}
	return &a.cond
}

// updateExpr is the action's UpdateExpression: nil when the update changes
// nothing (its only change stores what Put leaves out), which UpdateItem
// takes, as it takes no expression at all.
func (a *action) updateExpr() *string {
	if a.update == "" {
		return nil
	}
	return &a.update
}

func (a *action) putItemInput(db *DB) *dynamodb.PutItemInput {
	return &dynamodb.PutItemInput{
		TableName: aws.String(db.name), Item: a.item,
		ConditionExpression: a.condExpr(), ExpressionAttributeNames: a.names, ExpressionAttributeValues: a.values,
		ReturnValuesOnConditionCheckFailure: a.returnOld(),
	}
}

func (a *action) updateItemInput(db *DB) *dynamodb.UpdateItemInput {
	return &dynamodb.UpdateItemInput{
		TableName: aws.String(db.name), Key: a.key, UpdateExpression: a.updateExpr(),
		ConditionExpression: a.condExpr(), ExpressionAttributeNames: a.names, ExpressionAttributeValues: a.values,
		ReturnValues: types.ReturnValueAllNew, ReturnValuesOnConditionCheckFailure: a.returnOld(),
	}
}

func (a *action) deleteItemInput(db *DB) *dynamodb.DeleteItemInput {
	return &dynamodb.DeleteItemInput{
		TableName: aws.String(db.name), Key: a.key,
		ConditionExpression: a.condExpr(), ExpressionAttributeNames: a.names, ExpressionAttributeValues: a.values,
		ReturnValuesOnConditionCheckFailure: a.returnOld(),
	}
}

// transactItem is the action as one item of a TransactWriteItems request,
// on the table whose name name points to (one pointer serves all the
// items of a request).
func (a *action) transactItem(name *string) types.TransactWriteItem {
	switch a.kind {
	case actPut:
		return types.TransactWriteItem{Put: &types.Put{TableName: name, Item: a.item,
			ConditionExpression: a.condExpr(), ExpressionAttributeNames: a.names, ExpressionAttributeValues: a.values,
			ReturnValuesOnConditionCheckFailure: a.returnOld()}}
	case actUpdate:
		return types.TransactWriteItem{Update: &types.Update{TableName: name, Key: a.key, UpdateExpression: &a.update,
			ConditionExpression: a.condExpr(), ExpressionAttributeNames: a.names, ExpressionAttributeValues: a.values,
			ReturnValuesOnConditionCheckFailure: a.returnOld()}}
	case actDelete:
		return types.TransactWriteItem{Delete: &types.Delete{TableName: name, Key: a.key,
			ConditionExpression: a.condExpr(), ExpressionAttributeNames: a.names, ExpressionAttributeValues: a.values,
			ReturnValuesOnConditionCheckFailure: a.returnOld()}}
	default:
		return types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{TableName: name, Key: a.key,
			ConditionExpression: &a.cond, ExpressionAttributeNames: a.names, ExpressionAttributeValues: a.values,
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}}
	}
}

// sendActions sends a plan: one action as a single-item request, more as
// one transaction (under a fresh idempotency token). A failed transaction
// returns the error of the action that failed first (a *ConditionError, a
// *VersionConflictError, a *UniqueViolationError), or the *TxError.
func (db *DB) sendActions(ctx context.Context, op string, acts []*action, s *settings) error {
	if len(acts) == 1 {
		a := acts[0]
		var err error
		switch a.kind {
		case actPut:
			_, err = db.client.PutItem(ctx, a.putItemInput(db))
		case actUpdate:
			_, err = db.client.UpdateItem(ctx, a.updateItemInput(db))
		case actDelete:
			_, err = db.client.DeleteItem(ctx, a.deleteItemInput(db))
		default:
			return &InputError{Op: op, Reason: "a condition check alone is not a write"}
		}
		if err != nil {
			return a.sendError(err)
		}
		return nil
	}
	tx := &Tx{db: db, actions: acts}
	err := tx.send(ctx, op, s)
	var te *TxError
	if errors.As(err, &te) {
		if cause := te.cause(); cause != nil {
			return cause
		}
	}
	return err
}

// readCurrent reads the stored item (strongly consistent) into a new
// struct value; found is false when there is none.
func (m *entityModel) readCurrent(ctx context.Context, db *DB, op string, key reflect.Value) (reflect.Value, bool, error) {
	v := reflect.New(m.typ).Elem()
	k, err := m.key(key)
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
		for _, f := range m.w.unique {
			if v, ok := res.Item[f.Attr]; ok && full {
				r.check[f.Attr] = v
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

// The public single-item writes.

// singleInput returns the one action of a plan, or explains that the plan
// is a transaction.
func singleInput(op string, acts []*action, tx string) (*action, error) {
	if len(acts) != 1 {
		return nil, &InputError{Op: op, Reason: fmt.Sprintf("the entity has unique fields, so this write is a transaction of %d actions; build it with %s and DB.TransactInput", len(acts), tx)}
	}
	return acts[0], nil
}

// PutInput is the PutItem request Put sends. For an entity
// with unique fields Put is a transaction: see TxPut and DB.TransactInput.
func (e *Entity[T]) PutInput(db *DB, v T, opts ...PutOption) (*dynamodb.PutItemInput, error) {
	return e.putInput(db, &v, false, opts)
}

// Put writes v, replacing any item with the same key. Its index keys are
// computed from v: an index whose key fields are empty, or whose When
// condition is false, gets no key, and the item leaves that index.
//
// On an entity with a version field, Put of version 0 needs the item not to
// exist and Put of version n needs the stored version to be n; it stores
// n+1 (v is passed by value: read the item back, or add one yourself, to
// write it again). Timestamps are set (created only when zero). On an entity
// with unique fields Put is a transaction that also writes the guard items;
// an existing item must already hold the same unique values (change them
// with Update).
func (e *Entity[T]) Put(ctx context.Context, db *DB, v T, opts ...PutOption) error {
	return e.put(ctx, db, &v, false, opts)
}

// CreateInput is the PutItem request Create sends. For an entity with unique fields Create is a transaction: see TxCreate and
// DB.TransactInput.
func (e *Entity[T]) CreateInput(db *DB, v T, opts ...PutOption) (*dynamodb.PutItemInput, error) {
	return e.putInput(db, &v, true, opts)
}

// Create writes v only if no item has its key; otherwise it fails with a
// *ConditionError matching ErrAlreadyExists. A version field is stored as 1;
// timestamps are set when zero. On an entity with unique fields, Create is
// a transaction that also creates the guard items, and a value another item
// holds is a *UniqueViolationError (ErrUniqueViolation).
func (e *Entity[T]) Create(ctx context.Context, db *DB, v T, opts ...PutOption) error {
	return e.put(ctx, db, &v, true, opts)
}

// putInput builds the single request of a Put or Create (create).
func (e *Entity[T]) putInput(db *DB, v *T, create bool, opts []PutOption) (*dynamodb.PutItemInput, error) {
	op, tx := e.m.ops.put, "TxPut"
	if create {
		op, tx = e.m.ops.create, "TxCreate"
	}
	acts, _, err := e.planPut(nil, db, op, v, create, opts)
	if err != nil {
		return nil, err
	}
	a, err := singleInput(op, acts, tx)
	if err != nil {
		return nil, err
	}
	return a.putItemInput(db), nil
}

// put plans and sends a Put or Create (create).
func (e *Entity[T]) put(ctx context.Context, db *DB, v *T, create bool, opts []PutOption) error {
	op := e.m.ops.put
	if create {
		op = e.m.ops.create
	}
	acts, s, err := e.planPut(nil, db, op, v, create, opts)
	if err != nil {
		return err
	}
	return db.sendActions(ctx, op, acts, s)
}

func (e *Entity[T]) planPut(dst []*action, db *DB, op string, v *T, create bool, opts []PutOption) ([]*action, *settings, error) {
	s, err := collect(op, opts)
	if err != nil {
		return nil, nil, err
	}
	acts, err := e.m.planPut(dst, db, op, reflect.ValueOf(v).Elem(), create, s)
	return acts, s, err
}

// DeleteInput is the DeleteItem request Delete sends. For an entity with unique fields Delete is a transaction: see TxDelete
// and DB.TransactInput.
func (e *Entity[T]) DeleteInput(db *DB, key T, opts ...DeleteOption) (*dynamodb.DeleteItemInput, error) {
	op := e.m.ops.delete
	s, err := collect(op, opts)
	if err != nil {
		return nil, err
	}
	kv := reflect.ValueOf(&key).Elem()
	if len(e.m.w.unique) > 0 {
		_, err := singleInput(op, make([]*action, 2), "TxDelete")
		return nil, err
	}
	acts, err := e.m.planDelete(nil, db, op, kv, kv, s)
	if err != nil {
		return nil, err
	}
	return acts[0].deleteItemInput(db), nil
}

// Delete removes the item whose primary key fields are set in key. Deleting
// a missing item succeeds, unless MustExist is given (then ErrNotFound).
//
// On an entity with a version field, a key whose version is non-zero must
// match the stored one (else a *VersionConflictError). On an entity with
// unique fields, Delete reads the item first (strongly consistent) to learn
// its unique values, then deletes it and its guard items in one transaction
// conditioned on the item still holding them.
func (e *Entity[T]) Delete(ctx context.Context, db *DB, key T, opts ...DeleteOption) error {
	op := e.m.ops.delete
	s, err := collect(op, opts)
	if err != nil {
		return err
	}
	kv := reflect.ValueOf(&key).Elem()
	acts, err := e.m.planDelete(nil, db, op, kv, kv, s) // checks everything before any read
	if err != nil {
		return err
	}
	if len(e.m.w.unique) > 0 {
		cur, found, err := e.m.readCurrent(ctx, db, op, kv)
		if err != nil {
			return err
		}
		if !found {
			// A missing item fails MustExist, and a version check (as the
			// condition would without unique fields).
			if s.mustExist || acts[0].versioned {
				k, _ := e.m.key(kv)
				return &notFoundError{op: op, key: k}
			}
			return nil
		}
		if acts, err = e.m.planDelete(nil, db, op, kv, cur, s); err != nil {
			return err
		}
	}
	return db.sendActions(ctx, op, acts, s)
}

// CurrentItem returns the stored item carried by a failed write's error,
// decoded as T: the current item of a *VersionConflictError or a
// *ConditionError of this entity (also inside a *TxError). ok is false when
// err carries no such item (for example, the item did not exist).
func (e *Entity[T]) CurrentItem(err error) (item T, ok bool) {
	var vc *VersionConflictError
	if errors.As(err, &vc) && vc.Entity == e.m.name {
		if cur, isT := vc.Current.(T); isT {
			return cur, true
		}
	}
	var ce *ConditionError
	if errors.As(err, &ce) && ce.Entity == e.m.name && len(ce.Item) > 0 {
		if e.m.decode(ce.Item, reflect.ValueOf(&item).Elem()) == nil {
			return item, true
		}
	}
	var te *TxError
	if errors.As(err, &te) {
		for _, f := range te.Actions {
			if f.Entity == e.m.name && f.Guard == "" && len(f.Item) > 0 {
				if e.m.decode(f.Item, reflect.ValueOf(&item).Elem()) == nil {
					return item, true
				}
			}
		}
	}
	var zero T
	return zero, false
}
