package singletable

import (
	"fmt"
	"time"

	"github.com/singletable/singletable/internal/keys"
	"github.com/singletable/singletable/internal/read"
)

// Time buckets
//
// A time series that one partition cannot take (the seeds' IoT readings)
// is spread over partitions by time: the partition template renders the
// item's time field with a coarse layout, its sort template with the full
// time:
//
//	Key("DEVICE#{DeviceID}#{At:2006-01-02-15}", "{At}") // one partition per device and hour
//
// The layout is the declaration: its bucket is the finest unit it renders
// (minute, hour, day, month or year), and it must render every time of a
// bucket alike and parse back to the bucket's start (a layout such as "15"
// alone, the hour of any day, is refused). A SortBetween pattern over such
// a partition, whose sort template starts with the same time field, reads
// every bucket from the lower bound's to the upper bound's (both inclusive),
// in order, and returns the items merged in sort order: see Pattern.
//
// Buckets are in UTC, as keys render times. The units and their
// arithmetic are the read engine's (read.Unit).

// bucketPlan is how a SortBetween pattern fans out over time buckets.
type bucketPlan struct {
	ph   *keys.Placeholder // the time field in the partition template
	unit read.Unit
}

// span is the buckets from from's to to's: the first's start, the last's,
// and how many there are. They are not listed: a read builds each as it
// gets to it (see fanReq), so a range of years costs no memory.
func (b *bucketPlan) span(op string, from, to time.Time) (first, last time.Time, n int, err error) {
	if from.IsZero() || to.IsZero() {
		return first, last, 0, &InputError{Op: op, Reason: fmt.Sprintf("the partition is bucketed by %s: both bounds need a %s", b.ph.Field.GoName, b.ph.Field.GoName)}
	}
	if to.Before(from) {
		return first, last, 0, &InputError{Op: op, Reason: fmt.Sprintf("the lower bound %s is after the upper bound %s", from.UTC().Format(time.RFC3339Nano), to.UTC().Format(time.RFC3339Nano))}
	}
	first, last = b.unit.Start(from), b.unit.Start(to)
	return first, last, b.unit.Count(first, last), nil
}
