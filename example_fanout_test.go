package singletable_test

// Runnable examples of write sharding, time buckets and fan-out reads.

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable"
	"github.com/singletable/singletable/singletabletest"
)

// A page-view counter spread over 10 shards: each increment goes to a
// random shard, and the pattern over the sharded partition reads all ten
// in parallel; Sum adds them up.
func ExampleShards() {
	type PageView struct {
		PageID string `dynamodbav:"pageId"`
		Shard  int    `dynamodbav:"shard"`
		Views  int64  `dynamodbav:"views"`
	}
	tbl := singletable.MustTable("Views")
	pageViews := singletable.MustDefine[PageView](tbl, "PageView",
		singletable.Key("PAGEVIEW#{PageID}#{Shard}", "COUNTER"), singletable.Shards("Shard", 10))
	allShards := pageViews.Pattern("PageViewShards").Must()

	// A mock table where every shard holds 3 views.
	client := &singletabletest.Client{QueryFunc: func(_ context.Context, in *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
		item := map[string]types.AttributeValue{"PK": in.ExpressionAttributeValues[":v0"], "SK": &types.AttributeValueMemberS{Value: "COUNTER"},
			"_type": &types.AttributeValueMemberS{Value: "PageView"}, "views": &types.AttributeValueMemberN{Value: "3"}}
		return &dynamodb.QueryOutput{Items: []map[string]types.AttributeValue{item}, Count: 1, ScannedCount: 1}, nil
	}}
	db := singletable.New(client, tbl)
	ctx := context.Background()

	up, err := pageViews.UpdateInput(db, PageView{PageID: "home"},
		singletable.Increment("Views", 1), singletable.Upsert(), singletable.RandomShard())
	if err != nil {
		panic(err)
	}
	fmt.Println(*up.UpdateExpression)
	fmt.Println(strings.HasPrefix(up.Key["PK"].(*types.AttributeValueMemberS).Value, "PAGEVIEW#home#"))

	total, err := singletable.Sum(ctx, db, allShards, PageView{PageID: "home"}, func(v PageView) int64 { return v.Views })
	if err != nil {
		panic(err)
	}
	fmt.Println(total, len(client.Calls()), "queries")
	fmt.Println(strings.Split(tbl.Sheet(), "\n")[8])
	// Output:
	// SET #n0 = if_not_exists(#n0, :v0) + :v1, #n1 = :v2, #n2 = :v3, #n3 = :v4
	// true
	// 30 10 queries
	// | 1 | PageViewShards | Query, fan-out over 10 shards | table | `PK = PAGEVIEW#{PageID}#{Shard} AND begins_with(SK, "COUNTER")` | PageView |
}

// Readings bucketed by hour: a SortBetween read over the last 24 hours
// fans out over the 25 hour buckets it touches, newest first, and a Limit
// stops it at the first bucket that has enough.
func ExamplePattern_QueryBetween_timeBuckets() {
	type Reading struct {
		DeviceID string    `dynamodbav:"deviceId"`
		At       time.Time `dynamodbav:"at"`
		Value    float64   `dynamodbav:"value"`
	}
	tbl := singletable.MustTable("IoT")
	readings := singletable.MustDefine[Reading](tbl, "Reading",
		singletable.Key("DEVICE#{DeviceID}#{At:2006-01-02-15}", "{At}"))
	latest := readings.Pattern("LatestReadings").SortBetween().Descending().Must()

	now := time.Date(2024, 3, 15, 14, 30, 0, 0, time.UTC)
	client := &singletabletest.Client{QueryFunc: func(_ context.Context, in *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
		// The newest hour holds two readings.
		if in.ExpressionAttributeValues[":v0"].(*types.AttributeValueMemberS).Value != "DEVICE#d1#2024-03-15-14" {
			return &dynamodb.QueryOutput{}, nil
		}
		var items []map[string]types.AttributeValue
		for _, m := range []string{"20", "10"} {
			at := "2024-03-15T14:" + m + ":00.000000000Z"
			items = append(items, map[string]types.AttributeValue{"PK": in.ExpressionAttributeValues[":v0"], "SK": &types.AttributeValueMemberS{Value: at},
				"_type": &types.AttributeValueMemberS{Value: "Reading"}, "deviceId": &types.AttributeValueMemberS{Value: "d1"},
				"at": &types.AttributeValueMemberS{Value: at}, "value": &types.AttributeValueMemberN{Value: m}})
		}
		return &dynamodb.QueryOutput{Items: items, Count: 2, ScannedCount: 2}, nil
	}}
	db := singletable.New(client, tbl)

	ins, err := latest.QueryBetweenInputs(db, Reading{DeviceID: "d1", At: now.Add(-24 * time.Hour)}, Reading{At: now})
	if err != nil {
		panic(err)
	}
	fmt.Println(len(ins), "buckets, from", ins[0].ExpressionAttributeValues[":v0"].(*types.AttributeValueMemberS).Value)

	page, err := latest.QueryBetween(context.Background(), db, Reading{DeviceID: "d1", At: now.Add(-24 * time.Hour)}, Reading{At: now},
		singletable.Limit(2))
	if err != nil {
		panic(err)
	}
	for _, r := range page.Items {
		fmt.Println(r.At.Format("15:04"), r.Value)
	}
	fmt.Println(page.Requests, "request")
	// Output:
	// 25 buckets, from DEVICE#d1#2024-03-15-14
	// 14:20 20
	// 14:10 10
	// 1 request
}

// SumBetween adds up a field over a SortBetween range: the readings of
// the last 24 hours, over every hour bucket the range touches.
func ExampleSumBetween() {
	type Reading struct {
		DeviceID string    `dynamodbav:"deviceId"`
		At       time.Time `dynamodbav:"at"`
		Value    float64   `dynamodbav:"value"`
	}
	tbl := singletable.MustTable("IoT")
	readings := singletable.MustDefine[Reading](tbl, "Reading",
		singletable.Key("DEVICE#{DeviceID}#{At:2006-01-02-15}", "{At}"))
	between := readings.Pattern("ReadingsBetween").SortBetween().Must()

	// A mock table where each hour bucket holds one reading of 1.5, at
	// half past; it answers the key condition (BETWEEN :v1 AND :v2).
	client := &singletabletest.Client{QueryFunc: func(_ context.Context, in *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
		str := func(name string) string {
			return in.ExpressionAttributeValues[name].(*types.AttributeValueMemberS).Value
		}
		pk := str(":v0")
		at := pk[len(pk)-13:len(pk)-3] + "T" + pk[len(pk)-2:] + ":30:00.000000000Z"
		if at < str(":v1") || at > str(":v2") {
			return &dynamodb.QueryOutput{}, nil
		}
		item := map[string]types.AttributeValue{"PK": in.ExpressionAttributeValues[":v0"], "SK": &types.AttributeValueMemberS{Value: at},
			"_type": &types.AttributeValueMemberS{Value: "Reading"}, "deviceId": &types.AttributeValueMemberS{Value: "d1"},
			"at": &types.AttributeValueMemberS{Value: at}, "value": &types.AttributeValueMemberN{Value: "1.5"}}
		return &dynamodb.QueryOutput{Items: []map[string]types.AttributeValue{item}, Count: 1, ScannedCount: 1}, nil
	}}
	db := singletable.New(client, tbl)

	now := time.Date(2024, 3, 15, 14, 0, 0, 0, time.UTC)
	total, err := singletable.SumBetween(context.Background(), db, between,
		Reading{DeviceID: "d1", At: now.Add(-24 * time.Hour)}, Reading{At: now},
		func(r Reading) float64 { return r.Value })
	if err != nil {
		panic(err)
	}
	fmt.Println(total, "over", len(client.Calls()), "hour buckets")
	// Output:
	// 36 over 25 hour buckets
}
