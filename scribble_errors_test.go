package singletable_test

import (
	"context"
	"errors"
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

// TestErrorsNameTheKeySent: an error that names the item's key, made
// after the request was sent, names the key the library sent, not what
// the Client left in the request's maps (a Client may change them).
func TestErrorsNameTheKeySent(t *testing.T) {
	orderKey := testmodel.ShopOrder{UserID: "u123", ID: "2024-001"}
	want := map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "USER#u123"},
		"SK": &types.AttributeValueMemberS{Value: "ORDER#2024-001"},
	}
	failed := &types.ConditionalCheckFailedException{Message: aws.String("The conditional request failed")}
	mock := &singletabletest.Client{
		UpdateItemFunc: func(context.Context, *dynamodb.UpdateItemInput) (*dynamodb.UpdateItemOutput, error) {
			return nil, failed
		},
		PutItemFunc: func(context.Context, *dynamodb.PutItemInput) (*dynamodb.PutItemOutput, error) {
			return nil, failed
		},
		GetItemFunc: func(context.Context, *dynamodb.GetItemInput) (*dynamodb.GetItemOutput, error) {
			return &dynamodb.GetItemOutput{}, nil
		},
		TransactWriteItemsFunc: func(context.Context, *dynamodb.TransactWriteItemsInput) (*dynamodb.TransactWriteItemsOutput, error) {
			code := "ConditionalCheckFailed"
			return nil, &types.TransactionCanceledException{Message: aws.String("cancelled"),
				CancellationReasons: []types.CancellationReason{{Code: &code}}}
		},
	}
	db := st.New(&scribbler{inner: mock}, testmodel.Shop, st.WithClock(st.FixedClock))
	ctx := t.Context()

	keyOf := func(t *testing.T, err error) map[string]types.AttributeValue {
		t.Helper()
		var ce *st.ConditionError
		if errors.As(err, &ce) {
			return ce.Key
		}
		var te *st.TxError
		if errors.As(err, &te) {
			require.Len(t, te.Actions, 1)
			return te.Actions[0].Key
		}
		require.ErrorIs(t, err, st.ErrNotFound)
		return nil
	}

	t.Run("Update whose condition fails", func(t *testing.T) {
		_, err := testmodel.ShopOrders.Update(ctx, db, orderKey, st.Set("Status", "DONE").Set("Date", "2024-01-15").If(st.Eq("Status", "OPEN")))
		require.Error(t, err)
		assert.Equal(t, want, keyOf(t, err))
	})
	t.Run("Create over an existing item", func(t *testing.T) {
		o := orderKey
		o.Date, o.Status = "2024-01-15", "PENDING"
		err := testmodel.ShopOrders.Create(ctx, db, o)
		require.Error(t, err)
		assert.Equal(t, want, keyOf(t, err))
	})
	t.Run("a transaction's failure", func(t *testing.T) {
		err := db.Transact(ctx, func(tx *st.Tx) error {
			testmodel.ShopOrders.TxCheck(tx, orderKey, st.Eq("Status", "OPEN"))
			return nil
		})
		require.Error(t, err)
		assert.Equal(t, want, keyOf(t, err))
	})
	t.Run("Get of a missing item", func(t *testing.T) {
		_, err := testmodel.ShopOrders.Get(ctx, db, orderKey)
		require.ErrorIs(t, err, st.ErrNotFound)
		assert.Contains(t, err.Error(), "USER#u123")
		assert.NotContains(t, err.Error(), "scribbled")
	})
}
