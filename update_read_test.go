package singletable_test

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/singletabletest"
)

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
	st.Index("GSI3", "OPEN#{UserID}", "{Created}").When(func(o *urOrder) bool { return o.Status != "CLOSED" }, "Status"),
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
	st.Index("GSI1", "OPEN#{Owner}", "T#{ID}").When(func(t *urTicket) bool { return t.Status == "OPEN" }, "Status"),
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
