//go:build integration

package singletable_test

// Helpers shared by the integration tests of package singletable_test: a
// counting client and the shop model on a fresh DynamoDB Local table.

import (
	"context"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/ddblocal"
	"github.com/singletable/singletable/internal/testmodel"
)

// countingClient counts the requests that reach DynamoDB Local.
type countingClient struct {
	*dynamodb.Client
	mu    sync.Mutex
	calls int
}

func (c *countingClient) count() int { c.mu.Lock(); defer c.mu.Unlock(); return c.calls }

func (c *countingClient) inc() { c.mu.Lock(); c.calls++; c.mu.Unlock() }

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
	db := st.New(cc, testmodel.Shop, st.WithTableName(ddblocal.UniqueName("core")))
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
