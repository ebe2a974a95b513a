package singletable_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/singletabletest"
)

var pageViewCounters = fanTable.Collection("PageViewCounters", pageViews).Partition("PAGEVIEW#{PageID}#{Shard}").Must()

// One item that does not decode (a number attribute holding a string,
// written by other code) is yielded as its error, and the loop goes on
// to the rest of the partition, as a scan's does: All over the entity, a
// pattern that fans out over shards and a collection each yield the good
// items and one error, from the requests the read needs and no more.
func TestAllYieldsABadItemAndGoesOn(t *testing.T) {
	bad := func(item map[string]types.AttributeValue) map[string]types.AttributeValue {
		item["views"] = &types.AttributeValueMemberS{Value: "many"}
		return item
	}
	items := func(in *dynamodb.QueryInput) []map[string]types.AttributeValue {
		pk := in.ExpressionAttributeValues[":v0"].(*types.AttributeValueMemberS).Value
		var out []map[string]types.AttributeValue
		for i, v := range []string{"1", "2", "3"} {
			item := map[string]types.AttributeValue{
				"PK": s(pk), "SK": s("COUNTER"), "_type": s("PageView"),
				"pageId": s("home"), "shard": &types.AttributeValueMemberN{Value: pk[len(pk)-1:]},
				"views": &types.AttributeValueMemberN{Value: v},
			}
			if i == 1 && pk == "PAGEVIEW#home#3" {
				item = bad(item)
			}
			out = append(out, item)
		}
		return out
	}
	count := func(t *testing.T, seq func(func(pageView, error) bool)) (good, errs int) {
		for _, err := range seq {
			if err != nil {
				assert.ErrorContains(t, err, "views")
				errs++
				continue
			}
			good++
		}
		return good, errs
	}
	client := &singletabletest.Client{QueryFunc: func(_ context.Context, in *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
		return &dynamodb.QueryOutput{Items: items(in)}, nil
	}}
	db := st.New(client, fanTable)

	t.Run("a pattern over one shard", func(t *testing.T) {
		before := len(client.Calls())
		good, errs := count(t, pageViewOne.All(t.Context(), db, pageView{PageID: "home"}))
		assert.Equal(t, [2]int{2, 1}, [2]int{good, errs}, "good items and errors")
		assert.Len(t, client.Calls()[before:], 1, "one Query")
	})
	t.Run("a pattern fanning out over ten shards", func(t *testing.T) {
		before := len(client.Calls())
		good, errs := count(t, pageViewShards.All(t.Context(), db, pageView{PageID: "home"}))
		assert.Equal(t, [2]int{29, 1}, [2]int{good, errs}, "good items and errors")
		assert.Len(t, client.Calls()[before:], 10, "one Query per shard")
	})
	t.Run("a loop that stops at the error stops the reads", func(t *testing.T) {
		for _, err := range pageViewOne.All(t.Context(), db, pageView{PageID: "home"}) {
			if err != nil {
				return
			}
		}
		t.Fatal("no error yielded")
	})
	t.Run("a collection", func(t *testing.T) {
		good, errs := 0, 0
		for v, err := range pageViewCounters.All(t.Context(), db, st.Values{"PageID": "home", "Shard": 3}) {
			if err != nil {
				assert.ErrorContains(t, err, "views")
				errs++
				continue
			}
			assert.IsType(t, pageView{}, v)
			good++
		}
		assert.Equal(t, [2]int{2, 1}, [2]int{good, errs}, "good items and errors")
	})
}
