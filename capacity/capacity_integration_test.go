//go:build integration

package capacity_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/capacity"
	"github.com/singletable/singletable/migrate"
	"github.com/singletable/singletable/observe"
	"github.com/singletable/singletable/singletabletest"
)

// Consumed capacity as DynamoDB Local reports it, for every kind of
// operation, against what the library collected and estimated.

func localModel(t *testing.T, opts ...st.DBOption) (*model, *st.DB) {
	t.Helper()
	m := newModel(t)
	return m, singletabletest.LocalDB(t, m.Table, opts...)
}

func TestConsumedSinglesAgainstLocal(t *testing.T) {
	ctx := context.Background()
	m, db := localModel(t)
	// 1.5 KB body: 2 write units in the table, 1 in GSI1 (KEYS_ONLY entry
	// of a few bytes) ... the estimate says exactly which.
	d := Doc{Owner: "o1", ID: "d1", Body: strings.Repeat("x", 1500), Status: "open"}
	est, err := capacity.WriteOf(m.Docs, d)
	require.NoError(t, err)

	var put capacity.Consumed
	require.NoError(t, m.Docs.Put(ctx, db, d, capacity.Into(&put)))
	assert.Equal(t, 1, put.Requests)
	assert.Equal(t, est.Put.Units, put.Write, "the put's units: table and indexes")
	assert.Equal(t, est.Put.Table, put.Table[db.TableName()].Write)
	for ix, u := range est.Put.Index {
		assert.Equal(t, u, put.Index[ix].Write, ix)
	}

	var get capacity.Consumed
	_, err = m.Docs.Get(ctx, db, Doc{Owner: "o1", ID: "d1"}, capacity.Into(&get))
	require.NoError(t, err)
	assert.Equal(t, capacity.Units{Read: 0.5}, get.Units, "1.5 KB, eventually consistent: half a unit")
	get = capacity.Consumed{}
	_, err = m.Docs.Get(ctx, db, Doc{Owner: "o1", ID: "d1"}, st.ConsistentRead(), capacity.Into(&get))
	require.NoError(t, err)
	assert.Equal(t, capacity.Units{Read: 1}, get.Units)

	// An update that moves the item out of the sparse index: a delete
	// there, as MoveOf says.
	after := d
	after.Status = ""
	move, err := capacity.MoveOf(m.Docs, d, after)
	require.NoError(t, err)
	var up capacity.Consumed
	_, err = m.Docs.Update(ctx, db, Doc{Owner: "o1", ID: "d1"}, st.Remove("Status"), capacity.Into(&up))
	require.NoError(t, err)
	assert.Equal(t, move.Units, up.Write, "table + the sparse index's delete")
	assert.Equal(t, move.Index["ByStatus"], up.Index["ByStatus"].Write)

	var del capacity.Consumed
	require.NoError(t, m.Docs.Delete(ctx, db, Doc{Owner: "o1", ID: "d1"}, capacity.Into(&del)))
	assert.Equal(t, 1, del.Requests)
	assert.Greater(t, del.Write, 0.0)
}

func TestConsumedMultiPageQueryAndScan(t *testing.T) {
	ctx := context.Background()
	m, db := localModel(t)
	var docs []st.BatchOp
	var vs []Doc
	for i := range 30 {
		vs = append(vs, Doc{Owner: "o1", ID: fmt.Sprintf("d%02d", i), Body: strings.Repeat("y", 900)})
	}
	docs = append(docs, st.BatchPut(m.Docs, vs...))
	var bw capacity.Consumed
	require.NoError(t, db.BatchWrite(ctx, docs, capacity.Into(&bw)))
	assert.Equal(t, 2, bw.Requests, "30 items: two requests of 25 and 5")
	assert.Equal(t, 60.0, bw.Write, "each item under 1 KB: one unit each, in the table and in GSI1 (ALL)")
	assert.Equal(t, 30.0, bw.Index["GSI1"].Write)

	// Pages of 7 items: 5 requests; each page's units as DynamoDB
	// reports them, summed.
	rec := &observe.Recorder{}
	dbo := st.New(db.Client(), m.Table, st.WithTableName(db.TableName()), observe.With(rec.Observe))
	var q capacity.Consumed
	n := 0
	for _, err := range m.ByOwner.All(ctx, dbo, Doc{Owner: "o1"}, st.Limit(30), capacity.Into(&q)) {
		require.NoError(t, err)
		n++
	}
	require.Equal(t, 30, n)
	var observed float64
	for _, r := range rec.Requests() {
		observed += r.ReadUnits
		assert.Equal(t, "DocsByOwner", r.Name)
		assert.Equal(t, "Doc", r.Entity)
		assert.Equal(t, "Query", r.Operation)
	}
	assert.Equal(t, observed, q.Read, "what the observer saw is what the option collected")
	// One page of 30 items of ~0.95 KB: 28.6 KB, 8 units of 4 KB, halved.
	assert.Equal(t, 4.0, q.Read)

	// Several pages: Limit(7) per Query page, All pages to the end.
	q = capacity.Consumed{}
	page, err := m.ByOwner.Query(ctx, db, Doc{Owner: "o1"}, st.Limit(7), capacity.Into(&q))
	require.NoError(t, err)
	total := q
	pages := 1
	for page.Cursor != "" {
		q = capacity.Consumed{}
		page, err = m.ByOwner.Query(ctx, db, Doc{Owner: "o1"}, st.Limit(7), st.After(page.Cursor), capacity.Into(&q))
		require.NoError(t, err)
		total.Add(q)
		pages++
	}
	assert.GreaterOrEqual(t, pages, 5)
	assert.Equal(t, pages, total.Requests)

	// A scan sums its pages too.
	var sc capacity.Consumed
	for _, err := range m.Docs.Scan(ctx, db, st.PageSize(10), capacity.Into(&sc)) {
		require.NoError(t, err)
	}
	assert.GreaterOrEqual(t, sc.Requests, 3)
	assert.Greater(t, sc.Read, 0.0)

	// BatchGet of the 30: one request, each item rounded up on its own.
	var bg capacity.Consumed
	_, err = m.Docs.BatchGet(ctx, db, vs, capacity.Into(&bg))
	require.NoError(t, err)
	assert.Equal(t, 15.0, bg.Read, "30 items under 4 KB, eventually consistent: half a unit each")
}

func TestConsumedFanOutAndTransactions(t *testing.T) {
	ctx := context.Background()
	m, db := localModel(t)
	for i := range 8 {
		require.NoError(t, m.Views.Put(ctx, db, View{Page: "home", Shard: i % 4, At: fmt.Sprint(i)}))
	}
	var fan capacity.Consumed
	n := 0
	for _, err := range m.ViewShards.All(ctx, db, View{Page: "home"}, capacity.Into(&fan)) {
		require.NoError(t, err)
		n++
	}
	assert.Equal(t, 8, n)
	assert.Equal(t, 4, fan.Requests, "one Query per shard")
	assert.Equal(t, 2.0, fan.Read, "four legs of half a unit")

	// A transaction of two puts: twice their units. (Items of different
	// unit counts: DynamoDB Local adds each distinct per-item figure of a
	// transaction once, so that two 1-unit puts report 2, not 4; the
	// service bills each item. docs/capacity.md.)
	var tx capacity.Consumed
	a, b := Doc{Owner: "o2", ID: "a", Body: "x"}, Doc{Owner: "o2", ID: "b", Body: strings.Repeat("z", 1100)}
	wa, _ := capacity.WriteOf(m.Docs, a)
	wb, _ := capacity.WriteOf(m.Docs, b)
	require.NoError(t, db.Transact(ctx, func(t *st.Tx) error {
		m.Docs.TxPut(t, a)
		m.Docs.TxPut(t, b)
		return nil
	}, capacity.Into(&tx)))
	assert.Equal(t, wa.TxPut.Units+wb.TxPut.Units, tx.Write)

	// A cancelled transaction: DynamoDB reports nothing; the library's
	// estimate, labelled as one.
	var cancelled capacity.Consumed
	err := db.Transact(ctx, func(t *st.Tx) error {
		m.Docs.TxCreate(t, a) // exists: cancelled
		m.Docs.TxPut(t, Doc{Owner: "o2", ID: "c"})
		return nil
	}, capacity.Into(&cancelled))
	require.Error(t, err)
	est, ok := capacity.EstimateOf(err)
	require.True(t, ok, "the error carries the estimate: %v", err)
	assert.Equal(t, 4.0, est.Write, "two actions of one unit, doubled")
	assert.Equal(t, est.Write, cancelled.Estimated.Write)
	assert.Equal(t, est.Write, cancelled.Write)
	assert.Equal(t, est.Write, cancelled.Table[db.TableName()].Write, "under the physical table's name")

	// A failed conditional write, alike.
	var failed capacity.Consumed
	err = m.Docs.Create(ctx, db, a, capacity.Into(&failed))
	require.ErrorIs(t, err, st.ErrConditionFailed)
	est, ok = capacity.EstimateOf(err)
	require.True(t, ok)
	assert.Equal(t, capacity.Units{Write: 1}, est)
	assert.Equal(t, 1.0, failed.Estimated.Write)

	// TransactGet: two units per item read.
	var tg capacity.Consumed
	g := db.TransactGet()
	m.Docs.TxGet(g, Doc{Owner: "o2", ID: "a"}, capacity.Into(&tg))
	m.Docs.TxGet(g, Doc{Owner: "o2", ID: "b"})
	require.NoError(t, g.Run(ctx))
	assert.Equal(t, 4.0, tg.Read)
}

func TestEstimatesAtUnitBoundaries(t *testing.T) {
	ctx := context.Background()
	m, db := localModel(t)
	// Find the body length that makes the item exactly 1024 bytes, then
	// check one byte more costs a unit more, as Local bills it.
	base := Doc{Owner: "o3", ID: "k"}
	w0, err := capacity.WriteOf(m.Plain, base)
	require.NoError(t, err)
	for _, extra := range []int{0, 1} {
		body := 1024 - w0.ItemBytes + extra
		d := base
		d.Body = strings.Repeat("b", body)
		w, err := capacity.WriteOf(m.Plain, d)
		require.NoError(t, err)
		require.Equal(t, 1024+extra, w.ItemBytes)
		var c capacity.Consumed
		require.NoError(t, m.Plain.Put(ctx, db, d, capacity.Into(&c)))
		assert.Equal(t, w.Put.Units, c.Write, "%d bytes", w.ItemBytes)
		assert.Equal(t, float64(1+extra), c.Write)
		require.NoError(t, m.Plain.Delete(ctx, db, d))
	}
	// 4 KB reads: 4096 bytes one strong unit, 4097 two.
	for _, extra := range []int{0, 1} {
		d := base
		d.ID = fmt.Sprint("r", extra)
		w1, _ := capacity.WriteOf(m.Plain, d)
		d.Body = strings.Repeat("b", 4096-w1.ItemBytes+extra)
		w, _ := capacity.WriteOf(m.Plain, d)
		require.Equal(t, 4096+extra, w.ItemBytes)
		require.NoError(t, m.Plain.Put(ctx, db, d))
		var c capacity.Consumed
		_, err := m.Plain.Get(ctx, db, d, st.ConsistentRead(), capacity.Into(&c))
		require.NoError(t, err)
		assert.Equal(t, capacity.ReadUnits(w.ItemBytes, true), c.Read)
		assert.Equal(t, float64(1+extra), c.Read)
	}
	// An index that projects keys only: its write is of the entry, not
	// the item.
	d := Doc{Owner: "o3", ID: "ix", Body: strings.Repeat("q", 3000), Status: "open"}
	w, err := capacity.WriteOf(m.Docs, d)
	require.NoError(t, err)
	assert.Equal(t, 1.0, w.Put.Index["ByStatus"], "KEYS_ONLY: a small entry")
	assert.Equal(t, capacity.WriteUnits(w.ItemBytes), w.Put.Index["GSI1"], "ALL: the whole item")
	assert.Equal(t, 4.0, w.Put.Index["GSI1"])
	var c capacity.Consumed
	require.NoError(t, m.Docs.Put(ctx, db, d, capacity.Into(&c)))
	assert.Equal(t, w.Put.Index["ByStatus"], c.Index["ByStatus"].Write)
	assert.Equal(t, w.Put.Index["GSI1"], c.Index["GSI1"].Write)
	// Reading the KEYS_ONLY index reads entries: PageOf's estimate.
	est, err := capacity.PageOf(m.ByStatus, m.Docs, d, 1, false)
	require.NoError(t, err)
	var r capacity.Consumed
	_, err = m.ByStatus.Query(ctx, db, Doc{Status: "open"}, capacity.Into(&r))
	require.NoError(t, err)
	assert.Equal(t, est.Units, r.Read)
}

func TestCountAgainstLocal(t *testing.T) {
	ctx := context.Background()
	m, db := localModel(t)
	var vs []Doc
	for i := range 12 {
		status := ""
		if i%3 == 0 {
			status = "open"
		}
		vs = append(vs, Doc{Owner: "o4", ID: fmt.Sprintf("c%02d", i), Body: "b", Status: status, N: i})
	}
	require.NoError(t, db.BatchWrite(ctx, []st.BatchOp{st.BatchPut(m.Docs, vs...)}))

	rec := &observe.Recorder{}
	dbo := st.New(db.Client(), m.Table, st.WithTableName(db.TableName()), observe.With(rec.Observe))
	c, err := capacity.Count(ctx, dbo, m.ByOwner, Doc{Owner: "o4"})
	require.NoError(t, err)
	assert.Equal(t, 12, c.Count)
	assert.Equal(t, 1, c.Requests)
	assert.Greater(t, c.Consumed.Read, 0.0)
	require.Len(t, rec.Requests(), 1)
	assert.Equal(t, 12, rec.Requests()[0].Items)

	// With a filter: the count is what matched; every item is read.
	c, err = capacity.Count(ctx, db, m.ByOwner, Doc{Owner: "o4"}, st.Filter(st.Ge("N", 6)))
	require.NoError(t, err)
	assert.Equal(t, 6, c.Count)
	assert.Equal(t, 12, c.Scanned)
	assert.Equal(t, 1, c.Requests)

	// From a cursor: what is after the first page.
	page, err := m.ByOwner.Query(ctx, db, Doc{Owner: "o4"}, st.Limit(4))
	require.NoError(t, err)
	c, err = capacity.Count(ctx, db, m.ByOwner, Doc{Owner: "o4"}, st.After(page.Cursor))
	require.NoError(t, err)
	assert.Equal(t, 8, c.Count)

	// A fan-out: every shard.
	for i := range 6 {
		require.NoError(t, m.Views.Put(ctx, db, View{Page: "p", Shard: i % 4, At: fmt.Sprint(i)}))
	}
	c, err = capacity.Count(ctx, db, m.ViewShards, View{Page: "p"})
	require.NoError(t, err)
	assert.Equal(t, 6, c.Count)
	assert.Equal(t, 4, c.Requests)

	_, err = capacity.Count(ctx, db, m.ByOwner, Doc{Owner: "o4"}, st.Project("Body"))
	require.ErrorIs(t, err, st.ErrInvalidInput)
}

func TestObserverSeesEveryRequest(t *testing.T) {
	ctx := context.Background()
	rec := &observe.Recorder{}
	m, db := localModel(t, observe.With(rec.Observe))
	d := Doc{Owner: "o5", ID: "a", Body: "x"}
	require.NoError(t, m.Docs.Put(ctx, db, d))
	_, err := m.Docs.Get(ctx, db, d)
	require.NoError(t, err)
	err = m.Docs.Create(ctx, db, d)
	require.Error(t, err)
	reqs := rec.Requests()
	require.Len(t, reqs, 3)
	assert.Equal(t, "PutItem", reqs[0].Operation)
	assert.Equal(t, "Doc", reqs[0].Entity)
	assert.Equal(t, 1, reqs[0].Items)
	assert.Greater(t, reqs[0].WriteUnits, 0.0)
	assert.Equal(t, "GetItem", reqs[1].Operation)
	assert.Equal(t, 0.5, reqs[1].ReadUnits)
	assert.Equal(t, "condition", reqs[2].Class())
	assert.True(t, reqs[2].Estimated)
	assert.Equal(t, 1.0, reqs[2].WriteUnits)
	var ce *st.ConditionError
	assert.True(t, errors.As(err, &ce), "still the library's typed error")
}

// The operations that send from several places: an Update that reads
// first and writes a transaction (a unique value moves), a Delete that
// reads first, a collection, a migration; and the DB-wide total.
func TestConsumedReadFirstCollectionsMigrationAndTotal(t *testing.T) {
	ctx := context.Background()
	var total capacity.Consumed
	rec := &observe.Recorder{}
	m, db := localModel(t, capacity.Total(&total), observe.With(rec.Observe))
	require.NoError(t, m.Accts.Create(ctx, db, Acct{ID: "a1", Email: "a@x"}))
	rec.Reset()

	var up capacity.Consumed
	_, err := m.Accts.Update(ctx, db, Acct{ID: "a1"}, st.Set("Email", "b@x"), capacity.Into(&up))
	require.NoError(t, err)
	reqs := rec.Requests()
	require.Len(t, reqs, 3, "the read, the transaction moving the guard, the read of the item it wrote")
	assert.Equal(t, "GetItem", reqs[0].Operation)
	assert.Equal(t, "TransactWriteItems", reqs[1].Operation)
	assert.Equal(t, "GetItem", reqs[2].Operation)
	assert.Equal(t, "Acct", reqs[1].Entity, "every action is the entity's (its guards too)")
	assert.Equal(t, 3, up.Requests)
	assert.Equal(t, reqs[0].ReadUnits+reqs[2].ReadUnits, up.Read)
	assert.Equal(t, reqs[1].WriteUnits, up.Write)
	assert.Positive(t, up.Read)
	assert.Positive(t, up.Write)

	rec.Reset()
	var del capacity.Consumed
	require.NoError(t, m.Accts.Delete(ctx, db, Acct{ID: "a1"}, capacity.Into(&del)))
	assert.Equal(t, 2, del.Requests, "the read of its unique values, then the transaction")
	assert.Len(t, rec.Requests(), 2)

	require.NoError(t, m.Docs.Put(ctx, db, Doc{Owner: "c", ID: "1"}))
	var coll capacity.Consumed
	res, err := m.DocsAndAll.Query(ctx, db, st.Values{"Owner": "c"}, capacity.Into(&coll))
	require.NoError(t, err)
	assert.Len(t, res.Items, 1)
	assert.Equal(t, 0.5, coll.Read)

	rec.Reset()
	rep, err := migrate.Run(ctx, db, m.Docs, func(_ context.Context, d *Doc) error { d.Body = "migrated"; return nil })
	require.NoError(t, err)
	var observed float64
	for _, r := range rec.Requests() {
		observed += r.ReadUnits + r.WriteUnits
		assert.Equal(t, "Doc", r.Entity)
	}
	assert.Equal(t, rep.ConsumedCapacity.Total(), observed, "the report and the observer agree")
	assert.Positive(t, rep.ConsumedCapacity.Write)

	var all float64
	for _, r := range rec.Requests() {
		all += r.ReadUnits + r.WriteUnits
	}
	assert.Greater(t, total.Total(), all, "the DB's total has every request since New")
}

// A GetItem pattern, and FetchFull: the index's Query and the table's
// BatchGetItem, summed.
func TestConsumedGetItemPatternAndFetchFull(t *testing.T) {
	ctx := context.Background()
	rec := &observe.Recorder{}
	m, db := localModel(t, observe.With(rec.Observe))
	require.Equal(t, "GetItem", m.DocByKey.Operation())
	d := Doc{Owner: "f", ID: "1", Body: strings.Repeat("x", 5000), Status: "open"}
	require.NoError(t, m.Docs.Put(ctx, db, d))
	rec.Reset()

	var g capacity.Consumed
	_, err := m.DocByKey.Get(ctx, db, Doc{Owner: "f", ID: "1"}, capacity.Into(&g))
	require.NoError(t, err)
	assert.Equal(t, capacity.ReadUnits(5100, false), g.Read, "5 KB: two units of 4 KB, halved")
	assert.Equal(t, "DocByKey", rec.Requests()[0].Name)

	var ff capacity.Consumed
	page, err := m.ByStatus.Query(ctx, db, Doc{Status: "open"}, st.FetchFull(), capacity.Into(&ff))
	require.NoError(t, err)
	require.Len(t, page.Items, 1)
	assert.Equal(t, 5000, len(page.Items[0].Body), "the whole item, from the table")
	assert.Equal(t, 2, ff.Requests, "the index's Query, the table's BatchGetItem")
	assert.Equal(t, 0.5, ff.Index["ByStatus"].Read, "the keys-only entry")
	assert.Equal(t, 1.0, ff.Table[db.TableName()].Read, "the 5 KB item, eventually consistent")
	assert.Equal(t, 1.5, ff.Read)
	// The observer is told the same (atkC F5: the BatchGetItem was
	// labelled with the index).
	reqs := rec.Requests()[1:]
	require.Len(t, reqs, 2)
	assert.Equal(t, "Query", reqs[0].Operation)
	assert.Equal(t, "ByStatus", reqs[0].Index)
	assert.Equal(t, "BatchGetItem", reqs[1].Operation)
	assert.Equal(t, "", reqs[1].Index, "it reads the table")
	assert.Equal(t, "DocsByStatus", reqs[1].Name, "for the same read")
}
