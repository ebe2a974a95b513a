package singletable_test

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/golden"
	"github.com/singletable/singletable/internal/testmodel"
	"github.com/singletable/singletable/singletabletest"
)

func TestPutVersionAndTimestamps(t *testing.T) {
	db, _ := pureDB()
	// Version 0: the item must be new; it is stored at version 1.
	in, err := st.WProducts.PutInput(db, st.WProduct{ID: "p1", Name: "Pen", Category: "office", Price: 1.5, Inventory: 10})
	require.NoError(t, err)
	assert.Equal(t, "attribute_not_exists(#n0)", *in.ConditionExpression)
	assert.Equal(t, &types.AttributeValueMemberN{Value: "1"}, in.Item["version"])
	golden.Request(t, "put/version_new", in)

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

// A Put (and Create) request, built without a network, matches its golden file.
func TestPutGolden(t *testing.T) {
	_, db := mockDB()
	must := mustInput(t)
	golden.Request(t, "put/user", must(testmodel.ShopUsers.PutInput(db, seedUser)))
	golden.Request(t, "put/user_sparse", must(testmodel.ShopUsers.PutInput(db, testmodel.ShopUser{ID: "u9", Name: "No Email"})))
	golden.Request(t, "put/order_flagged", must(testmodel.ShopOrders.PutInput(db, testmodel.ShopOrder{UserID: "u1", ID: "o1", Date: "2024-02-01", Status: "FLAGGED"})))
	golden.Request(t, "put/if", must(testmodel.ShopOrders.PutInput(db, seedOrder, st.If(st.Eq("Status", "PENDING")))))
	golden.Request(t, "put/create", must(testmodel.ShopUsers.CreateInput(db, seedUser)))
	golden.Request(t, "put/session_ttl", must(testmodel.ShopSessions.PutInput(db, testmodel.ShopSession{ID: "s1", UserID: "u1", Expires: time.Unix(1700000000, 0)})))
}

// A string that is not valid UTF-8 cannot be stored as given (the SDK would
// send its invalid bytes as U+FFFD, silently changing the value, and two
// set elements could become one): every write and condition refuses it
// before sending, wherever it is in the item.
func TestInvalidUTF8FailsBeforeSending(t *testing.T) {
	type note struct {
		ID    string
		Text  string
		Tags  []string `dynamodbav:",stringset,omitempty"`
		Attrs map[string]int
		Lines []string
	}
	table := st.MustTable("UTF8")
	notes := st.MustDefine[note](table, "Note", st.Key("N#{ID}", "N"))
	mock := &singletabletest.Client{}
	db := st.New(mock, table)
	ctx := context.Background()
	for _, n := range []note{
		{ID: "a", Text: "bad\xc3"},
		{ID: "a", Tags: []string{"\xff", "\xfe"}},
		{ID: "a", Attrs: map[string]int{"k\xff": 1}},
		{ID: "a", Lines: []string{"ok", "\xff"}},
	} {
		err := notes.Put(ctx, db, n)
		require.ErrorIs(t, err, st.ErrInvalidInput)
		assert.Contains(t, err.Error(), "not valid UTF-8")
		err = db.BatchWrite(ctx, []st.BatchOp{st.BatchPut(notes, n)})
		require.ErrorIs(t, err, st.ErrInvalidInput)
	}
	_, err := notes.Update(ctx, db, note{ID: "a"}, st.Set("Text", "\xff"))
	require.ErrorIs(t, err, st.ErrInvalidInput)
	_, err = notes.Update(ctx, db, note{ID: "a"}, st.Set("Text", "ok").If(st.Eq("Text", "\xff")))
	require.ErrorIs(t, err, st.ErrInvalidInput)
	assert.Empty(t, mock.Calls())

	require.NoError(t, notes.Put(ctx, db, note{ID: "a", Text: "héllo ✓", Tags: []string{"é"}}), "valid UTF-8 passes")
}

// A nil DB is an input error, not a panic (singletabletest.Item and the
// other typed answers reach PutInput with what a test passes them).
func TestPutInputNilDB(t *testing.T) {
	_, err := testmodel.ShopUsers.PutInput(nil, testmodel.ShopUser{ID: "u1"})
	require.ErrorIs(t, err, st.ErrInvalidInput)
}

// plainOrder is an entity whose Put takes the plain path (no managed
// fields) with a flat codec plan and flat keys.
type plainOrder struct {
	UserID string  `dynamodbav:"userId"`
	ID     string  `dynamodbav:"orderId"`
	Date   string  `dynamodbav:"orderDate"`
	Status string  `dynamodbav:"status"`
	Total  float64 `dynamodbav:"total"`
	Items  int     `dynamodbav:"itemCount,omitempty"`
	Gift   bool    `dynamodbav:"gift"`
	Note   string  `dynamodbav:"note,omitempty"`
}

var (
	plainTable  = st.MustTable("Plain", st.WithGSI("GSI1"), st.WithGSI("GSI2"))
	plainOrders = st.MustDefine[plainOrder](plainTable, "Order",
		st.Key("USER#{UserID}", "ORDER#{ID}"),
		st.Index("GSI1", "STATUS#{Status}", "{Date}#{ID}"),
		st.Index("GSI2", "DATE#{Date}", "{UserID}#{ID}"),
	)
)

// A plain Put (no managed fields, options or observer: no copy, no plan)
// sends exactly the request the general planner builds for it (PutInput),
// and fails with exactly its error, before sending: over values that
// leave index keys out, need escaping, are not UTF-8, are numbers
// DynamoDB refuses, or make a key as long as its limit and one byte
// longer; on an entity with flat keys and encoding, and on ones without
// (a When, a time field).
func TestPlainPutMatchesPutInput(t *testing.T) {
	ctx := context.Background()
	strs := []string{"", "u1", "a#b", "50%", "h\u00e9llo", "bad\xff", "2024-01-15", strings.Repeat("k", 2043), strings.Repeat("k", 2044), strings.Repeat("k", 1018), strings.Repeat("k", 1019)}
	totals := []float64{0, 59.5, -1, 1e126, math.NaN()}
	var orders []plainOrder
	for i, a := range strs {
		for j, b := range strs {
			orders = append(orders, plainOrder{UserID: a, ID: b, Date: strs[(i+j)%len(strs)], Status: strs[(2*i+j)%len(strs)],
				Total: totals[(i+j)%len(totals)], Items: i - j, Gift: i%2 == 0, Note: strs[(i+2*j)%len(strs)]})
		}
	}
	check := func(t *testing.T, db *st.DB, mock *singletabletest.Client, put func() error, input func() (any, error)) (sent bool) {
		t.Helper()
		mock.Reset()
		want, wantErr := input()
		err := put()
		if wantErr != nil {
			require.Error(t, err)
			assert.Equal(t, wantErr.Error(), err.Error())
			assert.IsType(t, wantErr, err)
			assert.Empty(t, mock.Calls(), "nothing is sent")
			return false
		}
		require.NoError(t, err)
		calls := mock.Calls()
		require.Len(t, calls, 1)
		assert.Equal(t, want, calls[0].Input)
		return true
	}
	t.Run("flat", func(t *testing.T) {
		mock := &singletabletest.Client{}
		db := st.New(mock, plainTable)
		sent := 0
		for _, o := range orders {
			if check(t, db, mock, func() error { return plainOrders.Put(ctx, db, o) },
				func() (any, error) { return plainOrders.PutInput(db, o) }) {
				sent++
			}
		}
		assert.GreaterOrEqual(t, sent, 10, "requests sent and compared")
	})
	// TxPut takes the same short path: the transaction's Put is the
	// PutInput's request, and a value PutInput refuses fails the
	// transaction with its error.
	t.Run("TxPut", func(t *testing.T) {
		mock := &singletabletest.Client{}
		db := st.New(mock, plainTable)
		compared := 0
		for _, o := range orders {
			want, wantErr := plainOrders.PutInput(db, o)
			in, err := db.TransactInput(func(tx *st.Tx) error {
				plainOrders.TxPut(tx, o)
				plainOrders.TxPut(tx, plainOrder{UserID: "other", ID: "x"})
				return nil
			})
			if wantErr != nil {
				require.Error(t, err)
				assert.Contains(t, err.Error(), wantErr.Error())
				continue
			}
			require.NoError(t, err)
			require.Len(t, in.TransactItems, 2)
			put := in.TransactItems[0].Put
			require.NotNil(t, put)
			assert.Equal(t, want.Item, put.Item)
			assert.Equal(t, want.TableName, put.TableName)
			assert.Nil(t, put.ConditionExpression)
			compared++
		}
		assert.GreaterOrEqual(t, compared, 10, "transactions compared")
	})
	t.Run("not flat", func(t *testing.T) {
		mock, db := mockDB()
		for _, o := range orders {
			so := testmodel.ShopOrder{UserID: o.UserID, ID: o.ID, Date: o.Date, Status: o.Status, Total: o.Total, Note: o.Note}
			check(t, db, mock, func() error { return testmodel.ShopOrders.Put(ctx, db, so) },
				func() (any, error) { return testmodel.ShopOrders.PutInput(db, so) })
			so.Status = "FLAGGED"
			check(t, db, mock, func() error { return testmodel.ShopOrders.Put(ctx, db, so) },
				func() (any, error) { return testmodel.ShopOrders.PutInput(db, so) })
		}
	})
}
