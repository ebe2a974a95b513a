package singletable_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/golden"
	"github.com/singletable/singletable/singletabletest"
)

func TestTransactErrorListsEachFailure(t *testing.T) {
	db, mock := pureDB()
	guard := map[string]types.AttributeValue{
		"PK":       &types.AttributeValueMemberS{Value: "_unique#User#email#ann@example.com"},
		"_ownerPK": &types.AttributeValueMemberS{Value: "USER#u9"}, "_ownerSK": &types.AttributeValueMemberS{Value: "PROFILE"},
	}
	mock.TransactWriteItemsFunc = func(_ context.Context, in *dynamodb.TransactWriteItemsInput) (*dynamodb.TransactWriteItemsOutput, error) {
		return nil, &types.TransactionCanceledException{Message: sdkaws.String("cancelled"), CancellationReasons: []types.CancellationReason{
			{Code: sdkaws.String("None")},
			{Code: sdkaws.String("ConditionalCheckFailed"), Message: sdkaws.String("The conditional request failed"), Item: guard},
			{Code: sdkaws.String("TransactionConflict"), Message: sdkaws.String("Transaction is ongoing for the item")},
		}}
	}
	err := db.Transact(context.Background(), func(tx *st.Tx) error {
		st.WUsers.TxCreate(tx, st.WUser{ID: "u1", Email: "ann@example.com"})
		st.WOrders.TxPut(tx, st.WOrder{UserID: "u1", ID: "o1"})
		return nil
	})
	var te *st.TxError
	require.ErrorAs(t, err, &te)
	require.Len(t, te.Actions, 2)
	f := te.Actions[0]
	assert.Equal(t, 1, f.Index)
	assert.Equal(t, "User", f.Entity)
	assert.Equal(t, "Email", f.Guard)
	assert.Equal(t, "Put", f.Op)
	assert.Equal(t, "ConditionalCheckFailed", f.Code)
	assert.Equal(t, guard, f.Item)
	var uv *st.UniqueViolationError
	require.ErrorAs(t, err, &uv)
	assert.Equal(t, "ann@example.com", uv.Value)
	assert.Equal(t, "Email", uv.Field)
	assert.Equal(t, &types.AttributeValueMemberS{Value: "USER#u9"}, uv.Owner["PK"])
	assert.Equal(t, 2, te.Actions[1].Index)
	assert.Equal(t, "Order", te.Actions[1].Entity)
	assert.Equal(t, "TransactionConflict", te.Actions[1].Code)
	for _, target := range []error{st.ErrConditionFailed, st.ErrUniqueViolation, st.ErrAlreadyExists, st.ErrTransactionConflict} {
		assert.ErrorIs(t, err, target)
	}
	var tce *types.TransactionCanceledException
	assert.ErrorAs(t, err, &tce, "the SDK error is reachable")
	assert.Contains(t, err.Error(), "action 1 (Put User unique Email guard")
	assert.Contains(t, err.Error(), "action 2 (Put Order")
}

func TestTransactChecksBeforeSending(t *testing.T) {
	cases := []struct {
		name  string
		build func(tx *st.Tx) error
		want  string
		limit bool
	}{
		{"no actions", func(tx *st.Tx) error { return nil }, "no actions", false},
		{"101 actions", func(tx *st.Tx) error {
			for i := 0; i < 101; i++ {
				st.WRecords.TxPut(tx, st.WRecord{ID: strings.Repeat("x", i+1)})
			}
			return nil
		}, "101 actions", true},
		{"guards count", func(tx *st.Tx) error {
			for i := 0; i < 51; i++ {
				st.WUsers.TxCreate(tx, st.WUser{ID: strings.Repeat("u", i+1), Email: strings.Repeat("e", i+1)})
			}
			return nil
		}, "102 actions", true},
		{"same item twice", func(tx *st.Tx) error {
			st.WProducts.TxUpdate(tx, st.WProduct{ID: "p1"}, st.Decrement("Inventory", 1))
			st.WProducts.TxCheck(tx, st.WProduct{ID: "p1"}, st.Exists("Name"))
			return nil
		}, "same item {PK=PRODUCT#p1 SK=DETAILS}", false},
		{"over 4 MB", func(tx *st.Tx) error {
			for i := 0; i < 12; i++ {
				st.WRecords.TxPut(tx, st.WRecord{ID: strings.Repeat("x", i+1), Data: strings.Repeat("d", 390*1024)})
			}
			return nil
		}, "DynamoDB allows 4194304", true},
		{"bad action", func(tx *st.Tx) error {
			st.WOrders.TxUpdate(tx, st.WOrder{UserID: "u"}, st.Set("Total", 1))
			return nil
		}, "field ID", false},
		{"build error", func(tx *st.Tx) error { return errors.New("changed my mind") }, "changed my mind", false},
		{"condition check without condition", func(tx *st.Tx) error {
			st.WProducts.TxCheck(tx, st.WProduct{ID: "p1"}, st.Cond{})
			return nil
		}, "needs a condition", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			db, mock := pureDB()
			err := db.Transact(context.Background(), tc.build)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Equal(t, tc.limit, errors.Is(err, st.ErrTooLarge), "%v", err)
			assert.Empty(t, mock.Calls(), "nothing may be sent")
		})
	}
}

func TestTransactFreshTokenPerCall(t *testing.T) {
	db, mock := pureDB()
	build := func(tx *st.Tx) error {
		st.WOrders.TxPut(tx, st.WOrder{UserID: "u1", ID: "o1"})
		st.WOrderItems.TxPut(tx, st.WOrderItem{OrderID: "o1", ProductID: "p1", Quantity: 1})
		return nil
	}
	require.NoError(t, db.Transact(context.Background(), build))
	require.NoError(t, db.Transact(context.Background(), build))
	require.NoError(t, db.Transact(context.Background(), build, st.IdempotencyToken("mine")))
	calls := mock.Calls()
	require.Len(t, calls, 3)
	tok := func(i int) string {
		return sdkaws.ToString(calls[i].Input.(*dynamodb.TransactWriteItemsInput).ClientRequestToken)
	}
	assert.NotEmpty(t, tok(0))
	assert.NotEqual(t, tok(0), tok(1), "each logical transaction has its own token")
	assert.Equal(t, "mine", tok(2))
	assert.NotSame(t, calls[0].Input, calls[1].Input, "a fresh input per send")
}

func TestSeedTransactionsGolden(t *testing.T) {
	db, _ := pureDB()
	tok := st.IdempotencyToken("golden-token")
	// The seed's place_order: order + line item + conditional decrement.
	in, err := db.TransactInput(func(tx *st.Tx) error {
		st.WOrders.TxCreate(tx, st.WOrder{UserID: "u1", ID: "o1", Date: "2024-01-15", Status: "PENDING", Total: 3})
		st.WOrderItems.TxCreate(tx, st.WOrderItem{OrderID: "o1", ProductID: "p1", Quantity: 2, Price: 1.5})
		st.WProducts.TxUpdate(tx, st.WProduct{ID: "p1"}, st.Decrement("Inventory", 2).If(st.Ge("Inventory", 2)))
		return nil
	}, tok)
	require.NoError(t, err)
	golden.Request(t, "txn/place_order", in)
}

func TestTransactGet(t *testing.T) {
	db, mock := pureDB()
	mock.TransactGetItemsFunc = func(_ context.Context, in *dynamodb.TransactGetItemsInput) (*dynamodb.TransactGetItemsOutput, error) {
		return &dynamodb.TransactGetItemsOutput{Responses: []types.ItemResponse{
			{Item: map[string]types.AttributeValue{"_type": &types.AttributeValueMemberS{Value: "Product"},
				"id": &types.AttributeValueMemberS{Value: "p1"}, "inventory": &types.AttributeValueMemberN{Value: "3"}}},
			{},
		}}, nil
	}
	tg := db.TransactGet()
	p := st.WProducts.TxGet(tg, st.WProduct{ID: "p1"})
	o := st.WOrders.TxGet(tg, st.WOrder{UserID: "u1", ID: "o1"})
	in, err := tg.Input()
	require.NoError(t, err)
	golden.Request(t, "txn/get", in)
	require.NoError(t, tg.Run(context.Background()))
	got, err := p.Get()
	require.NoError(t, err)
	assert.Equal(t, 3, got.Inventory)
	assert.False(t, o.Found())
	_, err = o.Get()
	assert.ErrorIs(t, err, st.ErrNotFound)

	// duplicates and size fail before sending
	mock.Reset()
	tg = db.TransactGet()
	st.WProducts.TxGet(tg, st.WProduct{ID: "p1"})
	st.WProducts.TxGet(tg, st.WProduct{ID: "p1"})
	assert.ErrorIs(t, tg.Run(context.Background()), st.ErrInvalidInput)
	tg = db.TransactGet()
	for i := 0; i < 101; i++ {
		st.WRecords.TxGet(tg, st.WRecord{ID: strings.Repeat("r", i+1)})
	}
	assert.ErrorIs(t, tg.Run(context.Background()), st.ErrTooLarge)
	assert.Empty(t, mock.Calls())
}

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
	db = db.WithClient(singletabletest.NewFaultClient(mock, singletabletest.Faults{
		CancelTransactions: [][]string{{"None", "ConditionalCheckFailed"}, {"None", "ConditionalCheckFailed"}}}))
	u := st.WUser{ID: "u1", Email: "ann@example.com", Name: "Ann", Status: "ACTIVE"}
	err := st.WUsers.Create(context.Background(), db, u)
	assert.Empty(t, mock.Calls(), "a cancelled transaction is not sent")
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

// A transactional read is always strongly consistent: ConsistentRead,
// which TxGet refused for a while, is met already, so it is taken and the
// request is the one sent without it. IncludeExpired still applies.
func TestTxGetTakesConsistentRead(t *testing.T) {
	db, _ := pureDB()
	input := func(opts ...st.GetOption) *dynamodb.TransactGetItemsInput {
		tg := db.TransactGet()
		st.WProducts.TxGet(tg, st.WProduct{ID: "p1"}, opts...)
		in, err := tg.Input()
		require.NoError(t, err)
		return in
	}
	assert.Equal(t, input(), input(st.ConsistentRead()))
	assert.Equal(t, input(st.IncludeExpired()), input(st.ConsistentRead(), st.IncludeExpired()))
}
