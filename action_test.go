package singletable_test

import (
	"context"
	"testing"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
)

func ccf(item map[string]types.AttributeValue) error {
	return &types.ConditionalCheckFailedException{Message: sdkaws.String("The conditional request failed"), Item: item}
}

func TestVersionConflictCarriesCurrentItem(t *testing.T) {
	db, mock := pureDB()
	stored := map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "PRODUCT#p1"}, "SK": &types.AttributeValueMemberS{Value: "DETAILS"},
		"_type": &types.AttributeValueMemberS{Value: "Product"}, "id": &types.AttributeValueMemberS{Value: "p1"},
		"name": &types.AttributeValueMemberS{Value: "Pen"}, "price": &types.AttributeValueMemberN{Value: "2"},
		"version": &types.AttributeValueMemberN{Value: "5"},
	}
	mock.UpdateItemFunc = func(context.Context, *dynamodb.UpdateItemInput) (*dynamodb.UpdateItemOutput, error) {
		return nil, ccf(stored)
	}
	_, err := st.WProducts.Update(context.Background(), db, st.WProduct{ID: "p1", Version: 4}, st.Set("Price", 3.0))
	require.Error(t, err)
	assert.ErrorIs(t, err, st.ErrVersionConflict)
	assert.ErrorIs(t, err, st.ErrConditionFailed)
	var vc *st.VersionConflictError
	require.ErrorAs(t, err, &vc)
	assert.Equal(t, int64(4), vc.Expected)
	assert.Equal(t, int64(5), vc.Actual)
	var ce *st.ConditionError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, "Product", ce.Entity)
	cur, ok := st.WProducts.CurrentItem(err)
	require.True(t, ok)
	assert.Equal(t, st.WProduct{ID: "p1", Name: "Pen", Price: 2, Version: 5}, cur)
	assert.Contains(t, err.Error(), "expected version 4, the item is at version 5")

	// The same version, so the user's own condition failed.
	stored["version"] = &types.AttributeValueMemberN{Value: "4"}
	_, err = st.WProducts.Update(context.Background(), db, st.WProduct{ID: "p1", Version: 4}, st.Set("Price", 3.0).If(st.Gt("Price", 10)))
	assert.ErrorIs(t, err, st.ErrConditionFailed)
	assert.NotErrorIs(t, err, st.ErrVersionConflict)

	// No item: not found.
	mock.UpdateItemFunc = func(context.Context, *dynamodb.UpdateItemInput) (*dynamodb.UpdateItemOutput, error) {
		return nil, ccf(nil)
	}
	_, err = st.WProducts.Update(context.Background(), db, st.WProduct{ID: "p1", Version: 4}, st.Set("Price", 3.0))
	assert.ErrorIs(t, err, st.ErrNotFound)
	// Put of version 0 on an existing item: a conflict with the stored version.
	mock.PutItemFunc = func(context.Context, *dynamodb.PutItemInput) (*dynamodb.PutItemOutput, error) {
		return nil, ccf(stored)
	}
	err = st.WProducts.Put(context.Background(), db, st.WProduct{ID: "p1", Name: "Pen", Category: "c"})
	assert.ErrorIs(t, err, st.ErrVersionConflict)
	require.ErrorAs(t, err, &vc)
	assert.Equal(t, int64(0), vc.Expected)
}
