package singletable

import (
	"context"
	"fmt"
	"time"
)

// writeSettings is what the write-side options add up to.
type writeSettings struct {
	token       string // user idempotency token; "" for a fresh random one
	hasToken    bool   // IdempotencyToken was given (an empty one is an error)
	concurrency int    // batch requests in flight; 0 for the default
	retry       *RetryPolicy
}

// IdempotencyToken makes a transaction idempotent under the caller's token
// instead of a fresh random one: sending the same transaction again with the
// same token within 10 minutes does not apply it twice (DynamoDB's
// ClientRequestToken). Use it when the caller itself retries a logical
// operation, for example after a timeout whose outcome is unknown. The
// retry must be the same request, or it fails with ErrTokenReused: entities
// with timestamps stamp each build anew, so for them build the request once
// with DB.TransactInput and resend that input, or use a DB clock (WithClock)
// that repeats the first attempt's time. The token is 1 to 36 characters.
// Without it every Transact call gets a fresh token.
func IdempotencyToken(token string) TxOption {
	return txOpt{func(s *settings) { s.write.token, s.write.hasToken = token, true }}
}

// BatchOption is an option of both batch operations: a BatchGetOption and
// a BatchWriteOption.
type BatchOption struct{ set func(*settings) }

func (o BatchOption) apply(s *settings) { apply(o.set, s) }
func (BatchOption) batchGetOption()     {}
func (BatchOption) batchWriteOption()   {}

// Concurrency bounds how many batch requests are in flight at once
// (default 4).
func Concurrency(n int) BatchOption {
	return BatchOption{func(s *settings) { s.write.concurrency = n }}
}

// RetryPolicy is how a batch retries what DynamoDB leaves unprocessed and
// the throttling errors it answers with: up to MaxAttempts requests per item
// (the first send included), waiting before the n-th retry a random time
// from zero to min(MaxDelay, BaseDelay × 2^(n-1)) ("full jitter"
// exponential backoff).
type RetryPolicy struct {
	MaxAttempts int
	BaseDelay   time.Duration
	MaxDelay    time.Duration
}

// DefaultRetryPolicy is the batch retry policy without a BatchRetry option:
// 10 attempts, 25 ms base, 2 s cap (at most about 7 s of waiting for one
// item: 25 ms + 50 ms + ... + 1.6 s + 2 s + 2 s).
var DefaultRetryPolicy = RetryPolicy{MaxAttempts: 10, BaseDelay: 25 * time.Millisecond, MaxDelay: 2 * time.Second}

// BatchRetry sets the retry budget of BatchWrite and BatchGet.
func BatchRetry(p RetryPolicy) BatchOption {
	return BatchOption{func(s *settings) { p := p; s.write.retry = &p }}
}

func (p RetryPolicy) check() error {
	switch {
	case p.MaxAttempts < 1:
		return fmt.Errorf("BatchRetry: MaxAttempts must be at least 1, got %d", p.MaxAttempts)
	case p.BaseDelay < 0 || p.MaxDelay < 0:
		return fmt.Errorf("BatchRetry: delays must not be negative")
	case p.MaxDelay < p.BaseDelay:
		return fmt.Errorf("BatchRetry: MaxDelay %s is less than BaseDelay %s", p.MaxDelay, p.BaseDelay)
	}
	return nil
}

// dbWrite holds the DB's write-side settings.
type dbWrite struct {
	clock func() time.Time
	// sleep waits between batch retries; tests replace it so that they do
	// not wait for real.
	sleep func(ctx context.Context, d time.Duration) error
	// jitter returns a random duration in [0, d]; tests replace it.
	jitter func(d time.Duration) time.Duration
}

// WithClock sets the clock that created and updated timestamps are read
// from (default time.Now), so that tests can be deterministic.
func WithClock(now func() time.Time) DBOption { return func(db *DB) { db.w.clock = now } }

func (db *DB) now() time.Time {
	if db.w.clock != nil {
		return db.w.clock()
	}
	return time.Now()
}

func (db *DB) sleep(ctx context.Context, d time.Duration) error {
	if db.w.sleep != nil {
		return db.w.sleep(ctx, d)
	}
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
