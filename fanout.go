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
//     merged from its shards, reading ahead a bounded window: with a Limit
//     the first bucket alone, then twice as many each time one is used up,
//     so that "the last 10 readings" reads the newest bucket and stops when
//     it has them.
//
// Query returns one Page: with Limit(n), up to n items; without, the items
// merged until a leg would need another request. Its Cursor (sealed as
// any cursor, see cursor.go) holds every leg's position and resumes them
// all; it is bound to the pattern, every leg's partition and sort bounds,
// and the direction. All iterates over everything. Each leg asks for as
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
func FanOutConcurrency(n int) QueryOption {
	return queryOpt{func(s *settings) { s.read.fanConcurrency, s.read.hasFanConcurrency = n, true }}
}

// resolveFan finds whether the declared pattern fans out (d.fan), or why
// it cannot.
func (d *readDecl) resolveFan() error {
	d.fan = nil
	if d.collection || len(d.members) != 1 {
		return nil
	}
	mem := d.members[0]
	var f fanPlan
	for _, b := range mem.part {
		if b.Label == "" {
			continue // fixed to literal text: one shard, one bucket
		}
		if sm := mem.m.shard; sm != nil && b.Ph.Field.GoName == sm.field.GoName {
			f.shard = sm
		}
		if d.sort != sortBetween || b.Ph.Kind != keys.KindTime || mem.sk == nil {
			continue
		}
		if first := mem.sk.Placeholders(); len(first) == 0 || first[0].Field.GoName != b.Ph.Field.GoName {
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
// (a group is one bucket's shards, read together and merged).
type fanReq struct {
	d      *readDecl
	op     string
	s      *settings
	legs   []fanLeg
	width  int // legs per group
	desc   bool
	conc   int
	secret []byte
	keys   [][]byte // the cursor keys that open a cursor
	digest string   // identifies the legs, for the cursor
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
}

// fanRequest resolves a fan-out read of p for params (and upper, a
// SortBetween pattern's upper bound).
func (p *Pattern[T]) fanRequest(db *DB, params T, upper *T, opts []QueryOption) (*fanReq, error) {
	d := p.d
	op := d.name
	s, err := d.settingsFor(op, opts)
	if err != nil {
		return nil, err
	}
	f := &fanReq{d: d, op: op, s: s, width: 1, conc: defaultFanOutConcurrency, keys: db.cursor.keys}
	if s.read.hasFanConcurrency {
		f.conc = s.read.fanConcurrency
	}
	f.desc = (d.descending || s.descending) && !s.read.ascending
	if f.secret, err = db.cursorSecret(op); err != nil {
		return nil, err
	}
	// Each leg is the pattern's own request for params with the leg's
	// shard and bucket: built and checked as any read is.
	legS := *s
	legS.read.hasCursor, legS.read.cursor = false, ""
	if d.fan.shard != nil {
		f.width = d.fan.shard.read
	}
	var starts []time.Time
	var from time.Time
	if b := d.fan.bucket; b != nil && upper != nil {
		from = timeField(reflect.ValueOf(&params).Elem(), b.ph)
		to := timeField(reflect.ValueOf(upper).Elem(), b.ph)
		if starts, err = b.buckets(op, from, to, f.width); err != nil {
			return nil, err
		}
	}
	groups := max(1, len(starts))
	f.legs = make([]fanLeg, groups*f.width)
	for g := range groups {
		for i := range f.width {
			lp := params
			v := reflect.ValueOf(&lp).Elem()
			if sm := d.fan.shard; sm != nil {
				setShard(v.FieldByIndex(sm.field.Index), i)
			}
			if starts != nil {
				// The bucket's partition; its lower bound is the read's
				// own in the first bucket, the bucket's start after.
				at := starts[g]
				if f.desc {
					at = starts[groups-1-g]
				}
				if at.Before(from) {
					at = from
				}
				setTimeField(v, d.fan.bucket.ph, at)
			}
			r, err := p.requestWith(db, lp, upper, &legS)
			if err != nil {
				return nil, err
			}
			f.legs[g*f.width+i].r = r
		}
	}
	f.digest = f.legDigest()
	if s.read.hasCursor && s.read.cursor != "" {
		if err := f.openCursor(s.read.cursor); err != nil {
			return nil, err
		}
	}
	return f, nil
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
	g        int  // the group being merged
	ahead    int  // groups that may be read from g on
	slow     bool // ahead starts at 1 and doubles (a Limit: read no more buckets than needed)
	want     int  // items the read still wants; 0: no limit
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

// start starts reading f: want items (0: no limit).
func (f *fanReq) start(ctx context.Context, db *DB, want int, slow bool) *fanRun {
	run := &fanRun{f: f, db: db, results: make(chan fanResult, len(f.legs)), want: want, slow: slow, ahead: len(f.legs) / f.width}
	run.ctx, run.cancel = context.WithCancel(ctx)
	if slow {
		run.ahead = 1
	}
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
// to the concurrency bound.
func (run *fanRun) fill() {
	f := run.f
	end := min(len(f.legs), (run.g+run.ahead)*f.width)
	for i := run.g * f.width; i < end && run.inflight < f.conc; i++ {
		if l := &f.legs[i]; !l.inflight && !l.ended && l.pos == len(l.buf) {
			run.fetch(i)
		}
	}
}

// fetch reads leg i's next items from where it is: as many as the read
// still wants, or one DynamoDB page (with a match) when it has no limit.
func (run *fanRun) fetch(i int) {
	l := &run.f.legs[i]
	l.inflight = true
	run.inflight++
	r, start, want := l.r, l.start, run.want
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
	l := &run.f.legs[res.leg]
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
	groups := len(f.legs) / f.width
	skAttr := f.d.skAttr()
	for run.g < groups {
		legs := f.legs[run.g*f.width : (run.g+1)*f.width]
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
			run.fill()
			if err := run.await(); err != nil {
				return nil, nil, false, err
			}
		case best < 0: // the group is read: on to the next, reading further ahead
			run.g++
			if run.slow {
				run.ahead = min(2*run.ahead, groups)
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
	run := f.start(ctx, db, want, true)
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
func fanAll[T any](ctx context.Context, db *DB, req func() (*fanReq, error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		f, err := req()
		if err != nil {
			yield(zero, err)
			return
		}
		want := f.s.limit
		run := f.start(ctx, db, want, want > 0)
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

func (p *Pattern[T]) fanGet(ctx context.Context, db *DB, params T, opts []QueryOption) (T, error) {
	var zero T
	f, err := p.fanRequest(db, params, nil, opts)
	if err != nil {
		return zero, err
	}
	if f.s.limit != 0 || f.s.read.hasCursor {
		return zero, &InputError{Op: f.op, Reason: "Get takes no Limit or After"}
	}
	found, err := fanPage[T](ctx, db, f, 2)
	switch {
	case err != nil:
		return zero, err
	case len(found.Items) == 0:
		return zero, &notFoundError{op: f.op, key: map[string]types.AttributeValue{p.d.pkAttr(): &types.AttributeValueMemberS{Value: f.legs[0].r.binding.partition}}}
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
	if p.d.fan == nil {
		in, err := p.queryInput(p.request(db, params, upper, opts))
		if err != nil {
			return nil, err
		}
		return []*dynamodb.QueryInput{in}, nil
	}
	f, err := p.fanRequest(db, params, upper, opts)
	if err != nil {
		return nil, err
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
	return out, nil
}

// fanInputError is QueryInput's answer for a pattern that fans out.
func (p *Pattern[T]) fanInputError() error {
	return &InputError{Op: p.d.name, Reason: "the pattern reads " + p.d.fan.describe() + ", one request each: use QueryInputs or QueryBetweenInputs"}
}
