// Package singletabletest is a test kit for code that uses singletable, as
// net/http/httptest is for net/http: a Client that records every request
// and answers with functions you set, without a network.
//
// To put a Client (or any wrapper) under a DB that is already configured,
// with its clock, cursor keys and table name, derive it with
// db.WithClient(client): singletable.New(client, table) would start from
// the defaults, judging expiry by the wall clock and refusing the first
// DB's cursors.
package singletabletest

import (
	"context"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/singletable/singletable"
)

// Call is one request the Client received.
type Call struct {
	Op    string // the API operation: "GetItem", "Query" ...
	Input any    // the request: *dynamodb.GetItemInput, *dynamodb.QueryInput ...
}

// Client implements singletable.Client for unit tests. Each method records
// the call, then answers with its Func field if set, or else with an empty
// output and no error (a Get finds nothing, a Query returns no items, a
// Put, Delete, batch or transaction succeeds). It is safe for concurrent use.
//
// Entity.Update is the exception: it takes the updated item from
// UpdateItem's answer (it asks for ReturnValues ALL_NEW, which DynamoDB
// always honours), and the empty answer has none, so it fails. Set
// UpdateItemFunc to answer with the item's Attributes.
//
// A failed condition is a *types.ConditionalCheckFailedException. Writes
// ask DynamoDB for the item as it was (ReturnValuesOnConditionCheckFailure
// ALL_OLD) and tell from it what failed, so a scripted one says the same
// only with Item set as the service would: the stored item for "it exists"
// (Create's ErrAlreadyExists, a *VersionConflictError with the stored
// version), nil for "there is no such item" (Update's and MustExist's
// ErrNotFound). Entity.PutInput(db, v).Item is such an item.
//
// A Func may modify any request it is given, as any singletable.Client
// may (see singletable.Client): no later request, page or retry shares it.
type Client struct {
	GetItemFunc            func(context.Context, *dynamodb.GetItemInput) (*dynamodb.GetItemOutput, error)
	PutItemFunc            func(context.Context, *dynamodb.PutItemInput) (*dynamodb.PutItemOutput, error)
	UpdateItemFunc         func(context.Context, *dynamodb.UpdateItemInput) (*dynamodb.UpdateItemOutput, error)
	DeleteItemFunc         func(context.Context, *dynamodb.DeleteItemInput) (*dynamodb.DeleteItemOutput, error)
	QueryFunc              func(context.Context, *dynamodb.QueryInput) (*dynamodb.QueryOutput, error)
	BatchGetItemFunc       func(context.Context, *dynamodb.BatchGetItemInput) (*dynamodb.BatchGetItemOutput, error)
	BatchWriteItemFunc     func(context.Context, *dynamodb.BatchWriteItemInput) (*dynamodb.BatchWriteItemOutput, error)
	TransactWriteItemsFunc func(context.Context, *dynamodb.TransactWriteItemsInput) (*dynamodb.TransactWriteItemsOutput, error)
	TransactGetItemsFunc   func(context.Context, *dynamodb.TransactGetItemsInput) (*dynamodb.TransactGetItemsOutput, error)
	ScanFunc               func(context.Context, *dynamodb.ScanInput) (*dynamodb.ScanOutput, error)

	mu    sync.Mutex
	calls []Call
}

var _ singletable.Client = (*Client)(nil)

// Calls returns the requests received so far, in order.
func (c *Client) Calls() []Call {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Call(nil), c.calls...)
}

// Reset forgets the recorded calls.
func (c *Client) Reset() {
	c.mu.Lock()
	c.calls = nil
	c.mu.Unlock()
}

func (c *Client) record(op string, in any) {
	c.mu.Lock()
	c.calls = append(c.calls, Call{Op: op, Input: in})
	c.mu.Unlock()
}

// GetItem records the call and answers with GetItemFunc.
func (c *Client) GetItem(ctx context.Context, in *dynamodb.GetItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	c.record("GetItem", in)
	if c.GetItemFunc != nil {
		return c.GetItemFunc(ctx, in)
	}
	return &dynamodb.GetItemOutput{}, nil
}

// PutItem records the call and answers with PutItemFunc.
func (c *Client) PutItem(ctx context.Context, in *dynamodb.PutItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	c.record("PutItem", in)
	if c.PutItemFunc != nil {
		return c.PutItemFunc(ctx, in)
	}
	return &dynamodb.PutItemOutput{}, nil
}

// UpdateItem records the call and answers with UpdateItemFunc.
func (c *Client) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	c.record("UpdateItem", in)
	if c.UpdateItemFunc != nil {
		return c.UpdateItemFunc(ctx, in)
	}
	return &dynamodb.UpdateItemOutput{}, nil
}

// DeleteItem records the call and answers with DeleteItemFunc.
func (c *Client) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	c.record("DeleteItem", in)
	if c.DeleteItemFunc != nil {
		return c.DeleteItemFunc(ctx, in)
	}
	return &dynamodb.DeleteItemOutput{}, nil
}

// Query records the call and answers with QueryFunc.
func (c *Client) Query(ctx context.Context, in *dynamodb.QueryInput, _ ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	c.record("Query", in)
	if c.QueryFunc != nil {
		return c.QueryFunc(ctx, in)
	}
	return &dynamodb.QueryOutput{}, nil
}

// BatchGetItem records the call and answers with BatchGetItemFunc.
func (c *Client) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	c.record("BatchGetItem", in)
	if c.BatchGetItemFunc != nil {
		return c.BatchGetItemFunc(ctx, in)
	}
	return &dynamodb.BatchGetItemOutput{}, nil
}

// BatchWriteItem records the call and answers with BatchWriteItemFunc.
func (c *Client) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	c.record("BatchWriteItem", in)
	if c.BatchWriteItemFunc != nil {
		return c.BatchWriteItemFunc(ctx, in)
	}
	return &dynamodb.BatchWriteItemOutput{}, nil
}

// TransactWriteItems records the call and answers with TransactWriteItemsFunc.
func (c *Client) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, _ ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	c.record("TransactWriteItems", in)
	if c.TransactWriteItemsFunc != nil {
		return c.TransactWriteItemsFunc(ctx, in)
	}
	return &dynamodb.TransactWriteItemsOutput{}, nil
}

// TransactGetItems records the call and answers with TransactGetItemsFunc.
func (c *Client) TransactGetItems(ctx context.Context, in *dynamodb.TransactGetItemsInput, _ ...func(*dynamodb.Options)) (*dynamodb.TransactGetItemsOutput, error) {
	c.record("TransactGetItems", in)
	if c.TransactGetItemsFunc != nil {
		return c.TransactGetItemsFunc(ctx, in)
	}
	return &dynamodb.TransactGetItemsOutput{}, nil
}

// Scan records the call and answers with ScanFunc.
func (c *Client) Scan(ctx context.Context, in *dynamodb.ScanInput, _ ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	c.record("Scan", in)
	if c.ScanFunc != nil {
		return c.ScanFunc(ctx, in)
	}
	return &dynamodb.ScanOutput{}, nil
}
