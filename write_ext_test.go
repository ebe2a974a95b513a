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
)

func TestPutVersionAndTimestamps(t *testing.T) {
	db, _ := pureDB()
	// Version 0: the item must be new; it is stored at version 1.
	in, err := st.WProducts.PutInput(db, st.WProduct{ID: "p1", Name: "Pen", Category: "office", Price: 1.5, Inventory: 10})
	require.NoError(t, err)
	assert.Equal(t, "attribute_not_exists(#n0)", *in.ConditionExpression)
	assert.Equal(t, &types.AttributeValueMemberN{Value: "1"}, in.Item["version"])
	golden.Assert(t, "write_put_version_new", in)

	// Version 4: the stored item must be at 4; it is stored at 5.
	in, err = st.WProducts.PutInput(db, st.WProduct{ID: "p1", Name: "Pen", Category: "office", Version: 4})
	require.NoError(t, err)
	assert.Equal(t, "#n0 = :v0", *in.ConditionExpression)
	assert.Equal(t, "version", in.ExpressionAttributeNames["#n0"])
	assert.Equal(t, &types.AttributeValueMemberN{Value: "4"}, in.ExpressionAttributeValues[":v0"])
	assert.Equal(t, &types.AttributeValueMemberN{Value: "5"}, in.Item["version"])

	// Create: must not exist, version 1, timestamps from the DB's clock.
	cin, err := st.WCounters.CreateInput(db, st.WCounter{ID: "c", Version: 7})
	require.NoError(t, err)
	assert.Equal(t, &types.AttributeValueMemberN{Value: "1"}, cin.Item["version"])
	assert.Equal(t, "attribute_not_exists(#n0)", *cin.ConditionExpression)
}

func TestDeleteVersionChecked(t *testing.T) {
	db, _ := pureDB()
	in, err := st.WProducts.DeleteInput(db, st.WProduct{ID: "p1", Version: 2})
	require.NoError(t, err)
	golden.Assert(t, "write_delete_versioned", in)
	in, err = st.WProducts.DeleteInput(db, st.WProduct{ID: "p1"})
	require.NoError(t, err)
	assert.Nil(t, in.ConditionExpression, "version 0: unchecked")
}

func TestUniqueWritesAreTransactions(t *testing.T) {
	db, mock := pureDB()
	u := st.WUser{ID: "u1", Email: "ann@example.com", Name: "Ann", Status: "ACTIVE"}
	_, err := st.WUsers.CreateInput(db, u)
	require.ErrorIs(t, err, st.ErrInvalidInput)
	assert.Contains(t, err.Error(), "TxCreate")

	tok := st.IdempotencyToken("golden-token")
	in, err := db.TransactInput(func(tx *st.Tx) error { st.WUsers.TxCreate(tx, u); return nil }, tok)
	require.NoError(t, err)
	require.Len(t, in.TransactItems, 2)
	golden.Assert(t, "tx_unique_create", in)

	in, err = db.TransactInput(func(tx *st.Tx) error {
		st.WUsers.TxUpdate(tx, st.WUser{ID: "u1", Email: "ann@example.com"}, st.Set("Email", "ann@example.org"))
		return nil
	}, tok)
	require.NoError(t, err)
	require.Len(t, in.TransactItems, 3, "update item, delete old guard, put new guard")
	golden.Assert(t, "tx_unique_update", in)

	in, err = db.TransactInput(func(tx *st.Tx) error { st.WUsers.TxDelete(tx, u); return nil }, tok)
	require.NoError(t, err)
	require.Len(t, in.TransactItems, 2)
	golden.Assert(t, "tx_unique_delete", in)
	assert.Empty(t, mock.Calls())
}

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
	golden.Assert(t, "tx_place_order", in)
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
	golden.Assert(t, "tx_get", in)
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
