package singletable_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/testmodel"
)

// Bad input is a typed error, and no request is sent.
func TestBadInputSendsNothing(t *testing.T) {
	c, db := mockDB()
	long := strings.Repeat("x", 2100)
	cases := []struct {
		name string
		call func() error
		is   error
		msg  string
	}{
		{"empty partition field", func() error { _, err := testmodel.ShopUsers.Get(ctx, db, testmodel.ShopUser{}); return err }, st.ErrInvalidKey, "field ID"},
		{"empty sort field", func() error { return testmodel.ShopOrders.Put(ctx, db, testmodel.ShopOrder{UserID: "u1"}) }, st.ErrInvalidKey, "key SK"},
		{"partition key over 2048 bytes", func() error { return testmodel.ShopUsers.Put(ctx, db, testmodel.ShopUser{ID: long}) }, st.ErrInvalidKey, "DynamoDB allows 2048"},
		{"sort key over 1024 bytes", func() error {
			return testmodel.ShopOrders.Put(ctx, db, testmodel.ShopOrder{UserID: "u", ID: long[:1100]})
		}, st.ErrInvalidKey, "DynamoDB allows 1024"},
		{"invalid UTF-8", func() error { return testmodel.ShopUsers.Delete(ctx, db, testmodel.ShopUser{ID: "a\xff"}) }, st.ErrInvalidKey, "UTF-8"},
		{"item over 400 KB", func() error {
			return testmodel.ShopOrders.Put(ctx, db, testmodel.ShopOrder{UserID: "u", ID: "o", Note: strings.Repeat("n", 410*1024)})
		}, st.ErrInvalidInput, "400"},
		{"update without changes", func() error {
			_, err := testmodel.ShopUsers.Update(ctx, db, testmodel.ShopUser{ID: "u"}, st.Changes{})
			return err
		}, st.ErrInvalidInput, "no change"},
		{"update of an unknown field", func() error {
			_, err := testmodel.ShopUsers.Update(ctx, db, testmodel.ShopUser{ID: "u"}, st.Set("Nope", 1))
			return err
		}, st.ErrInvalidInput, "no such field"},
		{"update of a primary-key field", func() error {
			_, err := testmodel.ShopOrders.Update(ctx, db, testmodel.ShopOrder{UserID: "u", ID: "o"}, st.Set("ID", "o2"))
			return err
		}, st.ErrInvalidInput, "part of the primary key"},
		{"update that cannot recompute an index key", func() error {
			_, err := testmodel.ShopOrders.Update(ctx, db, testmodel.ShopOrder{UserID: "u", ID: "o"}, st.Set("Status", "SHIPPED"), st.NoRead())
			return err
		}, st.ErrInvalidInput, "also needs Date"},
		{"Add on an indexed field", func() error {
			_, err := testmodel.ShopUsers.Update(ctx, db, testmodel.ShopUser{ID: "u"}, st.Add("Email", 1))
			return err
		}, st.ErrInvalidInput, "use Set"},
		{"Set of the wrong type", func() error {
			_, err := testmodel.ShopOrders.Update(ctx, db, testmodel.ShopOrder{UserID: "u", ID: "o"}, st.Set("Total", "lots"))
			return err
		}, st.ErrInvalidInput, "Total is a float64"},
		{"condition on an unknown field", func() error { return testmodel.ShopUsers.Put(ctx, db, seedUser, st.If(st.Eq("Nope", 1))) }, st.ErrInvalidInput, "no field"},
		{"collection without its value", func() error { _, err := testmodel.ShopUserAndOrders.Query(ctx, db, st.Values{}); return err }, st.ErrInvalidInput, "no value for {UserID}"},
		{"collection with an unknown value", func() error {
			_, err := testmodel.ShopUserAndOrders.Query(ctx, db, st.Values{"UserID": "u", "X": 1})
			return err
		}, st.ErrInvalidInput, `"X" is not a placeholder`},
		{"query without a partition", func() error { _, err := testmodel.ShopOrders.Query(ctx, db, testmodel.ShopOrder{}); return err }, st.ErrInvalidKey, "field UserID"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c.Reset()
			err := tc.call()
			require.Error(t, err)
			assert.ErrorIs(t, err, tc.is)
			assert.Contains(t, err.Error(), tc.msg)
			assert.Empty(t, c.Calls(), "no request may be sent")
		})
	}
}

func TestErrorsMapServiceFailures(t *testing.T) {
	c, db := mockDB()
	existing, err := testmodel.ShopUsers.PutInput(db, seedUser)
	require.NoError(t, err)

	c.PutItemFunc = func(context.Context, *dynamodb.PutItemInput) (*dynamodb.PutItemOutput, error) {
		return nil, &types.ConditionalCheckFailedException{Message: strp("exists"), Item: existing.Item}
	}
	err = testmodel.ShopUsers.Create(ctx, db, seedUser)
	assert.ErrorIs(t, err, st.ErrAlreadyExists)
	assert.ErrorIs(t, err, st.ErrConditionFailed)
	var ccf *types.ConditionalCheckFailedException
	assert.ErrorAs(t, err, &ccf, "the SDK error stays reachable")
	var ce *st.ConditionError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, "User.Create", ce.Op)
	assert.Equal(t, existing.Item, ce.Item)

	c.UpdateItemFunc = func(context.Context, *dynamodb.UpdateItemInput) (*dynamodb.UpdateItemOutput, error) {
		return nil, &types.ConditionalCheckFailedException{Message: strp("no item")}
	}
	_, err = testmodel.ShopUsers.Update(ctx, db, testmodel.ShopUser{ID: "u404"}, st.Set("Name", "x"))
	assert.ErrorIs(t, err, st.ErrNotFound)

	c.DeleteItemFunc = func(context.Context, *dynamodb.DeleteItemInput) (*dynamodb.DeleteItemOutput, error) {
		return nil, &types.ConditionalCheckFailedException{Message: strp("no item")}
	}
	assert.ErrorIs(t, testmodel.ShopUsers.Delete(ctx, db, testmodel.ShopUser{ID: "u404"}, st.MustExist()), st.ErrNotFound)

	c.GetItemFunc = func(context.Context, *dynamodb.GetItemInput) (*dynamodb.GetItemOutput, error) {
		return &dynamodb.GetItemOutput{}, nil
	}
	_, err = testmodel.ShopUsers.Get(ctx, db, testmodel.ShopUser{ID: "u404"})
	assert.ErrorIs(t, err, st.ErrNotFound)

	// An item of another entity at the asked key is never decoded as this one.
	c.GetItemFunc = func(context.Context, *dynamodb.GetItemInput) (*dynamodb.GetItemOutput, error) {
		return &dynamodb.GetItemOutput{Item: map[string]types.AttributeValue{
			"PK": &types.AttributeValueMemberS{Value: "USER#u1"}, "SK": &types.AttributeValueMemberS{Value: "PROFILE"},
			"_type": &types.AttributeValueMemberS{Value: "Order"},
		}}, nil
	}
	_, err = testmodel.ShopUsers.Get(ctx, db, testmodel.ShopUser{ID: "u1"})
	var mismatch *st.EntityMismatchError
	require.ErrorAs(t, err, &mismatch)
	assert.Equal(t, "Order", mismatch.Got)
	assert.ErrorIs(t, err, st.ErrWrongEntity)

	boom := errors.New("network down")
	c.QueryFunc = func(context.Context, *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) { return nil, boom }
	_, err = testmodel.ShopOrders.Query(ctx, db, testmodel.ShopOrder{UserID: "u1"})
	assert.ErrorIs(t, err, boom)
	assert.Contains(t, err.Error(), "Order.Query")
}
