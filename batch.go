package singletable

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/singletable/singletable/internal/expr"
)

// Service limits of batches.
const (
	maxBatchWrite      = 25
	maxBatchGet        = 100
	maxBatchBytes      = 16 * 1024 * 1024
	defaultConcurrency = 4
)

// ErrUnprocessed: a batch left items unwritten or unread after its retry
// budget (or was stopped by an error); the *BatchError lists them.
var ErrUnprocessed = errors.New("singletable: batch items left unprocessed")

// BatchOp is a group of puts or deletes of one entity for DB.BatchWrite:
// build it with BatchPut or BatchDelete.
type BatchOp struct {
	items []*batchItem
}

type batchItem struct {
	m     *entityModel
	del   bool
	value reflect.Value                   // the T value given (a put's item, a delete's key)
	key   map[string]types.AttributeValue // a delete's key; a put's: see keyAttrs
	item  map[string]types.AttributeValue // a put's encoded item
	id    itemID                          // the table's idOf(key)
	// bytes is the request's share of the 16 MB limit: itemSize of the
	// put's item or the delete's key, computed once when prepared.
	bytes int
}

// BatchPut puts items of entity e in a BatchWrite. BatchWriteItem takes no
// conditions: a put replaces any item with the same key, a version field is
// stored as given plus one without being checked, and timestamps are set as
// Put sets them. Entities with unique fields are refused (their guard items
// need transactions).
func BatchPut[T any](e *Entity[T], vs ...T) BatchOp {
	op := BatchOp{items: make([]*batchItem, len(vs))}
	for i := range vs {
		op.items[i] = &batchItem{m: e.m, value: reflect.ValueOf(&vs[i]).Elem()}
	}
	return op
}

// BatchDelete deletes the items of entity e whose primary key fields are
// set in keys, in a BatchWrite. Deleting a missing item succeeds.
func BatchDelete[T any](e *Entity[T], keys ...T) BatchOp {
	op := BatchOp{items: make([]*batchItem, len(keys))}
	for i := range keys {
		op.items[i] = &batchItem{m: e.m, del: true, value: reflect.ValueOf(&keys[i]).Elem()}
	}
	return op
}

// Len is the number of items in the group.
func (op BatchOp) Len() int { return len(op.items) }

// BatchItem is one item a batch left unprocessed.
type BatchItem struct {
	Entity string
	Op     string // "Put", "Delete" or "Get"
	Key    map[string]types.AttributeValue
	// Item is the encoded item of a put.
	Item map[string]types.AttributeValue
	// Value is the value given: a put's item or the key of a delete or a
	// get, as a T value of the entity's Go type.
	Value any
}

// BatchError reports what a BatchWrite or BatchGet could not do: every
// item still unprocessed when its retry budget ran out or an error stopped
// the batch. Nothing else was lost: every item given is either done or
// listed here. It matches ErrUnprocessed, and Err (when set) through
// errors.Is/As. Entity.UnprocessedPuts, UnprocessedDeletes and
// UnprocessedKeys return the items typed; Ops resubmits them.
type BatchError struct {
	Op          string // "BatchWrite", or "User.BatchGet"
	Unprocessed []BatchItem
	// Requests is the number of requests sent.
	Requests int
	// Err is what stopped the batch early (a non-retryable error, a
	// cancelled context), or the last throttling error when the budget ran
	// out; nil when DynamoDB only kept returning items unprocessed.
	Err error

	items []*batchItem
}

func (e *BatchError) Error() string {
	var counts []string
	byOp := map[string]int{}
	for _, it := range e.Unprocessed {
		byOp[it.Entity+" "+it.Op]++
	}
	for k, n := range byOp {
		counts = append(counts, fmt.Sprintf("%d %s", n, k))
	}
	s := fmt.Sprintf("singletable: %s: %d items unprocessed after %d requests (%s)", e.Op, len(e.Unprocessed), e.Requests, strings.Join(sorted(counts), ", "))
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap gives errors.Is/As ErrUnprocessed and Err.
func (e *BatchError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrUnprocessed, e.Err}
	}
	return []error{ErrUnprocessed}
}

// Ops returns the unprocessed puts and deletes as BatchOps, to send again
// with BatchWrite.
func (e *BatchError) Ops() []BatchOp {
	var items []*batchItem
	for _, it := range e.items {
		items = append(items, &batchItem{m: it.m, del: it.del, value: it.value})
	}
	if len(items) == 0 {
		return nil
	}
	return []BatchOp{{items: items}}
}

func (e *Entity[T]) unprocessed(err error, op string) []T {
	var be *BatchError
	if !errors.As(err, &be) {
		return nil
	}
	var out []T
	for _, it := range be.Unprocessed {
		if it.Entity == e.m.name && it.Op == op {
			if v, ok := it.Value.(T); ok {
				out = append(out, v)
			}
		}
	}
	return out
}

// UnprocessedPuts returns the items of this entity a BatchWrite could not
// put, as given.
func (e *Entity[T]) UnprocessedPuts(err error) []T { return e.unprocessed(err, "Put") }

// UnprocessedDeletes returns the keys of this entity a BatchWrite could not
// delete, as given.
func (e *Entity[T]) UnprocessedDeletes(err error) []T { return e.unprocessed(err, "Delete") }

// UnprocessedKeys returns the keys a BatchGet could not read, as given.
func (e *Entity[T]) UnprocessedKeys(err error) []T { return e.unprocessed(err, "Get") }

// prepareWrite encodes the items of a BatchWrite and checks them: entity
// and table, unique fields, keys, item size, duplicates. index gives each
// item's position by its itemID.
func (db *DB) prepareWrite(op string, ops []BatchOp) (items []*batchItem, index map[itemID]int, err error) {
	n := 0
	for _, g := range ops {
		n += len(g.items)
	}
	items = make([]*batchItem, 0, n)
	index = make(map[itemID]int, n)
	now := db.now()
	for _, g := range ops {
		for _, it := range g.items {
			m := it.m
			if err := db.checkTable(op, m); err != nil {
				return nil, nil, err
			}
			if len(m.w.unique) > 0 {
				return nil, nil, &InputError{Op: op, Reason: fmt.Sprintf("entity %s has unique fields, whose guard items BatchWriteItem cannot keep in step; use Put, Delete or a transaction", m.name)}
			}
			p := &batchItem{m: m, del: it.del, value: it.value}
			if it.del {
				k, facts, err := m.keyFacts(it.value)
				if err != nil {
					return nil, nil, err
				}
				p.key, p.bytes, p.id = k, facts.keyBytes, facts.id
			} else {
				v := it.value
				if m.w.version != nil || m.w.timestamped() {
					// A copy to stamp: the value given stays as it is.
					v = reflect.New(m.typ).Elem()
					v.Set(it.value)
					if m.w.version != nil {
						m.setVersion(v, m.versionOf(v)+1)
					}
					m.stamp(v, now)
				}
				item, facts, err := m.item(v)
				if err != nil {
					var ie *InputError
					if errors.As(err, &ie) {
						return nil, nil, &LimitError{Op: op, Reason: fmt.Sprintf("item %d: %s", len(items), ie.Reason)}
					}
					return nil, nil, err
				}
				p.item, p.bytes, p.id = item, facts.size, facts.id
			}
			if j, dup := index[p.id]; dup {
				return nil, nil, &InputError{Op: op, Reason: fmt.Sprintf("items %d and %d have the same key %s; a batch writes each item once", j, len(items), formatKey(p.keyAttrs()))}
			}
			index[p.id] = len(items)
			items = append(items, p)
		}
	}
	if len(items) == 0 {
		return nil, nil, &InputError{Op: op, Reason: "no items"}
	}
	return items, index, nil
}

func (it *batchItem) request() types.WriteRequest {
	if it.del {
		return types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: it.key}}
	}
	return types.WriteRequest{PutRequest: &types.PutRequest{Item: it.item}}
}

// keyAttrs is the item's key. A put's is picked out of its item only when
// asked for (an error), after the requests: the batch's goroutines never
// call it.
func (it *batchItem) keyAttrs() map[string]types.AttributeValue {
	if it.key == nil && it.item != nil {
		it.key = it.m.keyOfItem(it.item)
	}
	return it.key
}

func (it *batchItem) unprocessed() BatchItem {
	op := "Put"
	if it.del {
		op = "Delete"
	}
	return BatchItem{Entity: it.m.name, Op: op, Key: it.keyAttrs(), Item: it.item, Value: it.value.Interface()}
}

// writeInput builds one BatchWriteItem request for items.
func (db *DB) writeInput(items []*batchItem) *dynamodb.BatchWriteItemInput {
	reqs := make([]types.WriteRequest, len(items))
	for i, it := range items {
		reqs[i] = it.request()
	}
	return &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{db.name: reqs}}
}

// BatchWriteInputs are the BatchWriteItem requests BatchWrite sends first:
// the items in chunks of 25 (and 16 MB), in order, after the same checks.
func (db *DB) BatchWriteInputs(ops []BatchOp) ([]*dynamodb.BatchWriteItemInput, error) {
	items, _, err := db.prepareWrite("BatchWrite", ops)
	if err != nil {
		return nil, err
	}
	var out []*dynamodb.BatchWriteItemInput
	for _, c := range chunk(len(items), maxBatchWrite, func(i int) int { return items[i].bytes }) {
		part := make([]*batchItem, len(c))
		for j, i := range c {
			part[j] = items[i]
		}
		out = append(out, db.writeInput(part))
	}
	return out, nil
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

// BatchWrite puts and deletes any number of items, of any entities of the
// DB's table, with BatchWriteItem: in requests of 25 items (and at most
// 16 MB), Concurrency requests at a time (default 4). Items DynamoDB
// returns unprocessed, and the items of a request answered with a
// throttling error, are put back in the queue, merged into later requests,
// and retried with exponential backoff and full jitter within the
// BatchRetry budget (default DefaultRetryPolicy). What is still unprocessed
// then comes back in a *BatchError, item by item and typed, so nothing is
// lost silently. Options: Concurrency, BatchRetry.
//
// Checked before sending: items of another table, entities with unique
// fields, bad keys, items over 400 KB, two items with the same key.
// BatchWriteItem is not atomic: on error, the items not listed in the
// BatchError were written.
func (db *DB) BatchWrite(ctx context.Context, ops []BatchOp, opts ...Option) error {
	const op = "BatchWrite"
	s, err := collect(op, optConcurrency|optBatchRetry, opts)
	if err != nil {
		return err
	}
	policy, conc, err := batchSettings(op, s)
	if err != nil {
		return err
	}
	items, index, err := db.prepareWrite(op, ops)
	if err != nil {
		return err
	}
	send := func(ctx context.Context, idx []int) ([]int, error) {
		part := make([]*batchItem, len(idx))
		for j, i := range idx {
			part[j] = items[i]
		}
		res, err := db.client.BatchWriteItem(ctx, db.writeInput(part))
		if err != nil {
			return nil, err
		}
		var left []int
		for _, reqs := range res.UnprocessedItems {
			for _, r := range reqs {
				var key map[string]types.AttributeValue
				switch {
				case r.PutRequest != nil:
					key = r.PutRequest.Item // idOf reads only the key attributes
				case r.DeleteRequest != nil:
					key = r.DeleteRequest.Key
				}
				if i, ok := index[db.table.idOf(key)]; ok {
					left = append(left, i)
				}
			}
		}
		return left, nil
	}
	sizes := func(i int) int { return items[i].bytes }
	left, requests, stopErr := db.runBatch(ctx, len(items), maxBatchWrite, sizes, conc, policy, send)
	if len(left) == 0 {
		return nil
	}
	be := &BatchError{Op: op, Requests: requests, Err: stopErr}
	for _, i := range left {
		be.Unprocessed = append(be.Unprocessed, items[i].unprocessed())
		be.items = append(be.items, items[i])
	}
	return be
}

// keyOf picks the table's key attributes out of an item.
func keyOf(t *Table, item map[string]types.AttributeValue) map[string]types.AttributeValue {
	key := map[string]types.AttributeValue{}
	for _, a := range []string{t.pk, t.sk} {
		if v, ok := item[a]; ok && a != "" {
			key[a] = v
		}
	}
	return key
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
	switch {
	case conc == 0:
		conc = defaultConcurrency
	case conc < 0:
		return policy, 0, &InputError{Op: op, Reason: fmt.Sprintf("Concurrency must be positive, got %d", conc)}
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
	d := p.MaxDelay
	if retry < 30 {
		if exp := p.BaseDelay << (retry - 1); exp < d && exp > 0 {
			d = exp
		}
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
}

// runBatch sends n units in chunks of at most max units (and 16 MB),
// conc requests at a time. send returns the units of its chunk left
// unprocessed. Those, and all units of a chunk answered with a throttling
// error, go back in the queue and are merged into later chunks, each unit
// sent at most p.MaxAttempts times; a chunk with retried units first waits
// the backoff of its most-tried unit. It returns the units never processed,
// the number of requests, and the error that stopped it (or the last
// throttling error).
func (db *DB) runBatch(ctx context.Context, n, max int, size func(int) int, conc int, p RetryPolicy,
	send func(context.Context, []int) ([]int, error)) (left []int, requests int, stopErr error) {
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
				retry = maxInt(retry, attempts[i])
			}
			requests++
			if inflight == 0 && len(queue) == 0 {
				// The only request to make (a single chunk, or the last
				// retry): no goroutine to hand it to.
				r, sent = db.batchRequest(ctx, p, send, idx, retry), true
				break
			}
			inflight++
			wg.Add(1)
			go func(idx []int, retry int) {
				defer wg.Done()
				results <- db.batchRequest(ctx, p, send, idx, retry)
			}(idx, retry)
		}
		if !sent {
			if inflight == 0 {
				break
			}
			r = <-results
			inflight--
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

// batchRequest sends one chunk of a batch, after the backoff of its
// most-tried unit (retry, 0 for none).
func (db *DB) batchRequest(ctx context.Context, p RetryPolicy, send func(context.Context, []int) ([]int, error), idx []int, retry int) batchResult {
	if retry > 0 {
		if err := db.sleep(ctx, db.backoff(p, retry)); err != nil {
			return batchResult{idx: idx, err: err}
		}
	}
	l, err := send(ctx, idx)
	return batchResult{idx: idx, left: l, err: err}
}

func sorted(s []string) []string { slices.Sort(s); return s }

func maxInt(a, b int) int {
	if a > b {
		return a
	}
	return b
}

// BatchGetInputs are the BatchGetItem requests BatchGet sends first: the
// keys in chunks of 100, in order, after the same checks. Options:
// ConsistentRead.
func (e *Entity[T]) BatchGetInputs(db *DB, keys []T, opts ...Option) ([]*dynamodb.BatchGetItemInput, error) {
	op := e.m.ops.batchGet
	s, err := collect(op, optConsistent|optConcurrency|optBatchRetry, opts)
	if err != nil {
		return nil, err
	}
	ks, err := e.prepareGet(db, op, keys)
	if err != nil {
		return nil, err
	}
	var out []*dynamodb.BatchGetItemInput
	for i := 0; i < len(ks); i += maxBatchGet {
		out = append(out, db.getInput(ks[i:min(i+maxBatchGet, len(ks))], getSpec{consistent: s.consistent}))
	}
	return out, nil
}

func (e *Entity[T]) prepareGet(db *DB, op string, keys []T) ([]map[string]types.AttributeValue, error) {
	if err := db.checkTable(op, e.m); err != nil {
		return nil, err
	}
	if len(keys) == 0 {
		return nil, &InputError{Op: op, Reason: "no keys"}
	}
	ks := make([]map[string]types.AttributeValue, len(keys))
	index := make(map[itemID]int, len(keys))
	for i := range keys {
		k, err := e.m.key(reflect.ValueOf(&keys[i]).Elem())
		if err != nil {
			return nil, err
		}
		id := db.table.idOf(k)
		if j, dup := index[id]; dup {
			return nil, &InputError{Op: op, Reason: fmt.Sprintf("keys %d and %d are the same item %s; DynamoDB rejects duplicate keys in a batch", j, i, formatKey(k))}
		}
		index[id] = i
		ks[i] = k
	}
	return ks, nil
}

// getSpec is how a batch read asks for its items.
type getSpec struct {
	consistent bool
	attrs      []string // attribute names to project; nil: whole items
}

func (db *DB) getInput(keys []map[string]types.AttributeValue, spec getSpec) *dynamodb.BatchGetItemInput {
	ka := types.KeysAndAttributes{Keys: keys}
	if spec.consistent {
		ka.ConsistentRead = aws.Bool(true)
	}
	if spec.attrs != nil {
		var b expr.Builder
		names := make([]string, len(spec.attrs))
		for i, a := range spec.attrs {
			names[i] = b.Name(a)
		}
		ka.ProjectionExpression = aws.String(strings.Join(names, ", "))
		ka.ExpressionAttributeNames = b.Names
	}
	return &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{db.name: ka}}
}

// getItems reads the items at keys (distinct table keys) with
// BatchGetItem through runBatch: found[i] is the item at keys[i], or nil if
// there is none. left lists the keys still unread after the retry budget,
// and err is what stopped the reads, if anything did.
func (db *DB) getItems(ctx context.Context, keys []map[string]types.AttributeValue, spec getSpec, conc int, p RetryPolicy) (found []map[string]types.AttributeValue, left []int, requests int, err error) {
	index := make(map[itemID]int, len(keys))
	for i, k := range keys {
		index[db.table.idOf(k)] = i
	}
	found = make([]map[string]types.AttributeValue, len(keys))
	var mu sync.Mutex
	send := func(ctx context.Context, idx []int) ([]int, error) {
		part := make([]map[string]types.AttributeValue, len(idx))
		for j, i := range idx {
			part[j] = keys[i]
		}
		res, err := db.client.BatchGetItem(ctx, db.getInput(part, spec))
		if err != nil {
			return nil, err
		}
		mu.Lock()
		defer mu.Unlock()
		for _, item := range res.Responses[db.name] {
			if i, ok := index[db.table.idOf(item)]; ok {
				found[i] = item
			}
		}
		var left []int
		for _, ka := range res.UnprocessedKeys {
			for _, k := range ka.Keys {
				if i, ok := index[db.table.idOf(k)]; ok {
					left = append(left, i)
				}
			}
		}
		return left, nil
	}
	left, requests, err = db.runBatch(ctx, len(keys), maxBatchGet, func(int) int { return 0 }, conc, p, send)
	return found, left, requests, err
}

// BatchGet reads the items whose primary key fields are set in keys, any
// number of them, with BatchGetItem: in requests of 100 keys, Concurrency
// at a time (default 4), retrying the keys DynamoDB returns unprocessed
// (merged into later requests, with backoff and jitter, within the
// BatchRetry budget). The result has one entry per key, in the order of
// keys: a pointer to the item, or nil where there is no such item. Keys
// still unread after the budget come back in a *BatchError (see
// UnprocessedKeys), along with the items that were read. Options:
// ConsistentRead, Concurrency, BatchRetry.
//
// Checked before sending: bad keys, and the same key twice.
func (e *Entity[T]) BatchGet(ctx context.Context, db *DB, keys []T, opts ...Option) ([]*T, error) {
	op := e.m.ops.batchGet
	s, err := collect(op, optConsistent|optConcurrency|optBatchRetry, opts)
	if err != nil {
		return nil, err
	}
	policy, conc, err := batchSettings(op, s)
	if err != nil {
		return nil, err
	}
	ks, err := e.prepareGet(db, op, keys)
	if err != nil {
		return nil, err
	}
	found, left, requests, stopErr := db.getItems(ctx, ks, getSpec{consistent: s.consistent}, conc, policy)
	out := make([]*T, len(keys))
	var decodeErr error
	for i, item := range found {
		if item == nil {
			continue
		}
		v := new(T)
		if err := e.m.decode(item, reflect.ValueOf(v).Elem()); err != nil {
			decodeErr = errors.Join(decodeErr, err)
			continue
		}
		out[i] = v
	}
	if decodeErr != nil {
		return out, decodeErr
	}
	if len(left) == 0 {
		return out, nil
	}
	be := &BatchError{Op: op, Requests: requests, Err: stopErr}
	for _, i := range left {
		be.Unprocessed = append(be.Unprocessed, BatchItem{Entity: e.m.name, Op: "Get", Key: ks[i], Value: keys[i]})
	}
	return out, be
}
