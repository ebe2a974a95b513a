package singletable

import (
	"context"
	"fmt"
	"reflect"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

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
					return nil, nil, inOp(op, fmt.Sprintf("item %d: ", len(items)), err)
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

// BatchWrite puts and deletes any number of items, of any entities of the
// DB's table, with BatchWriteItem: in requests of 25 items (and at most
// 16 MB), Concurrency requests at a time (default 4). Items DynamoDB
// returns unprocessed, and the items of a request answered with a
// throttling error, are put back in the queue, merged into later requests,
// and retried with exponential backoff and full jitter within the
// BatchRetry budget (default DefaultRetryPolicy). What is still unprocessed
// then comes back in a *BatchError, item by item and typed, so nothing is
// lost silently.
//
// Checked before sending: items of another table, entities with unique
// fields, bad keys, items over 400 KB, two items with the same key.
// BatchWriteItem is not atomic: on error, the items not listed in the
// BatchError were written.
func (db *DB) BatchWrite(ctx context.Context, ops []BatchOp, opts ...BatchWriteOption) error {
	const op = "BatchWrite"
	s, err := collect(op, opts)
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
