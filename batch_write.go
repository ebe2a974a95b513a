package singletable

import (
	"context"
	"fmt"
	"reflect"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/codec"
	"github.com/singletable/singletable/internal/model"
)

// prepareWrite plans the items of a BatchWrite, as Put and Delete plan
// theirs (the managed-field hooks say what a batch may do: no conditions,
// and no entity with unique fields), and checks them: entity and table,
// keys, item size, duplicates. index gives each item's position by its
// itemID; now is the clock reading the items were stamped with.
func (db *DB) prepareWrite(op string, ops []BatchOp) (items []*action, index *itemIndex, now time.Time, err error) {
	n := 0
	for _, g := range ops {
		n += len(g.items)
	}
	items = make([]*action, 0, n)
	index = newItemIndex(n, func(i int) model.ItemID { return items[i].ID })
	now = db.now()
	// The puts' actions, in one allocation, their items' values from one
	// arena (codec.Shared).
	slab := make([]action, n)
	sh := codec.NewShared(n)
	defer sh.Release()
	// Planned first, then indexed: each loop's code stays in the
	// instruction cache for all the items, where one loop doing both did
	// not (a batch of 100 orders missed it about 200 times an item). The
	// error is the first item's that has one, as if it were one loop:
	// a key an earlier item has, else its planning's.
	var planErr error
	for _, g := range ops {
		if plainPuts(g.items) {
			items, planErr = db.planBatchPuts(items, slab[len(items):], op, g.items, &sh)
		} else {
			for i := range g.items {
				planned, err := db.planBatchItem(items, &slab[len(items)], op, &g.items[i], now, &sh)
				if err != nil {
					planErr = err
					break
				}
				items = planned
			}
		}
		if planErr != nil {
			break
		}
	}
	for i, p := range items {
		if j, dup := index.add(p.ID, i); dup {
			return nil, nil, now, &InputError{Op: op, Reason: fmt.Sprintf("items %d and %d have the same key %s; a batch writes each item once", j, i, formatKey(p.keyAttrs()))}
		}
	}
	if planErr != nil {
		return nil, nil, now, planErr
	}
	if len(items) == 0 {
		return nil, nil, now, &InputError{Op: op, Reason: "no items"}
	}
	return items, index, now, nil
}

// plainPuts reports whether its are puts of one entity without managed
// fields or shard: what planBatchPuts plans.
func plainPuts(its []batchEntry) bool {
	if len(its) == 0 {
		return false
	}
	m := its[0].m
	if len(m.managed.fields) > 0 || m.Shard != nil {
		return false
	}
	for i := range its {
		if its[i].kind != actPut || its[i].m != m {
			return false
		}
	}
	return true
}

// planBatchPuts appends to items the actions of a BatchPut's items its,
// of an entity without managed fields or shard, into slab, their values
// from sh: what planBatchPutPlain makes of each, in two loops (the items'
// fields, then their keys) whose code each stays in the instruction cache
// for all the items, where one loop doing both did not. On an error,
// items holds those before the item that failed, and the error is that
// item's, as if it were one loop.
func (db *DB) planBatchPuts(items []*action, slab []action, op string, its []batchEntry, sh *codec.Shared) ([]*action, error) {
	m := its[0].m
	if err := db.checkTable(op, m); err != nil {
		return items, err
	}
	before := len(items) // the batch's items before these
	itemErr := func(i int, err error) error {
		return inOp(op, fmt.Sprintf("item %d: ", before+i), err)
	}
	// The fields, each item's map and size held in its action until its
	// keys are added.
	n, perItem := len(its), m.keyValueCount()
	sh.KeysLater(true)
	var fieldsErr error
	for i := range its {
		item, size, _, _, err := m.encodeFields(its[i].value, 0, sh)
		if err != nil {
			n, fieldsErr = i, itemErr(i, err)
			break
		}
		slab[i].Item, slab[i].Bytes = item, size
	}
	sh.KeysLater(false)
	room := make([]types.AttributeValueMemberS, n*perItem)
	for i := range n {
		a, v := &slab[i], its[i].value
		facts, err := m.addItemKeys(a.Item, v, a.Bytes, room[i*perItem:(i+1)*perItem:(i+1)*perItem], m.Plan.KeyText(sh, n-i), sh)
		if err != nil {
			return items, itemErr(i, err)
		}
		*a = action{Action: plainPutAction(a.Item, facts), op: op, m: m, value: v}
		items = append(items, a)
	}
	return items, fieldsErr
}

// planBatchItem appends the action of it, stamped with now, to items: a
// put's is into (nil: one of its own), its item's values from sh (nil: an
// arena of their own).
func (db *DB) planBatchItem(items []*action, into *action, op string, it *batchEntry, now time.Time, sh *codec.Shared) ([]*action, error) {
	var err error
	m, pos := it.m, len(items) // a batch's items are its actions, one each
	if it.kind == actDelete {
		items, err = m.planDelete(items, db, op, it.value, it.value, writeBatch, &noOptions)
	} else if into != nil && len(m.managed.fields) == 0 {
		items, err = m.planBatchPutPlain(into, items, db, op, it.value, sh)
	} else {
		v := it.value
		if m.managed.stamps() {
			// A copy to stamp: the value given stays as it is.
			v = reflect.New(m.Type).Elem()
			v.Set(it.value)
		}
		items, err = m.planPutInto(into, items, db, op, v, writeBatch, now, &noOptions, sh)
	}
	if err != nil {
		return nil, inOp(op, fmt.Sprintf("item %d: ", pos), err)
	}
	items[len(items)-1].value = it.value
	return items, nil
}

// planBatchPutPlain is planPutInto of a batch's put of v into a, for an
// entity without managed fields: no hook to run, no condition, so the
// action is its item, its id and its size (what the planner would make of
// them, with fewer steps for each of a batch's items).
func (m *entityModel) planBatchPutPlain(a *action, dst []*action, db *DB, op string, v reflect.Value, sh *codec.Shared) ([]*action, error) {
	if err := db.checkTable(op, m); err != nil {
		return nil, err
	}
	return m.planPlainPut(a, dst, op, v, sh)
}

// replan is item a of a batch planned again, as it was (with the clock
// reading now): a Client may modify the requests it is given, so an item
// sent again, or reported unprocessed, is made anew, never taken from
// maps that went to the Client.
func (db *DB) replan(op string, a *action, now time.Time) (*action, error) {
	items, err := db.planBatchItem(nil, nil, op, &batchEntry{kind: a.Kind, m: a.m, value: a.value}, now, nil)
	if err != nil {
		return nil, err
	}
	return items[len(items)-1], nil
}

// unprocessed is the batch item left unprocessed, typed as given.
func (a *action) unprocessed() BatchItem {
	return BatchItem{Entity: a.m.Name, Op: actionNames[a.Kind], Key: a.keyAttrs(), Item: a.Item, Value: a.value.Interface()}
}

// writeInput builds one BatchWriteItem request for items.
func (db *DB) writeInput(items []*action) *dynamodb.BatchWriteItemInput {
	reqs := make([]types.WriteRequest, len(items))
	// The requests' puts, in one allocation (deletes are rarer).
	var puts []types.PutRequest
	for i, it := range items {
		if it.Kind == actDelete {
			reqs[i].DeleteRequest = &types.DeleteRequest{Key: it.Key}
			continue
		}
		if puts == nil {
			puts = make([]types.PutRequest, len(items)-i)
		}
		puts[0].Item = it.Item
		reqs[i].PutRequest, puts = &puts[0], puts[1:]
	}
	return &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{db.name: reqs}}
}

// BatchWriteInputs are the BatchWriteItem requests BatchWrite sends first:
// the items in chunks of 25 (and 16 MB), in order, after the same checks.
func (db *DB) BatchWriteInputs(ops []BatchOp) ([]*dynamodb.BatchWriteItemInput, error) {
	items, _, _, err := db.prepareWrite("BatchWrite", ops)
	if err != nil {
		return nil, err
	}
	var out []*dynamodb.BatchWriteItemInput
	for _, c := range chunk(len(items), maxBatchWrite, func(i int) int { return items[i].Bytes }) {
		part := make([]*action, len(c))
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
// BatchWriteItem takes no condition, so nothing is checked against the
// stored items: a versioned entity's BatchPut stores the version given
// plus one, and its BatchDelete deletes, without comparing versions (see
// Version). BatchWriteItem is not atomic: on error, the items not listed
// in the BatchError were written.
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
	items, index, now, err := db.prepareWrite(op, ops)
	if err != nil {
		return err
	}
	m := db.meter(s, op, "", "", "")
	send := func(ctx context.Context, idx, sent []int) ([]int, error) {
		part := make([]*action, len(idx))
		for j, i := range idx {
			a := items[i]
			if sent[i] > 0 { // a retry
				var err error
				if a, err = db.replan(op, a, now); err != nil {
					return nil, err
				}
			}
			part[j] = a
		}
		res, err := db.via(m, retryOf(idx, sent)).BatchWriteItem(ctx, db.writeInput(part))
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
				if i, ok := index.find(db.table.idOf(key)); ok {
					left = append(left, i)
				}
			}
		}
		return left, nil
	}
	sizes := func(i int) int { return items[i].Bytes }
	left, requests, stopErr := db.runBatch(ctx, len(items), maxBatchWrite, sizes, conc, policy, send)
	if len(left) == 0 {
		return nil
	}
	be := &BatchError{Op: op, Requests: requests, Err: stopErr}
	for _, i := range left {
		// Its maps, as planned: those sent are the Client's.
		a, err := db.replan(op, items[i], now)
		if err != nil {
			a = items[i]
		}
		be.Unprocessed = append(be.Unprocessed, a.unprocessed())
		be.items = append(be.items, items[i])
	}
	return be
}
