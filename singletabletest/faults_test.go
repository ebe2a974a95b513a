package singletabletest_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/singletable/singletable"
	"github.com/singletable/singletable/singletabletest"
)

func notes(n int) []Note {
	out := make([]Note, n)
	for i := range out {
		out[i] = Note{ID: fmt.Sprint(i)}
	}
	return out
}

// written counts the notes the mock's BatchWriteItem calls carried.
func written(mock *singletabletest.Client) int {
	n := 0
	for _, c := range mock.Calls() {
		if in, ok := c.Input.(*dynamodb.BatchWriteItemInput); ok {
			n += len(in.RequestItems["Notes"])
		}
	}
	return n
}

// Withheld items come back unprocessed and are never sent; the library
// retries them until every item is written once.
func TestFaultClientUnprocessed(t *testing.T) {
	mock := &singletabletest.Client{}
	faulty := singletabletest.NewFaultClient(mock, singletabletest.Faults{Seed: 7, Unprocessed: 0.3})
	db := singletable.New(faulty, notesTable, singletabletest.NoRetryDelay())
	require.NoError(t, db.BatchWrite(context.Background(), []singletable.BatchOp{singletable.BatchPut(Notes, notes(60)...)}))
	assert.Equal(t, 60, written(mock), "each note sent exactly once")
	withheld := 0
	for _, f := range faulty.Injected() {
		require.Equal(t, "Unprocessed", f.Fault)
		withheld += f.Count
	}
	assert.Greater(t, withheld, 10)
	assert.Greater(t, len(mock.Calls()), 3, "more requests than the 3 chunks: the retries")

	// BatchGetItem: the withheld keys come back in UnprocessedKeys.
	mock.Reset()
	out, err := faulty.BatchGetItem(context.Background(), &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
		"Notes": {Keys: []map[string]types.AttributeValue{{"PK": &types.AttributeValueMemberS{Value: "a"}}, {"PK": &types.AttributeValueMemberS{Value: "b"}},
			{"PK": &types.AttributeValueMemberS{Value: "c"}}, {"PK": &types.AttributeValueMemberS{Value: "d"}}}, ConsistentRead: aws.Bool(true)},
	}})
	require.NoError(t, err)
	sent := 0
	if calls := mock.Calls(); len(calls) == 1 {
		sent = len(calls[0].Input.(*dynamodb.BatchGetItemInput).RequestItems["Notes"].Keys)
	}
	held := out.UnprocessedKeys["Notes"]
	assert.Equal(t, 4, sent+len(held.Keys))
	assert.NotEmpty(t, held.Keys)
	assert.True(t, *held.ConsistentRead, "the unprocessed keys keep their read's settings")
}

// The same seed injects the same faults.
func TestFaultClientSeedIsDeterministic(t *testing.T) {
	run := func(seed uint64) []singletabletest.Injected {
		faulty := singletabletest.NewFaultClient(&singletabletest.Client{}, singletabletest.Faults{Seed: seed, Throttle: 0.3, ServerError: 0.2})
		for range 50 {
			_, _ = faulty.GetItem(context.Background(), &dynamodb.GetItemInput{})
		}
		return faulty.Injected()
	}
	a := run(1)
	assert.NotEmpty(t, a)
	assert.Equal(t, a, run(1))
	assert.NotEqual(t, a, run(2))
}

// Errors before the request are not sent; ServerErrorAfter is sent, then
// fails. Each error is typed as the SDK's.
func TestFaultClientErrors(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		faults singletabletest.Faults
		sent   bool
		check  func(t *testing.T, err error)
	}{
		{singletabletest.Faults{Throttle: 1}, false, func(t *testing.T, err error) {
			var e *types.ProvisionedThroughputExceededException
			assert.ErrorAs(t, err, &e)
		}},
		{singletabletest.Faults{ServerError: 1}, false, func(t *testing.T, err error) {
			var e *types.InternalServerError
			assert.ErrorAs(t, err, &e)
		}},
		{singletabletest.Faults{ServerErrorAfter: 1}, true, func(t *testing.T, err error) {
			var e *types.InternalServerError
			assert.ErrorAs(t, err, &e)
		}},
		{singletabletest.Faults{Cancel: 1}, false, func(t *testing.T, err error) { assert.ErrorIs(t, err, context.Canceled) }},
		{singletabletest.Faults{Throttle: 1, Ops: []string{"GetItem"}}, true, func(t *testing.T, err error) { assert.NoError(t, err) }},
	} {
		mock := &singletabletest.Client{}
		faulty := singletabletest.NewFaultClient(mock, tc.faults)
		_, err := faulty.PutItem(ctx, &dynamodb.PutItemInput{})
		tc.check(t, err)
		assert.Equal(t, tc.sent, len(mock.Calls()) == 1, "%+v", tc.faults)
	}

	// Latency: a context done meanwhile ends the request, unsent.
	mock := &singletabletest.Client{}
	faulty := singletabletest.NewFaultClient(mock, singletabletest.Faults{Latency: time.Hour})
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err := faulty.GetItem(cctx, &dynamodb.GetItemInput{})
	assert.ErrorIs(t, err, context.Canceled)
	assert.Empty(t, mock.Calls())
}

// Cancelled transactions carry the chosen reasons, in order, and the
// library reports them: the n-th call the n-th list, later calls pass.
func TestFaultClientCancelTransactions(t *testing.T) {
	ctx := context.Background()
	mock := &singletabletest.Client{}
	faulty := singletabletest.NewFaultClient(mock, singletabletest.Faults{CancelTransactions: [][]string{{"None", "ConditionalCheckFailed"}}})
	db := singletable.New(faulty, notesTable)
	tx := func() error {
		return db.Transact(ctx, func(tx *singletable.Tx) error {
			Notes.TxPut(tx, Note{ID: "a"})
			Notes.TxPut(tx, Note{ID: "b"})
			return nil
		})
	}
	err := tx()
	var tce *types.TransactionCanceledException
	require.ErrorAs(t, err, &tce)
	require.Len(t, tce.CancellationReasons, 2)
	assert.Equal(t, "ConditionalCheckFailed", *tce.CancellationReasons[1].Code)
	assert.ErrorIs(t, err, singletable.ErrConditionFailed)
	assert.Empty(t, mock.Calls(), "a cancelled transaction is not sent")

	require.NoError(t, tx())
	assert.Len(t, mock.Calls(), 1)
}

// waitCounter is a context that counts the calls of Done: waiting (a
// timer raced against the context) is the only use the batch path makes of
// it, so the count tells how many backoffs waited, without timing anything.
type waitCounter struct {
	context.Context
	mu    sync.Mutex
	waits int
}

func (c *waitCounter) Done() <-chan struct{} {
	c.mu.Lock()
	c.waits++
	c.mu.Unlock()
	return c.Context.Done()
}

// NoRetryDelay: the retries of a batch do not wait.
func TestNoRetryDelay(t *testing.T) {
	waits := func(opts ...singletable.DBOption) int {
		mock := &singletabletest.Client{}
		faulty := singletabletest.NewFaultClient(mock, singletabletest.Faults{Seed: 3, Unprocessed: 0.5})
		db := singletable.New(faulty, notesTable, opts...)
		ctx := &waitCounter{Context: context.Background()}
		require.NoError(t, db.BatchWrite(ctx, []singletable.BatchOp{singletable.BatchPut(Notes, notes(5)...)}))
		require.NotEmpty(t, faulty.Injected())
		assert.Equal(t, 5, written(mock))
		return ctx.waits
	}
	assert.Positive(t, waits(), "the default backoff waits")
	assert.Zero(t, waits(singletabletest.NoRetryDelay()))
}

func TestTypedAnswers(t *testing.T) {
	ctx := context.Background()
	mock := &singletabletest.Client{}
	db := singletable.New(mock, notesTable)
	mock.GetItemFunc = singletabletest.GetItemReturns(t, db, Notes, Note{ID: "n1", Text: "hi"})
	mock.QueryFunc = singletabletest.QueryReturns(t, db, Notes, Note{ID: "n1", Text: "a"}, Note{ID: "n2", Text: "b"})
	mock.UpdateItemFunc = singletabletest.UpdateItemReturns(t, db, Notes, Note{ID: "n1", Text: "new"})

	got, err := Notes.Get(ctx, db, Note{ID: "n1"})
	require.NoError(t, err)
	assert.Equal(t, Note{ID: "n1", Text: "hi"}, got)
	page, err := Notes.Query(ctx, db, Note{ID: "n1"})
	require.NoError(t, err)
	assert.Equal(t, []Note{{ID: "n1", Text: "a"}, {ID: "n2", Text: "b"}}, page.Items)
	up, err := Notes.Update(ctx, db, Note{ID: "n1"}, singletable.Set("Text", "new"))
	require.NoError(t, err)
	assert.Equal(t, "new", up.Text)

	mock.PutItemFunc = func(context.Context, *dynamodb.PutItemInput) (*dynamodb.PutItemOutput, error) {
		return nil, singletabletest.ConditionFailed(singletabletest.Item(t, db, Notes, Note{ID: "n1"}))
	}
	assert.ErrorIs(t, Notes.Create(ctx, db, Note{ID: "n1"}), singletable.ErrAlreadyExists)
	assert.True(t, errors.Is(Notes.Create(ctx, db, Note{ID: "n1"}), singletable.ErrAlreadyExists))
}

// A cancelled transaction scripted with the stored item of the failed
// action answers as the service does: a duplicate TxCreate is
// ErrAlreadyExists; with the code alone, a condition failure.
func TestTransactionCanceledBy(t *testing.T) {
	ctx := context.Background()
	mock := &singletabletest.Client{}
	db := singletable.New(mock, notesTable)
	create := func() error {
		return db.Transact(ctx, func(tx *singletable.Tx) error {
			Notes.TxCreate(tx, Note{ID: "n1"})
			Notes.TxCreate(tx, Note{ID: "n2"})
			return nil
		})
	}
	mock.TransactWriteItemsFunc = func(context.Context, *dynamodb.TransactWriteItemsInput) (*dynamodb.TransactWriteItemsOutput, error) {
		return nil, singletabletest.TransactionCanceledBy(
			types.CancellationReason{Code: aws.String("None")},
			types.CancellationReason{Code: aws.String("ConditionalCheckFailed"), Item: singletabletest.Item(t, db, Notes, Note{ID: "n2"})})
	}
	assert.ErrorIs(t, create(), singletable.ErrAlreadyExists)
	mock.TransactWriteItemsFunc = func(context.Context, *dynamodb.TransactWriteItemsInput) (*dynamodb.TransactWriteItemsOutput, error) {
		return nil, singletabletest.TransactionCanceled("None", "ConditionalCheckFailed")
	}
	err := create()
	assert.ErrorIs(t, err, singletable.ErrConditionFailed)
	assert.NotErrorIs(t, err, singletable.ErrAlreadyExists)
}
