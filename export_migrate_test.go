package singletable

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// MigrateTiming gives a migration's rate limiter a clock and a sleep, so
// that tests count the waits instead of waiting (exported for the external
// test package only).
func MigrateTiming(now func() time.Time, sleep func(context.Context, time.Duration) error) MigrateOption {
	return migrateOpt{func(m *migrateSettings) { m.now, m.sleep = now, sleep }}
}

// BeforeMigrateWrite calls f between a migration's read of an item (key)
// and its write, so that tests can change the item in between.
func BeforeMigrateWrite(f func(ctx context.Context, key map[string]types.AttributeValue)) MigrateOption {
	return migrateOpt{func(m *migrateSettings) { m.beforeWrite = f }}
}
