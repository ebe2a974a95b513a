package singletable

import (
	"fmt"
	"time"

	"github.com/singletable/singletable/internal/keys"
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
// Buckets are in UTC, as keys render times.

// bucketUnit is the size of a time bucket.
type bucketUnit int

const (
	bucketMinute bucketUnit = iota + 1
	bucketHour
	bucketDay
	bucketMonth
	bucketYear
)

func (u bucketUnit) String() string {
	return [...]string{"", "minute", "hour", "day", "month", "year"}[u]
}

// start is the start of t's bucket.
func (u bucketUnit) start(t time.Time) time.Time {
	t = t.UTC()
	y, mo, d := t.Date()
	switch u {
	case bucketMinute:
		return time.Date(y, mo, d, t.Hour(), t.Minute(), 0, 0, time.UTC)
	case bucketHour:
		return time.Date(y, mo, d, t.Hour(), 0, 0, 0, time.UTC)
	case bucketDay:
		return time.Date(y, mo, d, 0, 0, 0, 0, time.UTC)
	case bucketMonth:
		return time.Date(y, mo, 1, 0, 0, 0, 0, time.UTC)
	}
	return time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC)
}

// next is the start of the bucket after the one starting at start.
func (u bucketUnit) next(start time.Time) time.Time {
	switch u {
	case bucketMinute:
		return start.Add(time.Minute)
	case bucketHour:
		return start.Add(time.Hour)
	case bucketDay:
		return start.AddDate(0, 0, 1)
	case bucketMonth:
		return start.AddDate(0, 1, 0)
	}
	return start.AddDate(1, 0, 0)
}

// bucketSamples are times with every unit away from its start, to probe a
// layout with.
var bucketSamples = []time.Time{
	time.Date(2001, 2, 3, 4, 5, 6, 7008009, time.UTC),
	time.Date(2024, 12, 31, 23, 59, 59, 999999999, time.UTC),
	time.Date(1999, 11, 28, 13, 31, 1, 0, time.UTC),
	time.Date(2030, 7, 15, 12, 30, 45, 500, time.UTC),
}

// bucketUnitOf is the bucket a time layout renders: the finest unit such
// that every sample time renders as its bucket's start and parses back to
// it. ok is false for a layout that renders no bucket.
func bucketUnitOf(layout string) (bucketUnit, bool) {
	for u := bucketMinute; u <= bucketYear; u++ {
		ok := true
		for _, t := range bucketSamples {
			s := t.Format(layout)
			back, err := time.Parse(layout, s)
			if err != nil || s != u.start(t).Format(layout) || !back.Equal(u.start(t)) {
				ok = false
				break
			}
		}
		if ok {
			return u, true
		}
	}
	return 0, false
}

// bucketPlan is how a SortBetween pattern fans out over time buckets.
type bucketPlan struct {
	ph   *keys.Placeholder // the time field in the partition template
	unit bucketUnit
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
	first, last = b.unit.start(from), b.unit.start(to)
	return first, last, b.unit.count(first, last), nil
}

// add is the start of the bucket k buckets after (k < 0: before) the one
// starting at start.
func (u bucketUnit) add(start time.Time, k int) time.Time {
	switch u {
	case bucketMinute:
		return start.Add(time.Duration(k) * time.Minute)
	case bucketHour:
		return start.Add(time.Duration(k) * time.Hour)
	case bucketDay:
		return start.AddDate(0, 0, k)
	case bucketMonth:
		return start.AddDate(0, k, 0)
	}
	return start.AddDate(k, 0, 0)
}

// count is how many buckets there are from the one starting at first to
// the one starting at last, both included.
func (u bucketUnit) count(first, last time.Time) int {
	secs := last.Unix() - first.Unix() // UTC: a day is 86,400 seconds
	switch u {
	case bucketMinute:
		return int(secs/60) + 1
	case bucketHour:
		return int(secs/3600) + 1
	case bucketDay:
		return int(secs/86400) + 1
	case bucketMonth:
		return (last.Year()-first.Year())*12 + int(last.Month()) - int(first.Month()) + 1
	}
	return last.Year() - first.Year() + 1
}

// checkBucketSorts refuses a key whose sort template renders a bucketed
// time coarser than its partition's bucket (a day in the sort key of an
// hour's partition): the bucket's items would share that text, and a range
// read over them could not tell 10:05 from 10:30 (it returned readings
// outside the range it was asked for).
func (m *entityModel) checkBucketSorts() error {
	for _, w := range m.keyPairs() {
		for _, pph := range w[0].tpl.Placeholders() {
			if pph.Kind != keys.KindTime {
				continue
			}
			bucket, ok := bucketUnitOf(pph.Layout)
			if !ok {
				continue
			}
			for _, sph := range w[1].tpl.Placeholders() {
				if sph.Field.GoName != pph.Field.GoName {
					continue
				}
				if u, ok := bucketUnitOf(sph.Layout); ok && u > bucket {
					return &ModelError{Table: m.table.name, Entity: m.name, Field: pph.Field.GoName, Template: w[1].tpl.Raw,
						Reason: fmt.Sprintf("%s renders %s by the %s (%q), coarser than the %s bucket its partition %s %q renders: sort it at least as finely as the bucket",
							w[1].attr, pph.Field.GoName, u, sph.Layout, bucket, w[0].attr, w[0].tpl.Raw)}
				}
			}
		}
	}
	return nil
}

// keyPairs lists the partition and sort templates the entity writes
// together: the primary key's, and those of the indexes it writes both
// keys of.
func (m *entityModel) keyPairs() [][2]writtenKey {
	var out [][2]writtenKey
	if m.sk != nil {
		out = append(out, [2]writtenKey{{m.table.pk, m.pk}, {m.table.sk, m.sk}})
	}
	for _, ei := range m.indexes {
		if ei.pkFrom == keyOwn && ei.pk != nil && ei.skFrom == keyOwn && ei.sk != nil {
			out = append(out, [2]writtenKey{{ei.index.pk, ei.pk}, {ei.index.sk, ei.sk}})
		}
	}
	return out
}
