package singletable_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
)

func TestBatchGetKeepsOrderAndReportsMisses(t *testing.T) {
	db, mock, _ := batchDB()
	var mu sync.Mutex
	seen := map[string]int{}
	mock.BatchGetItemFunc = func(_ context.Context, in *dynamodb.BatchGetItemInput) (*dynamodb.BatchGetItemOutput, error) {
		mu.Lock()
		defer mu.Unlock()
		keys := in.RequestItems["WriteShop"].Keys
		if len(keys) > 100 {
			return nil, errors.New("over 100")
		}
		out := &dynamodb.BatchGetItemOutput{Responses: map[string][]map[string]types.AttributeValue{}}
		var left []map[string]types.AttributeValue
		// Answer in reverse order, skip odd ids (misses), and leave every
		// key seen for the first time at a position divisible by 7 unprocessed.
		for i := len(keys) - 1; i >= 0; i-- {
			pk := keys[i]["PK"].(*types.AttributeValueMemberS).Value
			seen[pk]++
			var n int
			fmt.Sscanf(strings.TrimPrefix(pk, "REC#r"), "%d", &n)
			if n%7 == 0 && seen[pk] == 1 {
				left = append(left, keys[i])
				continue
			}
			if n%2 == 1 {
				continue
			}
			out.Responses["WriteShop"] = append(out.Responses["WriteShop"], map[string]types.AttributeValue{
				"PK": keys[i]["PK"], "SK": keys[i]["SK"], "_type": &types.AttributeValueMemberS{Value: "Record"},
				"id": &types.AttributeValueMemberS{Value: strings.TrimPrefix(pk, "REC#")}, "n": &types.AttributeValueMemberN{Value: fmt.Sprint(n)},
			})
		}
		if len(left) > 0 {
			out.UnprocessedKeys = map[string]types.KeysAndAttributes{"WriteShop": {Keys: left}}
		}
		return out, nil
	}
	keys := records(250)
	got, err := st.WRecords.BatchGet(context.Background(), db, keys)
	require.NoError(t, err)
	require.Len(t, got, 250)
	for i, r := range got {
		if i%2 == 1 {
			assert.Nil(t, r, "key %d is a miss", i)
			continue
		}
		require.NotNil(t, r, "key %d", i)
		assert.Equal(t, keys[i].ID, r.ID)
		assert.Equal(t, i, r.N)
	}
	ins, err := st.WRecords.BatchGetInputs(db, keys, st.ConsistentRead())
	require.NoError(t, err)
	require.Len(t, ins, 3)
	assert.Len(t, ins[2].RequestItems["WriteShop"].Keys, 50)
	assert.True(t, *ins[0].RequestItems["WriteShop"].ConsistentRead)

	// The dry run refuses what BatchGet refuses.
	for _, bad := range []st.BatchGetOption{st.Concurrency(-1), st.BatchRetry(st.RetryPolicy{})} {
		_, err = st.WRecords.BatchGetInputs(db, keys, bad)
		assert.ErrorIs(t, err, st.ErrInvalidInput)
		_, err = st.WRecords.BatchGet(context.Background(), db, keys, bad)
		assert.ErrorIs(t, err, st.ErrInvalidInput)
	}
}

func TestBatchGetBudgetReturnsTypedKeys(t *testing.T) {
	db, mock, _ := batchDB()
	mock.BatchGetItemFunc = func(_ context.Context, in *dynamodb.BatchGetItemInput) (*dynamodb.BatchGetItemOutput, error) {
		return &dynamodb.BatchGetItemOutput{UnprocessedKeys: in.RequestItems}, nil
	}
	keys := records(5)
	got, err := st.WRecords.BatchGet(context.Background(), db, keys, st.BatchRetry(st.RetryPolicy{MaxAttempts: 2}))
	assert.ErrorIs(t, err, st.ErrUnprocessed)
	assert.Len(t, got, 5)
	assert.Equal(t, keys, st.WRecords.UnprocessedKeys(err))
	assert.Len(t, mock.Calls(), 2)
}

// An item that fails to decode must not hide the keys a BatchGet left
// unread: they still come back in the *BatchError, or they would look like
// misses.
func TestBatchGetDecodeErrorKeepsUnprocessedKeys(t *testing.T) {
	db, mock, _ := batchDB()
	mock.BatchGetItemFunc = func(_ context.Context, in *dynamodb.BatchGetItemInput) (*dynamodb.BatchGetItemOutput, error) {
		keys := in.RequestItems["WriteShop"].Keys
		out := &dynamodb.BatchGetItemOutput{Responses: map[string][]map[string]types.AttributeValue{}}
		for _, k := range keys {
			pk := k["PK"].(*types.AttributeValueMemberS).Value
			switch pk {
			case "REC#r0000": // found, but its n is not a number
				out.Responses["WriteShop"] = append(out.Responses["WriteShop"], map[string]types.AttributeValue{
					"PK": k["PK"], "SK": k["SK"], "_type": &types.AttributeValueMemberS{Value: "Record"},
					"id": &types.AttributeValueMemberS{Value: "r0000"}, "n": &types.AttributeValueMemberS{Value: "x"},
				})
			case "REC#r0001": // never read
				out.UnprocessedKeys = map[string]types.KeysAndAttributes{"WriteShop": {Keys: []map[string]types.AttributeValue{k}}}
			}
		}
		return out, nil
	}
	keys := records(3)
	got, err := st.WRecords.BatchGet(context.Background(), db, keys, st.BatchRetry(st.RetryPolicy{MaxAttempts: 2}))
	require.Error(t, err)
	assert.Len(t, got, 3)
	assert.ErrorIs(t, err, st.ErrUnprocessed, "the unread key is reported: %v", err)
	assert.Equal(t, []st.WRecord{keys[1]}, st.WRecords.UnprocessedKeys(err))
	assert.ErrorIs(t, err, st.ErrDecode, "the decode error is reported too")
	assert.Contains(t, err.Error(), "decoding a Record item")
}

// BatchGet decodes each response as it comes, before its next request: a
// Client may reuse what it answered (here it rewrites its last output's
// items once asked again), and decode errors are joined in the order the
// items came. (Decoding once every request was done read the reused
// output: every item failed as another entity's.)
func TestBatchGetDecodesEachResponseInTurn(t *testing.T) {
	db, mock, _ := batchDB()
	keys := records(4)
	item := func(k map[string]types.AttributeValue, n string) map[string]types.AttributeValue {
		id := strings.TrimPrefix(k["PK"].(*types.AttributeValueMemberS).Value, "REC#")
		return map[string]types.AttributeValue{
			"PK": k["PK"], "SK": k["SK"], "_type": &types.AttributeValueMemberS{Value: "Record"},
			"id": &types.AttributeValueMemberS{Value: id}, "n": &types.AttributeValueMemberN{Value: n},
		}
	}
	var last *dynamodb.BatchGetItemOutput
	mock.BatchGetItemFunc = func(_ context.Context, in *dynamodb.BatchGetItemInput) (*dynamodb.BatchGetItemOutput, error) {
		if last != nil {
			for _, it := range last.Responses["WriteShop"] {
				it["_type"] = &types.AttributeValueMemberS{Value: "Reused"}
			}
		}
		ks := in.RequestItems["WriteShop"].Keys
		out := &dynamodb.BatchGetItemOutput{Responses: map[string][]map[string]types.AttributeValue{}}
		for i, k := range ks {
			if last == nil && i >= 2 {
				out.UnprocessedKeys = map[string]types.KeysAndAttributes{"WriteShop": {Keys: ks[2:]}}
				break
			}
			out.Responses["WriteShop"] = append(out.Responses["WriteShop"], item(k, "7"))
		}
		last = out
		return out, nil
	}
	got, err := st.WRecords.BatchGet(context.Background(), db, keys, st.BatchRetry(st.RetryPolicy{MaxAttempts: 3}))
	require.NoError(t, err)
	require.Len(t, mock.Calls(), 2)
	for i, g := range got {
		require.NotNil(t, g, "item %d", i)
		assert.Equal(t, keys[i].ID, g.ID)
	}

	// Errors in the order the items came: the last key's first.
	mock.BatchGetItemFunc = func(_ context.Context, in *dynamodb.BatchGetItemInput) (*dynamodb.BatchGetItemOutput, error) {
		ks := in.RequestItems["WriteShop"].Keys
		bad := item(ks[len(ks)-1], "1")
		bad["n"] = &types.AttributeValueMemberS{Value: "x"} // not a number
		wrong := item(ks[0], "1")
		wrong["_type"] = &types.AttributeValueMemberS{Value: "Other"}
		return &dynamodb.BatchGetItemOutput{Responses: map[string][]map[string]types.AttributeValue{"WriteShop": {bad, wrong}}}, nil
	}
	_, err = st.WRecords.BatchGet(context.Background(), db, records(2))
	require.Error(t, err)
	msg := err.Error()
	assert.Less(t, strings.Index(msg, "decoding a Record item"), strings.Index(msg, "got a Other item"), msg)
}
