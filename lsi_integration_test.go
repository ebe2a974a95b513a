//go:build integration

package singletable_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/singletabletest"
)

// lsiRecording is a DB on db's table on DynamoDB Local through a recording
// client, for the reads and writes these tests count.
func lsiRecording(db *st.DB) (*singletabletest.Client, *st.DB) {
	local := db.Client()
	c := &singletabletest.Client{
		QueryFunc: func(ctx context.Context, in *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
			return local.Query(ctx, in)
		},
		ScanFunc: func(ctx context.Context, in *dynamodb.ScanInput) (*dynamodb.ScanOutput, error) {
			return local.Scan(ctx, in)
		},
		PutItemFunc: func(ctx context.Context, in *dynamodb.PutItemInput) (*dynamodb.PutItemOutput, error) {
			return local.PutItem(ctx, in)
		},
		UpdateItemFunc: func(ctx context.Context, in *dynamodb.UpdateItemInput) (*dynamodb.UpdateItemOutput, error) {
			return local.UpdateItem(ctx, in)
		},
		GetItemFunc: func(ctx context.Context, in *dynamodb.GetItemInput) (*dynamodb.GetItemOutput, error) {
			return local.GetItem(ctx, in)
		},
		BatchGetItemFunc: func(ctx context.Context, in *dynamodb.BatchGetItemInput) (*dynamodb.BatchGetItemOutput, error) {
			return local.BatchGetItem(ctx, in)
		},
	}
	return c, db.WithClient(c)
}

// ops lists the recorded operations, in order.
func ops(c *singletabletest.Client) []string {
	var out []string
	for _, call := range c.Calls() {
		out = append(out, call.Op)
	}
	return out
}

// An LSI under a sparse entity (When), read strongly consistently right
// after each write, with the keys-only projection decoded from the keys
// and FetchFull fetching consistently too.
func TestIntegrationLSISparseConsistent(t *testing.T) {
	m := newLSIModel(t)
	db := singletabletest.LocalDB(t, m.Table)
	require.NoError(t, db.EnsureTable(ctx), "EnsureTable agrees with the table it created, LSIs included")
	rec, rdb := lsiRecording(db)

	for _, o := range []lsiOrder{
		{CustomerID: "c1", ID: "o1", Date: "2024-01-05", Amount: 50, Status: "OPEN"},
		{CustomerID: "c1", ID: "o2", Date: "2024-01-06", Amount: 150, Status: "CLOSED"},
		{CustomerID: "c1", ID: "o3", Date: "2024-01-07", Amount: 300, Status: "OPEN"},
		{CustomerID: "c2", ID: "o4", Date: "2024-01-07", Amount: 300, Status: "OPEN"},
	} {
		require.NoError(t, m.Orders.Put(ctx, rdb, o))
	}
	require.NoError(t, m.Customers.Put(ctx, rdb, lsiCustomer{CustomerID: "c1", Name: "Ada"}))

	open := func() []lsiOrder {
		t.Helper()
		rec.Reset()
		page, err := m.OpenOrders.Query(ctx, rdb, lsiOrder{CustomerID: "c1"}, st.ConsistentRead())
		require.NoError(t, err)
		require.Equal(t, []string{"Query"}, ops(rec))
		in := rec.Calls()[0].Input.(*dynamodb.QueryInput)
		assert.True(t, aws.ToBool(in.ConsistentRead))
		assert.Equal(t, "OpenByDate", aws.ToString(in.IndexName))
		return page.Items
	}
	assert.Equal(t, []lsiOrder{
		{CustomerID: "c1", ID: "o1", Date: "2024-01-05"},
		{CustomerID: "c1", ID: "o3", Date: "2024-01-07"},
	}, open(), "only the open orders, their fields from the keys")
	raw := rawItem(t, db, "CUST#c1", "ACT#2024-01-06#ORDER#o2")
	assert.NotContains(t, raw, "OpenByDateSK", "a closed order writes no LSI key")

	// The write takes it out of the LSI; the next consistent read sees it.
	_, err := m.Orders.Update(ctx, rdb, lsiOrder{CustomerID: "c1", ID: "o1", Date: "2024-01-05"}, st.Set("Status", "CLOSED"))
	require.NoError(t, err)
	assert.Equal(t, []lsiOrder{{CustomerID: "c1", ID: "o3", Date: "2024-01-07"}}, open())
	require.NoError(t, m.Orders.Put(ctx, rdb, lsiOrder{CustomerID: "c1", ID: "o5", Date: "2024-01-08", Amount: 7, Status: "OPEN"}))
	assert.Len(t, open(), 2, "a new open order is read right after its write")

	// FetchFull reads the whole items, consistently too.
	rec.Reset()
	page, err := m.OpenOrders.Query(ctx, rdb, lsiOrder{CustomerID: "c1"}, st.ConsistentRead(), st.FetchFull())
	require.NoError(t, err)
	assert.Equal(t, []lsiOrder{
		{CustomerID: "c1", ID: "o3", Date: "2024-01-07", Amount: 300, Status: "OPEN"},
		{CustomerID: "c1", ID: "o5", Date: "2024-01-08", Amount: 7, Status: "OPEN"},
	}, page.Items)
	require.Equal(t, []string{"Query", "BatchGetItem"}, ops(rec))
	bg := rec.Calls()[1].Input.(*dynamodb.BatchGetItemInput)
	for _, ka := range bg.RequestItems {
		assert.True(t, aws.ToBool(ka.ConsistentRead))
	}

	// The ALL LSI, sorted by amount, from a typed bound.
	page2, err := m.ByAmount.Query(ctx, rdb, lsiOrder{CustomerID: "c1", Amount: 100}, st.ConsistentRead())
	require.NoError(t, err)
	var ids []string
	for _, o := range page2.Items {
		ids = append(ids, fmt.Sprintf("%s:%d", o.ID, o.Amount))
	}
	assert.Equal(t, []string{"o2:150", "o3:300"}, ids)

	// A GSI still refuses a consistent read, before sending anything.
	rec.Reset()
	_, err = m.FlaggedByCust.Query(ctx, rdb, lsiOrder{CustomerID: "c1"}, st.ConsistentRead())
	require.ErrorIs(t, err, st.ErrInvalidInput)
	assert.Empty(t, rec.Calls())
}

// adminCounter counts the admin requests that would change a table.
type adminCounter struct {
	*dynamodb.Client
	mu      sync.Mutex
	changes []string
}

func (a *adminCounter) CreateTable(ctx context.Context, in *dynamodb.CreateTableInput, o ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error) {
	a.mu.Lock()
	a.changes = append(a.changes, "CreateTable")
	a.mu.Unlock()
	return a.Client.CreateTable(ctx, in, o...)
}

func (a *adminCounter) UpdateTable(ctx context.Context, in *dynamodb.UpdateTableInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateTableOutput, error) {
	a.mu.Lock()
	a.changes = append(a.changes, "UpdateTable")
	a.mu.Unlock()
	return a.Client.UpdateTable(ctx, in, o...)
}

// A live table without a declared LSI: EnsureTable says it cannot be
// added and what to do instead, and changes nothing, AddMissingIndexes or
// not.
func TestIntegrationEnsureTableRefusesMissingLSI(t *testing.T) {
	old := st.MustTable("LSIShop", st.WithGSI("Flagged"))
	db := singletabletest.LocalDB(t, old)
	m := newLSIModel(t)
	admin := &adminCounter{Client: db.Client().(*dynamodb.Client)}
	ndb := st.New(admin, m.Table, st.WithTableName(db.TableName()), st.WithAdminClient(admin))
	for _, opts := range [][]st.EnsureOption{nil, {st.AddMissingIndexes()}} {
		err := ndb.EnsureTable(ctx, opts...)
		require.ErrorIs(t, err, st.ErrSchemaMismatch)
		var mismatch *st.SchemaMismatchError
		require.True(t, errors.As(err, &mismatch))
		assert.Len(t, mismatch.Differences, 2)
		assert.Contains(t, err.Error(), "local secondary index ByAmount is missing, and DynamoDB creates an LSI only with its table: create a new table with it")
		assert.Contains(t, err.Error(), "local secondary index OpenByDate is missing")
		assert.Empty(t, admin.changes)
	}
}

// lsiLoad writes n orders of customer c (one in three flagged, one in two
// open, on consecutive days from 2024-01-01) and a return on each of
// the first days.
func lsiLoad(t *testing.T, db *st.DB, m *lsiModel, c string, n int) []lsiOrder {
	t.Helper()
	var all []lsiOrder
	var batch []st.BatchOp
	for i := range n {
		status := "CLOSED"
		if i%2 == 0 {
			status = "OPEN"
		}
		o := lsiOrder{CustomerID: c, ID: fmt.Sprintf("o%03d", i), Date: fmt.Sprintf("2024-01-%02d", i%28+1), Amount: i, Status: status, Flagged: i%3 == 0}
		all = append(all, o)
		batch = append(batch, st.BatchPut(m.Orders, o))
	}
	for d := 1; d <= 3; d++ {
		batch = append(batch, st.BatchPut(m.Returns, lsiReturn{CustomerID: c, ID: "r1", Date: fmt.Sprintf("2024-01-%02d", d)}))
	}
	batch = append(batch, st.BatchPut(m.Customers, lsiCustomer{CustomerID: c, Name: c}))
	require.NoError(t, db.BatchWrite(ctx, batch))
	return all
}

// A segmented scan of a sparse index returns each of its items exactly
// once, only those, and resumes after a break from its position, which
// binds the index.
func TestIntegrationIndexScanSegmentsResume(t *testing.T) {
	m := newLSIModel(t)
	db := singletabletest.LocalDB(t, m.Table)
	var flagged []string
	for _, c := range []string{"c1", "c2", "c3"} {
		for _, o := range lsiLoad(t, db, m, c, 40) {
			if o.Flagged {
				flagged = append(flagged, o.CustomerID+"/"+o.ID)
			}
		}
	}
	rec, rdb := lsiRecording(db)

	seen := map[string]int{}
	for o, err := range m.FlaggedScan.Scan(ctx, rdb, st.Segments(3), st.PageSize(5)) {
		require.NoError(t, err)
		require.True(t, o.Flagged)
		assert.NotZero(t, o.Date, "a whole item (ALL)")
		seen[o.CustomerID+"/"+o.ID]++
	}
	assert.Len(t, seen, len(flagged))
	for _, id := range flagged {
		assert.Equal(t, 1, seen[id], id)
	}
	for _, call := range rec.Calls() {
		require.Equal(t, "Scan", call.Op, "an index scan reads the index, nothing else")
		assert.Equal(t, "Flagged", aws.ToString(call.Input.(*dynamodb.ScanInput).IndexName))
	}

	// Break half-way, one segment at a time, and resume from the position.
	var yielded []string
	var position string
	covered := 0
	opts := []st.ScanOption{st.Segments(3), st.ScanConcurrency(1), st.PageSize(4),
		st.OnProgress(func(p st.ScanProgress) { position, covered = p.Position, len(yielded) })}
	for o, err := range m.FlaggedScan.Scan(ctx, rdb, opts...) {
		require.NoError(t, err)
		yielded = append(yielded, o.CustomerID+"/"+o.ID)
		if len(yielded) == len(flagged)/2 {
			break
		}
	}
	require.NotEmpty(t, position)
	again := map[string]int{}
	for _, id := range yielded[:covered] {
		again[id]++
	}
	for o, err := range m.FlaggedScan.Scan(ctx, rdb, st.Segments(3), st.PageSize(4), st.ResumeScan(position)) {
		require.NoError(t, err)
		again[o.CustomerID+"/"+o.ID]++
	}
	assert.Len(t, again, len(flagged))
	for id, c := range again {
		assert.Equal(t, 1, c, id)
	}
	_, err := m.Orders.ScanInput(rdb, st.Segments(3), st.ResumeScan(position))
	assert.ErrorIs(t, err, st.ErrInvalidCursor, "an index scan's position does not resume the table scan")
	_, err = m.OpenScan.ScanInput(rdb, st.Segments(3), st.ResumeScan(position))
	assert.ErrorIs(t, err, st.ErrInvalidCursor, "nor another index's")

	// A keys-only LSI, scanned consistently with a filter on its keys'
	// fields left out: the open orders, decoded from the keys.
	n := 0
	for o, err := range m.OpenScan.Scan(ctx, rdb, st.Segments(2), st.ConsistentRead()) {
		require.NoError(t, err)
		assert.NotEmpty(t, o.Date)
		assert.Zero(t, o.Amount, "not projected")
		n++
	}
	assert.Equal(t, 60, n, "20 open orders of each of 3 customers")
}

// Ranged collections at their bounds: each condition includes or excludes
// the bound's own keys as stated, covers every member's items there, and
// reads with one Query per page; a cursor resumes only the same bounds.
func TestIntegrationRangedCollectionBounds(t *testing.T) {
	m := newLSIModel(t)
	db := singletabletest.LocalDB(t, m.Table)
	lsiLoad(t, db, m, "c1", 10) // orders o000..o009 on 2024-01-01..10, returns on 01..03
	lsiLoad(t, db, m, "c2", 3)
	rec, rdb := lsiRecording(db)
	values := st.Values{"CustomerID": "c1"}

	names := func(items []any) []string {
		var out []string
		for _, v := range items {
			switch v := v.(type) {
			case lsiOrder:
				out = append(out, v.Date[8:]+"/"+v.ID)
			case lsiReturn:
				out = append(out, v.Date[8:]+"/"+v.ID)
			case lsiCustomer:
				out = append(out, "profile")
			}
		}
		return out
	}
	read := func(c *st.Collection, bound any) []string {
		t.Helper()
		rec.Reset()
		var items []any
		for v, err := range c.AllBound(ctx, rdb, values, bound) {
			require.NoError(t, err)
			items = append(items, v)
		}
		// One page here: one Query, its bound in the key condition, no
		// filter (never the partition read whole and filtered).
		require.Equal(t, []string{"Query"}, ops(rec), c.Name())
		in := rec.Calls()[0].Input.(*dynamodb.QueryInput)
		assert.Nil(t, in.FilterExpression, c.Name())
		assert.Contains(t, aws.ToString(in.KeyConditionExpression), " AND ", c.Name())
		return names(items)
	}
	d3 := lsiOrder{Date: "2024-01-03"}
	assert.Equal(t, []string{"03/o002", "03/r1", "04/o003", "05/o004", "06/o005", "07/o006", "08/o007", "09/o008", "10/o009", "profile"}, read(m.ActivityFrom, d3))
	assert.Equal(t, []string{"04/o003", "05/o004", "06/o005", "07/o006", "08/o007", "09/o008", "10/o009", "profile"}, read(m.ActivityAfter, d3))
	assert.Equal(t, []string{"01/o000", "01/r1", "02/o001", "02/r1"}, read(m.ActivityBefore, d3))
	assert.Equal(t, []string{"01/o000", "01/r1", "02/o001", "02/r1", "03/o002", "03/r1"}, read(m.ActivityUntil, d3))
	assert.Equal(t, []string{"03/o002", "03/r1"}, read(m.ActivityDay, d3))
	assert.Equal(t, []string{"03/r1"}, read(m.ActivityDay, lsiReturn{Date: "2024-01-03", ID: "r1"}), "a whole key")

	// Between, both bounds inclusive, paged: one Query per page.
	rec.Reset()
	var pages [][]string
	cursor := ""
	for {
		res, err := m.ActivityRange.QueryBetween(ctx, rdb, values, lsiOrder{Date: "2024-01-02"}, lsiOrder{Date: "2024-01-05"}, st.Limit(2), st.After(cursor))
		require.NoError(t, err)
		pages = append(pages, names(res.Items))
		if cursor = res.Cursor; cursor == "" {
			break
		}
		// The cursor is bound to the bounds.
		_, err = m.ActivityRange.QueryBetween(ctx, rdb, values, lsiOrder{Date: "2024-01-02"}, lsiOrder{Date: "2024-01-06"}, st.After(cursor))
		require.ErrorIs(t, err, st.ErrInvalidCursor)
		_, err = m.ActivityFrom.QueryBound(ctx, rdb, values, lsiOrder{Date: "2024-01-02"}, st.After(cursor))
		require.ErrorIs(t, err, st.ErrInvalidCursor)
	}
	// The last page is empty: DynamoDB ends a full page with a key to go on from.
	assert.Equal(t, [][]string{{"02/o001", "02/r1"}, {"03/o002", "03/r1"}, {"04/o003", "05/o004"}, nil}, pages)
	require.Len(t, rec.Calls(), len(pages), "one Query per page, never the partition whole")
	for _, call := range rec.Calls() {
		in := call.Input.(*dynamodb.QueryInput)
		assert.Contains(t, aws.ToString(in.KeyConditionExpression), "BETWEEN")
		assert.Nil(t, in.FilterExpression)
		assert.Equal(t, int32(2), aws.ToInt32(in.Limit))
	}
}

// An INCLUDE LSI decodes as an INCLUDE GSI does: the fields its keys give
// and the attributes it includes, nothing else; a filter or projection of
// what it does not carry is refused before sending; a strongly consistent
// read sees a write at once.
func TestIntegrationLSIIncludeProjection(t *testing.T) {
	type ticket struct {
		Queue    string `dynamodbav:"queue"`
		ID       string `dynamodbav:"id"`
		Opened   string `dynamodbav:"opened"`
		Status   string `dynamodbav:"status"`
		Body     string `dynamodbav:"body"`
		Priority int    `dynamodbav:"priority"`
	}
	tbl := st.MustTable("LSIInclude", st.WithLSI("ByOpened", st.Include("status")))
	tickets := st.MustDefine[ticket](tbl, "Ticket", st.Key("Q#{Queue}", "T#{ID}"),
		st.Index("ByOpened", "Q#{Queue}", "{Opened}#{ID}"))
	byOpened := tickets.Pattern("ByOpened").On("ByOpened").Must()
	db := singletabletest.LocalDB(t, tbl)
	rec, rdb := lsiRecording(db)
	for _, tk := range []ticket{
		{Queue: "q", ID: "t2", Opened: "2026-01-02", Status: "OPEN", Body: "printer on fire", Priority: 1},
		{Queue: "q", ID: "t1", Opened: "2026-01-01", Status: "CLOSED", Body: "no paper", Priority: 3},
	} {
		require.NoError(t, tickets.Put(ctx, rdb, tk))
	}
	rec.Reset()
	page, err := byOpened.Query(ctx, rdb, ticket{Queue: "q"}, st.ConsistentRead(), st.Filter(st.Eq("Status", "OPEN")))
	require.NoError(t, err)
	assert.Equal(t, []ticket{{Queue: "q", ID: "t2", Opened: "2026-01-02", Status: "OPEN"}}, page.Items,
		"keys' fields and the included status; body and priority are not in the index")
	require.Equal(t, []string{"Query"}, ops(rec))
	in := rec.Calls()[0].Input.(*dynamodb.QueryInput)
	assert.True(t, aws.ToBool(in.ConsistentRead))
	assert.Equal(t, "ByOpened", aws.ToString(in.IndexName))

	rec.Reset()
	_, err = byOpened.Query(ctx, rdb, ticket{Queue: "q"}, st.Filter(st.Gt("Priority", 1)))
	require.ErrorIs(t, err, st.ErrInvalidInput, "priority is not in the index")
	_, err = byOpened.Query(ctx, rdb, ticket{Queue: "q"}, st.Project("Body"))
	require.ErrorIs(t, err, st.ErrInvalidInput)
	assert.Empty(t, rec.Calls(), "refused before sending")

	// FetchFull reads the whole items.
	page, err = byOpened.Query(ctx, rdb, ticket{Queue: "q"}, st.FetchFull(), st.ConsistentRead())
	require.NoError(t, err)
	require.Len(t, page.Items, 2)
	assert.Equal(t, "no paper", page.Items[0].Body, "sorted by the LSI: t1 opened first")
}
