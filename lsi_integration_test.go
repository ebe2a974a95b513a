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
