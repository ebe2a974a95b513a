package singletable_test

import (
	"context"
	"errors"
	"testing"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
)

// An empty IdempotencyToken is refused (DynamoDB wants 1 to 36
// characters) rather than silently replaced by a fresh random token, which
// would make a caller's retry of a logical transaction apply it twice.
func TestTransactEmptyIdempotencyTokenRefused(t *testing.T) {
	db, mock := pureDB()
	build := func(tx *st.Tx) error {
		st.WOrders.TxPut(tx, st.WOrder{UserID: "u1", ID: "o1"})
		return nil
	}
	err := db.Transact(context.Background(), build, st.IdempotencyToken(""))
	require.ErrorIs(t, err, st.ErrInvalidInput)
	assert.Contains(t, err.Error(), "IdempotencyToken")
	_, err = db.TransactInput(build, st.IdempotencyToken(""))
	require.ErrorIs(t, err, st.ErrInvalidInput)
	assert.Empty(t, mock.Calls(), "nothing may be sent")
}

// A guard item's Put fails its condition only when another item holds the
// value, so a ConditionalCheckFailed reason on it is a unique violation
// even when the service returns no Item (the owner is then unknown).
func TestTxGuardConditionFailedWithoutItem(t *testing.T) {
	db, mock := pureDB()
	mock.TransactWriteItemsFunc = func(context.Context, *dynamodb.TransactWriteItemsInput) (*dynamodb.TransactWriteItemsOutput, error) {
		return nil, &types.TransactionCanceledException{Message: sdkaws.String("cancelled"), CancellationReasons: []types.CancellationReason{
			{Code: sdkaws.String("None")},
			{Code: sdkaws.String("ConditionalCheckFailed"), Message: sdkaws.String("The conditional request failed")},
		}}
	}
	u := st.WUser{ID: "u1", Email: "ann@example.com", Name: "Ann", Status: "ACTIVE"}
	err := st.WUsers.Create(context.Background(), db, u)
	require.ErrorIs(t, err, st.ErrUniqueViolation)
	assert.ErrorIs(t, err, st.ErrAlreadyExists)
	assert.ErrorIs(t, err, st.ErrConditionFailed)
	var uv *st.UniqueViolationError
	require.ErrorAs(t, err, &uv)
	assert.Equal(t, "Email", uv.Field)
	assert.Equal(t, "ann@example.com", uv.Value)
	assert.Empty(t, uv.Owner)

	err = db.Transact(context.Background(), func(tx *st.Tx) error { st.WUsers.TxCreate(tx, u); return nil })
	var te *st.TxError
	require.ErrorAs(t, err, &te)
	assert.ErrorIs(t, err, st.ErrUniqueViolation)
	assert.False(t, errors.Is(err, st.ErrNotFound))
}

// A conflict reported for the whole request (not as a cancellation reason
// of one action) names no action.
func TestTransactConflictOfTheWholeRequest(t *testing.T) {
	db, mock := pureDB()
	mock.TransactWriteItemsFunc = func(context.Context, *dynamodb.TransactWriteItemsInput) (*dynamodb.TransactWriteItemsOutput, error) {
		return nil, &types.TransactionConflictException{Message: sdkaws.String("in progress elsewhere")}
	}
	err := db.Transact(context.Background(), func(tx *st.Tx) error {
		st.WOrders.TxPut(tx, st.WOrder{UserID: "u1", ID: "o1"})
		st.WOrders.TxPut(tx, st.WOrder{UserID: "u1", ID: "o2"})
		return nil
	})
	require.ErrorIs(t, err, st.ErrTransactionConflict)
	assert.NotContains(t, err.Error(), "action -1")
	assert.Contains(t, err.Error(), "TransactionConflict (in progress elsewhere)")
}

// A failed run of a GetTx leaves no value of an earlier run behind: every
// TxValue reports the run's error.
func TestTransactGetFailedRerunClearsValues(t *testing.T) {
	db, mock := pureDB()
	fail := false
	mock.TransactGetItemsFunc = func(context.Context, *dynamodb.TransactGetItemsInput) (*dynamodb.TransactGetItemsOutput, error) {
		if fail {
			return nil, &types.TransactionCanceledException{Message: sdkaws.String("cancelled"),
				CancellationReasons: []types.CancellationReason{{Code: sdkaws.String("TransactionConflict")}}}
		}
		return &dynamodb.TransactGetItemsOutput{Responses: []types.ItemResponse{{Item: map[string]types.AttributeValue{
			"_type": &types.AttributeValueMemberS{Value: "Product"}, "id": &types.AttributeValueMemberS{Value: "p1"},
			"inventory": &types.AttributeValueMemberN{Value: "3"}}}}}, nil
	}
	tg := db.TransactGet()
	p := st.WProducts.TxGet(tg, st.WProduct{ID: "p1"})
	require.NoError(t, tg.Run(context.Background()))
	require.True(t, p.Found())

	fail = true
	err := tg.Run(context.Background())
	require.ErrorIs(t, err, st.ErrTransactionConflict)
	assert.False(t, p.Found())
	assert.Zero(t, p.Value())
	_, err = p.Get()
	assert.ErrorIs(t, err, st.ErrTransactionConflict)
}
