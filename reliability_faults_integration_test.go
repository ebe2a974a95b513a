//go:build integration

package singletable_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/singletabletest"
)

// A batch write through the test kit's FaultClient on DynamoDB Local:
// about 30% of the calls throttled (nothing written) and about half of
// each other batch returned unprocessed (not written). Nothing is lost:
// every item is stored or handed back in the BatchError, never both.
func TestReliabilityBatchWriteNothingLost(t *testing.T) {
	ctx := context.Background()
	base := singletabletest.LocalDB(t, st.WShop)
	faulty := singletabletest.NewFaultClient(base.Client(), singletabletest.Faults{
		Seed: 1, Throttle: 0.3, Unprocessed: 0.5, Ops: []string{"BatchWriteItem"}})
	db := base.WithClient(faulty)
	const n = 10000
	recs := make([]st.WRecord, n)
	for i := range recs {
		recs[i] = st.WRecord{ID: fmt.Sprintf("r%05d", i), N: i}
	}
	start := time.Now()
	err := db.BatchWrite(ctx, []st.BatchOp{st.BatchPut(st.WRecords, recs...)}, st.Concurrency(8),
		st.BatchRetry(st.RetryPolicy{MaxAttempts: 6, BaseDelay: time.Millisecond, MaxDelay: 10 * time.Millisecond}))
	elapsed := time.Since(start)
	returned := st.WRecords.UnprocessedPuts(err)
	if err != nil {
		require.ErrorIs(t, err, st.ErrUnprocessed)
	}
	// Count what is in the table, and check no returned item is there.
	stored := map[string]bool{}
	var start2 map[string]types.AttributeValue
	for {
		res, err := base.Client().Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(db.TableName()), ExclusiveStartKey: start2, ConsistentRead: aws.Bool(true)})
		require.NoError(t, err)
		for _, item := range res.Items {
			stored[item["id"].(*types.AttributeValueMemberS).Value] = true
		}
		if len(res.LastEvaluatedKey) == 0 {
			break
		}
		start2 = res.LastEvaluatedKey
	}
	both := 0
	for _, r := range returned {
		if stored[r.ID] {
			both++
		}
	}
	var be *st.BatchError
	requests := 0
	if errors.As(err, &be) {
		requests = be.Requests
	}
	throttled, withheld := 0, 0
	for _, f := range faulty.Injected() {
		switch f.Fault {
		case "Throttle":
			throttled++
		case "Unprocessed":
			withheld += f.Count
		}
	}
	t.Logf("RELIABILITY batch write: %d items through a faulty client (30%% of calls throttled, 50%% of each batch returned unprocessed): %d in the table + %d returned in the BatchError = %d (want %d); %d in both; %d calls throttled, %d items withheld; %d requests in the error; %s",
		n, len(stored), len(returned), len(stored)+len(returned), n, both,
		throttled, withheld, requests, elapsed.Round(time.Millisecond))
	assert.Equal(t, n, len(stored)+len(returned), "every item is stored or returned")
	assert.Zero(t, both, "no item is both stored and returned")
	assert.NotEmpty(t, returned, "the budget is small enough that some items come back")
	assert.Greater(t, len(stored), n/2)
	assert.Positive(t, throttled)

	// The returned items go through on a second call without faults.
	require.NoError(t, base.BatchWrite(ctx, be.Ops()))
	got, err := st.WRecords.BatchGet(ctx, base, recs[:300])
	require.NoError(t, err)
	for i, r := range got {
		require.NotNil(t, r, "record %d", i)
	}
}
