package singletable

import (
	"time"

	"github.com/singletable/singletable/internal/bridge"
)

// Package singletabletest's way in (see internal/bridge/singletabletest.go):
// a DB whose batch retries do not wait, for tests that inject unprocessed
// items or throttling.

func init() {
	bridge.NoRetryDelay = func() any {
		return DBOption(func(db *DB) { db.w.jitter = func(time.Duration) time.Duration { return 0 } })
	}
}
