package singletable

import (
	"bytes"
	"context"
	"fmt"
	"iter"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/codec"
	"github.com/singletable/singletable/internal/keys"
)

// Fan-out reads
//
// A pattern whose partition is spread over shards (a partition template
// that reads the entity's shard field, see Shards) or time buckets (a
// SortBetween pattern over a bucketed partition, see the time buckets in
// bucket.go) reads several partitions for one call: its legs, one Query
// each, built by the same request builder as any pattern (so filters,
// projections, FetchFull and options apply to each) and read by the same
// engine (readReq.run). The legs are read in parallel, at most
// FanOutConcurrency requests at a time (default 32), and merged:
//
//   - shards are merged by sort key (ascending or descending, as the pattern
//     reads), so the result is what one query over an unsharded partition
//     would return;
//   - buckets are read in time order (newest first when descending), each
//     merged from its shards, reading ahead a bounded window: the first
//     bucket alone, then twice as many each time the window is used up
//     past a bucket this call read from its start (a resumed page starts
//     again at one), so that "the last 10 readings" reads the newest
//     bucket and stops when it has them; Sum reads them all at once.
//
// The legs are built as the read gets to them, a window of buckets at a
// time, so that a range of years costs the memory of a few buckets.
//
// Query returns one Page: with Limit(n), up to n items; without, the items
// merged until a leg would need another request. Its Cursor (sealed as
// any cursor, see cursor.go) holds every leg's position and resumes them
// all; it is bound to the pattern and the read (see readDigest). All iterates over everything. Each leg asks for as
// many items as the read still wants, so a Limit costs one round of
// requests, not one per item.

// fanPlan is how a pattern fans out: over shards, time buckets, or both.
type fanPlan struct {
	shard  *shardModel // reads shards 0..shard.read-1; nil: none
	bucket *bucketPlan // nil: none
}

// defaultFanOutConcurrency is how many requests a fan-out has in flight
// without FanOutConcurrency.
const defaultFanOutConcurrency = 32

// FanOutConcurrency bounds how many requests a pattern that fans out over
// shards or time buckets has in flight at once (default 32). It is an
// ErrInvalidInput below 1, or on a pattern that does not fan out.
func FanOutConcurrency(n int) interface {
	PatternGetOption
	QueryOption
} {
	return findOpt{func(s *settings) { s.read.fanConcurrency, s.read.hasFanConcurrency = n, true }}
}

// DefaultMaxFanOutRequests is the fan-out ceiling without
// MaxFanOutRequests: a month of hour buckets (744) is under it, a day of
// minute buckets (1,440) over.
const DefaultMaxFanOutRequests = 1000

// MaxFanOutRequests sets the fan-out ceiling of one call: how many
// requests a read over shards or time buckets may send before it returns
// (default DefaultMaxFanOutRequests). Sum, SumBetween and Get read every
// leg before they return: one over the ceiling, they are refused before
// sending anything (an ErrInvalidInput naming the count and this option).
// A Query page reads ahead at most that many requests, then returns what
// it has and a cursor; it is refused only when one bucket's shards are
// more. All and AllBetween fetch as the loop advances and are not bound by
// it, over any range; QueryInputs and QueryBetweenInputs, which list every
// leg, are. It is an ErrInvalidInput below 1, or on a pattern that does not
// fan out.
func MaxFanOutRequests(n int) interface {
	PatternGetOption
	QueryOption
} {
	return findOpt{func(s *settings) { s.read.fanCeiling, s.read.hasFanCeiling = n, true }}
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
		if sm := mem.m.shard; sm != nil && b.Ph.Field.GoName == sm.field.GoName && !d.shardAlwaysGiven(mem, sm) {
			f.shard = sm
		}
		if b.Ph.Kind != keys.KindTime || mem.sk == nil {
			continue
		}
		if d.sort == sortPrefix && placeholderIndex(mem.sk, b.Ph.Field.GoName) >= 0 {
			// A partial time coarser than the bucket covers several.
			if unit, ok := bucketUnitOf(b.Ph.Layout); ok {
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
		unit, ok := bucketUnitOf(b.Ph.Layout)
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
	if _, ok := bucketUnitOf(ph.Layout); !ok {
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
func (d *readDecl) fanShard() *shardModel {
	if d.fan == nil {
		return nil
	}
	return d.fan.shard
}

// shardAlwaysGiven reports whether every read of the pattern gives the
// fields a hashed shard is derived from (By): each is in the partition,
// or the pattern matches the whole sort key. Such a read is of the one
// shard the fields hash to, as Entity.Get's is.
func (d *readDecl) shardAlwaysGiven(mem *readMember, sm *shardModel) bool {
	if sm.by == nil || sm.prev > 0 {
		return false // while the count changes, an item is in one of two: see derivedShards
	}
	for _, ph := range sm.by {
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
	if sm == nil || sm.by == nil {
		return nil, false
	}
	whole := 0 // leading sort fields the condition holds whole
	if mem.sk != nil {
		phs := mem.sk.Placeholders()
		switch d.sort {
		case sortEquals:
			whole = len(phs)
		case sortPrefix:
			whole = givenSortFields(mem.sk, v, d.table.delim)
			if s.read.hasSortFields {
				whole = min(whole, s.read.sortFields)
			}
			if s.read.partial && whole > 0 {
				whole-- // the last one matches partially
			}
		}
	}
	for _, ph := range sm.by {
		if i := placeholderIndex(mem.sk, ph.Field.GoName); !mem.partBinds(ph.Field.GoName) && (i < 0 || i >= whole) {
			return nil, false
		}
	}
	ns, err := sm.hashes(v)
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
	unit := bucketUnit(int(bucketYear) + int(Year) - int(s.read.timePrec)) // Year: year buckets ... Hour: hour buckets
	// The precision applies to the last sort field given: the bucket's
	// field, or one after it (then the bucket's is whole: one bucket).
	phs := mem.sk.Placeholders()
	last := givenSortFields(mem.sk, v, d.table.delim) - 1
	at := timeField(v, b.ph)
	if unit <= b.unit || last < 0 || phs[last].Field.GoName != b.ph.Field.GoName || at.IsZero() {
		return nil, from, to
	}
	from = unit.start(at)
	return b, from, unit.next(from).Add(-time.Nanosecond)
}

// describe says how the pattern fans out, for the sheet.
func (f *fanPlan) describe() string {
	var parts []string
	if f.bucket != nil {
		parts = append(parts, f.bucket.unit.String()+" buckets")
	}
	if f.shard != nil {
		parts = append(parts, fmt.Sprintf("%d shards", f.shard.read))
	}
	return "fan-out over " + strings.Join(parts, " × ")
}

// fanReq is a fan-out read resolved for one call: its legs, group by group
// (a group is one bucket's shards, read together and merged). The legs are
// built as the read gets to them: legs holds a window of groups from base
// on, so that a read over years of buckets keeps a few in memory.
type fanReq struct {
	d      *readDecl
	plan   fanPlan // what this call fans out over: shards, buckets, or one partition
	op     string
	s      *settings
	groups int // buckets read (1: none, or one)
	width  int // legs per group
	base   int // the group of legs[0]
	legs   []fanLeg
	build  func(g int) ([]fanLeg, error) // group g's legs
	desc   bool
	conc   int
	limit  int // the fan-out ceiling: requests one eager call may send
	secret []byte
	keys   [][]byte // the cursor keys that open a cursor
	digest string   // identifies the read, for the cursor
	// partition is the first leg's partition, for ErrNotFound.
	partition string
}

// fanLeg is one partition of a fan-out read, and where the read is in it.
type fanLeg struct {
	r        *readReq
	start    map[string]types.AttributeValue // where the next fetch starts (nil: the beginning)
	ended    bool                            // nothing to read after buf
	buf      []map[string]types.AttributeValue
	pos      int                             // buf[:pos] are merged
	bufStart map[string]types.AttributeValue // where buf's fetch started
	inflight bool
	// fresh: this call fetched the leg from its beginning (not from where
	// a cursor left it), so its group widens the read-ahead window.
	fresh bool
}

// total is how many legs the read has: groups times width.
func (f *fanReq) total() int { return f.groups * f.width }

// leg is leg i (counted from the read's first), which the window holds.
func (f *fanReq) leg(i int) *fanLeg { return &f.legs[i-f.base*f.width] }

// extend builds the groups before end (at most f.groups) not built yet.
func (f *fanReq) extend(end int) error {
	for g := f.base + len(f.legs)/f.width; g < min(end, f.groups); g++ {
		legs, err := f.build(g)
		if err != nil {
			return err
		}
		f.legs = append(f.legs, legs...)
	}
	return nil
}

// drop lets go of the groups before g: done, they are counted in the
// cursor.
func (f *fanReq) drop(g int) {
	if n := (g - f.base) * f.width; n > 0 && n <= len(f.legs) {
		clear(f.legs[:n])
		f.legs = f.legs[n:]
		f.base = g
	}
}

// fanRequest resolves a fan-out read of p for params (and upper, a
// SortBetween pattern's upper bound).
func (p *Pattern[T]) fanRequest(db *DB, params T, upper *T, opts []QueryOption) (*fanReq, error) {
	s, err := p.d.settingsFor(p.d.name, opts)
	if err != nil {
		return nil, err
	}
	return p.fanRequestWith(db, params, upper, s)
}

// fanRequestWith is fanRequest with the options collected: s.
func (p *Pattern[T]) fanRequestWith(db *DB, params T, upper *T, s *settings) (*fanReq, error) {
	d := p.d
	op := d.name
	var err error
	if err := d.checkDB(op, db); err != nil {
		return nil, err
	}
	f := &fanReq{d: d, op: op, s: s, width: 1, groups: 1, conc: defaultFanOutConcurrency, keys: db.cursor.keys}
	if s.read.hasFanConcurrency {
		f.conc = s.read.fanConcurrency
	}
	f.limit = DefaultMaxFanOutRequests
	if s.read.hasFanCeiling {
		f.limit = s.read.fanCeiling
	}
	f.desc = (d.descending || s.descending) && !s.read.ascending
	if f.secret, err = db.cursorSecret(op); err != nil {
		return nil, err
	}
	// One reading of the DB's clock judges every leg's items: read per
	// leg, an item could be expired in one bucket's answer and not in the
	// next one's.
	exp := db.expiryFor(s, d.entities...)
	if err := d.checkExpiry(op, s, exp); err != nil {
		return nil, err
	}
	// Each leg is the pattern's own request for params with the leg's
	// shard and bucket: built and checked as any read is (but for the
	// expiry, judged above).
	legS := *s
	legS.read.hasCursor, legS.read.cursor = false, ""
	legS.read.includeExpired = true
	mem := d.members[0]
	pv := reflect.ValueOf(&params).Elem()
	shard := d.fanShard()
	var shards []int // each leg's shard in a group; nil: no shard field to set
	if shard != nil {
		if ns, ok := d.derivedShards(mem, pv, s); ok {
			shards = ns // the params give the shard (or one per count): those only
		} else {
			shards = make([]int, shard.read)
			for i := range shards {
				shards[i] = i
			}
			f.plan.shard = shard
		}
		f.width = len(shards)
	}
	var hi reflect.Value
	if upper != nil {
		hi = reflect.ValueOf(upper).Elem()
	}
	b, from, to := d.fanBuckets(mem, pv, hi, s)
	var first, last time.Time
	if b != nil {
		if first, last, f.groups, err = b.span(op, from, to); err != nil {
			return nil, err
		}
		if f.groups > 1 {
			f.plan.bucket = b
		}
	}
	f.build = func(g int) ([]fanLeg, error) {
		legs := make([]fanLeg, f.width)
		for i := range legs {
			lp := params
			v := reflect.ValueOf(&lp).Elem()
			if shards != nil {
				setShard(v.FieldByIndex(shard.field.Index), shards[i])
			}
			if b != nil {
				// The bucket's partition; its lower bound is the read's
				// own in the first bucket, the bucket's start after.
				at := b.unit.add(first, g)
				if f.desc {
					at = b.unit.add(last, -g)
				}
				if at.Before(from) {
					at = from
				}
				setTimeField(v, b.ph, at)
			}
			r, err := p.requestWith(db, lp, upper, &legS)
			if err != nil {
				return nil, err
			}
			r.expiry = exp
			legs[i].r = r
		}
		return legs, nil
	}
	if err := f.extend(1); err != nil {
		return nil, err
	}
	f.partition = f.legs[0].r.binding.partition
	if f.digest, err = f.readDigest(); err != nil {
		return nil, err
	}
	if s.read.hasCursor && s.read.cursor != "" {
		if err := f.openCursor(s.read.cursor); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// overCeiling refuses a call that would send n requests before it
// returns, n over the fan-out ceiling.
func (f *fanReq) overCeiling(n int) error {
	if n <= f.limit {
		return nil
	}
	return &InputError{Op: f.op, Reason: fmt.Sprintf("the read is a %s: it would send %d requests before it returns, over the fan-out ceiling of %d; raise it with MaxFanOutRequests(%d), or iterate with All / AllBetween", f.describe(), n, f.limit, n)}
}

// describe says how the call fans out, for errors.
func (f *fanReq) describe() string {
	var parts []string
	if f.plan.bucket != nil {
		parts = append(parts, fmt.Sprintf("%d %s buckets", f.groups, f.plan.bucket.unit))
	}
	if f.width > 1 {
		parts = append(parts, fmt.Sprintf("%d shards", f.width))
	}
	if len(parts) == 0 {
		return "read of one partition"
	}
	return "fan-out over " + strings.Join(parts, " × ")
}

// timeField reads the time placeholder ph's field of struct value v.
func timeField(v reflect.Value, ph *keys.Placeholder) time.Time {
	fv := v.FieldByIndex(ph.Field.Index)
	if ph.Ptr {
		if fv.IsNil() {
			return time.Time{}
		}
		fv = fv.Elem()
	}
	return fv.Interface().(time.Time)
}

func setTimeField(v reflect.Value, ph *keys.Placeholder, t time.Time) {
	fv := v.FieldByIndex(ph.Field.Index)
	if ph.Ptr {
		fv.Set(reflect.ValueOf(&t))
		return
	}
	fv.Set(reflect.ValueOf(t))
}

// fanRun is one fan-out read in progress: the legs' fetches in flight and
// the merge. Only the goroutine that reads (pull) changes the legs; a
// fetch works on its own copy of its leg's request and reports back on
// results.
type fanRun struct {
	f        *fanReq
	db       *DB
	ctx      context.Context
	cancel   context.CancelFunc
	results  chan fanResult
	inflight int
	g        int // the group being merged
	// end is the group fetches may start before: the read-ahead window.
	// A slow read starts it one group ahead and doubles it each time it
	// is used up past a group this call read from its start; a fast one
	// (Sum: it reads everything) has it at the last group.
	end      int
	ahead    int
	slow     bool
	want     int // items the read still wants; 0: no limit
	ceiling  int // fetches a page may start; 0: no bound (iterators)
	started  int
	scanned  int
	requests int
}

type fanResult struct {
	leg               int
	items             []map[string]types.AttributeValue
	start, next       map[string]types.AttributeValue
	scanned, requests int
	err               error
}

// start starts reading f from its window's first group: want items (0: no
// limit).
func (f *fanReq) start(ctx context.Context, db *DB, want int, slow bool) *fanRun {
	run := &fanRun{f: f, db: db, results: make(chan fanResult, f.conc), want: want, slow: slow, g: f.base, ahead: 1}
	run.ctx, run.cancel = context.WithCancel(ctx)
	if !slow {
		run.ahead = f.groups
	}
	run.end = run.g + run.ahead
	return run
}

// stop cancels the fetches in flight and waits for them: none outlives
// the read. What they cost still counts.
func (run *fanRun) stop() {
	run.cancel()
	for ; run.inflight > 0; run.inflight-- {
		res := <-run.results
		run.scanned += res.scanned
		run.requests += res.requests
	}
}

// fill starts the fetches the merge will need, in group order: every leg of
// the groups in the window that has nothing buffered and more to read, up
// to the concurrency bound and the page's ceiling. It builds the legs it
// gets to, no more.
func (run *fanRun) fill() error {
	f := run.f
	end := min(f.groups, run.end) * f.width
	for i := run.g * f.width; i < end && run.inflight < f.conc && (run.ceiling == 0 || run.started < run.ceiling); i++ {
		if err := f.extend(i/f.width + 1); err != nil {
			return err
		}
		if l := f.leg(i); !l.inflight && !l.ended && l.pos == len(l.buf) {
			run.fetch(i)
		}
	}
	return nil
}

// fetch reads leg i's next items from where it is: as many as the read
// still wants, or one DynamoDB page (with a match) when it has no limit.
func (run *fanRun) fetch(i int) {
	l := run.f.leg(i)
	l.inflight = true
	run.inflight++
	run.started++
	r, start, want := l.r, l.start, run.want
	l.fresh = l.fresh || start == nil
	go func() {
		rr := *r // the request is shared; its ExclusiveStartKey is this fetch's
		rr.query.ExclusiveStartKey = start
		res := fanResult{leg: i, start: start}
		res.next, res.err = rr.run(run.ctx, run.db, want, true, &res.scanned, &res.requests,
			func(item map[string]types.AttributeValue, left int) (bool, bool, error) {
				if res.items == nil {
					res.items = make([]map[string]types.AttributeValue, 0, left)
				}
				res.items = append(res.items, item)
				return true, false, nil
			})
		run.results <- res
	}()
}

// await takes one fetch's result into its leg.
func (run *fanRun) await() error {
	var res fanResult
	select {
	case res = <-run.results:
	case <-run.ctx.Done():
		return run.ctx.Err()
	}
	run.inflight--
	run.scanned += res.scanned
	run.requests += res.requests
	if res.err != nil {
		return res.err
	}
	l := run.f.leg(res.leg)
	l.inflight = false
	l.buf, l.pos, l.bufStart = res.items, 0, res.start
	l.start, l.ended = res.next, len(res.next) == 0
	return nil
}

// pull returns the next item in merge order and the leg it is from; ok is
// false at the end, or, with stopIfWait, when the next item needs a request
// not yet answered.
func (run *fanRun) pull(stopIfWait bool) (item map[string]types.AttributeValue, leg *fanLeg, ok bool, err error) {
	f := run.f
	skAttr := f.d.skAttr()
	for run.g < f.groups {
		if err := f.extend(run.g + 1); err != nil {
			return nil, nil, false, err
		}
		legs := f.legs[(run.g-f.base)*f.width : (run.g-f.base+1)*f.width]
		best, waiting := -1, false
		for j := range legs {
			l := &legs[j]
			if l.pos == len(l.buf) {
				waiting = waiting || !l.ended // its next item may come first
				continue
			}
			if best < 0 || f.before(l.buf[l.pos], legs[best].buf[legs[best].pos], skAttr) {
				best = j
			}
		}
		switch {
		case waiting && stopIfWait:
			return nil, nil, false, nil
		case waiting:
			if err := run.fill(); err != nil {
				return nil, nil, false, err
			}
			if run.inflight == 0 { // the page is at the fan-out ceiling: it ends here
				return nil, nil, false, nil
			}
			if err := run.await(); err != nil {
				return nil, nil, false, err
			}
		case best < 0: // the group is read: on to the next
			// Reading further ahead only past a group this call read
			// from its start: a bucket a cursor left done or half read
			// says nothing of how sparse the next ones are, and a resumed
			// page starts with the window a first page has. The window
			// doubles when it is used up, not at each group of it: a page
			// over k empty buckets sends about 2k requests at most.
			fresh := false
			for j := range legs {
				fresh = fresh || legs[j].fresh
			}
			run.g++
			f.drop(run.g)
			if run.g >= run.end {
				if fresh {
					run.ahead = min(2*run.ahead, f.groups)
				}
				run.end = run.g + run.ahead
			}
		default:
			l := &legs[best]
			l.pos++
			if run.want > 0 {
				run.want--
			}
			return l.buf[l.pos-1], l, true, nil
		}
	}
	return nil, nil, false, nil
}

// before reports whether item a comes before item b in the read's order:
// by their sort keys (ties keep the legs' order).
func (f *fanReq) before(a, b map[string]types.AttributeValue, skAttr string) bool {
	if skAttr == "" {
		return false
	}
	c := compareKeyValues(a[skAttr], b[skAttr])
	if f.desc {
		return c > 0
	}
	return c < 0
}

// compareKeyValues orders two key values as DynamoDB sorts them: strings
// and binary by bytes, numbers by exact decimal value.
func compareKeyValues(a, b types.AttributeValue) int {
	switch a := a.(type) {
	case *types.AttributeValueMemberS:
		if b, ok := b.(*types.AttributeValueMemberS); ok {
			return strings.Compare(a.Value, b.Value)
		}
	case *types.AttributeValueMemberB:
		if b, ok := b.(*types.AttributeValueMemberB); ok {
			return bytes.Compare(a.Value, b.Value)
		}
	case *types.AttributeValueMemberN:
		if b, ok := b.(*types.AttributeValueMemberN); ok {
			return codec.CompareNumbers(a.Value, b.Value) // exact: not float64
		}
	}
	return 0
}

// fanPage reads one page of f: up to want items (0: no limit).
func fanPage[T any](ctx context.Context, db *DB, f *fanReq, want int) (*Page[T], error) {
	if err := f.overCeiling(f.width); err != nil {
		return nil, err // one bucket's shards, read together
	}
	run := f.start(ctx, db, want, true)
	run.ceiling = f.limit
	page := &Page[T]{}
	var zero T
	for want == 0 || len(page.Items) < want {
		item, leg, ok, err := run.pull(want == 0 && len(page.Items) > 0)
		if err != nil {
			run.stop()
			return nil, opError(f.op, err)
		}
		if !ok {
			break
		}
		if len(page.Items) == cap(page.Items) {
			n := len(leg.buf) - leg.pos + 1
			if want > 0 {
				n = want - len(page.Items)
			}
			page.Items = slices.Grow(page.Items, n)
		}
		page.Items = append(page.Items, zero)
		if _, err := decodeMember(leg.r, item, &page.Items[len(page.Items)-1]); err != nil {
			run.stop()
			return nil, err
		}
	}
	run.stop()
	page.Scanned, page.Requests = run.scanned, run.requests
	var err error
	if page.Cursor, err = f.cursor(); err != nil {
		return nil, err
	}
	return page, nil
}

// fanAll iterates over every item of the read req makes, as queryAll does.
// eager is a call that reads everything before it returns (Sum): over
// the fan-out ceiling, it is refused.
func fanAll[T any](ctx context.Context, db *DB, req func() (*fanReq, error), eager bool) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		f, err := req()
		if err == nil && eager {
			err = f.overCeiling(f.total())
		}
		if err != nil {
			yield(zero, err)
			return
		}
		// An iterator reads ahead as a page does, so that a loop that
		// stops early over a long range sends a few requests; Sum reads
		// every leg it was allowed to, as fast as it may.
		want := f.s.limit
		run := f.start(ctx, db, want, !eager)
		defer run.stop()
		// One T, reset before each item: see queryAll.
		var v T
		for n := 0; want == 0 || n < want; n++ {
			item, leg, ok, err := run.pull(false)
			if err != nil {
				yield(zero, opError(f.op, err))
				return
			}
			if !ok {
				return
			}
			v = zero
			if _, err := decodeMember(leg.r, item, &v); err != nil {
				yield(zero, err)
				return
			}
			if !yield(v, nil) {
				return
			}
		}
	}
}

// Reading a pattern that fans out: the Pattern methods come here.

func (p *Pattern[T]) fanQuery(ctx context.Context, db *DB, params T, upper *T, opts []QueryOption) (*Page[T], error) {
	f, err := p.fanRequest(db, params, upper, opts)
	if err != nil {
		return nil, err
	}
	return fanPage[T](ctx, db, f, f.s.limit)
}

// fanGet is Pattern.Get of a pattern that fans out, with the options
// collected: s.
func (p *Pattern[T]) fanGet(ctx context.Context, db *DB, params T, s *settings) (T, error) {
	var zero T
	f, err := p.fanRequestWith(db, params, nil, s)
	if err != nil {
		return zero, err
	}
	if err := f.overCeiling(f.total()); err != nil {
		return zero, err
	}
	found, err := fanPage[T](ctx, db, f, 2)
	switch {
	case err != nil:
		return zero, err
	case len(found.Items) == 0:
		return zero, &notFoundError{op: f.op, key: map[string]types.AttributeValue{p.d.pkAttr(): &types.AttributeValueMemberS{Value: f.partition}}}
	case len(found.Items) > 1:
		return zero, &notUniqueError{op: f.op}
	}
	return found.Items[0], nil
}

// QueryInputs are the first requests Query sends for params (a dry run):
// one per leg of a pattern that fans out over shards or time buckets
// (shards within a bucket, buckets in the order read), the one request of
// any other Query pattern.
func (p *Pattern[T]) QueryInputs(db *DB, params T, opts ...QueryOption) ([]*dynamodb.QueryInput, error) {
	return p.queryInputs(db, params, nil, opts)
}

// QueryBetweenInputs are the first requests QueryBetween sends for the
// bounds from and to (a dry run): see QueryInputs.
func (p *Pattern[T]) QueryBetweenInputs(db *DB, from, to T, opts ...QueryOption) ([]*dynamodb.QueryInput, error) {
	return p.queryInputs(db, from, &to, opts)
}

func (p *Pattern[T]) queryInputs(db *DB, params T, upper *T, opts []QueryOption) ([]*dynamodb.QueryInput, error) {
	if !p.d.fans() {
		in, err := p.queryInput(p.request(db, params, upper, opts))
		if err != nil {
			return nil, err
		}
		return []*dynamodb.QueryInput{in}, nil
	}
	ins, _, err := p.fanInputs(db, params, upper, opts)
	return ins, err
}

// fanInputs are the first requests of a read that may fan out: every leg's
// not yet done. Listed at once, they are bound by the fan-out ceiling.
func (p *Pattern[T]) fanInputs(db *DB, params T, upper *T, opts []QueryOption) ([]*dynamodb.QueryInput, *fanReq, error) {
	f, err := p.fanRequest(db, params, upper, opts)
	if err == nil {
		err = f.overCeiling(f.total())
	}
	if err == nil {
		err = f.extend(f.groups)
	}
	if err != nil {
		return nil, nil, err
	}
	out := make([]*dynamodb.QueryInput, 0, len(f.legs))
	for i := range f.legs {
		l := &f.legs[i]
		if l.ended {
			continue
		}
		in := l.r.query
		in.ExclusiveStartKey = l.start
		out = append(out, &in)
	}
	return out, f, nil
}

// fanInput is QueryInput of a pattern that may fan out: the request of a
// call that reads one partition, else an ErrInvalidInput naming the dry
// run that returns them all.
func (p *Pattern[T]) fanInput(db *DB, params T, upper *T, opts []QueryOption) (*dynamodb.QueryInput, error) {
	ins, f, err := p.fanInputs(db, params, upper, opts)
	switch {
	case err != nil:
		return nil, err
	case f.total() == 1 && len(ins) == 1:
		return ins[0], nil
	case f.total() == 1: // the cursor says it is done
		in := f.legs[0].r.query
		return &in, nil
	}
	use := "Pattern.QueryInputs"
	switch {
	case p.d.entityQuery:
		use = "Entity.QueryInputs"
	case upper != nil:
		use = "Pattern.QueryBetweenInputs"
	}
	return nil, &InputError{Op: p.d.name, Reason: fmt.Sprintf("the read is a %s, %d requests: use %s", f.describe(), f.total(), use)}
}
