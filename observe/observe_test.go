package observe_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/observe"
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
