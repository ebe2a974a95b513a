package singletable

import (
	"context"
	"time"
)

// SetBatchTiming replaces the DB's batch sleep and jitter, so that tests
// need not wait for real (exported for the external test package only).
func SetBatchTiming(db *DB, sleep func(context.Context, time.Duration) error, jitter func(time.Duration) time.Duration) {
	db.w.sleep, db.w.jitter = sleep, jitter
}
