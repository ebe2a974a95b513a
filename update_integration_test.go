//go:build integration

package singletable_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/testmodel"
	"github.com/singletable/singletable/singletabletest"
)

func urRaw(t *testing.T, db *st.DB, user, id string) map[string]types.AttributeValue {
	t.Helper()
	out, err := db.Client().GetItem(context.Background(), &dynamodb.GetItemInput{
		TableName: aws.String(db.TableName()), ConsistentRead: aws.Bool(true),
		Key: map[string]types.AttributeValue{
			"PK": &types.AttributeValueMemberS{Value: "USER#" + user},
			"SK": &types.AttributeValueMemberS{Value: "ORDER#" + id},
		},
	})
	require.NoError(t, err)
	return out.Item
}

func urS(item map[string]types.AttributeValue, attr string) string {
	s, _ := item[attr].(*types.AttributeValueMemberS)
	if s == nil {
		return "<absent>"
	}
	return s.Value
}

// hookClient runs afterGet after each GetItem it passes on: a concurrent
// writer acting between an update's read and its write.
type hookClient struct {
	st.Client
	gets     atomic.Int32
	afterGet func(n int)
}

func (c *hookClient) GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	out, err := c.Client.GetItem(ctx, in, opts...)
	n := int(c.gets.Add(1))
	if c.afterGet != nil {
		c.afterGet(n)
	}
	return out, err
}

// An upsert that creates the item stores exactly what a Put of the same
// value stores: every index key (P#0000#2 from a priority nobody set, the
// created-timestamp key), the version, the timestamps and the zero values.
func TestUpsertCreatesWhatPutStores(t *testing.T) {
	ctx := context.Background()
	db := singletabletest.LocalDB(t, urTable, st.WithClock(st.FixedClock))
	got, err := urOrders.Update(ctx, db, urOrder{UserID: "u1", ID: "2"}, st.Set("Note", "x"), st.Upsert())
	require.NoError(t, err)
	upserted := urRaw(t, db, "u1", "2")
	assert.Equal(t, "P#0000#2", urS(upserted, "GSI2SK"))
	assert.Equal(t, "OPEN#u1", urS(upserted, "GSI3PK"))

	require.NoError(t, urOrders.Delete(ctx, db, urOrder{UserID: "u1", ID: "2"}))
	require.NoError(t, urOrders.Put(ctx, db, urOrder{UserID: "u1", ID: "2", Note: "x"}))
	put := urRaw(t, db, "u1", "2")
	assert.Equal(t, put, upserted)
	stored, err := urOrders.Get(ctx, db, urOrder{UserID: "u1", ID: "2"})
	require.NoError(t, err)
	assert.Equal(t, stored, got)
}

// An upsert of an existing item leaves the index keys that depend on its
// stored fields as they are.
func TestUpsertExistingKeepsIndexKeys(t *testing.T) {
	ctx := context.Background()
	db := singletabletest.LocalDB(t, urTable, st.WithClock(st.FixedClock))
	require.NoError(t, urOrders.Put(ctx, db, urOrder{UserID: "u1", ID: "5", Prio: 7, Status: "PENDING", Date: "2024-01-15"}))
	before := urRaw(t, db, "u1", "5")
	_, err := urOrders.Update(ctx, db, urOrder{UserID: "u1", ID: "5"}, st.Set("Note", "y"), st.Upsert())
	require.NoError(t, err)
	after := urRaw(t, db, "u1", "5")
	for _, a := range []string{"GSI1PK", "GSI1SK", "GSI2PK", "GSI2SK", "GSI3PK", "GSI3SK", "prio", "status", "orderDate", "created"} {
		assert.Equal(t, before[a], after[a], a)
	}
	assert.Equal(t, "P#0007#5", urS(after, "GSI2SK"))
	assert.Equal(t, "y", urS(after, "note"))
}

// Seed 1's status change works in one call: the update reads the Date it
// needs and keeps GSI1SK = STATUS#{Status}#{Date} right; closing the order
// removes its GSI3 keys.
func TestUpdateStatusReadsMissingFields(t *testing.T) {
	ctx := context.Background()
	db := singletabletest.LocalDB(t, urTable, st.WithClock(st.FixedClock))
	require.NoError(t, urOrders.Put(ctx, db, urOrder{UserID: "u1", ID: "o1", Status: "PENDING", Date: "2024-01-15", Total: 9}))
	got, err := urOrders.Update(ctx, db, urOrder{UserID: "u1", ID: "o1"}, st.Set("Status", "SHIPPED"))
	require.NoError(t, err)
	assert.Equal(t, "SHIPPED", got.Status)
	assert.Equal(t, "2024-01-15", got.Date)
	raw := urRaw(t, db, "u1", "o1")
	assert.Equal(t, "STATUS#SHIPPED#2024-01-15", urS(raw, "GSI1SK"))
	assert.Equal(t, "OPEN#u1", urS(raw, "GSI3PK"))

	_, err = urOrders.Update(ctx, db, urOrder{UserID: "u1", ID: "o1"}, st.Set("Status", "CLOSED"))
	require.NoError(t, err)
	raw = urRaw(t, db, "u1", "o1")
	assert.Equal(t, "STATUS#CLOSED#2024-01-15", urS(raw, "GSI1SK"))
	assert.NotContains(t, raw, "GSI3PK")
	assert.NotContains(t, raw, "GSI3SK")

	// Without Upsert a missing item is ErrNotFound, and nothing is created.
	_, err = urOrders.Update(ctx, db, urOrder{UserID: "u1", ID: "none"}, st.Set("Status", "SHIPPED"))
	assert.ErrorIs(t, err, st.ErrNotFound)
	assert.Empty(t, urRaw(t, db, "u1", "none"))
}

// A writer that changes Date between the update's read and its write makes
// the write's condition fail; the update reads again and ends right.
func TestUpdateRetriesWhenReadFieldsChange(t *testing.T) {
	ctx := context.Background()
	base := singletabletest.LocalDB(t, urTable, st.WithClock(st.FixedClock))
	key := urOrder{UserID: "u1", ID: "o1"}
	require.NoError(t, urOrders.Put(ctx, base, urOrder{UserID: "u1", ID: "o1", Status: "PENDING", Date: "2024-01-15"}))
	hc := &hookClient{Client: base.Client()}
	hc.afterGet = func(n int) {
		if n == 1 {
			_, err := urOrders.Update(ctx, base, key, st.Set("Date", "2024-02-01").Set("Status", "PENDING"))
			require.NoError(t, err)
		}
	}
	db := st.New(hc, urTable, st.WithTableName(base.TableName()), st.WithClock(st.FixedClock))
	got, err := urOrders.Update(ctx, db, key, st.Set("Status", "SHIPPED"))
	require.NoError(t, err)
	assert.Equal(t, int32(2), hc.gets.Load(), "one read, and one more after the concurrent change")
	assert.Equal(t, "2024-02-01", got.Date)
	assert.Equal(t, "STATUS#SHIPPED#2024-02-01", urS(urRaw(t, base, "u1", "o1"), "GSI1SK"))

	// A writer that changes Date after every read: the update gives up
	// after a bounded number of attempts, with a typed error.
	hc.gets.Store(0)
	hc.afterGet = func(n int) {
		_, err := urOrders.Update(ctx, base, key, st.Set("Date", "2024-03-0"+string(rune('0'+n))).Set("Status", "PENDING"))
		require.NoError(t, err)
	}
	_, err = urOrders.Update(ctx, db, key, st.Set("Status", "SHIPPED"))
	var rc *st.ReadChangedError
	require.ErrorAs(t, err, &rc)
	assert.ErrorIs(t, err, st.ErrReadChanged)
	assert.Equal(t, []string{"Created", "Date"}, rc.Fields)
	assert.Equal(t, 4, rc.Attempts)
	assert.Equal(t, int32(5), hc.gets.Load(), "a read before each attempt, and one after the last")
	assert.Equal(t, "STATUS#PENDING#"+urS(urRaw(t, base, "u1", "o1"), "orderDate"), urS(urRaw(t, base, "u1", "o1"), "GSI1SK"))
}

// Zero values of omitempty fields are absent on every write path:
// SetIfNotExists of "" stores nothing (so a later one still stores its
// value), and Set of a zero value below a field removes it.
func TestOmitEmptyZeroIsAbsentOnUpdate(t *testing.T) {
	ctx := context.Background()
	db := singletabletest.LocalDB(t, urTable, st.WithClock(st.FixedClock))
	key := urOrder{UserID: "u1", ID: "9"}
	require.NoError(t, urOrders.Put(ctx, db, urOrder{UserID: "u1", ID: "9", Addr: urAddr{City: "Oslo", Zip: "0150"}}))
	_, err := urOrders.Update(ctx, db, key, st.SetIfNotExists("Note", ""))
	require.NoError(t, err)
	assert.NotContains(t, urRaw(t, db, "u1", "9"), "note")
	_, err = urOrders.Update(ctx, db, key, st.SetIfNotExists("Note", "first"))
	require.NoError(t, err)
	assert.Equal(t, "first", urS(urRaw(t, db, "u1", "9"), "note"))

	_, err = urOrders.Update(ctx, db, key, st.Set("Addr.City", ""))
	require.NoError(t, err)
	addr := urRaw(t, db, "u1", "9")["addr"].(*types.AttributeValueMemberM).Value
	assert.NotContains(t, addr, "city")
	assert.Equal(t, "0150", urS(addr, "zip"))

	// In a transaction too.
	require.NoError(t, urOrders.Put(ctx, db, urOrder{UserID: "u1", ID: "10", Prio: 1}))
	err = db.Transact(ctx, func(tx *st.Tx) error {
		urOrders.TxUpdate(tx, urOrder{UserID: "u1", ID: "10"}, st.SetIfNotExists("Note", "").Set("Total", 2))
		return nil
	})
	require.NoError(t, err)
	assert.NotContains(t, urRaw(t, db, "u1", "10"), "note")

	// An update whose only change stores nothing is a request without an
	// update expression, which DynamoDB takes (a transaction needs one).
	require.NoError(t, urMemos.Put(ctx, db, urMemo{ID: "m"}))
	m, err := urMemos.Update(ctx, db, urMemo{ID: "m"}, st.SetIfNotExists("Note", ""))
	require.NoError(t, err)
	assert.Equal(t, urMemo{ID: "m"}, m)
	err = db.Transact(ctx, func(tx *st.Tx) error {
		urMemos.TxUpdate(tx, urMemo{ID: "m"}, st.SetIfNotExists("Note", ""))
		return nil
	})
	assert.ErrorIs(t, err, st.ErrInvalidInput)
}

func TestIntegrationUpdateKeepsIndexKeysFresh(t *testing.T) {
	db, _ := coreLocalDB(t)
	require.NoError(t, testmodel.ShopOrders.Create(ctx, db, seedOrder))
	key := testmodel.ShopOrder{UserID: "u123", ID: "2024-001"}
	raw := rawItem(t, db, "USER#u123", "ORDER#2024-001")
	gpk, _ := sOf(raw, "GSI1PK")
	assert.Equal(t, "STATUS#PENDING", gpk)
	_, inGSI2 := raw["GSI2PK"]
	assert.False(t, inGSI2, "only FLAGGED orders are in GSI2")

	// Changing Status recomputes GSI1 and enters the sparse GSI2.
	o, err := testmodel.ShopOrders.Update(ctx, db, key, st.Set("Status", "FLAGGED").Set("Date", "2024-01-15").Add("Total", 0.5))
	require.NoError(t, err)
	assert.Equal(t, "FLAGGED", o.Status)
	assert.InDelta(t, 60.0, o.Total, 1e-9)
	raw = rawItem(t, db, "USER#u123", "ORDER#2024-001")
	gpk, _ = sOf(raw, "GSI1PK")
	assert.Equal(t, "STATUS#FLAGGED", gpk)
	g2, _ := sOf(raw, "GSI2PK")
	assert.Equal(t, "FLAGGED", g2)

	// And back: the item leaves GSI2, its attributes removed.
	_, err = testmodel.ShopOrders.Update(ctx, db, key, st.Set("Status", "SHIPPED").Set("Date", "2024-01-15"))
	require.NoError(t, err)
	raw = rawItem(t, db, "USER#u123", "ORDER#2024-001")
	_, inGSI2 = raw["GSI2PK"]
	assert.False(t, inGSI2)
	_, inGSI2 = raw["GSI2SK"]
	assert.False(t, inGSI2)

	// Removing a GSI key field takes the item out of that index.
	require.NoError(t, testmodel.ShopUsers.Put(ctx, db, seedUser))
	u, err := testmodel.ShopUsers.Update(ctx, db, testmodel.ShopUser{ID: "u123"}, st.Remove("Email"))
	require.NoError(t, err)
	assert.Empty(t, u.Email)
	raw = rawItem(t, db, "USER#u123", "PROFILE")
	_, inGSI1 := raw["GSI1PK"]
	assert.False(t, inGSI1)

	// Update of a missing item is ErrNotFound and creates nothing.
	_, err = testmodel.ShopOrders.Update(ctx, db, testmodel.ShopOrder{UserID: "u123", ID: "nope"}, st.Set("Total", 1.0))
	assert.ErrorIs(t, err, st.ErrNotFound)
	assert.Empty(t, rawItem(t, db, "USER#u123", "ORDER#nope"))

	// Upsert creates a decodable item.
	p, err := testmodel.ShopProducts.Update(ctx, db, testmodel.ShopProduct{ID: "p1"}, st.Add("Inventory", 3), st.Upsert())
	require.NoError(t, err)
	assert.Equal(t, testmodel.ShopProduct{ID: "p1", Inventory: 3}, p)
	p, err = testmodel.ShopProducts.Get(ctx, db, testmodel.ShopProduct{ID: "p1"})
	require.NoError(t, err)
	assert.Equal(t, 3, p.Inventory)

	// A condition that does not hold.
	_, err = testmodel.ShopProducts.Update(ctx, db, testmodel.ShopProduct{ID: "p1"}, st.Add("Inventory", -5).If(st.Ge("Inventory", 5)))
	assert.ErrorIs(t, err, st.ErrConditionFailed)
	assert.NotErrorIs(t, err, st.ErrNotFound)
}
