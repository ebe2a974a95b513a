package singletable

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/keys"
	"github.com/singletable/singletable/internal/model"
	"github.com/singletable/singletable/internal/read"
)

// Fan-out reads
//
// A pattern whose partition is spread over shards (a partition template
// that reads the entity's shard field, see Shards) or time buckets (a
// SortBetween pattern over a bucketed partition, see the time buckets in
// bucket.go) reads several partitions for one call: its legs, one Query
// each, built by the same request builder as any pattern (so filters,
// projections, FetchFull and options apply to each) and read by the same
// engine (read.Req.Run). The legs are read in parallel, at most
// FanOutConcurrency requests at a time (default 32), and merged:
//
//   - shards are merged by sort key (ascending or descending, as the pattern
//     reads), so the result is what one query over an unsharded partition
//     would return;
//   - buckets are merged in time order (newest first when descending), each
//     from its shards.
//
// How far ahead a read fetches depends on what it was asked for (read.Pace):
//
//   - a Query page, or All / AllBetween with a Limit, may have what it wants
//     after a bucket: it reads ahead a window of buckets, the first alone,
//     then twice as many each time the window is used up past a bucket
//     this call read from its start (a resumed page starts again at one),
//     so that "the last 10 readings" reads the newest bucket and stops
//     when it has them;
//   - All / AllBetween without a Limit was asked for everything: it sends
//     every leg's request at once, as hand-written code would, at most
//     FanOutConcurrency in flight and at most that many legs ahead of the
//     bucket the loop is in, starting the next as legs finish; a loop that
//     stops early has sent at most FanOutConcurrency requests beyond what
//     it read, and those in flight are cancelled;
//   - Sum reads every leg as fast as FanOutConcurrency allows.
//
// The legs are built as the read gets to them, a window at a time, so
// that a range of years costs the memory of the window: a few buckets, or
// FanOutConcurrency legs' pages.
//
// Query returns one Page: with Limit(n), up to n items; without, the items
// merged until a leg would need another request. Its Cursor (sealed as
// any cursor, see cursor.go) holds every leg's position and resumes them
// all; it is bound to the pattern and the read. All iterates over
// everything. Each leg asks for as many items as the read still wants, so
// a Limit costs one round of requests, not one per item.

// defaultFanOutConcurrency is how many requests a fan-out has in flight
// without FanOutConcurrency.
const defaultFanOutConcurrency = 32

// FanOutConcurrency bounds how many requests a pattern that fans out over
// shards or time buckets has in flight at once (default 32); All and
// AllBetween without a Limit send every leg's request at once up to it,
// and read at most that many legs ahead of the loop. It is an
// ErrInvalidInput below 1, or on a pattern that does not fan out.
func FanOutConcurrency(n int) interface {
	PatternGetOption
	EntityQueryOption
	PartitionQueryOption
} {
	return fanOpt{func(s *settings) { s.read.fanConcurrency, s.read.hasFanConcurrency = n, true }}
}

// defaultMaxFanOutRequests is the fan-out ceiling without
// MaxFanOutRequests: a month of hour buckets (744) is under it, a day of
// minute buckets (1,440) over.
const defaultMaxFanOutRequests = 1000

// MaxFanOutRequests sets the fan-out ceiling of one call: how many
// reads of its legs (a shard's or a bucket's partition) a read over shards
// or time buckets may start before it returns (default 1,000: a month of
// hour buckets, 744, is under it; a day of minute buckets, 1,440, over).
// A leg's read is usually one request; when a filter (the caller's, or
// the type's) leaves its pages empty, it reads on, with growing Limits,
// until it has what the call wants or the leg ends, so the requests may
// then be several times the ceiling. Sum, SumBetween and Get read every
// leg before they return: one over the ceiling, they are refused before
// sending anything (an ErrInvalidInput naming the count and this option).
// A Query page reads ahead at most that many requests, then returns what
// it has and a cursor; it is refused only when one bucket's shards are
// more. All and AllBetween fetch as the loop advances, at most
// FanOutConcurrency legs ahead of it, and are not bound by the default
// ceiling, over any range; given this option, they are: they yield the
// items that many requests bring, then an ErrInvalidInput naming the
// ceiling if the read goes on. QueryInputs and QueryBetweenInputs, which
// list every leg, are bound by it. It is an ErrInvalidInput below 1, or on
// a pattern that does not fan out.
func MaxFanOutRequests(n int) interface {
	PatternGetOption
	EntityQueryOption
	PartitionQueryOption
} {
	return fanOpt{func(s *settings) { s.read.fanCeiling, s.read.hasFanCeiling = n, true }}
}

// fanReq is a fan-out read resolved for one call: the engine's (read.Fan:
// its legs, group by group, the merge and the cursor), and what the
// pattern adds.
type fanReq struct {
	read.Fan
	d     *readDecl
	plan  fanPlan // what this call fans out over: shards, buckets, or one partition
	op    string
	s     *settings
	limit int // the fan-out ceiling: requests one eager call may send
}

// fanRequest resolves a fan-out read of d for params (and upper, a
// SortBetween pattern's upper bound; invalid for the others).
func (d *readDecl) fanRequest(db *DB, params, upper reflect.Value, opts []QueryOption) (*fanReq, error) {
	s, err := d.settingsFor(d.name, opts)
	if err != nil {
		return nil, err
	}
	return d.fanRequestWith(db, params, upper, s)
}

// fanRequestWith is fanRequest with the options collected: s. Each leg
// reads for its own copy of params.
func (d *readDecl) fanRequestWith(db *DB, pv, hi reflect.Value, s *settings) (*fanReq, error) {
	op := d.name
	var err error
	if err := d.checkDB(op, db); err != nil {
		return nil, err
	}
	f := &fanReq{d: d, op: op, s: s}
	f.Pattern, f.KeyAttrs, f.SKAttr = d.name, d.keyAttrs(), d.skAttr()
	f.Width, f.Groups, f.Conc, f.Keys = 1, 1, defaultFanOutConcurrency, db.cursor.keys
	if s.read.hasFanConcurrency {
		f.Conc = s.read.fanConcurrency
	}
	f.limit = defaultMaxFanOutRequests
	if s.read.hasFanCeiling {
		f.limit = s.read.fanCeiling
	}
	f.Desc = (d.descending || s.descending) && !s.read.ascending
	if f.Secret, err = db.cursorSecret(op); err != nil {
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
	shard := d.fanShard()
	var shards []int // each leg's shard in a group; nil: no shard field to set
	if shard != nil {
		if ns, ok := d.derivedShards(mem, pv, s); ok {
			shards = ns // the params give the shard (or one per count): those only
		} else {
			shards = make([]int, shard.Read)
			for i := range shards {
				shards[i] = i
			}
			f.plan.shard = shard
		}
		f.Width = len(shards)
	}
	b, from, to := d.fanBuckets(mem, pv, hi, s)
	var first, last time.Time
	if b != nil {
		if first, last, f.Groups, err = b.span(op, from, to); err != nil {
			return nil, err
		}
		if f.Groups > 1 {
			f.plan.bucket = b
		}
	}
	f.Build = func(g, i int) (*read.Req, error) {
		v := copyOf(pv)
		if shards != nil {
			model.SetShard(v.FieldByIndex(shard.Field.Index), shards[i])
		}
		if b != nil {
			// The bucket's partition; its lower bound is the read's
			// own in the first bucket, the bucket's start after.
			at := b.unit.Add(first, g)
			if f.Desc {
				at = b.unit.Add(last, -g)
			}
			if at.Before(from) {
				at = from
			}
			setTimeField(v, b.ph, at)
		}
		r, err := d.requestWith(db, v, hi, &legS)
		if err != nil {
			return nil, err
		}
		r.expiry = exp
		return &r.Req, nil
	}
	cursor := ""
	if s.read.hasCursor {
		cursor = s.read.cursor
	}
	if err := f.Init(cursor); err != nil {
		return nil, cursorError(d.name, err)
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
		parts = append(parts, fmt.Sprintf("%d %s buckets", f.Groups, f.plan.bucket.unit))
	}
	if f.Width > 1 {
		parts = append(parts, fmt.Sprintf("%d shards", f.Width))
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

// setTimeField sets the time placeholder ph's field of v, an addressable
// struct value, to t: through its address, which boxes nothing (a leg is
// built per bucket).
func setTimeField(v reflect.Value, ph *keys.Placeholder, t time.Time) {
	fv := v.FieldByIndex(ph.Field.Index)
	if ph.Ptr {
		fv.Set(reflect.ValueOf(&t))
		return
	}
	*fv.Addr().Interface().(*time.Time) = t
}

// fanPage reads one page of f into page, a Page[T]: up to want items (0:
// no limit).
func fanPage(ctx context.Context, db *DB, f *fanReq, want int, page reflect.Value) error {
	info, err := fanItems(ctx, db, f, want, sliceFill{items: page.Field(pageItems)})
	if err != nil {
		return err
	}
	if info.cursor, err = f.Cursor(); err != nil {
		return &InputError{Op: f.op, Reason: err.Error()}
	}
	setPage(page, info)
	return nil
}

// fanItems reads up to want items of f (0: no limit) into s.
func fanItems(ctx context.Context, db *DB, f *fanReq, want int, s sliceFill) (pageInfo, error) {
	if err := f.overCeiling(f.Width); err != nil {
		return pageInfo{}, err // one bucket's shards, read together
	}
	run := f.Start(ctx, db.via(f.d.meter(db, f.s, f.op), 0), want, read.Paced)
	run.Ceiling = f.limit
	defer run.Stop()
	for want == 0 || s.n < want {
		item, r, left, ok, err := run.Pull(want == 0 && s.n > 0)
		if err != nil {
			return pageInfo{}, fanError(f.op, err)
		}
		if !ok {
			break
		}
		if want > 0 {
			left = want - s.n
		}
		if _, err := decodeMember(r.Src.(*readReq), item, s.next(left)); err != nil {
			s.done()
			return pageInfo{}, err
		}
		s.n++
	}
	run.Stop()
	return pageInfo{scanned: run.Scanned, requests: run.Requests, items: s.done()}, nil
}

// fanError is an error of a fan-out's run, in its operation op: a leg's
// request's error names it already (read.OpError), the others (the
// caller's context, a leg's request not built) do not.
func fanError(op string, err error) error {
	if read.IsOpError(err) {
		return err
	}
	return opError(op, err)
}

// fanAll iterates over every item of f, as queryAll does. eager is a
// call that reads everything before it returns (Sum): over the fan-out
// ceiling, it is refused.
func fanAll(ctx context.Context, db *DB, f *fanReq, eager bool, dst reflect.Value, y itemYield) {
	if eager {
		if err := f.overCeiling(f.Total()); err != nil {
			y.item(err)
			return
		}
	}
	// An iterator without a Limit was asked for everything: it reads every
	// leg at once, as hand-written code would, at most FanOutConcurrency
	// legs ahead of the loop (what a loop that stops early has sent beyond
	// what it read). With a Limit, it reads ahead as a page does: "the last
	// 10" reads the newest bucket. Sum reads every leg it was allowed to,
	// as fast as it may.
	want, pace := f.s.limit, read.Streaming
	switch {
	case eager:
		pace = read.Eager
	case want > 0:
		pace = read.Paced
	}
	run := f.Start(ctx, db.via(f.d.meter(db, f.s, f.op), 0), want, pace)
	if f.s.read.hasFanCeiling && !eager {
		// Given by the caller, the ceiling bounds an iterator too: it
		// reads what that many requests bring, then says why it stops.
		run.Ceiling = f.limit
	}
	defer run.Stop()
	for n := 0; want == 0 || n < want; {
		item, r, _, ok, err := run.Pull(false)
		if err != nil {
			dst.SetZero()
			y.item(fanError(f.op, err))
			return
		}
		if !ok {
			if !run.Done() {
				dst.SetZero()
				y.item(&InputError{Op: f.op, Reason: fmt.Sprintf("the read is a %s: it reached its fan-out ceiling, MaxFanOutRequests(%d), after %d requests, before its end; raise it, or read in pages (Query, QueryBetween) and resume from their cursors", f.describe(), f.limit, run.Requests)})
			}
			return
		}
		dst.SetZero()
		if _, err := decodeMember(r.Src.(*readReq), item, dst); err != nil {
			dst.SetZero()
			if !y.item(err) {
				return
			}
			continue // as queryAll: the loop decides
		}
		n++
		if !y.item(nil) {
			return
		}
	}
}

// fanGet is Pattern.Get of a pattern that fans out, with the options
// collected: s. It decodes the item into out.
func (d *readDecl) fanGet(ctx context.Context, db *DB, params reflect.Value, s *settings, out reflect.Value) error {
	f, err := d.fanRequestWith(db, params, reflect.Value{}, s)
	if err != nil {
		return err
	}
	if err := f.overCeiling(f.Total()); err != nil {
		return err
	}
	found, err := fanItems(ctx, db, f, 2, sliceFill{one: out})
	if err == nil && found.items != 1 {
		err = &notFoundError{op: f.op, key: map[string]types.AttributeValue{d.pkAttr(): &types.AttributeValueMemberS{Value: f.First().Binding.Partition}}}
		if found.items > 1 {
			err = &notUniqueError{op: f.op}
		}
	}
	if err != nil {
		out.SetZero()
	}
	return err
}

// QueryInputs are the first requests Query sends for params (a dry run):
// one per leg of a pattern that fans out over shards or time buckets
// (shards within a bucket, buckets in the order read), the one request of
// any other Query pattern.
func (p *Pattern[T]) QueryInputs(db *DB, params T, opts ...QueryOption) ([]*dynamodb.QueryInput, error) {
	return p.decl().queryInputs(db, reflect.ValueOf(&params).Elem(), reflect.Value{}, opts)
}

// QueryBetweenInputs are the first requests QueryBetween sends for the
// bounds from and to (a dry run): see QueryInputs.
func (p *Pattern[T]) QueryBetweenInputs(db *DB, from, to T, opts ...QueryOption) ([]*dynamodb.QueryInput, error) {
	return p.decl().queryInputs(db, reflect.ValueOf(&from).Elem(), reflect.ValueOf(&to).Elem(), opts)
}

func (d *readDecl) queryInputs(db *DB, params, upper reflect.Value, opts []QueryOption) ([]*dynamodb.QueryInput, error) {
	if !d.fans() {
		in, err := d.queryInput(db, params, upper, opts)
		if err != nil {
			return nil, err
		}
		return []*dynamodb.QueryInput{in}, nil
	}
	ins, _, err := d.fanInputs(db, params, upper, opts)
	return ins, err
}

// fanInputs are the first requests of a read that may fan out: every leg's
// not yet done. Listed at once, they are bound by the fan-out ceiling.
func (d *readDecl) fanInputs(db *DB, params, upper reflect.Value, opts []QueryOption) ([]*dynamodb.QueryInput, *fanReq, error) {
	f, err := d.fanRequest(db, params, upper, opts)
	if err == nil {
		err = f.overCeiling(f.Total())
	}
	if err != nil {
		return nil, nil, err
	}
	out, err := f.Inputs()
	if err != nil {
		return nil, nil, err
	}
	return out, f, nil
}

// fanInput is QueryInput of a pattern that may fan out: the request of a
// call that reads one partition, else an ErrInvalidInput naming the dry
// run that returns them all.
func (d *readDecl) fanInput(db *DB, params, upper reflect.Value, opts []QueryOption) (*dynamodb.QueryInput, error) {
	ins, f, err := d.fanInputs(db, params, upper, opts)
	switch {
	case err != nil:
		return nil, err
	case f.Total() == 1 && len(ins) == 1:
		return ins[0], nil
	case f.Total() == 1: // the cursor says it is done
		in := f.First().Query
		return &in, nil
	}
	use := "Pattern.QueryInputs"
	switch {
	case d.entityQuery:
		use = "Entity.QueryInputs"
	case upper.IsValid():
		use = "Pattern.QueryBetweenInputs"
	}
	return nil, &InputError{Op: d.name, Reason: fmt.Sprintf("the read is a %s, %d requests: use %s", f.describe(), f.Total(), use)}
}
