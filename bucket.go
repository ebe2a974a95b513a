package singletable

import (
	"fmt"
	"time"

	"github.com/singletable/singletable/internal/keys"
	"github.com/singletable/singletable/internal/model"
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
			bucket, ok := read.UnitOf(pph.Layout)
			if !ok {
				continue
			}
			for _, sph := range w[1].tpl.Placeholders() {
				if sph.Field.GoName != pph.Field.GoName {
					continue
				}
				if u, ok := read.UnitOf(sph.Layout); ok && u > bucket {
					return &ModelError{Table: m.table.schema.Name, Entity: m.Name, Field: pph.Field.GoName, Template: w[1].tpl.Raw,
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
	if m.SK != nil {
		out = append(out, [2]writtenKey{{m.table.schema.PK, m.PK}, {m.table.schema.SK, m.SK}})
	}
	for _, ei := range m.Indexes {
		if ei.PKFrom == model.KeyOwn && ei.PK != nil && ei.SKFrom == model.KeyOwn && ei.SK != nil {
			out = append(out, [2]writtenKey{{ei.Index.PK, ei.PK}, {ei.Index.SK, ei.SK}})
		}
	}
	return out
}
