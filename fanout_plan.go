package singletable

import (
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/singletable/singletable/internal/keys"
	"github.com/singletable/singletable/internal/model"
	"github.com/singletable/singletable/internal/read"
)

// How a declared pattern fans out (see the Fan-out reads in fanout.go):
// over the shards of its entity's shard field, over the time buckets of a
// bucketed partition, or both; decided once, at declaration, and narrowed
// per call by the params (derivedShards, fanBuckets).

// fanPlan is how a pattern fans out: over shards, time buckets, or both.
type fanPlan struct {
	shard  *model.Shard // reads shards 0..shard.read-1; nil: none
	bucket *bucketPlan  // nil: none
}

// resolveFan finds whether the declared pattern fans out (d.fan), or why
// it cannot; and whether a SortPrefix read may cover several time buckets
// (d.prefixBucket).
func (d *readDecl) resolveFan() error {
	d.fan, d.prefixBucket = nil, nil
	if d.collection || len(d.members) != 1 {
		return nil
	}
	mem := d.members[0]
	var f fanPlan
	for _, b := range mem.part {
		if b.Label == "" {
			continue // fixed to literal text: one shard, one bucket
		}
		if sm := mem.m.Shard; sm != nil && b.Ph.Field.GoName == sm.Field.GoName && !d.shardAlwaysGiven(mem, sm) {
			f.shard = sm
		}
		if b.Ph.Kind != keys.KindTime || mem.sk == nil {
			continue
		}
		if d.sort == sortPrefix && placeholderIndex(mem.sk, b.Ph.Field.GoName) >= 0 {
			// A partial time coarser than the bucket covers several.
			if unit, ok := read.UnitOf(b.Ph.Layout); ok {
				d.prefixBucket = &bucketPlan{ph: b.Ph, unit: unit}
			}
			continue
		}
		if first := mem.sk.Placeholders(); len(first) == 0 || first[0].Field.GoName != b.Ph.Field.GoName {
			continue
		}
		if err := d.checkBucketRange(mem, b.Ph); err != nil {
			return err
		}
		if d.sort != sortBetween {
			continue
		}
		unit, ok := read.UnitOf(b.Ph.Layout)
		if !ok {
			return d.fail("the partition template %q renders %s with layout %q, and the sort template %q starts with it: a SortBetween read would span partitions, but the layout is no time bucket (one that renders every time of a minute, hour, day, month or year alike and parses back to its start)",
				mem.pk.Raw, b.Ph.Field.GoName, b.Ph.Layout, mem.sk.Raw)
		}
		f.bucket = &bucketPlan{ph: b.Ph, unit: unit}
	}
	if f.shard != nil || f.bucket != nil {
		d.fan = &f
	}
	return nil
}

// checkBucketRange refuses a sort condition that spans the time buckets of
// a partition bucketed by ph, whose sort template starts with the same
// time, but would read the one bucket the params give: a one-sided range
// (no end in buckets) and a literal prefix into the time (a month of hour
// buckets). They answered with one bucket's items, as if they were all.
func (d *readDecl) checkBucketRange(mem *readMember, ph *keys.Placeholder) error {
	if _, ok := read.UnitOf(ph.Layout); !ok {
		return nil
	}
	switch d.sort {
	case sortLT, sortLE, sortGT, sortGE:
		return d.fail("%s over partition %q, bucketed by %s, has no end in buckets: it would read the params' bucket only; read a range with SortBetween (QueryBetween, AllBetween)",
			sortOpNames[d.sort], mem.pk.Raw, ph.Field.GoName)
	case sortBeginsWith:
		if len(d.sortLit) > len(mem.sk.LiteralPrefix()) {
			return d.fail("SortBeginsWith(%q) reaches into %s, which partition %q buckets: it would read the params' bucket only; use SortPrefix with PartialTime, or SortBetween",
				d.sortLit, ph.Field.GoName, mem.pk.Raw)
		}
	}
	return nil
}

// fans reports whether a read of the pattern may span partitions: see
// fanRequest for how many one call reads.
func (d *readDecl) fans() bool { return d.fan != nil || d.prefixBucket != nil }

// fanShard is the shard declaration the pattern fans out over, or nil.
func (d *readDecl) fanShard() *model.Shard {
	if d.fan == nil {
		return nil
	}
	return d.fan.shard
}

// shardAlwaysGiven reports whether every read of the pattern gives the
// fields a hashed shard is derived from (By): each is in the partition,
// or the pattern matches the whole sort key. Such a read is of the one
// shard the fields hash to, as Entity.Get's is.
func (d *readDecl) shardAlwaysGiven(mem *readMember, sm *model.Shard) bool {
	if sm.By == nil || sm.Prev > 0 {
		return false // while the count changes, an item is in one of two: see derivedShards
	}
	for _, ph := range sm.By {
		if !mem.partBinds(ph.Field.GoName) && (d.sort != sortEquals || placeholderIndex(mem.sk, ph.Field.GoName) < 0) {
			return false
		}
	}
	return true
}

// partBinds reports whether the read's partition holds field name.
func (mem *readMember) partBinds(name string) bool {
	for _, b := range mem.part {
		if b.Ph.Field.GoName == name {
			return true
		}
	}
	return false
}

// derivedShards are the shards a read of a pattern that fans out over
// hashed shards is confined to, when params give every field of By whole
// (in the partition, or among the sort fields the condition renders
// whole): the one they hash to, and while the count changes (Previously)
// the one they hashed to under the old count, where an item not moved yet
// is. ok is false when they do not give them.
func (d *readDecl) derivedShards(mem *readMember, v reflect.Value, s *settings) (ns []int, ok bool) {
	sm := d.fanShard()
	if sm == nil || sm.By == nil {
		return nil, false
	}
	whole := 0 // leading sort fields the condition holds whole
	if mem.sk != nil {
		phs := mem.sk.Placeholders()
		switch d.sort {
		case sortEquals:
			whole = len(phs)
		case sortPrefix:
			whole = givenSortFields(mem.sk, v, d.table.schema.Delim)
			if s.read.hasSortFields {
				whole = min(whole, s.read.sortFields)
			}
			if s.read.partial && whole > 0 {
				whole-- // the last one matches partially
			}
		}
	}
	for _, ph := range sm.By {
		if i := placeholderIndex(mem.sk, ph.Field.GoName); !mem.partBinds(ph.Field.GoName) && (i < 0 || i >= whole) {
			return nil, false
		}
	}
	ns, err := sm.Hashes(v)
	return ns, err == nil
}

// placeholderIndex is the index of field name's placeholder in tpl
// (nil: none), or -1.
func placeholderIndex(tpl *keys.Template, name string) int {
	if tpl == nil {
		return -1
	}
	for i, ph := range tpl.Placeholders() {
		if ph.Field.GoName == name {
			return i
		}
	}
	return -1
}

// givenSortFields counts the leading placeholders of tpl that v gives, as
// a sort prefix takes them (up to the first absent one).
func givenSortFields(tpl *keys.Template, v reflect.Value, delim byte) int {
	var buf [64]byte
	for i, ph := range tpl.Placeholders() {
		if _, ok, err := ph.AppendValue(buf[:0], v.FieldByIndex(ph.Field.Index), delim); err != nil || !ok {
			return i
		}
	}
	return len(tpl.Placeholders())
}

// fanBuckets is the time buckets a read covers, from from's to to's: a
// SortBetween read's range, or the period of a PartialTime coarser than
// the partition's bucket (every hour bucket of a day); b is nil for a read
// of one bucket (or none).
func (d *readDecl) fanBuckets(mem *readMember, v reflect.Value, upper reflect.Value, s *settings) (b *bucketPlan, from, to time.Time) {
	if d.fan != nil && d.fan.bucket != nil && upper.IsValid() {
		b = d.fan.bucket
		return b, timeField(v, b.ph), timeField(upper, b.ph)
	}
	b = d.prefixBucket
	if b == nil || !s.read.partial || s.read.timePrec < Year || s.read.timePrec > Hour {
		return nil, from, to
	}
	unit := read.Unit(int(read.Year) + int(Year) - int(s.read.timePrec)) // Year: year buckets ... Hour: hour buckets
	// The precision applies to the last sort field given: the bucket's
	// field, or one after it (then the bucket's is whole: one bucket).
	phs := mem.sk.Placeholders()
	last := givenSortFields(mem.sk, v, d.table.schema.Delim) - 1
	at := timeField(v, b.ph)
	if unit <= b.unit || last < 0 || phs[last].Field.GoName != b.ph.Field.GoName || at.IsZero() {
		return nil, from, to
	}
	from = unit.Start(at)
	return b, from, unit.Next(from).Add(-time.Nanosecond)
}

// describe says how the pattern fans out, for the sheet.
func (f *fanPlan) describe() string {
	var parts []string
	if f.bucket != nil {
		parts = append(parts, f.bucket.unit.String()+" buckets")
	}
	if f.shard != nil {
		parts = append(parts, fmt.Sprintf("%d shards", f.shard.Read))
	}
	return "fan-out over " + strings.Join(parts, " × ")
}
