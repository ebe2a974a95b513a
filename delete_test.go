package singletable_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/golden"
	"github.com/singletable/singletable/internal/testmodel"
	"github.com/singletable/singletable/singletabletest"
)

func TestDeleteVersionChecked(t *testing.T) {
	db, _ := pureDB()
	in, err := st.WProducts.DeleteInput(db, st.WProduct{ID: "p1", Version: 2})
	require.NoError(t, err)
	golden.Request(t, "delete/versioned", in)
	in, err = st.WProducts.DeleteInput(db, st.WProduct{ID: "p1"})
	require.NoError(t, err)
	require.NotNil(t, in.ConditionExpression)
	assert.Equal(t, "(attribute_not_exists(#n0)) OR (#n1 = :v0)", *in.ConditionExpression, "version 0: unchecked, only the entity's own item")
}

// A version-checked Delete of a missing item fails with ErrNotFound (the
// stored version is not the one expected), whether or not the entity has
// unique fields.
func TestVersionedDeleteOfMissingItem(t *testing.T) {
	ctx := context.Background()
	mock := &singletabletest.Client{
		DeleteItemFunc: func(_ context.Context, in *dynamodb.DeleteItemInput) (*dynamodb.DeleteItemOutput, error) {
			// The condition fails: there is no such item.
			return nil, &types.ConditionalCheckFailedException{Message: aws.String("The conditional request failed")}
		},
	}
	db := st.New(mock, st.WShop, st.WithClock(st.FixedClock))
	err := st.WProducts.Delete(ctx, db, st.WProduct{ID: "p1", Version: 3})
	require.ErrorIs(t, err, st.ErrNotFound, "no unique fields")

	err = st.WUsers.Delete(ctx, db, st.WUser{ID: "u1", Version: 3})
	require.ErrorIs(t, err, st.ErrNotFound, "unique fields")
	for _, c := range mock.Calls() {
		assert.NotEqual(t, "TransactWriteItems", c.Op)
	}

	// Unversioned, without MustExist: deleting a missing item succeeds.
	require.NoError(t, st.WUsers.Delete(ctx, db, st.WUser{ID: "u1"}))
}

// A Delete request, built without a network, matches its golden file.
func TestDeleteGolden(t *testing.T) {
	_, db := mockDB()
	must := mustInput(t)
	golden.Request(t, "delete/key", must(testmodel.ShopOrders.DeleteInput(db, testmodel.ShopOrder{UserID: "u123", ID: "2024-001"})))
	golden.Request(t, "delete/must_exist", must(testmodel.ShopOrders.DeleteInput(db, testmodel.ShopOrder{UserID: "u123", ID: "2024-001"}, st.MustExist())))
}
