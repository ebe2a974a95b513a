//go:build integration

package singletable_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/ddblocal"
)

// countingClient counts the requests that reach DynamoDB Local.
type countingClient struct {
	*dynamodb.Client
	mu    sync.Mutex
	calls int
}

func (c *countingClient) count() int { c.mu.Lock(); defer c.mu.Unlock(); return c.calls }
func (c *countingClient) inc()       { c.mu.Lock(); c.calls++; c.mu.Unlock() }

func (c *countingClient) GetItem(ctx2 context.Context, in *dynamodb.GetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	c.inc()
	return c.Client.GetItem(ctx2, in, o...)
}

func (c *countingClient) PutItem(ctx2 context.Context, in *dynamodb.PutItemInput, o ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	c.inc()
	return c.Client.PutItem(ctx2, in, o...)
}

func (c *countingClient) UpdateItem(ctx2 context.Context, in *dynamodb.UpdateItemInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	c.inc()
	return c.Client.UpdateItem(ctx2, in, o...)
}

func (c *countingClient) DeleteItem(ctx2 context.Context, in *dynamodb.DeleteItemInput, o ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	c.inc()
	return c.Client.DeleteItem(ctx2, in, o...)
}

func (c *countingClient) Query(ctx2 context.Context, in *dynamodb.QueryInput, o ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	c.inc()
	return c.Client.Query(ctx2, in, o...)
}

// coreLocalDB binds the shop model to a fresh table in DynamoDB Local,
// deleted when the test ends. It fails the test when DynamoDB Local is not
// configured: integration tests never skip.
func coreLocalDB(t *testing.T) (*st.DB, *countingClient) {
	t.Helper()
	client, err := ddblocal.Client(ctx)
	require.NoError(t, err)
	cc := &countingClient{Client: client}
	db := st.New(cc, shop, st.WithTableName(ddblocal.UniqueName("core")))
	require.NoError(t, db.EnsureTable(ctx))
	t.Cleanup(func() { _ = db.DeleteTable(ctx) })
	return db, cc
}

// rawItem reads an item as stored, bypassing the library.
func rawItem(t *testing.T, db *st.DB, pk, sk string) map[string]types.AttributeValue {
	t.Helper()
	out, err := db.Client().GetItem(ctx, &dynamodb.GetItemInput{
		TableName: &[]string{db.TableName()}[0],
		Key:       map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: pk}, "SK": &types.AttributeValueMemberS{Value: sk}},
	})
	require.NoError(t, err)
	return out.Item
}

func sOf(item map[string]types.AttributeValue, attr string) (string, bool) {
	v, ok := item[attr].(*types.AttributeValueMemberS)
	if !ok {
		return "", false
	}
	return v.Value, true
}

func TestIntegrationCRUD(t *testing.T) {
	db, _ := coreLocalDB(t)

	// Create, then Create again: ErrAlreadyExists carrying the stored item.
	require.NoError(t, shopUsers.Create(ctx, db, seedUser))
	err := shopUsers.Create(ctx, db, seedUser)
	require.ErrorIs(t, err, st.ErrAlreadyExists)
	var ce *st.ConditionError
	require.ErrorAs(t, err, &ce)
	name, _ := sOf(ce.Item, "name")
	assert.Equal(t, "Ada", name)

	got, err := shopUsers.Get(ctx, db, shopUser{ID: "u123"}, st.ConsistentRead())
	require.NoError(t, err)
	assert.Equal(t, seedUser, got)

	raw := rawItem(t, db, "USER#u123", "PROFILE")
	gpk, _ := sOf(raw, "GSI1PK")
	assert.Equal(t, "EMAIL#ada@example.com", gpk)
	typ, _ := sOf(raw, "_type")
	assert.Equal(t, "User", typ)

	// Put overwrites.
	seedUser2 := seedUser
	seedUser2.Name = "Ada L."
	require.NoError(t, shopUsers.Put(ctx, db, seedUser2))
	got, err = shopUsers.Get(ctx, db, shopUser{ID: "u123"})
	require.NoError(t, err)
	assert.Equal(t, "Ada L.", got.Name)

	// Put with a condition that does not hold.
	err = shopUsers.Put(ctx, db, seedUser, st.If(st.Eq("Name", "Someone else")))
	assert.ErrorIs(t, err, st.ErrConditionFailed)
	assert.NotErrorIs(t, err, st.ErrAlreadyExists)

	// Delete, MustExist.
	require.NoError(t, shopUsers.Delete(ctx, db, shopUser{ID: "u123"}, st.MustExist()))
	_, err = shopUsers.Get(ctx, db, shopUser{ID: "u123"})
	assert.ErrorIs(t, err, st.ErrNotFound)
	assert.ErrorIs(t, shopUsers.Delete(ctx, db, shopUser{ID: "u123"}, st.MustExist()), st.ErrNotFound)
	assert.NoError(t, shopUsers.Delete(ctx, db, shopUser{ID: "u123"}), "deleting a missing item succeeds without MustExist")
}

func TestIntegrationUpdateKeepsIndexKeysFresh(t *testing.T) {
	db, _ := coreLocalDB(t)
	require.NoError(t, shopOrders.Create(ctx, db, seedOrder))
	key := shopOrder{UserID: "u123", ID: "2024-001"}
	raw := rawItem(t, db, "USER#u123", "ORDER#2024-001")
	gpk, _ := sOf(raw, "GSI1PK")
	assert.Equal(t, "STATUS#PENDING", gpk)
	_, inGSI2 := raw["GSI2PK"]
	assert.False(t, inGSI2, "only FLAGGED orders are in GSI2")

	// Changing Status recomputes GSI1 and enters the sparse GSI2.
	o, err := shopOrders.Update(ctx, db, key, st.Set("Status", "FLAGGED").Set("Date", "2024-01-15").Add("Total", 0.5))
	require.NoError(t, err)
	assert.Equal(t, "FLAGGED", o.Status)
	assert.InDelta(t, 60.0, o.Total, 1e-9)
	raw = rawItem(t, db, "USER#u123", "ORDER#2024-001")
	gpk, _ = sOf(raw, "GSI1PK")
	assert.Equal(t, "STATUS#FLAGGED", gpk)
	g2, _ := sOf(raw, "GSI2PK")
	assert.Equal(t, "FLAGGED", g2)

	// And back: the item leaves GSI2, its attributes removed.
	_, err = shopOrders.Update(ctx, db, key, st.Set("Status", "SHIPPED").Set("Date", "2024-01-15"))
	require.NoError(t, err)
	raw = rawItem(t, db, "USER#u123", "ORDER#2024-001")
	_, inGSI2 = raw["GSI2PK"]
	assert.False(t, inGSI2)
	_, inGSI2 = raw["GSI2SK"]
	assert.False(t, inGSI2)

	// Removing a GSI key field takes the item out of that index.
	require.NoError(t, shopUsers.Put(ctx, db, seedUser))
	u, err := shopUsers.Update(ctx, db, shopUser{ID: "u123"}, st.Remove("Email"))
	require.NoError(t, err)
	assert.Empty(t, u.Email)
	raw = rawItem(t, db, "USER#u123", "PROFILE")
	_, inGSI1 := raw["GSI1PK"]
	assert.False(t, inGSI1)

	// Update of a missing item is ErrNotFound and creates nothing.
	_, err = shopOrders.Update(ctx, db, shopOrder{UserID: "u123", ID: "nope"}, st.Set("Total", 1.0))
	assert.ErrorIs(t, err, st.ErrNotFound)
	assert.Empty(t, rawItem(t, db, "USER#u123", "ORDER#nope"))

	// Upsert creates a decodable item.
	p, err := shopProducts.Update(ctx, db, shopProduct{ID: "p1"}, st.Add("Inventory", 3), st.Upsert())
	require.NoError(t, err)
	assert.Equal(t, shopProduct{ID: "p1", Inventory: 3}, p)
	p, err = shopProducts.Get(ctx, db, shopProduct{ID: "p1"})
	require.NoError(t, err)
	assert.Equal(t, 3, p.Inventory)

	// A condition that does not hold.
	_, err = shopProducts.Update(ctx, db, shopProduct{ID: "p1"}, st.Add("Inventory", -5).If(st.Ge("Inventory", 5)))
	assert.ErrorIs(t, err, st.ErrConditionFailed)
	assert.NotErrorIs(t, err, st.ErrNotFound)
}

func TestIntegrationBadInputSendsNothing(t *testing.T) {
	db, cc := coreLocalDB(t)
	before := cc.count()
	for name, call := range map[string]func() error{
		"empty key field":    func() error { return shopUsers.Put(ctx, db, shopUser{}) },
		"key over 2 KB":      func() error { _, err := shopUsers.Get(ctx, db, shopUser{ID: strings.Repeat("é", 1100)}); return err },
		"primary key change": func() error { _, err := shopUsers.Update(ctx, db, shopUser{ID: "u"}, st.Set("ID", "v")); return err },
		"stale index key": func() error {
			_, err := shopOrders.Update(ctx, db, shopOrder{UserID: "u", ID: "o"}, st.Set("Status", "X"), st.NoRead())
			return err
		},
		"unknown field": func() error { return shopUsers.Delete(ctx, db, shopUser{ID: "u"}, st.If(st.Exists("Nope"))) },
		"huge item": func() error {
			return shopOrders.Put(ctx, db, shopOrder{UserID: "u", ID: "o", Note: strings.Repeat("x", 500_000)})
		},
	} {
		err := call()
		require.Error(t, err, name)
		assert.True(t, errors.Is(err, st.ErrInvalidKey) || errors.Is(err, st.ErrInvalidInput), "%s: %v", name, err)
	}
	assert.Equal(t, before, cc.count(), "no request reached DynamoDB Local")

	// Adversarial ids are stored and read back intact, and never collide.
	for _, id := range []string{"u1#ORDER#x", "u1\\", "ünï#😀", "%23", strings.Repeat("z", 2000)} {
		u := shopUser{ID: id, Name: "adversary"}
		require.NoError(t, shopUsers.Create(ctx, db, u), id)
		got, err := shopUsers.Get(ctx, db, shopUser{ID: id})
		require.NoError(t, err)
		assert.Equal(t, id, got.ID)
	}
	require.NoError(t, shopOrders.Create(ctx, db, shopOrder{UserID: "u1", ID: "x", Date: "2024-01-01"}))
	_, err := shopUsers.Get(ctx, db, shopUser{ID: "u1"})
	assert.ErrorIs(t, err, st.ErrNotFound)
}
