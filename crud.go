package singletable

import (
	"context"
	"errors"
	"reflect"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/expr"
)

// Each operation comes in two halves: XxxInput builds the request (pure: no
// network, safe to log or golden-test: a dry run), and Xxx sends it through
// the DB's client and decodes the answer.

// GetInput is the GetItem request Get sends for the item whose primary key
// fields are set in key. Options: ConsistentRead.
func (e *Entity[T]) GetInput(db *DB, key T, opts ...Option) (*dynamodb.GetItemInput, error) {
	op := e.m.name + ".Get"
	s, err := collect(op, optConsistent, opts)
	if err != nil {
		return nil, err
	}
	if err := db.checkTable(op, e.m); err != nil {
		return nil, err
	}
	k, err := e.m.key(reflect.ValueOf(&key).Elem())
	if err != nil {
		return nil, err
	}
	in := &dynamodb.GetItemInput{TableName: aws.String(db.name), Key: k}
	if s.consistent {
		in.ConsistentRead = aws.Bool(true)
	}
	return in, nil
}

// Get reads the item whose primary key fields are set in key. A missing
// item is ErrNotFound; an item of another entity is ErrWrongEntity.
func (e *Entity[T]) Get(ctx context.Context, db *DB, key T, opts ...Option) (T, error) {
	var out T
	in, err := e.GetInput(db, key, opts...)
	if err != nil {
		return out, err
	}
	res, err := db.client.GetItem(ctx, in)
	if err != nil {
		return out, opError(e.m.name+".Get", err)
	}
	if len(res.Item) == 0 {
		return out, &notFoundError{op: e.m.name + ".Get", key: in.Key}
	}
	err = e.m.decode(res.Item, reflect.ValueOf(&out).Elem())
	return out, err
}

// notFoundError is a read that found no item. It matches ErrNotFound.
type notFoundError struct {
	op  string
	key map[string]types.AttributeValue
}

func (e *notFoundError) Error() string {
	return "singletable: " + e.op + " " + formatKey(e.key) + ": item not found"
}

func (e *notFoundError) Is(target error) bool { return target == ErrNotFound }

// PutInput is the PutItem request Put sends. Options: If.
func (e *Entity[T]) PutInput(db *DB, v T, opts ...Option) (*dynamodb.PutItemInput, error) {
	return e.putInput(db, e.m.name+".Put", v, Cond{}, opts)
}

// Put writes v, replacing any item with the same key. Its index keys are
// computed from v: an index whose key fields are empty, or whose When
// condition is false, gets no key, and the item leaves that index.
func (e *Entity[T]) Put(ctx context.Context, db *DB, v T, opts ...Option) error {
	in, err := e.PutInput(db, v, opts...)
	if err != nil {
		return err
	}
	return e.sendPut(ctx, db, e.m.name+".Put", in, ErrConditionFailed)
}

// CreateInput is the PutItem request Create sends. Options: If.
func (e *Entity[T]) CreateInput(db *DB, v T, opts ...Option) (*dynamodb.PutItemInput, error) {
	return e.putInput(db, e.m.name+".Create", v, attrNotExists(e.m.table.pk), opts)
}

// Create writes v only if no item has its key; otherwise it fails with a
// *ConditionError matching ErrAlreadyExists.
func (e *Entity[T]) Create(ctx context.Context, db *DB, v T, opts ...Option) error {
	in, err := e.CreateInput(db, v, opts...)
	if err != nil {
		return err
	}
	return e.sendPut(ctx, db, e.m.name+".Create", in, ErrAlreadyExists)
}

func (e *Entity[T]) putInput(db *DB, op string, v T, base Cond, opts []Option) (*dynamodb.PutItemInput, error) {
	s, err := collect(op, optCondition, opts)
	if err != nil {
		return nil, err
	}
	if err := db.checkTable(op, e.m); err != nil {
		return nil, err
	}
	item, err := e.m.item(reflect.ValueOf(&v).Elem())
	if err != nil {
		return nil, err
	}
	in := &dynamodb.PutItemInput{TableName: aws.String(db.name), Item: item}
	var b expr.Builder
	cond, err := renderCond(And(base, s.cond), e.m, &b)
	if err != nil {
		return nil, &InputError{Op: op, Reason: err.Error()}
	}
	if cond != "" {
		in.ConditionExpression = aws.String(cond)
		in.ExpressionAttributeNames, in.ExpressionAttributeValues = b.Names, b.Values
		in.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
	}
	return in, nil
}

// sendPut sends a put; a failed condition on an existing item is
// whenExisting (ErrAlreadyExists for Create).
func (e *Entity[T]) sendPut(ctx context.Context, db *DB, op string, in *dynamodb.PutItemInput, whenExisting error) error {
	_, err := db.client.PutItem(ctx, in)
	if err == nil {
		return nil
	}
	return conditionError(op, e.m, e.m.keyOfItem(in.Item), err, func(existed bool) error {
		if existed {
			return whenExisting
		}
		return ErrConditionFailed
	})
}

// DeleteInput is the DeleteItem request Delete sends. Options: MustExist, If.
func (e *Entity[T]) DeleteInput(db *DB, key T, opts ...Option) (*dynamodb.DeleteItemInput, error) {
	in, _, err := e.deleteInput(db, key, opts)
	return in, err
}

func (e *Entity[T]) deleteInput(db *DB, key T, opts []Option) (*dynamodb.DeleteItemInput, *settings, error) {
	op := e.m.name + ".Delete"
	s, err := collect(op, optMustExist|optCondition, opts)
	if err != nil {
		return nil, nil, err
	}
	if err := db.checkTable(op, e.m); err != nil {
		return nil, nil, err
	}
	k, err := e.m.key(reflect.ValueOf(&key).Elem())
	if err != nil {
		return nil, nil, err
	}
	in := &dynamodb.DeleteItemInput{TableName: aws.String(db.name), Key: k}
	c := s.cond
	if s.mustExist {
		c = And(attrExists(e.m.table.pk), c)
	}
	var b expr.Builder
	cond, err := renderCond(c, e.m, &b)
	if err != nil {
		return nil, nil, &InputError{Op: op, Reason: err.Error()}
	}
	if cond != "" {
		in.ConditionExpression = aws.String(cond)
		in.ExpressionAttributeNames, in.ExpressionAttributeValues = b.Names, b.Values
		in.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
	}
	return in, s, nil
}

// Delete removes the item whose primary key fields are set in key. Deleting
// a missing item succeeds, unless MustExist is given (then ErrNotFound).
func (e *Entity[T]) Delete(ctx context.Context, db *DB, key T, opts ...Option) error {
	in, s, err := e.deleteInput(db, key, opts)
	if err != nil {
		return err
	}
	_, err = db.client.DeleteItem(ctx, in)
	if err == nil {
		return nil
	}
	return conditionError(e.m.name+".Delete", e.m, in.Key, err, func(existed bool) error {
		if !existed && s.mustExist {
			return ErrNotFound
		}
		return ErrConditionFailed
	})
}

// conditionError turns a ConditionalCheckFailedException into a
// *ConditionError whose Kind kindOf chooses from whether the item existed;
// any other error is wrapped as is.
func conditionError(op string, m *entityModel, key map[string]types.AttributeValue, err error, kindOf func(existed bool) error) error {
	var ccf *types.ConditionalCheckFailedException
	if !errors.As(err, &ccf) {
		return opError(op, err)
	}
	return &ConditionError{Op: op, Entity: m.name, Key: key, Item: ccf.Item, Kind: kindOf(len(ccf.Item) > 0), Err: err}
}
