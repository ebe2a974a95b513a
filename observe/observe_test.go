package observe_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/observe"
	"github.com/singletable/singletable/singletabletest"
)

type Item struct {
	ID   string `dynamodbav:"id"`
	Name string `dynamodbav:"name"`
}

// fixed answers every request alike without allocating, so that the
// allocations counted are the library's.
type fixed struct {
	st.Client
	get   *dynamodb.GetItemOutput
	put   *dynamodb.PutItemOutput
	query *dynamodb.QueryOutput
}

func (f *fixed) GetItem(context.Context, *dynamodb.GetItemInput, ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	return f.get, nil
}

func (f *fixed) PutItem(context.Context, *dynamodb.PutItemInput, ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	return f.put, nil
}

func (f *fixed) Query(context.Context, *dynamodb.QueryInput, ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	return f.query, nil
}

// An observer costs at most one allocation per request: the meter.
func TestObserverAllocatesAtMostOncePerRequest(t *testing.T) {
	tbl := st.MustTable("Obs")
	items := st.MustDefine[Item](tbl, "Item", st.Key("ITEM#{ID}", "ITEM"))
	byID := items.Pattern("ItemByID").Must()
	item := map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "ITEM#1"},
		"SK": &types.AttributeValueMemberS{Value: "ITEM"}, "_type": &types.AttributeValueMemberS{Value: "Item"},
		"id": &types.AttributeValueMemberS{Value: "1"}, "name": &types.AttributeValueMemberS{Value: "n"}}
	units := 0.5
	c := &fixed{get: &dynamodb.GetItemOutput{Item: item, ConsumedCapacity: &types.ConsumedCapacity{CapacityUnits: &units}},
		put:   &dynamodb.PutItemOutput{},
		query: &dynamodb.QueryOutput{Items: []map[string]types.AttributeValue{item}, Count: 1, ScannedCount: 1}}
	seen := 0
	plain := st.New(c, tbl)
	observed := st.New(c, tbl, observe.With(func(observe.Request) { seen++ }))
	ctx := context.Background()
	for name, op := range map[string]func(db *st.DB){
		"Get": func(db *st.DB) { _, _ = items.Get(ctx, db, Item{ID: "1"}) },
		"Put": func(db *st.DB) { _ = items.Put(ctx, db, Item{ID: "1", Name: "n"}) },
		"Query": func(db *st.DB) {
			_, _ = byID.Get(ctx, db, Item{ID: "1"})
		},
	} {
		base := testing.AllocsPerRun(50, func() { op(plain) })
		seen = 0
		with := testing.AllocsPerRun(50, func() { op(observed) })
		require.Positive(t, seen, name)
		assert.LessOrEqual(t, with-base, 1.0, "%s: %v allocations without an observer, %v with", name, base, with)
	}
}

func TestWithoutCapacityAsksNothing(t *testing.T) {
	tbl := st.MustTable("Obs")
	items := st.MustDefine[Item](tbl, "Item", st.Key("ITEM#{ID}", "ITEM"))
	c := &fixed{put: &dynamodb.PutItemOutput{}}
	var asked []types.ReturnConsumedCapacity
	spy := &spyPut{fixed: c, asked: &asked}
	n := 0
	db := st.New(spy, tbl, observe.With(func(observe.Request) { n++ }, observe.WithoutCapacity()))
	require.NoError(t, items.Put(context.Background(), db, Item{ID: "1"}))
	db = st.New(spy, tbl, observe.With(func(observe.Request) { n++ }))
	require.NoError(t, items.Put(context.Background(), db, Item{ID: "1"}))
	assert.Equal(t, 2, n)
	assert.Equal(t, []types.ReturnConsumedCapacity{"", types.ReturnConsumedCapacityIndexes}, asked)
	assert.Panics(t, func() { observe.With(nil) })
	assert.Panics(t, func() { observe.With(func(observe.Request) {}, nil) })
}

type spyPut struct {
	*fixed
	asked *[]types.ReturnConsumedCapacity
}

func (s *spyPut) PutItem(ctx context.Context, in *dynamodb.PutItemInput, o ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	*s.asked = append(*s.asked, in.ReturnConsumedCapacity)
	return s.fixed.PutItem(ctx, in, o...)
}

type Ticket struct {
	ID     string `dynamodbav:"id"`
	Status string `dynamodbav:"status"`
	Owner  string `dynamodbav:"owner"`
}

// Update reading again after a concurrent change: its second read and
// write are the library's retry.
func TestUpdateRetryIsObserved(t *testing.T) {
	tbl := st.MustTable("Obs", st.WithGSI("GSI1"))
	tickets := st.MustDefine[Ticket](tbl, "Ticket", st.Key("T#{ID}", "T"), st.Index("GSI1", "S#{Status}#{Owner}", "T#{ID}"))
	stored := func(owner string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "T#1"}, "SK": &types.AttributeValueMemberS{Value: "T"},
			"_type": &types.AttributeValueMemberS{Value: "Ticket"}, "id": &types.AttributeValueMemberS{Value: "1"},
			"status": &types.AttributeValueMemberS{Value: "open"}, "owner": &types.AttributeValueMemberS{Value: owner}}
	}
	reads, writes := 0, 0
	c := &singletabletest.Client{
		GetItemFunc: func(context.Context, *dynamodb.GetItemInput) (*dynamodb.GetItemOutput, error) {
			reads++
			return &dynamodb.GetItemOutput{Item: stored(fmt.Sprint("owner", reads))}, nil
		},
		UpdateItemFunc: func(context.Context, *dynamodb.UpdateItemInput) (*dynamodb.UpdateItemOutput, error) {
			writes++
			if writes == 1 { // the owner changed since the first read
				return nil, &types.ConditionalCheckFailedException{Item: stored("owner2")}
			}
			return &dynamodb.UpdateItemOutput{Attributes: stored("owner2")}, nil
		},
	}
	rec := &observe.Recorder{}
	db := st.New(c, tbl, observe.With(rec.Observe))
	_, err := tickets.Update(context.Background(), db, Ticket{ID: "1"}, st.Set("Status", "closed"))
	require.NoError(t, err)
	var got []string
	for _, r := range rec.Requests() {
		got = append(got, fmt.Sprintf("%s retry %d estimated %v", r.Operation, r.Retry, r.Estimated))
	}
	assert.Equal(t, []string{
		"GetItem retry 0 estimated false",
		"UpdateItem retry 0 estimated true", // the failed condition: billed, estimated
		"GetItem retry 1 estimated false",
		"UpdateItem retry 1 estimated false",
	}, got)
}

// A transaction cancelled because an action was throttled, or by a
// conflict, is classed as such, not "cancelled": DynamoDB reports both as
// cancellations (atkC F5).
func TestClassOfCancelledTransactions(t *testing.T) {
	cancelled := func(codes ...string) error {
		e := &types.TransactionCanceledException{}
		for _, c := range codes {
			e.CancellationReasons = append(e.CancellationReasons, types.CancellationReason{Code: aws.String(c)})
		}
		return e
	}
	for want, err := range map[string]error{
		"cancelled": cancelled("None", "ConditionalCheckFailed"),
		"conflict":  cancelled("None", "TransactionConflict"),
		"throttled": cancelled("TransactionConflict", "ThrottlingError"),
	} {
		assert.Equal(t, want, observe.Class(err), "%v", err)
	}
	assert.Equal(t, "throttled", observe.Class(fmt.Errorf("wrapped: %w", cancelled("ProvisionedThroughputExceeded"))))
}
