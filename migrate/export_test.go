package migrate

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Timing gives a migration's rate limiter a clock and a sleep, so that
// tests count the waits instead of waiting (exported for the external test
// package only).
func Timing(now func() time.Time, sleep func(context.Context, time.Duration) error) Option {
	return option(func(s *settings) string { s.now, s.sleep = now, sleep; return "" })
}

// BeforeWrite calls f between a migration's read of an item (key) and its
// write, so that tests can change the item in between.
func BeforeWrite(f func(ctx context.Context, key map[string]types.AttributeValue)) Option {
	return option(func(s *settings) string { s.beforeWrite = f; return "" })
}
