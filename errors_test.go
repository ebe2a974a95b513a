package singletable_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/singletabletest"
)

func TestErrorsMapServiceFailures(t *testing.T) {
	c, db := mockDB()
	existing, err := shopUsers.PutInput(db, seedUser)
	require.NoError(t, err)

	c.PutItemFunc = func(context.Context, *dynamodb.PutItemInput) (*dynamodb.PutItemOutput, error) {
		return nil, &types.ConditionalCheckFailedException{Message: strp("exists"), Item: existing.Item}
	}
	err = shopUsers.Create(ctx, db, seedUser)
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
	_, err = shopUsers.Update(ctx, db, shopUser{ID: "u404"}, st.Set("Name", "x"))
	assert.ErrorIs(t, err, st.ErrNotFound)

	c.DeleteItemFunc = func(context.Context, *dynamodb.DeleteItemInput) (*dynamodb.DeleteItemOutput, error) {
		return nil, &types.ConditionalCheckFailedException{Message: strp("no item")}
	}
	assert.ErrorIs(t, shopUsers.Delete(ctx, db, shopUser{ID: "u404"}, st.MustExist()), st.ErrNotFound)

	c.GetItemFunc = func(context.Context, *dynamodb.GetItemInput) (*dynamodb.GetItemOutput, error) {
		return &dynamodb.GetItemOutput{}, nil
	}
	_, err = shopUsers.Get(ctx, db, shopUser{ID: "u404"})
	assert.ErrorIs(t, err, st.ErrNotFound)

	// An item of another entity at the asked key is never decoded as this one.
	c.GetItemFunc = func(context.Context, *dynamodb.GetItemInput) (*dynamodb.GetItemOutput, error) {
		return &dynamodb.GetItemOutput{Item: map[string]types.AttributeValue{
			"PK": &types.AttributeValueMemberS{Value: "USER#u1"}, "SK": &types.AttributeValueMemberS{Value: "PROFILE"},
			"_type": &types.AttributeValueMemberS{Value: "Order"},
		}}, nil
	}
	_, err = shopUsers.Get(ctx, db, shopUser{ID: "u1"})
	var mismatch *st.EntityMismatchError
	require.ErrorAs(t, err, &mismatch)
	assert.Equal(t, "Order", mismatch.Got)
	assert.ErrorIs(t, err, st.ErrWrongEntity)

	boom := errors.New("network down")
	c.QueryFunc = func(context.Context, *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) { return nil, boom }
	_, err = shopOrders.Query(ctx, db, shopOrder{UserID: "u1"})
	assert.ErrorIs(t, err, boom)
	assert.Contains(t, err.Error(), "Order.Query")
}

// Every expression has one limit and one error: a Filter over 4 KB is the
// same *LimitError (ErrTooLarge and ErrInvalidInput) as a write condition
// or an update expression, with nothing sent; and the limit applies to the
// whole filter the query sends (the entity type's and the caller's).
func TestExpressionLimitIsOneRule(t *testing.T) {
	conds := func(n int) st.Cond {
		cs := make([]st.Cond, n)
		for i := range cs {
			cs[i] = st.Ne("Note", fmt.Sprint(i))
		}
		return st.And(cs...)
	}
	client := &singletabletest.Client{}
	db := st.New(client, vlTable)
	key := vlDoc{ID: "d1"}
	checkLimit := func(t *testing.T, what string, err error) {
		t.Helper()
		require.ErrorIs(t, err, st.ErrTooLarge, what)
		require.ErrorIs(t, err, st.ErrInvalidInput, what)
		var le *st.LimitError
		require.ErrorAs(t, err, &le, what)
		assert.Contains(t, err.Error(), "4096", what)
	}
	huge := conds(400)
	_, err := vlByID.Query(ctx, db, key, st.Filter(huge))
	checkLimit(t, "Filter", err)
	checkLimit(t, "If", vlDocs.Put(ctx, db, key, st.If(huge)))
	_, err = vlDocs.Update(ctx, db, key, st.Set("Note", "x").If(huge))
	checkLimit(t, "Update If", err)
	var sets st.Changes
	for i := range 300 {
		sets = sets.Set(fmt.Sprintf("Names.k%d", i), "x")
	}
	_, err = vlDocs.Update(ctx, db, key, sets)
	checkLimit(t, "update expression", err)
	assert.Empty(t, client.Calls(), "nothing is sent")

	// The first filter too long for the query, with the entity type's
	// filter joined to it, is refused the same way; the one before it fits.
	for n := 1; ; n++ {
		in, err := vlByID.QueryInput(db, key, st.Filter(conds(n)))
		if err != nil {
			checkLimit(t, fmt.Sprintf("Filter of %d conditions", n), err)
			break
		}
		require.LessOrEqual(t, len(*in.FilterExpression), 4096)
		require.Less(t, n, 1000)
	}
}
