package singletable

import (
	"context"
	"errors"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/bridge"
)

// The meter: how package capacity's option and package observe's observer
// see the requests a call sends. An operation sends through db.via(m, ...)
// rather than db.client; m is nil, and via returns db.client itself, unless
// the call asked for consumed capacity or the DB has an observer, so that
// an operation that uses neither pays a nil check. A metered call sends
// through a *meter, one allocation per call (and one per batch retry),
// which asks the service for the consumed capacity, times the request and
// hands what it learned to the call's sink and the DB's observer.

// meter is the Client a metered call sends through.
type meter struct {
	c     Client
	obs   *bridge.Observer // nil: none
	sink  bridge.Sink      // nil: the call collects nothing
	table string           // the physical table, for estimates
	// What the observer is told the request was for.
	op, entity, name, index string
	retry                   int
}

// meter returns the meter of a call op of entity (and of a read name on
// index), or nil when the call is not metered.
func (db *DB) meter(s *settings, op, entity, name, index string) *meter {
	if db == nil || db.obs == nil && s.sink == nil { // nil: the operation's checks refuse it
		return nil
	}
	if _, ok := db.client.(*meter); ok {
		return nil // a metered DB's (see metered): metered once
	}
	return &meter{c: db.client, obs: db.obs, sink: s.sink, table: db.name, op: op, entity: entity, name: name, index: index}
}

// onTable is m for a request of the same call that reads the table, not
// the index m is for: FetchFull's BatchGetItem (nil: not metered).
func (m *meter) onTable() *meter {
	if m == nil || m.index == "" {
		return m
	}
	t := *m
	t.index = ""
	return &t
}

// via is the client a request of the call metered by m is sent through:
// db.client when m is nil. retry is how many times the library sent the
// request's items before (batches).
func (db *DB) via(m *meter, retry int) Client {
	if m == nil {
		return db.client
	}
	if retry > 0 {
		again := *m
		again.retry = retry
		return &again
	}
	return m
}

// ask makes a request of m ask for its consumed capacity, by table and
// index, when the call collects it or the observer wants it; a request
// that asks already (a migration's) keeps what it asks for otherwise.
func (m *meter) ask(rc *types.ReturnConsumedCapacity) {
	if m.sink != nil || (m.obs != nil && m.obs.Capacity) {
		*rc = types.ReturnConsumedCapacityIndexes
	}
}

func (m *meter) start() time.Time {
	if m.obs != nil && m.obs.Observe != nil {
		return time.Now()
	}
	return time.Time{}
}

// done reports a request: its consumed capacity (ccs, or one), the items
// it returned or wrote, and its error, which it returns, wrapped in a
// *bridge.EstimatedError when the service billed the request without
// saying how much: est is the library's estimate then (0 for a read).
func (m *meter) done(operation string, write bool, t time.Time, one *types.ConsumedCapacity, ccs []types.ConsumedCapacity,
	items int, err error, est float64) error {
	var units float64
	estimated := false
	if err != nil && est > 0 && billed(err) {
		e := est
		units, estimated = e, true
		err = &bridge.EstimatedError{Err: err, Write: e}
		m.add(true, &types.ConsumedCapacity{TableName: &m.table, CapacityUnits: &e}, true)
	}
	if one != nil {
		units += unitsOf(one)
		m.add(write, one, false)
	}
	for i := range ccs {
		units += unitsOf(&ccs[i])
		m.add(write, &ccs[i], false)
	}
	if m.obs == nil || m.obs.Observe == nil {
		return err
	}
	r := bridge.Request{Operation: operation, Op: m.op, Entity: m.entity, Name: m.name, Index: m.index,
		Items: items, Retry: m.retry, Duration: time.Since(t), Err: err, Estimated: estimated}
	if write {
		r.Write = units
	} else {
		r.Read = units
	}
	m.obs.Observe(r)
	return err
}

// add hands a response's consumed capacity to the call's sink and the
// DB's.
func (m *meter) add(write bool, cc *types.ConsumedCapacity, estimated bool) {
	if m.sink != nil {
		m.sink.Add(write, cc, estimated)
	}
	if m.obs != nil && m.obs.Sink != nil {
		m.obs.Sink.Add(write, cc, estimated)
	}
}

func unitsOf(cc *types.ConsumedCapacity) float64 {
	if cc.CapacityUnits != nil {
		return *cc.CapacityUnits
	}
	return 0
}

// billed reports whether err is a request the service billed without a
// report of its consumed capacity: a failed condition, a cancelled
// transaction.
func billed(err error) bool {
	var ccf *types.ConditionalCheckFailedException
	var tce *types.TransactionCanceledException
	return errors.As(err, &ccf) || errors.As(err, &tce)
}

// writeUnits is the write units of an item of size bytes: 1 KB each, at
// least one.
func writeUnits(bytes int) float64 { return float64(max(1, (bytes+1023)/1024)) }

func (m *meter) GetItem(ctx context.Context, in *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	m.ask(&in.ReturnConsumedCapacity)
	t := m.start()
	out, err := m.c.GetItem(ctx, in, optFns...)
	var cc *types.ConsumedCapacity
	n := 0
	if out != nil {
		cc = out.ConsumedCapacity
		if len(out.Item) > 0 {
			n = 1
		}
	}
	return out, m.done("GetItem", false, t, cc, nil, n, err, 0)
}

func (m *meter) PutItem(ctx context.Context, in *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	m.ask(&in.ReturnConsumedCapacity)
	t := m.start()
	out, err := m.c.PutItem(ctx, in, optFns...)
	var cc *types.ConsumedCapacity
	est := 0.0
	if out != nil {
		cc = out.ConsumedCapacity
	}
	if err != nil {
		// The item as sent (a Client that changed it skews the estimate,
		// which only a failure computes).
		est = writeUnits(itemSize(in.Item))
	}
	return out, m.done("PutItem", true, t, cc, nil, written(err), err, est)
}

func (m *meter) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	m.ask(&in.ReturnConsumedCapacity)
	t := m.start()
	out, err := m.c.UpdateItem(ctx, in, optFns...)
	var cc *types.ConsumedCapacity
	if out != nil {
		cc = out.ConsumedCapacity
	}
	return out, m.done("UpdateItem", true, t, cc, nil, written(err), err, failedWrite(err))
}

func (m *meter) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	m.ask(&in.ReturnConsumedCapacity)
	t := m.start()
	out, err := m.c.DeleteItem(ctx, in, optFns...)
	var cc *types.ConsumedCapacity
	if out != nil {
		cc = out.ConsumedCapacity
	}
	return out, m.done("DeleteItem", true, t, cc, nil, written(err), err, failedWrite(err))
}

// failedWrite estimates a failed conditional update or delete: the item
// the service read to check the condition, as returned with the failure
// (ReturnValuesOnConditionCheckFailure), else one unit.
func failedWrite(err error) float64 {
	if err == nil {
		return 1
	}
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) && len(ccf.Item) > 0 {
		return writeUnits(itemSize(ccf.Item))
	}
	return 1
}

func written(err error) int {
	if err != nil {
		return 0
	}
	return 1
}

func (m *meter) Query(ctx context.Context, in *dynamodb.QueryInput, optFns ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	m.ask(&in.ReturnConsumedCapacity)
	t := m.start()
	out, err := m.c.Query(ctx, in, optFns...)
	var cc *types.ConsumedCapacity
	n := 0
	if out != nil {
		cc, n = out.ConsumedCapacity, int(out.Count)
	}
	return out, m.done("Query", false, t, cc, nil, n, err, 0)
}

func (m *meter) Scan(ctx context.Context, in *dynamodb.ScanInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	m.ask(&in.ReturnConsumedCapacity)
	t := m.start()
	out, err := m.c.Scan(ctx, in, optFns...)
	var cc *types.ConsumedCapacity
	n := 0
	if out != nil {
		cc, n = out.ConsumedCapacity, int(out.Count)
	}
	return out, m.done("Scan", false, t, cc, nil, n, err, 0)
}

func (m *meter) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	m.ask(&in.ReturnConsumedCapacity)
	t := m.start()
	out, err := m.c.BatchGetItem(ctx, in, optFns...)
	var ccs []types.ConsumedCapacity
	n := 0
	if out != nil {
		ccs = out.ConsumedCapacity
		for _, items := range out.Responses {
			n += len(items)
		}
	}
	return out, m.done("BatchGetItem", false, t, nil, ccs, n, err, 0)
}

func (m *meter) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	m.ask(&in.ReturnConsumedCapacity)
	n := 0
	for _, reqs := range in.RequestItems {
		n += len(reqs)
	}
	t := m.start()
	out, err := m.c.BatchWriteItem(ctx, in, optFns...)
	var ccs []types.ConsumedCapacity
	if out != nil {
		ccs = out.ConsumedCapacity
		for _, reqs := range out.UnprocessedItems {
			n -= len(reqs)
		}
	}
	if err != nil {
		n = 0
	}
	return out, m.done("BatchWriteItem", true, t, nil, ccs, n, err, 0)
}

func (m *meter) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	m.ask(&in.ReturnConsumedCapacity)
	t := m.start()
	out, err := m.c.TransactWriteItems(ctx, in, optFns...)
	var ccs []types.ConsumedCapacity
	n, est := 0, 0.0
	if out != nil {
		ccs = out.ConsumedCapacity
	}
	if err == nil {
		n = len(in.TransactItems)
	} else {
		est = txEstimate(in) // only a failure computes it
	}
	return out, m.done("TransactWriteItems", true, t, nil, ccs, n, err, est)
}

// txEstimate is what a cancelled transaction is estimated to cost: two
// units per KB of each action's item (one for an action without one),
// as a transaction's writes cost double.
func txEstimate(in *dynamodb.TransactWriteItemsInput) float64 {
	var u float64
	for _, it := range in.TransactItems {
		if it.Put != nil {
			u += 2 * writeUnits(itemSize(it.Put.Item))
		} else {
			u += 2
		}
	}
	return u
}

func (m *meter) TransactGetItems(ctx context.Context, in *dynamodb.TransactGetItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactGetItemsOutput, error) {
	m.ask(&in.ReturnConsumedCapacity)
	t := m.start()
	out, err := m.c.TransactGetItems(ctx, in, optFns...)
	var ccs []types.ConsumedCapacity
	n := 0
	if out != nil {
		ccs = out.ConsumedCapacity
		for _, r := range out.Responses {
			if len(r.Item) > 0 {
				n++
			}
		}
	}
	return out, m.done("TransactGetItems", false, t, nil, ccs, n, err, 0)
}

// metered is db, or, when the call is metered, a copy of db that sends
// every request through the call's meter: for the operations that send
// from several places (Update's read, write and retries, Delete's read).
func (db *DB) metered(s *settings, op, entity string) *DB {
	if db == nil || db.obs == nil && s.sink == nil { // nil: the operation's checks refuse it
		return db
	}
	if _, ok := db.client.(*meter); ok {
		return db
	}
	// The copy and its meter in one allocation.
	md := &struct {
		db DB
		m  meter
	}{db: *db, m: meter{c: db.client, obs: db.obs, sink: s.sink, table: db.name, op: op, entity: entity}}
	md.db.client = &md.m
	return &md.db
}

// meter is the meter of a call op of read d through db, or nil.
func (d *readDecl) meter(db *DB, s *settings, op string) *meter {
	if db.obs == nil && s.sink == nil {
		return nil
	}
	entity, index := "", ""
	if len(d.entities) == 1 {
		entity = d.entities[0].Name
	}
	if d.index != nil {
		index = d.index.Name()
	}
	return db.meter(s, op, entity, d.name, index)
}

// meter is the meter of the transaction's call op, or nil.
func (tx *Tx) meter(op string, s *settings) *meter {
	m := tx.db.meter(s, op, "", "", "")
	if m != nil && len(tx.actions) > 0 {
		m.entity = tx.actions[0].m.Name
		for _, a := range tx.actions {
			if a.m != tx.actions[0].m {
				m.entity = "" // of several entities
				break
			}
		}
	}
	return m
}

// meter is the meter of the transactional read's call op, or nil.
func (tg *GetTx) meter(op string) *meter {
	if tg.sink == nil && tg.db.obs == nil {
		return nil
	}
	return tg.db.meter(&settings{sink: tg.sink}, op, "", "", "")
}

// retrying tells a metered DB's meter (see metered) that the requests it
// sends next are the library's n-th retry of the call (Update reading
// again after a concurrent change).
func (db *DB) retrying(n int) {
	if m, ok := db.client.(*meter); ok {
		m.retry = n
	}
}

// retryOf is how many times the most-sent of a batch request's units idx
// was sent before (sent[i] for unit i).
func retryOf(idx, sent []int) int {
	n := 0
	for _, i := range idx {
		n = max(n, sent[i])
	}
	return n
}
