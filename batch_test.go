package singletable_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
)

// The backoff before the k-th retry is drawn from [0, min(MaxDelay,
// BaseDelay × 2^(k-1))]: no wait with a zero BaseDelay, and never a short
// wait from an overflowing shift.
func TestBatchBackoffFollowsThePolicy(t *testing.T) {
	for _, p := range []st.RetryPolicy{
		{MaxAttempts: 4, BaseDelay: 0, MaxDelay: time.Second},
		{MaxAttempts: 31, BaseDelay: 1<<38 + 1, MaxDelay: 24 * time.Hour}, // about 4.6 min; << 26 wraps to 67 ms
	} {
		t.Run(fmt.Sprint(p), func(t *testing.T) {
			db, mock, waits := batchDB()
			mock.BatchWriteItemFunc = func(_ context.Context, in *dynamodb.BatchWriteItemInput) (*dynamodb.BatchWriteItemOutput, error) {
				return &dynamodb.BatchWriteItemOutput{UnprocessedItems: in.RequestItems}, nil
			}
			err := db.BatchWrite(context.Background(), []st.BatchOp{st.BatchPut(st.WRecords, records(1)...)}, st.BatchRetry(p))
			require.ErrorIs(t, err, st.ErrUnprocessed)
			require.Len(t, *waits, p.MaxAttempts-1)
			for i, w := range *waits {
				want := p.MaxDelay
				if i < 40 && p.BaseDelay<<i/(1<<i) == p.BaseDelay && p.BaseDelay<<i < want {
					want = p.BaseDelay << i
				}
				assert.Equal(t, want, w, "retry %d", i+1)
			}
		})
	}
}
