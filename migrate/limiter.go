package migrate

import (
	"context"
	"sync"
	"time"
)

// limiter paces work to rate units per second: each take reserves its
// units' share of time after the previous ones, and waits for its turn.
type limiter struct {
	rate  float64
	now   func() time.Time
	sleep func(context.Context, time.Duration) error
	mu    sync.Mutex
	next  time.Time
}

func newLimiter(rate float64, now func() time.Time, sleep func(context.Context, time.Duration) error) *limiter {
	if rate <= 0 {
		return nil
	}
	return &limiter{rate: rate, now: now, sleep: sleep}
}

func (l *limiter) take(ctx context.Context, units float64) error {
	if l == nil || units <= 0 {
		return ctx.Err()
	}
	l.mu.Lock()
	now := l.now()
	if l.next.Before(now) {
		l.next = now
	}
	wait := l.next.Sub(now)
	l.next = l.next.Add(time.Duration(units / l.rate * float64(time.Second)))
	l.mu.Unlock()
	if wait <= 0 {
		return ctx.Err()
	}
	return l.sleep(ctx, wait)
}
