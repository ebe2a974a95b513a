package read

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Scans
//
// A scan (Entity.Scan, DB.Scan, a migration) walks the table in Total
// segments, Concurrency at a time, each an independent sequence of pages.
// Its position (Progress.Position) is where each segment stands: the
// LastEvaluatedKey of the last page it finished, or that it is done, with
// how many items it has read. It is sealed like a cursor (under the DB's
// cursor key) and bound to what was scanned (Bind) and the number of
// segments, which decides how DynamoDB splits the table: a position
// resumes only the scan that reported it. Its size grows with the number
// of segments.

// Scanner sends a Scan: the root's Client is one.
type Scanner interface {
	Scan(ctx context.Context, in *dynamodb.ScanInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error)
}

// Progress is a scan's progress after one page (the root's ScanProgress,
// but for its position: Seal it, Mu is held).
type Progress struct {
	Segment                     int
	SegmentScanned, Scanned     int64
	SegmentsDone, TotalSegments int
}

// Walk is a scan resolved for one call: the request every page copies,
// and where each segment stands.
type Walk struct {
	Op string // the operation, for errors
	// In is the request every page copies. Its maps never go to a Client:
	// each page has copies of its own (see Input).
	In          dynamodb.ScanInput
	Total       int // segments
	Concurrency int // segments read at once
	Secret      []byte
	Bind        string // what the scan reads, which its position is bound to
	// Progress, when set, is called after a segment finished a page, with
	// Mu held; an error stops the scan.
	Progress func(Progress) error

	Mu    sync.Mutex // guards where the segments stand
	segs  []segState
	nDone int
}

// segState is where one segment of a scan stands.
type segState struct {
	key     map[string]types.AttributeValue // the page to read next starts after it
	done    bool
	scanned int64
	// held: a page of the segment was not finished (PageFunc's again), so
	// its position stays where it stood before that page (heldKey, of
	// heldScanned items) while the walk reads on.
	held        bool
	heldKey     map[string]types.AttributeValue
	heldScanned int64
}

// Reset has every segment start from the beginning.
func (w *Walk) Reset() { w.segs, w.nDone = make([]segState, w.Total), 0 }

// Input is the Scan request of segment seg's next page, from start. It
// shares no map with In, start or any other page's request: a Client may
// modify the requests it is given, and the segments' pages go out
// concurrently, while the walk keeps start to seal positions.
func (w *Walk) Input(seg int, start map[string]types.AttributeValue) *dynamodb.ScanInput {
	in := w.In
	if w.Total > 1 {
		in.Segment = aws.Int32(int32(seg))
	}
	// What In's pointers point to, each page its own: a Client may write
	// through them.
	in.TableName, in.IndexName = fresh(in.TableName), fresh(in.IndexName)
	in.FilterExpression, in.ProjectionExpression = fresh(in.FilterExpression), fresh(in.ProjectionExpression)
	in.Limit, in.TotalSegments, in.ConsistentRead = fresh(in.Limit), fresh(in.TotalSegments), fresh(in.ConsistentRead)
	in.ExpressionAttributeNames = maps.Clone(in.ExpressionAttributeNames)
	in.ExpressionAttributeValues = CopyItem(in.ExpressionAttributeValues)
	in.ExclusiveStartKey = CopyItem(start)
	return &in
}

// First is the first request of the first segment left to read.
func (w *Walk) First() *dynamodb.ScanInput {
	for i, s := range w.segs {
		if !s.done {
			return w.Input(i, s.key)
		}
	}
	return w.Input(0, nil)
}

// PageFunc handles one page of segment seg; once it returns a nil error,
// the segment's position moves past the page, unless again says the page
// is to be read again by a walk resumed from the position (a migration
// whose items failed): then the walk reads on, but the segment's position
// stays before the page, with what it read after it.
type PageFunc func(ctx context.Context, seg int, page *dynamodb.ScanOutput) (again bool, err error)

// Run reads every segment left, Concurrency at a time, handing each page
// to handle, until every segment is done or one fails (which stops the
// others). Positions only move past pages handled in full.
func (w *Walk) Run(ctx context.Context, client Scanner, handle PageFunc) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	todo := make(chan int, w.Total)
	for i, s := range w.segs {
		if !s.done {
			todo <- i
		}
	}
	close(todo)
	var (
		wg       sync.WaitGroup
		errOnce  sync.Once
		firstErr error
	)
	for range min(w.Concurrency, len(todo)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for seg := range todo {
				if err := w.segment(ctx, client, seg, handle); err != nil {
					errOnce.Do(func() { firstErr = err; cancel() })
					return
				}
			}
		}()
	}
	wg.Wait()
	return firstErr
}

// segment reads segment seg to its end.
func (w *Walk) segment(ctx context.Context, client Scanner, seg int, handle PageFunc) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		w.Mu.Lock()
		start := w.segs[seg].key
		w.Mu.Unlock()
		out, err := client.Scan(ctx, w.Input(seg, start))
		if err != nil {
			return OpError(w.Op, err)
		}
		again, err := handle(ctx, seg, out)
		if err != nil {
			return err
		}
		done, err := w.advance(seg, out, again)
		if done || err != nil {
			return err
		}
	}
}

// advance moves segment seg past a page it handled, and reports progress;
// again holds the segment's position before the page (PageFunc).
func (w *Walk) advance(seg int, out *dynamodb.ScanOutput, again bool) (done bool, err error) {
	w.Mu.Lock()
	defer w.Mu.Unlock()
	s := &w.segs[seg]
	if again && !s.held {
		s.held, s.heldKey, s.heldScanned = true, s.key, s.scanned
	}
	s.key, s.scanned = out.LastEvaluatedKey, s.scanned+int64(out.ScannedCount)
	if len(s.key) == 0 {
		s.done = true
		w.nDone++
	}
	if w.Progress == nil {
		return s.done, nil
	}
	p := Progress{Segment: seg, SegmentScanned: s.scanned, SegmentsDone: w.nDone, TotalSegments: w.Total}
	for _, st := range w.segs {
		p.Scanned += st.scanned
	}
	return s.done, w.Progress(p)
}

// scanPage is a page handed from a segment to the loop; the loop says on
// handled whether it went through all of it.
type scanPage struct {
	items   []map[string]types.AttributeValue
	handled chan bool
}

// errStopped ends a walk whose loop stopped.
var errStopped = errors.New("singletable: scan stopped by its loop")

// Each runs the walk, handing every item to each on the caller's goroutine
// (where a range-over-func loop body must run) until each returns false;
// a segment's position moves past a page once each has seen all of it.
// fail gets the error that ended the scan, unless the loop stopped it.
func (w *Walk) Each(ctx context.Context, client Scanner, each func(map[string]types.AttributeValue) bool, fail func(error)) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pages := make(chan scanPage)
	var walkErr error
	go func() {
		defer close(pages)
		walkErr = w.Run(ctx, client, func(ctx context.Context, _ int, out *dynamodb.ScanOutput) (bool, error) {
			p := scanPage{items: out.Items, handled: make(chan bool, 1)}
			select {
			case pages <- p:
			case <-ctx.Done():
				return false, ctx.Err()
			}
			if all := <-p.handled; !all {
				return false, errStopped
			}
			return false, nil
		})
	}()
	stopped := false
	for p := range pages {
		all := !stopped
		for _, item := range p.items {
			if stopped {
				break
			}
			if !each(item) {
				stopped, all = true, false
				cancel()
			}
		}
		p.handled <- all
	}
	if walkErr != nil && !stopped {
		fail(walkErr)
	}
}

// Scan positions

const scanPositionContext = "singletable scan position v1\x00"

type positionPayload struct {
	Version  int               `json:"v"`
	Target   string            `json:"t"`
	Segments []positionSegment `json:"s"`
}

type positionSegment struct {
	Key     map[string]json.RawMessage `json:"k,omitempty"`
	Done    bool                       `json:"d,omitempty"`
	Scanned int64                      `json:"n,omitempty"`
}

// Seal encodes where every segment stands. Called with Mu held. An error
// says why a position cannot be sealed.
func (w *Walk) Seal() (string, error) {
	p := positionPayload{Version: 1, Target: w.Bind, Segments: make([]positionSegment, len(w.segs))}
	for i, s := range w.segs {
		if s.held { // as it stood before the page to read again
			s.key, s.done, s.scanned = s.heldKey, false, s.heldScanned
		}
		ps := positionSegment{Done: s.done, Scanned: s.scanned}
		if len(s.key) > 0 {
			key, err := encodeKey(s.key)
			if err != nil {
				return "", fmt.Errorf("scan position: %w", err)
			}
			ps.Key = key
		}
		p.Segments[i] = ps
	}
	body, err := json.Marshal(p)
	if err != nil {
		return "", err
	}
	return sealToken(body, positionMAC(w.Secret, body)), nil
}

func positionMAC(secret, body []byte) []byte {
	return CursorMAC(secret, append([]byte(scanPositionContext), body...))
}

// Open sets where every segment starts from a sealed position; one that
// cannot resume the scan is a *Refusal.
func (w *Walk) Open(keys [][]byte, position string) error {
	fail := func(format string, args ...any) error {
		return &Refusal{Reason: "scan position: " + fmt.Sprintf(format, args...)}
	}
	body, reason := openToken(keys, position, positionMAC)
	if reason != "" {
		return fail("%s", reason)
	}
	var p positionPayload
	if err := json.Unmarshal(body, &p); err != nil || p.Version != 1 {
		return fail("malformed")
	}
	switch {
	case p.Target != w.Bind:
		return fail("it was issued by %q, not %q", p.Target, w.Bind)
	case len(p.Segments) != w.Total:
		return fail("it was issued for %d segments, not %d: a scan resumes with the Segments it started with", len(p.Segments), w.Total)
	}
	for i, ps := range p.Segments {
		s := segState{done: ps.Done, scanned: ps.Scanned}
		if len(ps.Key) > 0 {
			key, err := decodeKey(ps.Key, nil)
			if err != nil {
				return fail("segment %d: %v", i, err)
			}
			s.key = key
		}
		if s.done && s.key != nil {
			return fail("malformed")
		}
		if s.done {
			w.nDone++
		}
		w.segs[i] = s
	}
	return nil
}

// fresh is a pointer to a copy of *p; nil for nil.
func fresh[V any](p *V) *V {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
