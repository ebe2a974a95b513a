package singletable_test

// Issue 21: how far ahead of the loop a fan-out iterator reads. All and
// AllBetween without a Limit read every leg at once, at most
// FanOutConcurrency in flight and ahead of the loop, and cancel what is in
// flight when the loop stops; with a Limit they read ahead as a page does
// (fanout_edges_test.go). The clients below block until the read has the
// requests in flight that the policy promises, and fail after a timeout
// rather than hang: no timing decides a pass.

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/singletabletest"
)

// hourly is a reading at minute 1 of each of n hours from hour(0, 0).
func hourly(n int) []reading {
	rs := make([]reading, n)
	for h := range rs {
		rs[h] = reading{DeviceID: "d", At: hour(0, 0).Add(time.Duration(h)*time.Hour + time.Minute), Value: float64(h)}
	}
	return rs
}

// inFlight counts the requests of a client in flight: now, and the most
// at once.
type inFlight struct {
	mu              sync.Mutex
	more            *sync.Cond // signalled as requests come
	now, most, sent int
}

// gauge wraps c's QueryFunc: each request is counted, then handed to hold
// (nth: the order it came in), then answered unless hold fails.
func gauge(c *singletabletest.Client, hold func(ctx context.Context, in *dynamodb.QueryInput, nth int) error) *inFlight {
	g := &inFlight{}
	g.more = sync.NewCond(&g.mu)
	answer := c.QueryFunc
	c.QueryFunc = func(ctx context.Context, in *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
		g.mu.Lock()
		g.now++
		g.sent++
		nth := g.sent
		g.most = max(g.most, g.now)
		g.more.Broadcast()
		g.mu.Unlock()
		defer func() {
			g.mu.Lock()
			g.now--
			g.mu.Unlock()
		}()
		if err := hold(ctx, in, nth); err != nil {
			return nil, err
		}
		return answer(ctx, in)
	}
	return g
}

// waitFor waits until n requests have been in flight at once, or fails
// after a timeout: the read never had them all out.
func (g *inFlight) waitFor(n int) error {
	expired := false
	timeout := time.AfterFunc(10*time.Second, func() {
		g.mu.Lock()
		expired = true
		g.more.Broadcast()
		g.mu.Unlock()
	})
	defer timeout.Stop()
	g.mu.Lock()
	defer g.mu.Unlock()
	for g.most < n {
		if expired {
			return fmt.Errorf("%d requests in flight at most, want %d", g.most, n)
		}
		g.more.Wait()
	}
	return nil
}

// All over 24 hour buckets sends every bucket's request before any is
// answered: each request waits until all 24 are in flight. Before issue
// 21, the iterator read one bucket, then 2, 4, 8 and 9 (five rounds), and
// its first request waited in vain.
func TestFanOutAllReadsEveryLegAtOnce(t *testing.T) {
	rs := hourly(24)
	c, db := readingsMock(t, rs)
	var g *inFlight
	g = gauge(c, func(context.Context, *dynamodb.QueryInput, int) error { return g.waitFor(24) })
	var got []reading
	for r, err := range deviceReadings.AllBetween(ctx, db, reading{DeviceID: "d", At: hour(0, 0)}, reading{At: hour(23, 59)}) {
		require.NoError(t, err)
		got = append(got, r)
	}
	assert.Equal(t, rs, got, "merged in time order")
	assert.Len(t, c.Calls(), 24, "a request per bucket")
	assert.Equal(t, 24, g.most)
}

// FanOutConcurrency(4) bounds the requests in flight: the first four wait
// until all four are out (so the read has that many at once), and no
// more are ever in flight; the read goes on as they finish.
func TestFanOutAllConcurrencyBound(t *testing.T) {
	rs := hourly(24)
	c, db := readingsMock(t, rs)
	var g *inFlight
	g = gauge(c, func(_ context.Context, _ *dynamodb.QueryInput, nth int) error {
		if nth <= 4 {
			return g.waitFor(4)
		}
		return nil
	})
	var got []reading
	for r, err := range deviceReadings.AllBetween(ctx, db, reading{DeviceID: "d", At: hour(0, 0)}, reading{At: hour(23, 59)}, st.FanOutConcurrency(4)) {
		require.NoError(t, err)
		got = append(got, r)
	}
	assert.Equal(t, rs, got)
	assert.Len(t, c.Calls(), 24)
	assert.Equal(t, 4, g.most, "four in flight, never more")
}

// A loop that stops after the first item has sent at most
// FanOutConcurrency requests (the legs ahead of it: exactly that many here,
// 60 buckets being more), and the ones in flight are cancelled: every
// bucket but the first answers only when its context is done, so the loop
// could not return if they were not.
func TestFanOutAllStoppedEarlyCancels(t *testing.T) {
	for _, conc := range []int{0, 4} {
		t.Run(fmt.Sprint("FanOutConcurrency ", conc), func(t *testing.T) {
			rs := hourly(60)
			c, db := readingsMock(t, rs)
			first := rs[0]
			firstIn, err := readings.PutInput(db, first)
			require.NoError(t, err)
			var mu sync.Mutex
			cancelled := 0
			gauge(c, func(ctx context.Context, in *dynamodb.QueryInput, _ int) error {
				if in.ExpressionAttributeValues[":v0"].(*types.AttributeValueMemberS).Value == firstIn.Item["PK"].(*types.AttributeValueMemberS).Value {
					return nil
				}
				select {
				case <-ctx.Done():
					mu.Lock()
					cancelled++
					mu.Unlock()
					return ctx.Err()
				case <-time.After(10 * time.Second):
					return errors.New("not cancelled")
				}
			})
			var opts []st.QueryOption
			want := 32
			if conc > 0 {
				opts, want = append(opts, st.FanOutConcurrency(conc)), conc
			}
			n := 0
			for r, err := range deviceReadings.AllBetween(ctx, db, reading{DeviceID: "d", At: hour(0, 0)}, reading{At: hour(0, 0).Add(60*time.Hour - time.Nanosecond)}, opts...) {
				require.NoError(t, err)
				assert.Equal(t, first, r)
				n++
				break
			}
			assert.Equal(t, 1, n)
			assert.Len(t, c.Calls(), want, "the legs ahead of the loop, no more")
			assert.Equal(t, want-1, cancelled, "every request in flight cancelled")
		})
	}
}

// A leg that fails does not cost the loop the items of the legs before it:
// the iterator yields every bucket before the failed one, in order, then
// its error. The failing bucket (hour 3) answers first; the others only
// once it has failed, so its error is taken while the merge is still at
// hour 0. Before, the error was returned as soon as it was taken.
func TestFanOutAllFailedLegAfterEarlierItems(t *testing.T) {
	rs := hourly(6)
	c, db := readingsMock(t, rs)
	pkOf := func(r reading) string {
		in, err := readings.PutInput(db, r)
		require.NoError(t, err)
		return in.Item["PK"].(*types.AttributeValueMemberS).Value
	}
	failing := pkOf(rs[3])
	boom := errors.New("boom")
	failed := make(chan struct{})
	gauge(c, func(ctx context.Context, in *dynamodb.QueryInput, _ int) error {
		if in.ExpressionAttributeValues[":v0"].(*types.AttributeValueMemberS).Value == failing {
			defer close(failed)
			return boom
		}
		select {
		case <-failed:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	var got []reading
	var gotErr error
	for r, err := range deviceReadings.AllBetween(ctx, db, reading{DeviceID: "d", At: hour(0, 0)}, reading{At: hour(5, 59)}) {
		if err != nil {
			gotErr = err
			break
		}
		got = append(got, r)
	}
	assert.Equal(t, rs[:3], got, "the buckets before the failed one, in order")
	assert.ErrorIs(t, gotErr, boom)
	assert.EqualError(t, gotErr, "singletable: DeviceReadings: boom", "the operation, once")
}

// A loop whose context is cancelled stops at the bucket it is in: the
// iterator starts no request after the cancel and merges no further
// bucket, and ends with the context's error. Before, it went on yielding
// what the legs ahead held and starting the rest of the range's requests
// (60 over 60 buckets, 95 items after the cancel).
func TestFanOutAllStopsWhenContextCancelled(t *testing.T) {
	rs := hourly(60)
	c, db := readingsMock(t, rs)
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	after := 0
	var gotErr error
	for r, err := range deviceReadings.AllBetween(cctx, db, reading{DeviceID: "d", At: hour(0, 0)}, reading{At: hour(0, 0).Add(60*time.Hour - time.Nanosecond)}) {
		if err != nil {
			gotErr = err
			break
		}
		if r == rs[0] {
			cancel()
			continue
		}
		after++
	}
	assert.ErrorIs(t, gotErr, context.Canceled)
	assert.Zero(t, after, "no bucket merged after the cancel")
	// The requests started before the cancel (FanOutConcurrency ahead of
	// the first bucket), some of which reach the Client after it; none
	// started after it.
	assert.LessOrEqual(t, len(c.Calls()), 32, "no request started after the cancel")
}
