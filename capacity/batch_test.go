package capacity_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/capacity"
	"github.com/singletable/singletable/observe"
	"github.com/singletable/singletable/singletabletest"
)

// unprocessing is a small fault-injecting Client (local to these tests):
// its first BatchWriteItem leaves the request's last item unprocessed, as
// DynamoDB does under load and DynamoDB Local never does; every request
// reports one unit per item it processed.
type unprocessing struct {
	singletabletest.Client
	calls atomic.Int32
}

func (u *unprocessing) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	out := &dynamodb.BatchWriteItemOutput{}
	for table, reqs := range in.RequestItems {
		done := len(reqs)
		if u.calls.Add(1) == 1 && len(reqs) > 1 {
			done--
			out.UnprocessedItems = map[string][]types.WriteRequest{table: reqs[done:]}
		}
		if in.ReturnConsumedCapacity != "" {
			out.ConsumedCapacity = append(out.ConsumedCapacity, types.ConsumedCapacity{TableName: aws.String(table),
				CapacityUnits: aws.Float64(float64(done)), Table: &types.Capacity{CapacityUnits: aws.Float64(float64(done))}})
		}
	}
	return out, nil
}

func TestBatchRetriesAreSummedAndObserved(t *testing.T) {
	m := newModel(t)
	c := &unprocessing{}
	rec := &observe.Recorder{}
	db := st.New(c, m.Table, observe.With(rec.Observe))
	vs := []st.BatchOp{st.BatchPut(m.Plain, Doc{Owner: "a", ID: "1"}, Doc{Owner: "a", ID: "2"}, Doc{Owner: "a", ID: "3"})}
	var got capacity.Consumed
	require.NoError(t, db.BatchWrite(context.Background(), vs, capacity.Into(&got), st.BatchRetry(st.RetryPolicy{MaxAttempts: 3})))
	assert.Equal(t, int32(2), c.calls.Load(), "the unprocessed item is sent again")
	assert.Equal(t, 2, got.Requests)
	assert.Equal(t, 3.0, got.Write, "2 units, then 1 for the retry")
	reqs := rec.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, 0, reqs[0].Retry)
	assert.Equal(t, 2, reqs[0].Items)
	assert.Equal(t, 1, reqs[1].Retry, "the retry is the library's")
	assert.Equal(t, 1, reqs[1].Items)
	assert.Equal(t, "BatchWriteItem", reqs[1].Operation)
}

// Without the option or an observer, requests do not ask for consumed
// capacity: the golden requests stay as they were.
func TestNoCapacityFieldUnlessAsked(t *testing.T) {
	m := newModel(t)
	c := &singletabletest.Client{}
	db := st.New(c, m.Table)
	ctx := context.Background()
	require.NoError(t, m.Plain.Put(ctx, db, Doc{Owner: "a", ID: "1"}))
	require.NoError(t, m.Plain.Put(ctx, db, Doc{Owner: "a", ID: "1"}, capacity.Into(new(capacity.Consumed))))
	calls := c.Calls()
	require.Len(t, calls, 2)
	assert.Empty(t, calls[0].Input.(*dynamodb.PutItemInput).ReturnConsumedCapacity)
	assert.Equal(t, types.ReturnConsumedCapacityIndexes, calls[1].Input.(*dynamodb.PutItemInput).ReturnConsumedCapacity)
}

func TestIntoNilIsRefusedBeforeSending(t *testing.T) {
	m := newModel(t)
	c := &singletabletest.Client{}
	db := st.New(c, m.Table)
	err := m.Plain.Put(context.Background(), db, Doc{Owner: "a", ID: "1"}, capacity.Into(nil))
	require.ErrorIs(t, err, st.ErrInvalidInput)
	assert.Empty(t, c.Calls(), "nothing sent")
}

// A ScanIndex pattern's Scan is metered as Entity.Scan is, by the index
// it reads (atkC F10: its requests reached neither the observer nor
// capacity.Into).
func TestIndexScanIsMetered(t *testing.T) {
	m := newModel(t)
	c := &singletabletest.Client{}
	c.ScanFunc = func(_ context.Context, in *dynamodb.ScanInput) (*dynamodb.ScanOutput, error) {
		out := &dynamodb.ScanOutput{}
		if in.ReturnConsumedCapacity != "" {
			out.ConsumedCapacity = &types.ConsumedCapacity{TableName: in.TableName, CapacityUnits: aws.Float64(2),
				GlobalSecondaryIndexes: map[string]types.Capacity{"GSI1": {CapacityUnits: aws.Float64(2)}}}
		}
		return out, nil
	}
	rec := &observe.Recorder{}
	db := st.New(c, m.Table, observe.With(rec.Observe))
	var got capacity.Consumed
	scan := m.Docs.Pattern("DocsInGSI1").On("GSI1").ScanIndex().Must()
	for _, err := range scan.Scan(context.Background(), db, capacity.Into(&got)) {
		require.NoError(t, err)
	}
	require.Len(t, c.Calls(), 1)
	assert.Equal(t, types.ReturnConsumedCapacityIndexes, c.Calls()[0].Input.(*dynamodb.ScanInput).ReturnConsumedCapacity)
	assert.Equal(t, 1, got.Requests)
	assert.Equal(t, 2.0, got.Read)
	reqs := rec.Requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, "Scan", reqs[0].Operation)
	assert.Equal(t, "GSI1", reqs[0].Index)
	assert.Equal(t, "Doc", reqs[0].Entity)
}
