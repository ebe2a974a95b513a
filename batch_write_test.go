package singletable_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/golden"
	"github.com/singletable/singletable/singletabletest"
)

// batchDB is a DB on the mock whose batch backoff does not sleep: it
// records the waits it was asked for (jitter returns the full delay).
func batchDB() (*st.DB, *singletabletest.Client, *[]time.Duration) {
	db, mock := pureDB()
	var mu sync.Mutex
	var waits []time.Duration
	st.SetBatchTiming(db, func(_ context.Context, d time.Duration) error {
		mu.Lock()
		waits = append(waits, d)
		mu.Unlock()
		return nil
	}, func(d time.Duration) time.Duration { return d })
	return db, mock, &waits
}

func records(n int) []st.WRecord {
	out := make([]st.WRecord, n)
	for i := range out {
		out[i] = st.WRecord{ID: fmt.Sprintf("r%04d", i), N: i}
	}
	return out
}

func TestBatchWriteInputsChunksMixedEntities(t *testing.T) {
	db, mock, _ := batchDB()
	ins, err := db.BatchWriteInputs([]st.BatchOp{
		st.BatchPut(st.WRecords, records(40)...),
		st.BatchDelete(st.WOrders, st.WOrder{UserID: "u1", ID: "o1"}, st.WOrder{UserID: "u1", ID: "o2"}),
		st.BatchPut(st.WProducts, st.WProduct{ID: "p1", Name: "Pen", Category: "office", Version: 2}),
	})
	require.NoError(t, err)
	require.Len(t, ins, 2)
	assert.Len(t, ins[0].RequestItems["WriteShop"], 25)
	assert.Len(t, ins[1].RequestItems["WriteShop"], 18)
	golden.Request(t, "batch/write_second_chunk", ins[1])
	assert.Empty(t, mock.Calls())
}

// keyOfRequest names a write request's item for the fake.
func keyOfRequest(r types.WriteRequest) string {
	var k map[string]types.AttributeValue
	if r.PutRequest != nil {
		k = r.PutRequest.Item
	} else {
		k = r.DeleteRequest.Key
	}
	return k["PK"].(*types.AttributeValueMemberS).Value
}

func TestBatchWriteMergesAndRetriesUnprocessed(t *testing.T) {
	db, mock, waits := batchDB()
	var mu sync.Mutex
	written := map[string]int{}
	calls := 0
	mock.BatchWriteItemFunc = func(_ context.Context, in *dynamodb.BatchWriteItemInput) (*dynamodb.BatchWriteItemOutput, error) {
		mu.Lock()
		defer mu.Unlock()
		calls++
		reqs := in.RequestItems["WriteShop"]
		if len(reqs) > 25 {
			return nil, errors.New("over 25")
		}
		// Write the first half, leave the rest unprocessed.
		half := (len(reqs) + 1) / 2
		for _, r := range reqs[:half] {
			written[keyOfRequest(r)]++
		}
		out := &dynamodb.BatchWriteItemOutput{}
		if half < len(reqs) {
			out.UnprocessedItems = map[string][]types.WriteRequest{"WriteShop": reqs[half:]}
		}
		return out, nil
	}
	err := db.BatchWrite(context.Background(), []st.BatchOp{st.BatchPut(st.WRecords, records(100)...)},
		st.BatchRetry(st.RetryPolicy{MaxAttempts: 20, BaseDelay: time.Millisecond, MaxDelay: 8 * time.Millisecond}))
	require.NoError(t, err)
	assert.Len(t, written, 100)
	for k, n := range written {
		assert.Equal(t, 1, n, "%s written once", k)
	}
	// 100 items at half per request need more requests than 4, but merging
	// keeps them near full: far fewer than one request per leftover.
	t.Logf("100 items, half of each request unprocessed: %d requests, %d backoff waits", calls, len(*waits))
	assert.Less(t, calls, 20)
	for _, w := range *waits {
		assert.LessOrEqual(t, w, 8*time.Millisecond, "capped at MaxDelay")
		assert.GreaterOrEqual(t, w, time.Millisecond)
	}
}

func TestBatchWriteBudgetReturnsTypedUnprocessed(t *testing.T) {
	db, mock, waits := batchDB()
	// DynamoDB processes deletes but never the record puts.
	var mu sync.Mutex
	sends := map[string]int{}
	mock.BatchWriteItemFunc = func(_ context.Context, in *dynamodb.BatchWriteItemInput) (*dynamodb.BatchWriteItemOutput, error) {
		var left []types.WriteRequest
		mu.Lock()
		defer mu.Unlock()
		for _, r := range in.RequestItems["WriteShop"] {
			sends[keyOfRequest(r)]++
			if r.PutRequest != nil {
				left = append(left, r)
			}
		}
		return &dynamodb.BatchWriteItemOutput{UnprocessedItems: map[string][]types.WriteRequest{"WriteShop": left}}, nil
	}
	recs := records(30)
	err := db.BatchWrite(context.Background(), []st.BatchOp{
		st.BatchPut(st.WRecords, recs...),
		st.BatchDelete(st.WOrders, st.WOrder{UserID: "u1", ID: "o1"}),
	}, st.BatchRetry(st.RetryPolicy{MaxAttempts: 3, BaseDelay: 10 * time.Millisecond, MaxDelay: time.Second}))
	require.Error(t, err)
	assert.ErrorIs(t, err, st.ErrUnprocessed)
	var be *st.BatchError
	require.ErrorAs(t, err, &be)
	assert.Len(t, be.Unprocessed, 30)
	assert.Equal(t, recs, st.WRecords.UnprocessedPuts(err), "typed, as given, in order")
	assert.Empty(t, st.WOrders.UnprocessedDeletes(err))
	assert.Nil(t, be.Err, "only unprocessed, no error")
	assert.Contains(t, err.Error(), "30 items unprocessed")
	// Every put was sent exactly MaxAttempts times, merged into as few
	// requests as the 25-item limit allows.
	for _, r := range recs {
		assert.Equal(t, 3, sends["REC#"+r.ID], r.ID)
	}
	assert.Equal(t, 1, sends["USER#u1"])
	assert.Len(t, mock.Calls(), be.Requests)
	assert.LessOrEqual(t, be.Requests, 5)
	for _, w := range *waits {
		assert.Contains(t, []time.Duration{10 * time.Millisecond, 20 * time.Millisecond}, w, "base × 2^(retry-1)")
	}

	// The unprocessed ops can be sent again.
	mock.BatchWriteItemFunc = nil
	require.NoError(t, db.BatchWrite(context.Background(), be.Ops()))
}

func TestBatchWriteRetriesThrottling(t *testing.T) {
	for _, err := range []error{
		&types.ProvisionedThroughputExceededException{Message: sdkaws.String("slow down")},
		&types.RequestLimitExceeded{Message: sdkaws.String("slow down")},
		&types.ThrottlingException{Message: sdkaws.String("slow down")},
	} {
		t.Run(fmt.Sprintf("%T", err), func(t *testing.T) {
			db, mock, _ := batchDB()
			n := 0
			var mu sync.Mutex
			mock.BatchWriteItemFunc = func(context.Context, *dynamodb.BatchWriteItemInput) (*dynamodb.BatchWriteItemOutput, error) {
				mu.Lock()
				defer mu.Unlock()
				n++
				if n <= 3 {
					return nil, err
				}
				return &dynamodb.BatchWriteItemOutput{}, nil
			}
			require.NoError(t, db.BatchWrite(context.Background(), []st.BatchOp{st.BatchPut(st.WRecords, records(50)...)}))
		})
	}
}

func TestBatchWriteStopsOnOtherErrors(t *testing.T) {
	db, mock, _ := batchDB()
	boom := errors.New("access denied")
	var mu sync.Mutex
	n := 0
	mock.BatchWriteItemFunc = func(context.Context, *dynamodb.BatchWriteItemInput) (*dynamodb.BatchWriteItemOutput, error) {
		mu.Lock()
		defer mu.Unlock()
		n++
		if n == 1 {
			return &dynamodb.BatchWriteItemOutput{}, nil
		}
		return nil, boom
	}
	err := db.BatchWrite(context.Background(), []st.BatchOp{st.BatchPut(st.WRecords, records(100)...)}, st.Concurrency(1))
	require.Error(t, err)
	assert.ErrorIs(t, err, boom)
	var be *st.BatchError
	require.ErrorAs(t, err, &be)
	assert.Len(t, be.Unprocessed, 75, "the first 25 were written, the rest are returned")
	assert.Equal(t, 2, be.Requests, "nothing more is sent after the error")
}

func TestBatchWriteStopsOnCancel(t *testing.T) {
	db, mock, _ := batchDB()
	ctx, cancel := context.WithCancel(context.Background())
	mock.BatchWriteItemFunc = func(ctx context.Context, in *dynamodb.BatchWriteItemInput) (*dynamodb.BatchWriteItemOutput, error) {
		cancel()
		return nil, ctx.Err()
	}
	err := db.BatchWrite(ctx, []st.BatchOp{st.BatchPut(st.WRecords, records(60)...)}, st.Concurrency(1))
	assert.ErrorIs(t, err, context.Canceled)
	assert.Len(t, st.WRecords.UnprocessedPuts(err), 60)
}

func TestBatchChecksBeforeSending(t *testing.T) {
	cases := []struct {
		name string
		run  func(db *st.DB) error
		want string
	}{
		{"duplicate keys", func(db *st.DB) error {
			return db.BatchWrite(context.Background(), []st.BatchOp{
				st.BatchPut(st.WRecords, st.WRecord{ID: "a"}, st.WRecord{ID: "b"}),
				st.BatchDelete(st.WRecords, st.WRecord{ID: "a"}),
			})
		}, "items 0 and 2 have the same key {PK=REC#a SK=REC}"},
		// The first item with an error decides which: planned, then
		// checked for keys seen, as one loop would.
		{"duplicate key before an item that fails", func(db *st.DB) error {
			return db.BatchWrite(context.Background(), []st.BatchOp{st.BatchPut(st.WRecords, st.WRecord{ID: "a"}, st.WRecord{ID: "a"}, st.WRecord{})})
		}, "items 0 and 1 have the same key {PK=REC#a SK=REC}"},
		{"an item that fails before a duplicate key", func(db *st.DB) error {
			return db.BatchWrite(context.Background(), []st.BatchOp{st.BatchPut(st.WRecords, st.WRecord{ID: "a"}, st.WRecord{}, st.WRecord{ID: "a"})})
		}, "field ID"},
		{"an item over 400 KB after others", func(db *st.DB) error {
			return db.BatchWrite(context.Background(), []st.BatchOp{
				st.BatchPut(st.WRecords, st.WRecord{ID: "a"}),
				st.BatchPut(st.WRecords, st.WRecord{ID: "b"}, st.WRecord{ID: "c"}, st.WRecord{ID: "d", Data: strings.Repeat("x", 410*1024)}),
			})
		}, "item 3: the item is"},
		{"an item's key before a later item's value", func(db *st.DB) error {
			return db.BatchWrite(context.Background(), []st.BatchOp{st.BatchPut(st.WRecords, st.WRecord{}, st.WRecord{ID: "b", Data: "\xff"})})
		}, "singletable: BatchWrite: item 0: entity Record, key PK (template \"REC#{ID}\"), field ID: the value is empty"},
		{"a key after other puts", func(db *st.DB) error {
			return db.BatchWrite(context.Background(), []st.BatchOp{
				st.BatchPut(st.WRecords, st.WRecord{ID: "a"}),
				st.BatchPut(st.WRecords, st.WRecord{ID: "b"}, st.WRecord{}),
			})
		}, "BatchWrite: item 2: entity Record, key PK"},
		{"an index key of a versioned put after others", func(db *st.DB) error {
			return db.BatchWrite(context.Background(), []st.BatchOp{
				st.BatchDelete(st.WRecords, st.WRecord{ID: "a"}),
				st.BatchPut(st.WProducts, st.WProduct{ID: "p1", Category: "c", Name: "n"}, st.WProduct{Name: "n"}),
			})
		}, "BatchWrite: item 2: entity Product, key PK"},
		{"an item's value before a later item's key", func(db *st.DB) error {
			return db.BatchWrite(context.Background(), []st.BatchOp{
				st.BatchPut(st.WRecords, st.WRecord{ID: "a"}),
				st.BatchPut(st.WRecords, st.WRecord{ID: "b", Data: "\xff"}, st.WRecord{}),
			})
		}, "item 1: "},
		{"unique entity", func(db *st.DB) error {
			return db.BatchWrite(context.Background(), []st.BatchOp{st.BatchPut(st.WUsers, st.WUser{ID: "u"})})
		}, "unique fields"},
		{"missing key", func(db *st.DB) error {
			return db.BatchWrite(context.Background(), []st.BatchOp{st.BatchPut(st.WRecords, st.WRecord{ID: "a"}), st.BatchDelete(st.WRecords, st.WRecord{})})
		}, "BatchWrite: item 1: entity Record, key PK (template \"REC#{ID}\"), field ID"},
		{"item over 400 KB", func(db *st.DB) error {
			return db.BatchWrite(context.Background(), []st.BatchOp{st.BatchPut(st.WRecords, st.WRecord{ID: "a", Data: strings.Repeat("x", 410*1024)})})
		}, "409600 bytes"},
		{"no items", func(db *st.DB) error { return db.BatchWrite(context.Background(), nil) }, "no items"},
		{"bad concurrency", func(db *st.DB) error {
			return db.BatchWrite(context.Background(), []st.BatchOp{st.BatchPut(st.WRecords, st.WRecord{ID: "a"})}, st.Concurrency(-1))
		}, "must be at least 1"},
		{"bad retry policy", func(db *st.DB) error {
			return db.BatchWrite(context.Background(), []st.BatchOp{st.BatchPut(st.WRecords, st.WRecord{ID: "a"})}, st.BatchRetry(st.RetryPolicy{}))
		}, "MaxAttempts"},
		{"duplicate get keys", func(db *st.DB) error {
			_, err := st.WRecords.BatchGet(context.Background(), db, []st.WRecord{{ID: "a"}, {ID: "b"}, {ID: "a"}})
			return err
		}, "keys 0 and 2 are the same item"},
		{"get missing key", func(db *st.DB) error {
			_, err := st.WRecords.BatchGet(context.Background(), db, []st.WRecord{{ID: "a"}, {}})
			return err
		}, "Record.BatchGet: key 1: entity Record, key PK (template \"REC#{ID}\"), field ID"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			db, mock, _ := batchDB()
			err := tc.run(db)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.True(t, errors.Is(err, st.ErrInvalidInput) || errors.Is(err, st.ErrInvalidKey), "%v", err)
			if strings.Contains(tc.want, "key PK") || strings.Contains(tc.want, "key GSI") {
				var ke *st.KeyError
				assert.ErrorAs(t, err, &ke, "a key's error stays a *KeyError")
			}
			assert.Equal(t, 1, strings.Count(err.Error(), "singletable: "), "%v", err)
			assert.Empty(t, mock.Calls(), "nothing may be sent")
		})
	}
}

// A retry whose backoff the context ends is not sent, and BatchError.
// Requests counts only the requests that went to the Client (atkC F4:
// it counted those too).
func TestBatchErrorRequestsCountsOnlySent(t *testing.T) {
	db, mock := pureDB()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st.SetBatchTiming(db, func(ctx context.Context, d time.Duration) error {
		cancel() // the deadline passes during the first backoff
		return ctx.Err()
	}, func(d time.Duration) time.Duration { return d })
	mock.BatchWriteItemFunc = func(_ context.Context, in *dynamodb.BatchWriteItemInput) (*dynamodb.BatchWriteItemOutput, error) {
		return &dynamodb.BatchWriteItemOutput{UnprocessedItems: in.RequestItems}, nil
	}
	err := db.BatchWrite(ctx, []st.BatchOp{st.BatchPut(st.WRecords, records(10)...)},
		st.BatchRetry(st.RetryPolicy{MaxAttempts: 5, BaseDelay: time.Second, MaxDelay: time.Second}))
	var be *st.BatchError
	require.ErrorAs(t, err, &be)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Len(t, be.Unprocessed, 10, "every item handed back")
	assert.Len(t, mock.Calls(), 1)
	assert.Equal(t, 1, be.Requests, "the retry stopped in its backoff was not sent")
	assert.Contains(t, err.Error(), "after 1 requests")
}
