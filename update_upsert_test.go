package singletable_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/testmodel"
)

// Issue 18.5: an upsert fills zero values only into an item it creates.
// Update sends the update of an existing item first (conditioned on it
// existing, no zero values): one request when it exists. When the failed
// condition returns no item, it sends the creation (conditioned on absence,
// with the zero values Put stores): two requests.
func TestUpsertFillsZeroValuesOnlyWhenItCreates(t *testing.T) {
	ctx := context.Background()
	c, db := mockDB()
	product := map[string]types.AttributeValue{"_type": s("Product"), "productId": s("p1")}
	exists := true
	c.UpdateItemFunc = func(_ context.Context, in *dynamodb.UpdateItemInput) (*dynamodb.UpdateItemOutput, error) {
		cond := *in.ConditionExpression
		if strings.HasPrefix(cond, "(attribute_exists(#n3)) AND") != exists {
			var item map[string]types.AttributeValue
			if exists {
				item = product
			}
			return nil, &types.ConditionalCheckFailedException{Message: strp("The conditional request failed"), Item: item}
		}
		return &dynamodb.UpdateItemOutput{Attributes: product}, nil
	}

	// The item exists: one request, naming nothing the update does not.
	_, err := testmodel.ShopProducts.Update(ctx, db, testmodel.ShopProduct{ID: "p1"}, st.Add("Inventory", -2), st.Upsert())
	require.NoError(t, err)
	calls := c.Calls()
	require.Len(t, calls, 1)
	in := calls[0].Input.(*dynamodb.UpdateItemInput)
	assert.Equal(t, "(attribute_exists(#n3)) AND (#n1 = :v3)", *in.ConditionExpression, "an existing Product")
	assert.NotContains(t, *in.UpdateExpression, "if_not_exists")
	for _, attr := range in.ExpressionAttributeNames {
		assert.NotContains(t, []string{"name", "category", "price"}, attr)
	}

	// The item is absent: the update fails without an item, then the
	// creation stores every zero value, conditioned on absence.
	c.Reset()
	exists = false
	_, err = testmodel.ShopProducts.Update(ctx, db, testmodel.ShopProduct{ID: "p1"}, st.Add("Inventory", -2), st.Upsert())
	require.NoError(t, err)
	calls = c.Calls()
	require.Len(t, calls, 2)
	create := calls[1].Input.(*dynamodb.UpdateItemInput)
	assert.Contains(t, *create.ConditionExpression, "attribute_not_exists")
	assert.NotContains(t, *create.UpdateExpression, "if_not_exists")
	var names []string
	for _, attr := range create.ExpressionAttributeNames {
		names = append(names, attr)
	}
	assert.Subset(t, names, []string{"name", "category", "price", "inventory", "_type", "productId"})

	// A condition of the caller's that fails on the existing item is
	// returned as it is: no creation.
	c.Reset()
	c.UpdateItemFunc = func(context.Context, *dynamodb.UpdateItemInput) (*dynamodb.UpdateItemOutput, error) {
		return nil, &types.ConditionalCheckFailedException{Message: strp("The conditional request failed"), Item: product}
	}
	_, err = testmodel.ShopProducts.Update(ctx, db, testmodel.ShopProduct{ID: "p1"},
		st.Add("Inventory", -2).If(st.Gt("Inventory", 5)), st.Upsert())
	require.ErrorIs(t, err, st.ErrConditionFailed)
	assert.Len(t, c.Calls(), 1)
}

// A transaction sends once, not knowing whether the item exists: TxUpdate
// (and UpdateInput) of an upsert set what the update names, and no zero
// values.
func TestTxUpsertSetsNoZeroValues(t *testing.T) {
	_, db := mockDB()
	in, err := db.TransactInput(func(tx *st.Tx) error {
		testmodel.ShopProducts.TxUpdate(tx, testmodel.ShopProduct{ID: "p1"}, st.Set("Name", "lamp"), st.Upsert())
		return nil
	})
	require.NoError(t, err)
	u := in.TransactItems[0].Update
	assert.NotContains(t, *u.UpdateExpression, "if_not_exists")
	for _, attr := range u.ExpressionAttributeNames {
		assert.NotContains(t, []string{"category", "price", "inventory"}, attr)
	}
	require.NotNil(t, u.ConditionExpression)
	assert.Equal(t, "(attribute_not_exists(#n3)) OR (#n1 = :v3)", *u.ConditionExpression, "an upsert: absent, or a Product")
}

// A writer that keeps creating and deleting the item between the two forms
// makes the upsert give up with a *ReadChangedError, after 4 of each.
func TestUpsertAlternatesThenGivesUp(t *testing.T) {
	ctx := context.Background()
	c, db := mockDB()
	product := map[string]types.AttributeValue{"_type": s("Product"), "productId": s("p1")}
	c.UpdateItemFunc = func(_ context.Context, in *dynamodb.UpdateItemInput) (*dynamodb.UpdateItemOutput, error) {
		var item map[string]types.AttributeValue
		if !strings.HasPrefix(*in.ConditionExpression, "(attribute_exists(#n3)) AND") {
			item = product // the creation finds the item, the update does not
		}
		return nil, &types.ConditionalCheckFailedException{Message: strp("The conditional request failed"), Item: item}
	}
	_, err := testmodel.ShopProducts.Update(ctx, db, testmodel.ShopProduct{ID: "p1"}, st.Add("Inventory", -2), st.Upsert())
	require.ErrorIs(t, err, st.ErrReadChanged)
	assert.Contains(t, err.Error(), "whether the item exists changed")
	assert.Len(t, c.Calls(), 8)
}
