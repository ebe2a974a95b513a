package singletabletest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	smithy "github.com/aws/smithy-go"

	"github.com/singletable/singletable"
)

// Faults says what a FaultClient injects. Each rate is the probability, in
// [0, 1], that a request (or, for Unprocessed, an item of a batch) meets
// the fault; the draws come from a generator seeded with Seed, so a test
// that sends its requests in the same order meets the same faults on every
// run. The zero value injects nothing.
//
// The faults are what reaches the library after the SDK's own retries:
// DynamoDB Local never throttles, never leaves a batch unprocessed and
// never has a transaction conflict, so these paths are tested here.
type Faults struct {
	// Seed seeds the generator the rates draw from.
	Seed uint64
	// Ops limits the faults to these operations ("PutItem",
	// "BatchWriteItem", ...); nil means every operation.
	Ops []string

	// Latency delays every request. A context done meanwhile ends the
	// request with the context's error, as the SDK does, before anything
	// is sent.
	Latency time.Duration
	// Cancel is the rate of requests that fail with context.Canceled
	// before they are sent, as when the caller gives up.
	Cancel float64
	// Throttle is the rate of requests refused with a
	// ProvisionedThroughputExceededException before they are sent.
	Throttle float64
	// ServerError is the rate of requests answered with a 500
	// InternalServerError before they are sent: nothing is written.
	ServerError float64
	// ServerErrorAfter is the rate of requests sent to the wrapped Client
	// and then answered with an InternalServerError anyway: the write
	// happened, but the caller is told it failed (an ambiguous failure).
	ServerErrorAfter float64
	// Unprocessed is the rate of the items of a BatchWriteItem, and the
	// keys of a BatchGetItem, withheld from the wrapped Client and handed
	// back in UnprocessedItems / UnprocessedKeys, as DynamoDB does when a
	// partition is over its capacity.
	Unprocessed float64
	// CancelTransactions cancels the n-th TransactWriteItems call with
	// the n-th list of cancellation reason codes, one per action of the
	// transaction ("None", "ConditionalCheckFailed",
	// "TransactionConflict", "ThrottlingError" ...), before it is sent;
	// the calls after the list pass. See TransactionCanceled.
	CancelTransactions [][]string
}

// Injected is one fault a FaultClient injected.
type Injected struct {
	Op    string // the operation: "PutItem", ...
	Fault string // "Latency", "Cancel", "Throttle", "ServerError", "ServerErrorAfter", "Unprocessed", "CancelTransaction"
	Count int    // for Unprocessed, the items withheld; 1 otherwise
}

// FaultClient is a singletable.Client that wraps another (DynamoDB Local,
// the recording Client, or a real *dynamodb.Client) and injects the faults
// of its Faults. It is safe for concurrent use; with concurrent requests,
// which request meets which draw depends on their order.
//
//	faulty := singletabletest.NewFaultClient(client, singletabletest.Faults{Seed: 1, Unprocessed: 0.2})
//	db = db.WithClient(faulty)
type FaultClient struct {
	inner singletable.Client
	f     Faults

	mu       sync.Mutex
	rng      *rand.Rand
	tx       int // TransactWriteItems calls so far
	injected []Injected
}

var _ singletable.Client = (*FaultClient)(nil)

// NewFaultClient returns a FaultClient that sends what passes to c.
func NewFaultClient(c singletable.Client, f Faults) *FaultClient {
	return &FaultClient{inner: c, f: f, rng: rand.New(rand.NewPCG(f.Seed, 0x5ee1ab1e))}
}

// Injected returns the faults injected so far, in order.
func (c *FaultClient) Injected() []Injected {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.injected)
}

func (c *FaultClient) note(op, fault string, n int) {
	c.injected = append(c.injected, Injected{Op: op, Fault: fault, Count: n})
}

// draw reports, under c.mu, whether a fault of rate p happens.
func (c *FaultClient) draw(p float64) bool { return p > 0 && c.rng.Float64() < p }

func (c *FaultClient) applies(op string) bool {
	return c.f.Ops == nil || slices.Contains(c.f.Ops, op)
}

// before injects the faults met before a request is sent: an error ends
// the request there. after reports whether the answer is to be replaced by
// a server error.
func (c *FaultClient) before(ctx context.Context, op string) (after bool, err error) {
	if !c.applies(op) {
		return false, nil
	}
	if c.f.Latency > 0 {
		t := time.NewTimer(c.f.Latency)
		select {
		case <-ctx.Done():
			t.Stop()
			return false, opError(op, ctx.Err())
		case <-t.C:
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.f.Latency > 0 {
		c.note(op, "Latency", 1)
	}
	switch {
	case c.draw(c.f.Cancel):
		c.note(op, "Cancel", 1)
		return false, opError(op, context.Canceled)
	case c.draw(c.f.Throttle):
		c.note(op, "Throttle", 1)
		return false, opError(op, &types.ProvisionedThroughputExceededException{
			Message: aws.String("The level of configured provisioned throughput for the table was exceeded (injected)")})
	case c.draw(c.f.ServerError):
		c.note(op, "ServerError", 1)
		return false, opError(op, serverError())
	}
	if c.draw(c.f.ServerErrorAfter) {
		c.note(op, "ServerErrorAfter", 1)
		return true, nil
	}
	return false, nil
}

func serverError() error {
	return &types.InternalServerError{Message: aws.String("Internal server error (injected)")}
}

// opError wraps err as the SDK wraps an operation's error.
func opError(op string, err error) error {
	return &smithy.OperationError{ServiceID: "DynamoDB", OperationName: op, Err: err}
}

// call runs one request through the faults: before, send, after.
func call[O any](c *FaultClient, ctx context.Context, op string, send func() (*O, error)) (*O, error) {
	after, err := c.before(ctx, op)
	if err != nil {
		return nil, err
	}
	out, err := send()
	if err == nil && after {
		return nil, opError(op, serverError())
	}
	return out, err
}

// TransactionCanceled returns the error DynamoDB answers a cancelled
// TransactWriteItems with: a *types.TransactionCanceledException with one
// cancellation reason per action, by code ("None" for an action that did
// not fail, "ConditionalCheckFailed", "TransactionConflict", ...). Its
// reasons carry no stored item; see TransactionCanceledBy for those.
func TransactionCanceled(codes ...string) error {
	reasons := make([]types.CancellationReason, len(codes))
	for i, code := range codes {
		reasons[i] = types.CancellationReason{Code: aws.String(code)}
	}
	return TransactionCanceledBy(reasons...)
}

// TransactionCanceledBy is TransactionCanceled with the reasons given
// whole. A ConditionalCheckFailed reason's Item is the item as stored, as
// DynamoDB returns it to the library (which asks for it): with it, a
// duplicate TxCreate is an ErrAlreadyExists and a stale version a
// version conflict, as against the service; without it, a condition
// failure.
//
//	TransactionCanceledBy(
//		types.CancellationReason{Code: aws.String("None")},
//		types.CancellationReason{Code: aws.String("ConditionalCheckFailed"), Item: Item(t, db, Notes, stored)})
func TransactionCanceledBy(reasons ...types.CancellationReason) error {
	codes := make([]string, len(reasons))
	for i := range reasons {
		codes[i] = aws.ToString(reasons[i].Code)
		if codes[i] != "None" && reasons[i].Message == nil {
			reasons[i].Message = aws.String(codes[i] + " (injected)")
		}
	}
	return &types.TransactionCanceledException{
		Message:             aws.String("Transaction cancelled, please refer cancellation reasons for specific reasons [" + strings.Join(codes, ", ") + "]"),
		CancellationReasons: reasons,
	}
}

// GetItem sends the request through the faults.
func (c *FaultClient) GetItem(ctx context.Context, in *dynamodb.GetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	return call(c, ctx, "GetItem", func() (*dynamodb.GetItemOutput, error) { return c.inner.GetItem(ctx, in, o...) })
}

// PutItem sends the request through the faults.
func (c *FaultClient) PutItem(ctx context.Context, in *dynamodb.PutItemInput, o ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	return call(c, ctx, "PutItem", func() (*dynamodb.PutItemOutput, error) { return c.inner.PutItem(ctx, in, o...) })
}

// UpdateItem sends the request through the faults.
func (c *FaultClient) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	return call(c, ctx, "UpdateItem", func() (*dynamodb.UpdateItemOutput, error) { return c.inner.UpdateItem(ctx, in, o...) })
}

// DeleteItem sends the request through the faults.
func (c *FaultClient) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, o ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	return call(c, ctx, "DeleteItem", func() (*dynamodb.DeleteItemOutput, error) { return c.inner.DeleteItem(ctx, in, o...) })
}

// Query sends the request through the faults.
func (c *FaultClient) Query(ctx context.Context, in *dynamodb.QueryInput, o ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	return call(c, ctx, "Query", func() (*dynamodb.QueryOutput, error) { return c.inner.Query(ctx, in, o...) })
}

// Scan sends the request through the faults.
func (c *FaultClient) Scan(ctx context.Context, in *dynamodb.ScanInput, o ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	return call(c, ctx, "Scan", func() (*dynamodb.ScanOutput, error) { return c.inner.Scan(ctx, in, o...) })
}

// TransactGetItems sends the request through the faults.
func (c *FaultClient) TransactGetItems(ctx context.Context, in *dynamodb.TransactGetItemsInput, o ...func(*dynamodb.Options)) (*dynamodb.TransactGetItemsOutput, error) {
	return call(c, ctx, "TransactGetItems", func() (*dynamodb.TransactGetItemsOutput, error) { return c.inner.TransactGetItems(ctx, in, o...) })
}

// TransactWriteItems sends the request through the faults, and cancels it
// as CancelTransactions says.
func (c *FaultClient) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, o ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	const op = "TransactWriteItems"
	return call(c, ctx, op, func() (*dynamodb.TransactWriteItemsOutput, error) {
		c.mu.Lock()
		var codes []string
		if c.applies(op) && c.tx < len(c.f.CancelTransactions) {
			codes = c.f.CancelTransactions[c.tx]
			c.note(op, "CancelTransaction", 1)
		}
		c.tx++
		c.mu.Unlock()
		if codes != nil {
			return nil, opError(op, TransactionCanceled(codes...))
		}
		return c.inner.TransactWriteItems(ctx, in, o...)
	})
}

// BatchWriteItem withholds items at the Unprocessed rate (they come back in
// UnprocessedItems) and sends the rest through the faults.
func (c *FaultClient) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	const op = "BatchWriteItem"
	return call(c, ctx, op, func() (*dynamodb.BatchWriteItemOutput, error) {
		send, held := map[string][]types.WriteRequest{}, map[string][]types.WriteRequest{}
		n := 0
		c.mu.Lock()
		for _, table := range sortedKeys(in.RequestItems) {
			for _, r := range in.RequestItems[table] {
				if c.applies(op) && c.draw(c.f.Unprocessed) {
					held[table] = append(held[table], r)
					n++
				} else {
					send[table] = append(send[table], r)
				}
			}
		}
		if n > 0 {
			c.note(op, "Unprocessed", n)
		}
		c.mu.Unlock()
		out := &dynamodb.BatchWriteItemOutput{}
		if len(send) > 0 {
			req := *in
			req.RequestItems = send
			var err error
			if out, err = c.inner.BatchWriteItem(ctx, &req, o...); err != nil {
				return nil, err
			}
		}
		if n > 0 {
			if out.UnprocessedItems == nil {
				out.UnprocessedItems = map[string][]types.WriteRequest{}
			}
			for table, rs := range held {
				out.UnprocessedItems[table] = append(out.UnprocessedItems[table], rs...)
			}
		}
		return out, nil
	})
}

// BatchGetItem withholds keys at the Unprocessed rate (they come back in
// UnprocessedKeys) and sends the rest through the faults.
func (c *FaultClient) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	const op = "BatchGetItem"
	return call(c, ctx, op, func() (*dynamodb.BatchGetItemOutput, error) {
		send, held := map[string]types.KeysAndAttributes{}, map[string]types.KeysAndAttributes{}
		n := 0
		c.mu.Lock()
		for _, table := range sortedKeys(in.RequestItems) {
			ka := in.RequestItems[table]
			s, h := ka, ka
			s.Keys, h.Keys = nil, nil
			for _, k := range ka.Keys {
				if c.applies(op) && c.draw(c.f.Unprocessed) {
					h.Keys = append(h.Keys, k)
					n++
				} else {
					s.Keys = append(s.Keys, k)
				}
			}
			if len(s.Keys) > 0 {
				send[table] = s
			}
			if len(h.Keys) > 0 {
				held[table] = h
			}
		}
		if n > 0 {
			c.note(op, "Unprocessed", n)
		}
		c.mu.Unlock()
		out := &dynamodb.BatchGetItemOutput{}
		if len(send) > 0 {
			req := *in
			req.RequestItems = send
			var err error
			if out, err = c.inner.BatchGetItem(ctx, &req, o...); err != nil {
				return nil, err
			}
		}
		if n > 0 {
			if out.UnprocessedKeys == nil {
				out.UnprocessedKeys = map[string]types.KeysAndAttributes{}
			}
			for table, h := range held {
				if prev, ok := out.UnprocessedKeys[table]; ok {
					h.Keys = append(prev.Keys, h.Keys...)
				}
				out.UnprocessedKeys[table] = h
			}
		}
		return out, nil
	})
}

// sortedKeys orders a batch's tables, so that the draws do not depend on
// map order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// String describes an injected fault, for test logs.
func (i Injected) String() string { return fmt.Sprintf("%s %s ×%d", i.Op, i.Fault, i.Count) }
