package singletable

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/expr"
	"github.com/singletable/singletable/internal/model"
)

// BatchGetInputs are the BatchGetItem requests BatchGet sends first: the
// keys in chunks of 100, in order, after the same checks.
func (e *Entity[T]) BatchGetInputs(db *DB, keys []T, opts ...BatchGetOption) ([]*dynamodb.BatchGetItemInput, error) {
	return e.m.batchGetInputs(db, reflect.ValueOf(keys), opts)
}

// batchGetInputs is BatchGetInputs for keys, a slice of m's type.
func (m *entityModel) batchGetInputs(db *DB, keys reflect.Value, opts []BatchGetOption) ([]*dynamodb.BatchGetItemInput, error) {
	op := m.ops.batchGet
	s, err := collect(op, opts)
	if err != nil {
		return nil, err
	}
	if _, _, err := batchSettings(op, s); err != nil {
		return nil, err
	}
	ks, _, err := m.prepareGet(db, op, keys)
	if err != nil {
		return nil, err
	}
	var out []*dynamodb.BatchGetItemInput
	for i := 0; i < len(ks); i += maxBatchGet {
		part := make([]map[string]types.AttributeValue, 0, maxBatchGet)
		for _, k := range ks[i:min(i+maxBatchGet, len(ks))] {
			part = append(part, k.key)
		}
		out = append(out, db.getInput(part, getSpec{consistent: s.consistent}))
	}
	return out, nil
}

// batchKey is a key of a batch read: the map its first request sends, and
// its itemID. The id is the library's own record of the key: a Client may
// modify the requests it is given, so the items and keys DynamoDB answers
// with are matched against the ids, and a key sent again is made anew
// from its id (Table.keyOfID), never from the map sent before.
type batchKey struct {
	key map[string]types.AttributeValue
	id  model.ItemID
}

// prepareGet renders the table key of each of keys (a slice of m's type),
// refusing bad and duplicate ones; index finds each key's place in keys by
// its itemID.
func (m *entityModel) prepareGet(db *DB, op string, keys reflect.Value) ([]batchKey, *itemIndex, error) {
	if err := db.checkTable(op, m); err != nil {
		return nil, nil, err
	}
	if keys.Len() == 0 {
		return nil, nil, &InputError{Op: op, Reason: "no keys"}
	}
	ks := make([]batchKey, keys.Len())
	index := newItemIndex(len(ks), func(i int) model.ItemID { return ks[i].id })
	for i := range ks {
		k, err := m.Key(keys.Index(i))
		if err != nil {
			return nil, nil, inOp(op, fmt.Sprintf("key %d: ", i), err)
		}
		ks[i] = batchKey{key: k, id: db.table.idOf(k)}
		if j, dup := index.add(ks[i].id, i); dup {
			return nil, nil, &InputError{Op: op, Reason: fmt.Sprintf("keys %d and %d are the same item %s; DynamoDB rejects duplicate keys in a batch", j, i, formatKey(k))}
		}
	}
	return ks, index, nil
}

// getSpec is how a batch read asks for its items.
type getSpec struct {
	consistent bool
	attrs      []string // attribute names to project; nil: whole items
	m          *meter   // nil: not metered (meter.go)
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
// BatchGetItem through runBatch, calling found(i, item) for each item found
// at keys[i], one call at a time. index finds each key's place in keys by
// its id. left lists the keys still unread after the retry budget, and err
// is what stopped the reads, if anything did.
func (db *DB) getItems(ctx context.Context, keys []batchKey, index *itemIndex, spec getSpec, conc int, p RetryPolicy, found func(i int, item map[string]types.AttributeValue)) (left []int, requests int, err error) {
	var mu sync.Mutex
	send := func(ctx context.Context, idx, sent []int) ([]int, error) {
		part := make([]map[string]types.AttributeValue, len(idx))
		for j, i := range idx {
			if part[j] = keys[i].key; sent[i] > 0 {
				part[j] = db.table.keyOfID(keys[i].id) // a retry
			}
		}
		res, err := db.via(spec.m, retryOf(idx, sent)).BatchGetItem(ctx, db.getInput(part, spec))
		if err != nil {
			return nil, err
		}
		mu.Lock()
		defer mu.Unlock()
		for _, item := range res.Responses[db.name] {
			if i, ok := index.find(db.table.idOf(item)); ok {
				found(i, item)
			}
		}
		var left []int
		for _, ka := range res.UnprocessedKeys {
			for _, k := range ka.Keys {
				if i, ok := index.find(db.table.idOf(k)); ok {
					left = append(left, i)
				}
			}
		}
		return left, nil
	}
	return db.runBatch(ctx, len(keys), maxBatchGet, func(int) int { return 0 }, conc, p, send)
}

// BatchGet reads the items whose primary key fields are set in keys, any
// number of them, with BatchGetItem: in requests of 100 keys, Concurrency
// at a time (default 4), retrying the keys DynamoDB returns unprocessed
// (merged into later requests, with backoff and jitter, within the
// BatchRetry budget). The result has one entry per key, in the order of
// keys: a pointer to the item, or nil where there is no such item or it
// has expired (see Expires; IncludeExpired keeps expired items). Keys
// still unread after the budget come back in a *BatchError (see
// UnprocessedKeys), along with the items that were read.
//
// Checked before sending: bad keys, and the same key twice.
func (e *Entity[T]) BatchGet(ctx context.Context, db *DB, keys []T, opts ...BatchGetOption) ([]*T, error) {
	r := &batchGot[T]{Keys: keys}
	err := e.m.batchGet(ctx, db, reflect.ValueOf(r).Elem(), opts)
	return r.Out, err
}

// batchGot is what BatchGet reads (Keys), the results batchGet makes
// (Out, whose pointers point into Vals) and its decoding state, in one
// allocation; its fields are exported for reflect to set them.
type batchGot[T any] struct {
	Keys, Vals []T
	Out        []*T
	Decode     batchDecode
}

// batchGet is BatchGet for r, a batchGot of m's type: it reads the items
// of r.Keys into r.Vals, and points r.Out's entries at those found.
func (m *entityModel) batchGet(ctx context.Context, db *DB, r reflect.Value, opts []BatchGetOption) error {
	op := m.ops.batchGet
	s, err := collect(op, opts)
	if err != nil {
		return err
	}
	policy, conc, err := batchSettings(op, s)
	if err != nil {
		return err
	}
	keys := r.Field(0)
	ks, index, err := m.prepareGet(db, op, keys)
	if err != nil {
		return err
	}
	// The items in one slice rather than one allocation each, decoded as
	// each response comes (in its order), so that no response is kept
	// past its turn: a Client may reuse what it answered.
	got := r.Field(3).Addr().Interface().(*batchDecode)
	*got = batchDecode{m: m, expiry: db.expiryFor(s, m), vals: makeLen(r.Field(1), len(ks)), out: makeLen(r.Field(2), len(ks))}
	left, requests, stopErr := db.getItems(ctx, ks, index, getSpec{consistent: s.consistent, m: db.meter(s, op, m.Name, "", "")}, conc, policy, got.found)
	decodeErr := got.err
	if len(left) == 0 {
		return decodeErr
	}
	be := &BatchError{Op: op, Requests: requests, Err: stopErr}
	for _, i := range left {
		be.Unprocessed = append(be.Unprocessed, BatchItem{Entity: m.Name, Op: "Get", Key: db.table.keyOfID(ks[i].id), Value: keys.Index(i).Interface()})
	}
	if decodeErr != nil {
		// Both: the keys left unread must not pass for misses.
		return errors.Join(decodeErr, be)
	}
	return be
}

// batchDecode decodes the items of a BatchGet as they come: item i into
// vals[i], with out[i] pointing at it. It lives in the batchGot, so that
// handing its method to getItems is the one allocation.
type batchDecode struct {
	m         *entityModel
	expiry    expiryCheck
	vals, out reflect.Value
	err       error // the items that did not decode, joined in the order they came
}

func (b *batchDecode) found(i int, item map[string]types.AttributeValue) {
	if b.expiry.expired(item) {
		return // as if absent (ttl.go)
	}
	v := b.vals.Index(i)
	if err := b.m.decode(item, v); err != nil {
		b.err = errors.Join(b.err, err)
		return
	}
	b.out.Index(i).Set(v.Addr())
}

// makeLen sets s (a settable nil slice) to a slice of n zero values, as
// make does (one allocation, capacity n; not nil when n is 0), and
// returns it.
func makeLen(s reflect.Value, n int) reflect.Value {
	if n == 0 {
		s.Set(reflect.MakeSlice(s.Type(), 0, 0))
		return s
	}
	s.Grow(n)
	s.SetLen(n)
	s.SetCap(n)
	return s
}
