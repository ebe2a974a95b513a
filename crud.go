package singletable

import (
	"context"
	"reflect"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Each operation comes in two halves: XxxInput builds the request (pure: no
// network, safe to log or golden-test: a dry run), and Xxx sends it through
// the DB's client and decodes the answer.

// GetInput is the GetItem request Get sends for the item whose primary key
// fields are set in key.
func (e *Entity[T]) GetInput(db *DB, key T, opts ...GetOption) (*dynamodb.GetItemInput, error) {
	return e.getInput(db, reflect.ValueOf(&key).Elem(), opts)
}

// getInput is GetInput for the key struct value key.
func (e *Entity[T]) getInput(db *DB, key reflect.Value, opts []GetOption) (*dynamodb.GetItemInput, error) {
	op := e.m.ops.get
	s, err := collect(op, opts)
	if err != nil {
		return nil, err
	}
	if err := db.checkTable(op, e.m); err != nil {
		return nil, err
	}
	k, err := e.m.key(key)
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
func (e *Entity[T]) Get(ctx context.Context, db *DB, key T, opts ...GetOption) (T, error) {
	// The key and the result go through reflection, which moves them to
	// the heap: one allocation for both rather than one each.
	vs := &struct{ key, out T }{key: key}
	in, err := e.getInput(db, reflect.ValueOf(&vs.key).Elem(), opts)
	if err != nil {
		return vs.out, err
	}
	res, err := db.client.GetItem(ctx, in)
	if err != nil {
		return vs.out, opError(e.m.ops.get, err)
	}
	if len(res.Item) == 0 {
		return vs.out, &notFoundError{op: e.m.ops.get, key: in.Key}
	}
	err = e.m.decode(res.Item, reflect.ValueOf(&vs.out).Elem())
	return vs.out, err
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

// The write half (Put, Create, Delete and their inputs) is in write.go.
