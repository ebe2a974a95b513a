package migrate

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/bridge"
)

// Option tunes Run, BackfillIndex and UpgradeRevisions. Segments, Concurrency, PageSize,
// OnProgress, DryRun, TouchUpdated, RateLimit, CapacityLimit, MaxRetries,
// OnChange and SaveCheckpoints satisfy it; only this package implements
// it.
type Option interface {
	// apply adds the option to s, or says why it cannot.
	apply(s *settings) (reason string)
}

// option is every Option: a func, so that no zero value can be made
// outside this package.
type option func(*settings) string

func (o option) apply(s *settings) string { return o(s) }

// settings are what a migration's options add up to.
type settings struct {
	walk        bridge.MigrateWalk
	dryRun      bool
	touch       bool
	items       float64 // items per second; 0: no limit
	units       float64 // capacity units per second; 0: no limit
	store       CheckpointStore
	every       time.Duration
	retries     int
	onChange    func(Change)
	beforeWrite func(ctx context.Context, key map[string]types.AttributeValue) // tests: between read and write
	now         func() time.Time                                               // tests: the limiter's clock
	sleep       func(ctx context.Context, d time.Duration) error               // tests: the limiter's sleep
}

// defaultRetries is how often a migration retries an item another writer
// changed, without MaxRetries.
const defaultRetries = 3

// collect adds up opts for operation op.
func collect(op string, opts []Option) (*settings, error) {
	s := &settings{retries: defaultRetries}
	for _, o := range opts {
		if o == nil {
			return nil, &st.InputError{Op: op, Reason: "a nil option was passed"}
		}
		if reason := o.apply(s); reason != "" {
			return nil, &st.InputError{Op: op, Reason: reason}
		}
	}
	return s, nil
}

// Segments splits the migration's scan into n segments (DynamoDB's
// TotalSegments, 1 to 1,000,000; default 1) read in parallel, Concurrency
// at a time, as singletable.Segments does a scan.
func Segments(n int) Option {
	return option(func(s *settings) string {
		s.walk.Segments, s.walk.HasSegments = n, true
		return "" // checked with the scan's own Segments
	})
}

// Concurrency bounds how many segments are read (and their items
// migrated) at once: n at least 1; default min(Segments, 4).
func Concurrency(n int) Option {
	return option(func(s *settings) string {
		if n < 1 {
			return fmt.Sprintf("Concurrency(%d) must be at least 1", n)
		}
		s.walk.Concurrency = n
		return ""
	})
}

// PageSize caps the items each Scan request reads (its Limit; n at least
// 1); DynamoDB also ends a page at 1 MB. Smaller pages make progress and
// checkpoints finer and spread the capacity a migration consumes.
func PageSize(n int) Option {
	return option(func(s *settings) string {
		if n < 1 {
			return fmt.Sprintf("PageSize(%d) must be at least 1", n)
		}
		s.walk.PageSize = n
		return ""
	})
}

// OnProgress calls f after each page a segment has finished with (the
// migration has handled its items), one call at a time, from the
// migration's goroutines.
func OnProgress(f func(st.ScanProgress)) Option {
	return option(func(s *settings) string {
		if f == nil {
			return "OnProgress(nil): the function is nil"
		}
		s.walk.Progress = f
		return ""
	})
}

// DryRun makes a migration read and transform every item and report what
// would change (the report's counts, OnChange) without writing anything or
// saving checkpoints.
func DryRun() Option { return option(func(s *settings) string { s.dryRun = true; return "" }) }

// TouchUpdated makes a migration set the updated timestamp of the items
// it changes; by default it leaves them as stored.
func TouchUpdated() Option { return option(func(s *settings) string { s.touch = true; return "" }) }

// RateLimit paces a migration to at most n items per second (n > 0 and
// finite), scanned items counted, across all segments. Without it, a
// migration is not paced.
func RateLimit(n float64) Option {
	return option(func(s *settings) string {
		if !(n > 0) || math.IsInf(n, 1) {
			return fmt.Sprintf("RateLimit(%v): the rate must be positive and finite (leave the option out for no limit)", n)
		}
		s.items = n
		return ""
	})
}

// CapacityLimit paces a migration to at most n capacity units per second
// (n > 0 and finite), reads and writes together, as DynamoDB reports them
// consumed (ReturnConsumedCapacity). Without it, a migration is not paced.
func CapacityLimit(n float64) Option {
	return option(func(s *settings) string {
		if !(n > 0) || math.IsInf(n, 1) {
			return fmt.Sprintf("CapacityLimit(%v): the rate must be positive and finite (leave the option out for no limit)", n)
		}
		s.units = n
		return ""
	})
}

// MaxRetries sets how often a migration writes an item again after
// another writer changed it between the read and the write (default 3; 0:
// never); past it, the item is reported failed and left as the other
// writer made it. A write DynamoDB throttles is retried apart from it
// (see Run).
func MaxRetries(n int) Option {
	return option(func(s *settings) string {
		if n < 0 {
			return fmt.Sprintf("MaxRetries(%d) must not be negative", n)
		}
		s.retries = n
		return ""
	})
}

// OnChange calls f for each item a migration changes (or, with DryRun,
// would change), from the migration's goroutines, possibly at once.
func OnChange(f func(Change)) Option {
	return option(func(s *settings) string {
		if f == nil {
			return "OnChange(nil): the function is nil"
		}
		s.onChange = f
		return ""
	})
}

// SaveCheckpoints makes a migration resume from the position store holds
// (if any), and save its position there at least every interval (0:
// after every page) and when it ends, even by an error or a cancelled
// context. A position covers only pages whose every item was handled
// without failure: a segment's position stays before its first page with
// a failed item, the run reading on, so a resumed migration handles some
// items again (those already migrated are skipped) and retries the failed
// ones. Running a migration again with the same store until a run reports
// no failure and no error migrates every item. Once the migration
// completes with no failure, the stored position says so, and running it
// again with the same store does nothing: give a fresh store (or Save "")
// to run it again.
func SaveCheckpoints(store CheckpointStore, every time.Duration) Option {
	return option(func(s *settings) string {
		switch {
		case store == nil:
			return "SaveCheckpoints: the store is nil"
		case every < 0:
			return fmt.Sprintf("SaveCheckpoints: the interval (%v) must not be negative", every)
		}
		s.store, s.every = store, every
		return ""
	})
}
