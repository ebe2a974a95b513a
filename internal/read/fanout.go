package read

import (
	"bytes"
	"context"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/codec"
)

// Fan-out
//
// A read over several partitions (shards, time buckets, or both) has legs,
// one Query each, group by group: a group is one bucket's shards, read
// together and merged by sort key; groups are read in order. The legs are
// read in parallel, at most Conc requests at a time, and built as the read
// gets to them: the window holds a few groups (or Conc legs), so that a
// read over years of buckets keeps a few in memory. How far ahead of the
// merge a read fetches is its Pace. See the root's fanout.go for the rules.

// Fan is a fan-out read resolved for one call.
type Fan struct {
	Pattern  string   // the pattern's name: its cursors are bound to it
	KeyAttrs []string // the attributes of a leg's start key, sorted
	SKAttr   string   // the sort key the legs of a group merge by
	Groups   int      // buckets read (1: none, or one)
	Width    int      // legs per group
	Desc     bool     // merged in descending order, buckets newest first
	Conc     int      // requests in flight at most
	Secret   []byte   // seals the cursor
	Keys     [][]byte // the cursor keys that open a cursor
	// Build builds leg i of group g: the pattern's request for the leg's
	// shard and bucket.
	Build func(g, i int) (*Req, error)

	base   int   // the group of legs[0]
	legs   []leg // a window of groups from base on
	first  *Req  // the first leg of the first group
	digest string
}

// leg is one partition of a fan-out read, and where the read is in it.
type leg struct {
	r        *Req
	start    map[string]types.AttributeValue // where the next fetch starts (nil: the beginning)
	ended    bool                            // nothing to read after buf
	buf      []map[string]types.AttributeValue
	pos      int                             // buf[:pos] are merged
	bufStart map[string]types.AttributeValue // where buf's fetch started
	inflight bool
	fetched  bool // r.Query went to the Client: later fetches use Later
	// err is the leg's failed fetch, held until the merge gets to the
	// leg: the items of the legs before it are the read's, in order.
	err error
	// fresh: this call fetched the leg from its beginning (not from where
	// a cursor left it), so its group widens the read-ahead window.
	fresh bool
}

// Init builds the first group's legs, and sets every leg's position from
// cursor ("": from the beginning). A cursor that cannot resume the read is
// a *Refusal; an error of Build is returned as it is.
func (f *Fan) Init(cursor string) error {
	if err := f.extend(1); err != nil {
		return err
	}
	f.first = f.legs[0].r
	var err error
	if f.digest, err = f.readDigest(); err != nil {
		return err
	}
	if cursor != "" {
		return f.open(cursor)
	}
	return nil
}

// First is the first leg's request of the read's first group.
func (f *Fan) First() *Req { return f.first }

// Total is how many legs the read has: groups times width.
func (f *Fan) Total() int { return f.Groups * f.Width }

// at is leg i (counted from the read's first), which the window holds.
func (f *Fan) at(i int) *leg { return &f.legs[i-f.base*f.Width] }

// group builds group g's legs.
func (f *Fan) group(g int) ([]leg, error) {
	legs := make([]leg, f.Width)
	for i := range legs {
		r, err := f.Build(g, i)
		if err != nil {
			return nil, err
		}
		legs[i].r = r
	}
	return legs, nil
}

// extend builds the groups before end (at most f.Groups) not built yet.
func (f *Fan) extend(end int) error {
	for g := f.base + len(f.legs)/f.Width; g < min(end, f.Groups); g++ {
		legs, err := f.group(g)
		if err != nil {
			return err
		}
		f.legs = append(f.legs, legs...)
	}
	return nil
}

// drop lets go of the groups before g: done, they are counted in the
// cursor.
func (f *Fan) drop(g int) {
	if n := (g - f.base) * f.Width; n > 0 && n <= len(f.legs) {
		clear(f.legs[:n])
		f.legs = f.legs[n:]
		f.base = g
	}
}

// Inputs are the first requests of every leg not done: the whole read is
// built.
func (f *Fan) Inputs() ([]*dynamodb.QueryInput, error) {
	if err := f.extend(f.Groups); err != nil {
		return nil, err
	}
	out := make([]*dynamodb.QueryInput, 0, len(f.legs))
	for i := range f.legs {
		l := &f.legs[i]
		if l.ended {
			continue
		}
		in := l.r.Query
		in.ExclusiveStartKey = l.start
		out = append(out, &in)
	}
	return out, nil
}

// Pace is how far ahead of the merge a Run fetches.
type Pace int

const (
	// Paced reads one group ahead, and twice as many each time the window
	// is used up past a group the call read from its start: a page, or a
	// read with a limit, which may have what it wants after a group.
	Paced Pace = iota
	// Streaming reads every leg, at most Conc legs ahead of the group
	// being merged (or the group's own legs, when more): an iterator over
	// everything, which reads as hand-written code does, all legs at once,
	// with a bound on what it holds and sends beyond what the loop took.
	Streaming
	// Eager reads every leg as fast as Conc allows: Sum, bound by the
	// fan-out ceiling before it starts.
	Eager
)

// Run is one fan-out read in progress: the legs' fetches in flight and
// the merge. Only the goroutine that reads (Pull) changes the legs; a
// fetch works on its own copy of its leg's request and reports back on
// results.
type Run struct {
	f        *Fan
	client   Querier
	ctx      context.Context
	cancel   context.CancelFunc
	results  chan result
	inflight int
	g        int // the group being merged
	// end is the group fetches may start before: the read-ahead window.
	// A Paced read starts it one group ahead and doubles it each time it
	// is used up past a group this call read from its start; the others
	// have it at the last group.
	end   int
	ahead int
	// span bounds the legs fetched ahead of the group being merged, from
	// its first (0: no bound): Streaming's Conc.
	span int
	pace Pace
	want int // items the read still wants; 0: no limit
	// Ceiling is how many fetches the read may start; 0: no bound
	// (iterators).
	Ceiling int
	started int
	// Scanned and Requests are what the read cost, once stopped.
	Scanned, Requests int
}

type result struct {
	leg               int
	items             []map[string]types.AttributeValue
	start, next       map[string]types.AttributeValue
	scanned, requests int
	err               error
}

// Start starts reading f from its window's first group: want items (0: no
// limit), at pace.
func (f *Fan) Start(ctx context.Context, client Querier, want int, pace Pace) *Run {
	run := &Run{f: f, client: client, results: make(chan result, f.Conc), want: want, g: f.base, ahead: 1, pace: pace}
	run.ctx, run.cancel = context.WithCancel(ctx)
	if pace != Paced {
		run.ahead = f.Groups
	}
	if pace == Streaming {
		run.span = f.Conc
	}
	run.end = run.g + run.ahead
	return run
}

// Stop cancels the fetches in flight and waits for them: none outlives
// the read. What they cost still counts.
func (run *Run) Stop() {
	run.cancel()
	for ; run.inflight > 0; run.inflight-- {
		res := <-run.results
		run.Scanned += res.scanned
		run.Requests += res.requests
	}
}

// fill starts the fetches the merge will need, in group order: every leg of
// the groups in the window that has nothing buffered and more to read, up
// to the concurrency bound and the ceiling. It builds the legs it gets to,
// no more.
func (run *Run) fill() error {
	if err := run.ctx.Err(); err != nil { // the caller gave up: start nothing
		return err
	}
	f := run.f
	end := min(f.Groups, run.end) * f.Width
	if run.span > 0 {
		end = min(end, run.g*f.Width+max(f.Width, run.span))
	}
	for i := run.g * f.Width; i < end && run.inflight < f.Conc && (run.Ceiling == 0 || run.started < run.Ceiling); i++ {
		if err := f.extend(i/f.Width + 1); err != nil {
			return err
		}
		if l := f.at(i); !l.inflight && !l.ended && l.err == nil && l.pos == len(l.buf) {
			if err := run.fetch(i); err != nil {
				return err
			}
		}
	}
	return nil
}

// fetch reads leg i's next items from where it is: as many as the read
// still wants, or one DynamoDB page (with a match) when it has no limit.
// The leg's first fetch sends its request; a later one, a request of its
// own (Later), as does a fetch from a start the leg keeps (the cursor
// needs it as it was).
func (run *Run) fetch(i int) error {
	l := run.f.at(i)
	r, start, want := l.r, l.start, run.want
	rr := *r // the leg's; its ExclusiveStartKey is this fetch's
	if l.fetched || start != nil {
		var err error
		if rr.Query, err = r.Later(start); err != nil {
			return OpError(r.Op, err)
		}
	}
	l.fetched = true
	l.inflight = true
	run.inflight++
	run.started++
	l.fresh = l.fresh || start == nil
	go func() {
		res := result{leg: i, start: start}
		res.next, res.err = rr.Run(run.ctx, run.client, want, true, &res.scanned, &res.requests,
			func(item map[string]types.AttributeValue, left int) (bool, bool, error) {
				if res.items == nil {
					res.items = make([]map[string]types.AttributeValue, 0, left)
				}
				res.items = append(res.items, item)
				return true, false, nil
			})
		run.results <- res
	}()
	return nil
}

// await takes one fetch's result into its leg.
func (run *Run) await() error {
	var res result
	select {
	case res = <-run.results:
	case <-run.ctx.Done():
		return run.ctx.Err()
	}
	run.take(res)
	return nil
}

// refill takes the results that have come and starts the fetches they
// make room for, without waiting: a read that fetches every leg keeps Conc
// in flight while the merge works through what it has.
func (run *Run) refill() error {
	for run.inflight > 0 {
		select {
		case res := <-run.results:
			run.take(res)
		default:
			return run.fill()
		}
	}
	return run.fill()
}

// take puts one fetch's result into its leg: its items, or its error,
// which Pull returns when the merge gets to the leg.
func (run *Run) take(res result) {
	run.inflight--
	run.Scanned += res.scanned
	run.Requests += res.requests
	l := run.f.at(res.leg)
	l.inflight = false
	if res.err != nil {
		l.err = res.err
		return
	}
	l.buf, l.pos, l.bufStart = res.items, 0, res.start
	l.start, l.ended = res.next, len(res.next) == 0
}

// Done reports whether the read got to its end: false after Pull stopped
// at the Ceiling.
func (run *Run) Done() bool { return run.g >= run.f.Groups }

// Pull returns the next item in merge order, the request of the leg it is
// from, and how many items the group's legs hold buffered from it on, it
// included (a merged page sizes its slice from it: once, rather than leg
// buffer by leg buffer); ok is false at the end, or, with stopIfWait,
// when the next item needs a request not yet answered.
func (run *Run) Pull(stopIfWait bool) (item map[string]types.AttributeValue, r *Req, left int, ok bool, err error) {
	f := run.f
	for run.g < f.Groups {
		if err := f.extend(run.g + 1); err != nil {
			return nil, nil, 0, false, err
		}
		legs := f.legs[(run.g-f.base)*f.Width : (run.g-f.base+1)*f.Width]
		best, waiting, buffered := -1, false, 0
		for j := range legs {
			l := &legs[j]
			if l.err != nil { // the merge cannot order past a leg it lacks
				return nil, nil, 0, false, l.err
			}
			if l.pos == len(l.buf) {
				waiting = waiting || !l.ended // its next item may come first
				continue
			}
			buffered += len(l.buf) - l.pos
			if best < 0 || f.before(l.buf[l.pos], legs[best].buf[legs[best].pos]) {
				best = j
			}
		}
		switch {
		case waiting && stopIfWait:
			return nil, nil, 0, false, nil
		case waiting:
			if err := run.fill(); err != nil {
				return nil, nil, 0, false, err
			}
			if run.inflight == 0 { // the page is at the fan-out ceiling: it ends here
				return nil, nil, 0, false, nil
			}
			if err := run.await(); err != nil {
				return nil, nil, 0, false, err
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
			if err := run.ctx.Err(); err != nil { // the caller gave up: merge no further
				return nil, nil, 0, false, err
			}
			run.g++
			f.drop(run.g)
			if run.g >= run.end {
				if fresh {
					run.ahead = min(2*run.ahead, f.Groups)
				}
				run.end = run.g + run.ahead
			}
			if run.pace != Paced && run.g < f.Groups {
				if err := run.refill(); err != nil {
					return nil, nil, 0, false, err
				}
			}
		default:
			l := &legs[best]
			l.pos++
			if run.want > 0 {
				run.want--
			}
			return l.buf[l.pos-1], l.r, buffered, true, nil
		}
	}
	return nil, nil, 0, false, nil
}

// before reports whether item a comes before item b in the read's order:
// by their sort keys (ties keep the legs' order).
func (f *Fan) before(a, b map[string]types.AttributeValue) bool {
	if f.SKAttr == "" {
		return false
	}
	c := CompareKeyValues(a[f.SKAttr], b[f.SKAttr])
	if f.Desc {
		return c > 0
	}
	return c < 0
}

// CompareKeyValues orders two key values as DynamoDB sorts them: strings
// and binary by bytes, numbers by exact decimal value.
func CompareKeyValues(a, b types.AttributeValue) int {
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
