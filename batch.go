package singletable

import (
	"context"
	"errors"
	"math/rand/v2"
	"reflect"
	"slices"
	"sync"
	"time"
	"unsafe"

	"github.com/aws/smithy-go"
)

// Service limits of batches.
const (
	maxBatchWrite      = 25
	maxBatchGet        = 100
	maxBatchBytes      = 16 * 1024 * 1024
	defaultConcurrency = 4
)

// BatchOp is a group of puts or deletes of one entity for DB.BatchWrite:
// build it with BatchPut or BatchDelete.
type BatchOp struct {
	items []batchEntry
}

// batchEntry is a put or delete a BatchOp asks for, not planned yet (see
// DB.prepareWrite): its entity and the value given. (Not an action: a
// batch of 100 would allocate 100 actions' room here for three fields.)
type batchEntry struct {
	kind  actionKind
	m     *entityModel
	value reflect.Value
}

// BatchPut puts items of entity e in a BatchWrite. BatchWriteItem takes no
// conditions: a put replaces any item with the same key, a version field is
// stored as given plus one without being checked, and timestamps are set as
// Put sets them. Entities with unique fields are refused (their guard items
// need transactions). The BatchOp refers to the elements of vs, not copies:
// what they hold when BatchWrite runs is what it writes.
func BatchPut[T any](e *Entity[T], vs ...T) BatchOp {
	return batchOp(actPut, e.m, unsafe.Pointer(unsafe.SliceData(vs)), len(vs))
}

// BatchDelete deletes the items of entity e whose primary key fields are
// set in keys, in a BatchWrite. Deleting a missing item succeeds.
func BatchDelete[T any](e *Entity[T], keys ...T) BatchOp {
	return batchOp(actDelete, e.m, unsafe.Pointer(unsafe.SliceData(keys)), len(keys))
}

// batchOp is the group of a put or delete (kind) of each of the n struct
// values of m's from first on (a slice's elements: by address, not a
// reflect.Value of the slice, which would box its header).
func batchOp(kind actionKind, m *entityModel, first unsafe.Pointer, n int) BatchOp {
	op := BatchOp{items: make([]batchEntry, n)}
	size := m.Type.Size()
	for i := range op.items {
		op.items[i] = batchEntry{kind: kind, m: m, value: reflect.NewAt(m.Type, unsafe.Add(first, uintptr(i)*size)).Elem()}
	}
	return op
}

// Len is the number of items in the group.
func (op BatchOp) Len() int { return len(op.items) }

// unprocessed appends to out, a slice of m's struct values, the values
// given to the op (Put, Delete, Get) of a batch that err reports left
// unprocessed.
func (m *entityModel) unprocessed(err error, op string, out reflect.Value) {
	var be *BatchError
	if !errors.As(err, &be) {
		return
	}
	for _, it := range be.Unprocessed {
		if it.Entity == m.Name && it.Op == op {
			if v := reflect.ValueOf(it.Value); v.IsValid() && v.Type() == m.Type {
				out.Set(reflect.Append(out, v))
			}
		}
	}
}

// UnprocessedPuts returns the items of this entity a BatchWrite could not
// put, as given.
func (e *Entity[T]) UnprocessedPuts(err error) []T {
	var out []T
	e.m.unprocessed(err, "Put", reflect.ValueOf(&out).Elem())
	return out
}

// UnprocessedDeletes returns the keys of this entity a BatchWrite could not
// delete, as given.
func (e *Entity[T]) UnprocessedDeletes(err error) []T {
	var out []T
	e.m.unprocessed(err, "Delete", reflect.ValueOf(&out).Elem())
	return out
}

// UnprocessedKeys returns the keys a BatchGet could not read, as given.
func (e *Entity[T]) UnprocessedKeys(err error) []T {
	var out []T
	e.m.unprocessed(err, "Get", reflect.ValueOf(&out).Elem())
	return out
}

// chunk splits indices 0..n-1 into runs of at most max items and
// maxBatchBytes bytes.
func chunk(n, max int, size func(int) int) [][]int {
	var out [][]int
	var cur []int
	bytes := 0
	for i := 0; i < n; i++ {
		s := size(i)
		if len(cur) == max || (len(cur) > 0 && bytes+s > maxBatchBytes) {
			out = append(out, cur)
			cur, bytes = nil, 0
		}
		cur = append(cur, i)
		bytes += s
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

func batchSettings(op string, s *settings) (RetryPolicy, int, error) {
	policy := DefaultRetryPolicy
	if s.write.retry != nil {
		policy = *s.write.retry
	}
	if err := policy.check(); err != nil {
		return policy, 0, &InputError{Op: op, Reason: err.Error()}
	}
	conc := s.write.concurrency
	if conc == 0 { // not given: Concurrency refuses n < 1 (options.go)
		conc = defaultConcurrency
	}
	return policy, conc, nil
}

// isThrottle reports whether err is DynamoDB refusing a request for
// capacity or rate, which a later retry can pass.
func isThrottle(err error) bool {
	var ae smithy.APIError
	if !errors.As(err, &ae) {
		return false
	}
	switch ae.ErrorCode() {
	case "ProvisionedThroughputExceededException", "ThrottlingException", "Throttling",
		"RequestLimitExceeded", "LimitExceededException":
		return true
	}
	return false
}

// backoff is the full-jitter wait before the retry-th retry (from 1).
func (db *DB) backoff(p RetryPolicy, retry int) time.Duration {
	// min(MaxDelay, BaseDelay << (retry-1)), without overflowing: the
	// shift is below MaxDelay exactly when BaseDelay is below MaxDelay
	// shifted back.
	d := p.MaxDelay
	if shift := retry - 1; shift < 63 && p.BaseDelay <= d>>shift {
		d = p.BaseDelay << shift
	}
	if db.w.jitter != nil {
		return db.w.jitter(d)
	}
	if d <= 0 {
		return 0
	}
	return rand.N(d + 1)
}

type batchResult struct {
	idx  []int
	left []int
	err  error
	sent bool // the request went to the Client (not stopped in its backoff)
}

// runBatch sends n units in chunks of at most max units (and 16 MB),
// conc requests at a time. send returns the units of its chunk left
// unprocessed. Those, and all units of a chunk answered with a throttling
// error, go back in the queue and are merged into later chunks, each unit
// sent at most p.MaxAttempts times; a chunk with retried units first waits
// the backoff of its most-tried unit. It returns the units never processed,
// the number of requests sent (not those a cancelled backoff stopped), and
// the error that stopped it (or the last throttling error).
//
// send is told, in sent, how many times each unit was sent before (it
// reads those of its chunk only): a Client may modify the requests it is
// given, so a unit sent before is built anew, never from a map that went
// to the Client.
func (db *DB) runBatch(ctx context.Context, n, max int, size func(int) int, conc int, p RetryPolicy,
	send batchSend) (left []int, requests int, stopErr error) {
	attempts := make([]int, n)
	queue := make([]int, n)
	for i := range queue {
		queue[i] = i
	}
	results := make(chan batchResult)
	var wg sync.WaitGroup
	inflight := 0
	var lastThrottle error
	for {
		var r batchResult
		sent := false // r is the result of a request sent here, not by a goroutine
		// A part-full chunk waits while requests are in flight: what they
		// leave unprocessed is merged into it.
		for stopErr == nil && inflight < conc && len(queue) > 0 && (len(queue) >= max || inflight == 0) {
			idx := make([]int, 0, min(len(queue), max))
			bytes := 0
			for len(queue) > 0 && len(idx) < max {
				s := size(queue[0])
				if len(idx) > 0 && bytes+s > maxBatchBytes {
					break
				}
				idx = append(idx, queue[0])
				bytes += s
				queue = queue[1:]
			}
			retry := 0
			for _, i := range idx {
				if attempts[i] > retry {
					retry = attempts[i]
				}
			}
			if len(queue) == 0 {
				// The last request to make for now (a single chunk, the
				// last chunk, or the last retry): sent here while the
				// others are in flight, rather than handed to a goroutine
				// and waited for.
				r, sent = db.batchRequest(ctx, p, send, idx, attempts, retry), true
				break
			}
			inflight++
			wg.Add(1)
			go func(idx []int, retry int) {
				defer wg.Done()
				results <- db.batchRequest(ctx, p, send, idx, attempts, retry)
			}(idx, retry)
		}
		if !sent {
			if inflight == 0 {
				break
			}
			r = <-results
			inflight--
		}
		if r.sent {
			requests++
		}
		for _, i := range r.idx {
			attempts[i]++
		}
		again := r.left
		switch {
		case r.err == nil:
		case isThrottle(r.err) && ctx.Err() == nil:
			again, lastThrottle = r.idx, r.err
		default:
			stopErr = r.err
			left = append(left, r.idx...)
			continue
		}
		for _, i := range again {
			if attempts[i] < p.MaxAttempts && stopErr == nil {
				queue = append(queue, i)
			} else {
				left = append(left, i)
			}
		}
	}
	wg.Wait()
	left = append(left, queue...)
	if stopErr == nil && len(left) > 0 {
		stopErr = lastThrottle
	}
	slices.Sort(left)
	return left, requests, stopErr
}

// batchSend sends the units idx of a batch in one request, and returns
// those left unprocessed; sent[i] is how many times unit i was sent
// before.
type batchSend func(ctx context.Context, idx []int, sent []int) (left []int, err error)

// batchRequest sends one chunk of a batch, after the backoff of its
// most-tried unit (retry, 0 for none).
func (db *DB) batchRequest(ctx context.Context, p RetryPolicy, send batchSend, idx, sent []int, retry int) batchResult {
	if retry > 0 {
		if err := db.sleep(ctx, db.backoff(p, retry)); err != nil {
			return batchResult{idx: idx, err: err}
		}
	}
	l, err := send(ctx, idx, sent)
	return batchResult{idx: idx, left: l, err: err, sent: true}
}

func sorted(s []string) []string { slices.Sort(s); return s }
