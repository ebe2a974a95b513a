package singletable_test

import (
	"context"
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
