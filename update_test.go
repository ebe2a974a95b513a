package singletable_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

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

func pureDB() (*st.DB, *singletabletest.Client) {
	mock := &singletabletest.Client{}
	return st.New(mock, st.WShop, st.WithClock(st.FixedClock)), mock
}

func TestUpdateEveryChangeGolden(t *testing.T) {
	db, _ := pureDB()
	in, err := st.WUsers.UpdateInput(db, st.WUser{ID: "u1"}, st.
		Set("Name", "Ann").
		Remove("Attrs").
		Add("Tags", "vip"). // one element into a string set
		Increment("Logins", 1).
		Append("Log", "login").
		SetIfNotExists("Address.City", "Oslo"),
	)
	require.NoError(t, err)
	golden.Request(t, "update/changes", in)

	in, err = st.WUsers.UpdateInput(db, st.WUser{ID: "u1"},
		st.DeleteFromSet("Tags", []string{"old", "stale"}).Prepend("Log", []string{"a", "b"}).Decrement("Logins", 2).Set("Address.Zip", "0150"),
	)
	require.NoError(t, err)
	golden.Request(t, "update/changes2", in)
}

func TestUpdateRecomputesIndexKeys(t *testing.T) {
	db, _ := pureDB()
	// User's GSI1 key is STATUS#{Status} / USER#{ID}: ID is in the key.
	in, err := st.WUsers.UpdateInput(db, st.WUser{ID: "u1"}, st.Set("Status", "BANNED"))
	require.NoError(t, err)
	assert.Contains(t, in.ExpressionAttributeNames, "#n1")
	assert.Equal(t, "GSI1PK", in.ExpressionAttributeNames["#n1"])
	golden.Request(t, "update/index", in)

	// Order's sparse index leaves when Status stops being PENDING.
	in, err = st.WOrders.UpdateInput(db, st.WOrder{UserID: "u1", ID: "o1"}, st.Set("Status", "SHIPPED").Set("Date", "2024-01-15"))
	require.NoError(t, err)
	golden.Request(t, "update/sparse_leave", in)
}

func TestUpdateErrorsBeforeSending(t *testing.T) {
	cases := []struct {
		name string
		run  func(db *st.DB) error
		want string
	}{
		{"index field needs other inputs", func(db *st.DB) error {
			_, err := st.WOrders.Update(context.Background(), db, st.WOrder{UserID: "u", ID: "o"}, st.Set("Status", "PENDING"), st.NoRead())
			return err
		}, "also needs Date"},
		{"computed change on an index field", func(db *st.DB) error {
			_, err := st.WProducts.Update(context.Background(), db, st.WProduct{ID: "p"}, st.SetIfNotExists("Category", "x"))
			return err
		}, `SetIfNotExists("Category"): index GSI1's key or condition reads Category`},
		{"computed change on a unique field", func(db *st.DB) error {
			_, err := st.WUsers.Update(context.Background(), db, st.WUser{ID: "u"}, st.SetIfNotExists("Email", "a@x"))
			return err
		}, "field Email is declared Unique"},
		{"primary key field", func(db *st.DB) error {
			_, err := st.WUsers.Update(context.Background(), db, st.WUser{ID: "u"}, st.Set("ID", "u2"))
			return err
		}, "part of the primary key"},
		{"version field", func(db *st.DB) error {
			_, err := st.WUsers.Update(context.Background(), db, st.WUser{ID: "u"}, st.Set("Version", 9))
			return err
		}, "managed by the library"},
		{"unknown field", func(db *st.DB) error {
			_, err := st.WUsers.Update(context.Background(), db, st.WUser{ID: "u"}, st.Set("Nmae", "x"))
			return err
		}, `no field "Nmae"`},
		{"overlapping paths", func(db *st.DB) error {
			_, err := st.WUsers.Update(context.Background(), db, st.WUser{ID: "u"}, st.Set("Address", st.WAddress{}).Set("Address.City", "x"))
			return err
		}, "overlap"},
		{"same field twice", func(db *st.DB) error {
			_, err := st.WUsers.Update(context.Background(), db, st.WUser{ID: "u"}, st.Set("Name", "a").Set("Name", "b"))
			return err
		}, "changed twice"},
		{"add on a nested path", func(db *st.DB) error {
			_, err := st.WUsers.Update(context.Background(), db, st.WUser{ID: "u"}, st.Add("Address.City", 1))
			return err
		}, "top-level attributes only"},
		{"add a string", func(db *st.DB) error {
			_, err := st.WUsers.Update(context.Background(), db, st.WUser{ID: "u"}, st.Add("Name", "x"))
			return err
		}, "takes a number or a set"},
		{"increment a string", func(db *st.DB) error {
			_, err := st.WUsers.Update(context.Background(), db, st.WUser{ID: "u"}, st.Increment("Name", "x"))
			return err
		}, "takes a number"},
		{"wrong value type", func(db *st.DB) error {
			_, err := st.WUsers.Update(context.Background(), db, st.WUser{ID: "u"}, st.Set("Logins", "many"))
			return err
		}, "field Logins is a int"},
		{"no change", func(db *st.DB) error {
			_, err := st.WUsers.Update(context.Background(), db, st.WUser{ID: "u"}, st.Changes{})
			return err
		}, "no change given"},
		{"missing key", func(db *st.DB) error {
			_, err := st.WUsers.Update(context.Background(), db, st.WUser{}, st.Set("Name", "x"))
			return err
		}, "field ID"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			db, mock := pureDB()
			err := tc.run(db)
			require.Error(t, err)
			assert.True(t, errors.Is(err, st.ErrInvalidInput) || errors.Is(err, st.ErrInvalidKey), "%v", err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Empty(t, mock.Calls(), "nothing may be sent")
		})
	}
}

func TestUpdateDecrementInventoryGolden(t *testing.T) {
	db, _ := pureDB()
	// The seed's inventory decrement: no version check (the key has version
	// 0), the version still goes up.
	in, err := st.WProducts.UpdateInput(db, st.WProduct{ID: "p1"}, st.Decrement("Inventory", 2).If(st.Ge("Inventory", 2)))
	require.NoError(t, err)
	golden.Request(t, "update/decrement", in)
	// The seed's optimistic price update: the key carries the version read.
	in, err = st.WProducts.UpdateInput(db, st.WProduct{ID: "p1", Version: 3}, st.Set("Price", 12.5))
	require.NoError(t, err)
	assert.Equal(t, "((attribute_exists(#n2)) AND (#n3 = :v2)) AND (#n1 = :v3)", *in.ConditionExpression)
	golden.Request(t, "update/versioned", in)
}

// An update sets the updated timestamp, which the index's sort key reads:
// the index key must be recomputed (or the update refused), never left stale.
func TestUpdateRecomputesIndexKeyOnUpdatedTimestamp(t *testing.T) {
	db := st.New(&singletabletest.Client{}, rvTable, st.WithClock(st.FixedClock))

	// The update gives every field the index reads but the timestamp, which
	// the library sets itself: GSI1SK must follow the new timestamp.
	// An update that does not give Owner cannot recompute the key: refused.
	_, err := rvDocs.UpdateInput(db, rvDoc{ID: "d1"}, st.Set("Title", "y"))
	require.ErrorIs(t, err, st.ErrInvalidInput, "an update of Title alone would leave GSI1SK stale")
	assert.Contains(t, err.Error(), "also needs Owner")
	in, err := rvDocs.UpdateInput(db, rvDoc{ID: "d1"}, st.Set("Owner", "ann").Set("Title", "x"))
	require.NoError(t, err)
	var sk string
	for _, v := range in.ExpressionAttributeValues {
		if s, ok := v.(*types.AttributeValueMemberS); ok && s.Value == st.FixedClock().Format(time.RFC3339) {
			sk = s.Value
		}
	}
	names := map[string]bool{}
	for _, n := range in.ExpressionAttributeNames {
		names[n] = true
	}
	assert.True(t, names["GSI1SK"], "GSI1SK must be recomputed: %s", *in.UpdateExpression)
	assert.NotEmpty(t, sk, "GSI1SK must be the new timestamp: %v", in.ExpressionAttributeValues)
}

// Setting a unique field to a raw AttributeValue tells the request nothing
// about the new value, so the guard cannot be moved: it must be refused,
// not planned as a change to the key's (empty) value, which would delete
// the old guard and leave the new value unguarded.
func TestTxUpdateUniqueRawValueRefused(t *testing.T) {
	db := st.New(&singletabletest.Client{}, st.WShop, st.WithClock(st.FixedClock))
	_, err := db.TransactInput(func(tx *st.Tx) error {
		st.WUsers.TxUpdate(tx, st.WUser{ID: "u1", Email: "old@x"},
			st.Set("Email", &types.AttributeValueMemberS{Value: "new@x"}))
		return nil
	})
	require.ErrorIs(t, err, st.ErrInvalidInput)
	assert.Contains(t, err.Error(), "Email")
}

// Set(field, nil) stores NULL only where nil is a value of the field (a
// pointer, a map, a slice, an interface): in place of a string or a number,
// a NULL would read back as the zero value and match no condition on it.
func TestSetNilOnlyWhereNilIsAValue(t *testing.T) {
	db, mock := pureDB()
	_, err := st.WUsers.UpdateInput(db, st.WUser{ID: "u1"}, st.Set("Status", nil))
	require.ErrorIs(t, err, st.ErrInvalidInput)
	assert.Contains(t, err.Error(), `Set("Status"): the field is a string, which nil is not a value of`)
	_, err = st.WUsers.Update(context.Background(), db, st.WUser{ID: "u1"}, st.Set("Email", nil))
	require.ErrorIs(t, err, st.ErrInvalidInput, "a unique field would lose its guard")
	assert.Empty(t, mock.Calls())

	// A nil map is a value: on this omitempty field it removes the
	// attribute, as Put would leave it out.
	in, err := st.WUsers.UpdateInput(db, st.WUser{ID: "u1"}, st.Set("Attrs", nil))
	require.NoError(t, err)
	assert.Contains(t, *in.UpdateExpression, "REMOVE #n0 ")
	assert.Equal(t, "attrs", in.ExpressionAttributeNames["#n0"])
}

func TestSetConvertsOnlyWithoutLoss(t *testing.T) {
	_, db := mockDB()
	_, err := testmodel.ShopProducts.UpdateInput(db, testmodel.ShopProduct{ID: "p"}, st.Set("Inventory", 1.5))
	assert.ErrorIs(t, err, st.ErrInvalidInput, "1.5 does not fit an int")
	in, err := testmodel.ShopProducts.UpdateInput(db, testmodel.ShopProduct{ID: "p"}, st.Set("Inventory", 2.0).Set("Price", 3))
	require.NoError(t, err)
	assert.Equal(t, &types.AttributeValueMemberN{Value: "2"}, in.ExpressionAttributeValues[":v0"])
	assert.Equal(t, &types.AttributeValueMemberN{Value: "3"}, in.ExpressionAttributeValues[":v1"])
}

// The model of the update rule (docs/rules.md, "Updates that touch one
// field of an index key"): seed 1's status index (GSI1SK =
// STATUS#{Status}#{Date}), an index over an integer that is always a value
// (P#0000#2 for priority 0), and a sparse index over the created timestamp.

var urTable = st.MustTable("UpdateRule", st.WithGSI("GSI1"), st.WithGSI("GSI2"), st.WithGSI("GSI3"))

type urAddr struct {
	City string `dynamodbav:"city,omitempty"`
	Zip  string `dynamodbav:"zip"`
}

type urOrder struct {
	UserID  string    `dynamodbav:"userId"`
	ID      string    `dynamodbav:"orderId"`
	Status  string    `dynamodbav:"status"`
	Date    string    `dynamodbav:"orderDate"`
	Note    string    `dynamodbav:"note,omitempty"`
	Prio    int       `dynamodbav:"prio"`
	Total   float64   `dynamodbav:"total"`
	Addr    urAddr    `dynamodbav:"addr"`
	Version int64     `dynamodbav:"version" singletable:"version"`
	Created time.Time `dynamodbav:"created" singletable:"created"`
	Updated time.Time `dynamodbav:"updated" singletable:"updated"`
}

var urOrders = st.MustDefine[urOrder](urTable, "Order",
	st.Key("USER#{UserID}", "ORDER#{ID}"),
	st.Index("GSI1", "USER#{UserID}", "STATUS#{Status}#{Date}"),
	st.Index("GSI2", "PRIO", "P#{Prio:4}#{ID}"),
	st.Index("GSI3", "OPEN#{UserID}", "{Created}").When(st.Ne("Status", "CLOSED")),
)

// urMemo has nothing the library manages: an update may change nothing.
type urMemo struct {
	ID   string `dynamodbav:"id"`
	Note string `dynamodbav:"note,omitempty"`
}

var urMemos = st.MustDefine[urMemo](urTable, "Memo", st.Key("MEMO#{ID}", "MEMO"))

// urTicket is only in a sparse index decided by its Status.
type urTicket struct {
	ID     string `dynamodbav:"id"`
	Owner  string `dynamodbav:"owner"`
	Status string `dynamodbav:"status"`
}

var urTickets = st.MustDefine[urTicket](urTable, "Ticket",
	st.Key("TICKET#{ID}", "TICKET"),
	st.Index("GSI1", "OPEN#{Owner}", "T#{ID}").When(st.Eq("Status", "OPEN")),
)

// typed answers an UpdateItem with an item of the entity.
func typed(entity string) func(context.Context, *dynamodb.UpdateItemInput) (*dynamodb.UpdateItemOutput, error) {
	return func(context.Context, *dynamodb.UpdateItemInput) (*dynamodb.UpdateItemOutput, error) {
		return &dynamodb.UpdateItemOutput{Attributes: map[string]types.AttributeValue{"_type": &types.AttributeValueMemberS{Value: entity}}}, nil
	}
}

// The exact requests of an update that reads: a strongly consistent GetItem
// of only the fields it needs, then an UpdateItem conditioned on them.
func TestUpdateReadRequests(t *testing.T) {
	mock := &singletabletest.Client{GetItemFunc: func(_ context.Context, in *dynamodb.GetItemInput) (*dynamodb.GetItemOutput, error) {
		return &dynamodb.GetItemOutput{Item: map[string]types.AttributeValue{
			"PK":        in.Key["PK"],
			"_type":     &types.AttributeValueMemberS{Value: "Order"},
			"orderDate": &types.AttributeValueMemberS{Value: "2024-01-15"},
			"created":   &types.AttributeValueMemberS{Value: "2024-01-01T00:00:00Z"},
		}}, nil
	}, UpdateItemFunc: typed("Order")}
	db := st.New(mock, urTable, st.WithClock(st.FixedClock))
	_, err := urOrders.Update(context.Background(), db, urOrder{UserID: "u1", ID: "o1"}, st.Set("Status", "SHIPPED"))
	require.NoError(t, err)
	calls := mock.Calls()
	require.Len(t, calls, 2)
	get := calls[0].Input.(*dynamodb.GetItemInput)
	assert.True(t, aws.ToBool(get.ConsistentRead))
	require.NotNil(t, get.ProjectionExpression)
	var projected []string
	for _, n := range get.ExpressionAttributeNames {
		projected = append(projected, n)
	}
	assert.ElementsMatch(t, []string{"PK", "_type", "orderDate", "created"}, projected)
	upd := calls[1].Input.(*dynamodb.UpdateItemInput)
	vals := map[string]string{}
	for k, v := range upd.ExpressionAttributeValues {
		if s, ok := v.(*types.AttributeValueMemberS); ok {
			vals[s.Value] = k
		}
	}
	assert.Contains(t, vals, "STATUS#SHIPPED#2024-01-15")
	assert.Contains(t, vals, "2024-01-01T00:00:00Z", "GSI3SK from the stored created timestamp")
	cond := aws.ToString(upd.ConditionExpression)
	assert.Contains(t, cond, "attribute_exists")
	assert.Contains(t, cond, vals["2024-01-15"], "conditioned on the Date read")
	assert.Contains(t, cond, vals["2024-01-01T00:00:00Z"], "conditioned on the created timestamp read")
}

// NoRead forbids the read: today's error, before anything is sent. The
// dry run says a read is needed, and a transaction refuses to read.
func TestUpdateNoReadSendsNothing(t *testing.T) {
	mock := &singletabletest.Client{}
	db := st.New(mock, urTable, st.WithClock(st.FixedClock))
	key := urOrder{UserID: "u1", ID: "o1"}
	_, err := urOrders.Update(context.Background(), db, key, st.Set("Status", "SHIPPED"), st.NoRead())
	assert.ErrorIs(t, err, st.ErrInvalidInput)
	assert.ErrorContains(t, err, "also needs Date: Set them too")
	_, err = urOrders.Update(context.Background(), db, urOrder{UserID: "u1", ID: "2"}, st.Set("Note", "x"), st.Upsert(), st.NoRead())
	assert.ErrorContains(t, err, "also needs Prio")
	// An update that would read, and fails a check anyway, reads nothing.
	_, err = urOrders.Update(context.Background(), db, key, st.Set("Status", "SHIPPED").If(st.Exists("Nope")))
	assert.ErrorIs(t, err, st.ErrInvalidInput)
	assert.Empty(t, mock.Calls())

	_, err = urOrders.UpdateInput(db, key, st.Set("Status", "SHIPPED"))
	var rn *st.ReadNeededError
	require.ErrorAs(t, err, &rn)
	assert.ErrorIs(t, err, st.ErrReadNeeded)
	assert.Equal(t, []string{"Created", "Date"}, rn.Fields)

	err = db.Transact(context.Background(), func(tx *st.Tx) error {
		urOrders.TxUpdate(tx, key, st.Set("Status", "SHIPPED"))
		return nil
	})
	assert.ErrorIs(t, err, st.ErrReadNeeded)
	assert.ErrorContains(t, err, "transaction")
	assert.Empty(t, mock.Calls())

	// Given every field, the update is one request, as before.
	in, err := urOrders.UpdateInput(db, key, st.Set("Status", "SHIPPED").Set("Date", "2024-01-15").Set("Created", st.FixedClock()))
	require.NoError(t, err)
	assert.Contains(t, in.ExpressionAttributeValues, ":v1")
}

// A change that takes the item out of a sparse index removes that index's
// keys and needs nothing else: one request, no read.
func TestUpdateLeavingSparseIndexNeedsNoRead(t *testing.T) {
	mock := &singletabletest.Client{UpdateItemFunc: typed("Ticket")}
	db := st.New(mock, urTable)
	_, err := urTickets.Update(context.Background(), db, urTicket{ID: "t1"}, st.Set("Status", "DONE"))
	require.NoError(t, err)
	calls := mock.Calls()
	require.Len(t, calls, 1)
	upd := calls[0].Input.(*dynamodb.UpdateItemInput)
	assert.Equal(t, "SET #n0 = :v0 REMOVE #n1, #n2", aws.ToString(upd.UpdateExpression))
	assert.Equal(t, "GSI1PK", upd.ExpressionAttributeNames["#n1"])
	assert.Equal(t, "GSI1SK", upd.ExpressionAttributeNames["#n2"])

	// Back into the index: the key needs Owner, which is read.
	mock.Reset()
	_, err = urTickets.Update(context.Background(), db, urTicket{ID: "t1"}, st.Set("Status", "OPEN"), st.NoRead())
	assert.ErrorContains(t, err, "also needs Owner")
	assert.Empty(t, mock.Calls())
}

// An Update request, built without a network, matches its golden file.
func TestUpdateGolden(t *testing.T) {
	_, db := mockDB()
	must := mustInput(t)
	golden.Request(t, "update/status", must(testmodel.ShopOrders.UpdateInput(db, testmodel.ShopOrder{UserID: "u123", ID: "2024-001"},
		st.Set("Status", "SHIPPED").Set("Date", "2024-01-15"))))
	golden.Request(t, "update/flag", must(testmodel.ShopOrders.UpdateInput(db, testmodel.ShopOrder{UserID: "u123", ID: "2024-001"},
		st.Set("Status", "FLAGGED").Set("Date", "2024-01-15").Add("Total", 5))))
	golden.Request(t, "update/remove_email", must(testmodel.ShopUsers.UpdateInput(db, testmodel.ShopUser{ID: "u123"}, st.Remove("Email"))))
	golden.Request(t, "update/upsert", must(testmodel.ShopProducts.UpdateInput(db, testmodel.ShopProduct{ID: "p1"}, st.Add("Inventory", -2), st.Upsert())))
}

// A number stored as a string (`,string`) takes no arithmetic: the error
// says why and what to do, before anything is sent; Set still works.
func TestIncrementNumberStoredAsString(t *testing.T) {
	type counter struct {
		ID string `dynamodbav:"id"`
		N  int64  `dynamodbav:"n,string"`
	}
	table := st.MustTable("StringNumbers")
	counters := st.MustDefine[counter](table, "Counter", st.Key("C#{ID}", "C"))
	mock := &singletabletest.Client{}
	db := st.New(mock, table)
	for _, ch := range []st.Changes{st.Increment("N", 1), st.Decrement("N", int8(2))} {
		_, err := counters.Update(context.Background(), db, counter{ID: "c"}, ch)
		require.ErrorIs(t, err, st.ErrInvalidInput)
		assert.Contains(t, err.Error(), "stores its number as a string")
	}
	_, err := counters.Update(context.Background(), db, counter{ID: "c"}, st.Increment("N", "1"))
	require.ErrorIs(t, err, st.ErrInvalidInput)
	assert.Contains(t, err.Error(), "field N is a int64; got a string")
	assert.Empty(t, mock.Calls(), "nothing may be sent")
	in, err := counters.UpdateInput(db, counter{ID: "c"}, st.Set("N", 5))
	require.NoError(t, err)
	assert.Equal(t, &types.AttributeValueMemberS{Value: "5"}, in.ExpressionAttributeValues[":v0"])
}

// An update whose stored values alone (with the key) make the item larger
// than 400 KB is refused before sending, in Update and TxUpdate alike; one
// exactly at the limit is sent (DynamoDB decides from the stored item).
func TestUpdateOver400KBFailsBeforeSending(t *testing.T) {
	type doc struct {
		ID   string   `dynamodbav:"id"`
		Body string   `dynamodbav:"body"`
		Log  []string `dynamodbav:"log"`
		In   struct {
			Note string `dynamodbav:"note"`
		} `dynamodbav:"in"`
	}
	table := st.MustTable("Sizes")
	docs := st.MustDefine[doc](table, "Doc", st.Key("D#{ID}", "D"))
	mock := &singletabletest.Client{}
	db := st.New(mock, table)
	ctx := context.Background()
	key := doc{ID: "a"}
	// PK "D#a" and SK "D": 2+3 + 2+1 bytes.
	const keyBytes = 8
	room := 400*1024 - keyBytes
	for _, tc := range []struct {
		name string
		ch   st.Changes
	}{
		{"Set", st.Set("Body", strings.Repeat("x", room-len("body")+1))},
		{"nested Set", st.Set("In.Note", strings.Repeat("x", room+1))},
		{"two Sets", st.Set("Body", strings.Repeat("x", room/2)).Set("In.Note", strings.Repeat("x", room/2))},
		// The appended elements count 1 byte each besides their text.
		{"Append", st.Append("Log", []string{strings.Repeat("x", room-len("log")-1+1)})},
	} {
		_, err := docs.Update(ctx, db, key, tc.ch)
		require.ErrorIs(t, err, st.ErrTooLarge, tc.name)
		var le *st.LimitError
		require.ErrorAs(t, err, &le, tc.name)
		assert.Contains(t, err.Error(), "DynamoDB's limit is 400 KB (409600 bytes)", tc.name)
		err = db.Transact(ctx, func(tx *st.Tx) error {
			docs.TxUpdate(tx, key, tc.ch)
			return nil
		})
		require.ErrorIs(t, err, st.ErrTooLarge, tc.name)
	}
	assert.Empty(t, mock.Calls(), "nothing may be sent")

	// At the limit exactly, and values that do not grow the item by their
	// size (SetIfNotExists, Add to a set), are DynamoDB's to judge.
	for _, ch := range []st.Changes{
		st.Set("Body", strings.Repeat("x", room-len("body"))),
		st.Append("Log", []string{strings.Repeat("x", room-len("log")-1)}),
		st.SetIfNotExists("Body", strings.Repeat("x", room)),
	} {
		_, err := docs.UpdateInput(db, key, ch)
		require.NoError(t, err)
	}
}

// A pointer field takes a value of what it points to (or one that converts
// to it without loss): Set, Increment, conditions, and an index key that
// reads it, as if the pointer to it were given.
func TestPointerFieldTakesItsElement(t *testing.T) {
	type hit struct {
		ID    string  `dynamodbav:"id"`
		Hits  *int32  `dynamodbav:"hits"`
		Owner *string `dynamodbav:"owner,omitempty"`
	}
	table := st.MustTable("Pointers", st.WithGSI("GSI1"))
	hits := st.MustDefine[hit](table, "Hit", st.Key("H#{ID}", "H"), st.Index("GSI1", "OWNER#{Owner}", "H#{ID}"))
	db := st.New(&singletabletest.Client{}, table)
	in, err := hits.UpdateInput(db, hit{ID: "a"}, st.Increment("Hits", 1).Set("Owner", "ann").If(st.Lt("Hits", 100)))
	require.NoError(t, err)
	assert.Equal(t, "SET #n0 = if_not_exists(#n0, :v0) + :v1, #n1 = :v2, #n2 = :v3, #n3 = :v4", *in.UpdateExpression)
	assert.Equal(t, &types.AttributeValueMemberN{Value: "1"}, in.ExpressionAttributeValues[":v1"])
	assert.Equal(t, &types.AttributeValueMemberS{Value: "ann"}, in.ExpressionAttributeValues[":v2"])
	assert.Equal(t, &types.AttributeValueMemberS{Value: "OWNER#ann"}, in.ExpressionAttributeValues[":v3"], "the index key reads the value")
	assert.Equal(t, &types.AttributeValueMemberN{Value: "100"}, in.ExpressionAttributeValues[":v6"], "after the entity type's")

	_, err = hits.UpdateInput(db, hit{ID: "a"}, st.Set("Hits", int64(1)<<40))
	require.ErrorIs(t, err, st.ErrInvalidInput, "a value that does not fit is refused")
	assert.Contains(t, err.Error(), "field Hits is a *int32, which cannot hold 1099511627776 (a int64)")
}

// Update against a Client whose UpdateItem answers without Attributes (the
// test kit's Client without UpdateItemFunc, a wrapper dropping them) says
// so, rather than blaming the item: DynamoDB always returns the item for
// ReturnValues ALL_NEW.
func TestUpdateAnswerWithoutItem(t *testing.T) {
	type note struct {
		ID   string `dynamodbav:"id"`
		Text string `dynamodbav:"text"`
	}
	tbl := st.MustTable("AnswerNotes")
	notes := st.MustDefine[note](tbl, "Note", st.Key("NOTE#{ID}", "NOTE"))
	db := st.New(&singletabletest.Client{}, tbl)
	_, err := notes.Update(t.Context(), db, note{ID: "n1"}, st.Set("Text", "x"))
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "no entity type attribute", "the item is not at fault: the answer had none")
	assert.Contains(t, err.Error(), "Note.Update {PK=NOTE#n1 SK=NOTE}: UpdateItem answered without the item")
}
