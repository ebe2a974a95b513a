package singletable_test

import (
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/testmodel"
)

// denseThenFiltered is user u1's partition: 99 orders, 2,000 items of
// another type the type filter drops, then one more order.
func denseThenFiltered() []map[string]types.AttributeValue {
	order := func(date, id string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{
			"PK": s("USER#u1"), "SK": s("ORDER#" + date + "#" + id), "_type": s("Order"),
			"userId": s("u1"), "orderId": s(id), "orderDate": s(date), "status": s("SHIPPED"),
		}
	}
	var items []map[string]types.AttributeValue
	for i := range 99 {
		items = append(items, order("2026-01-01", fmt.Sprintf("o%04d", i)))
	}
	for i := range 2000 {
		items = append(items, map[string]types.AttributeValue{"PK": s("USER#u1"), "SK": s(fmt.Sprintf("ORDER#2026-01-02#n%05d", i)), "_type": s("Noise")})
	}
	return append(items, order("2026-01-03", "z"))
}

// A page of Limit(100) whose last match follows 2,000 items the type
// filter drops: a handful of requests, each Limit grown from the last
// responses (the whole page's ratio made it 265, the Limit growing 1 % a
// request after the 99 dense matches).
func TestQueryReadAheadAcrossFilteredItems(t *testing.T) {
	sh := testmodel.NewSeed()
	db, client := readMockDB(sh)
	client.QueryFunc = fakePartition(denseThenFiltered())
	p := sh.Orders.Pattern("Asc").Partition("USER#{UserID}").SortBeginsWith("ORDER#").Must()

	page, err := p.Query(t.Context(), db, testmodel.Order{UserID: "u1"}, singletable.Limit(100))
	require.NoError(t, err)
	require.Len(t, page.Items, 100)
	assert.Equal(t, "z", page.Items[99].ID)
	assert.Equal(t, 2100, page.Scanned)
	var limits []int32
	for _, c := range client.Calls() {
		limits = append(limits, *c.Input.(*dynamodb.QueryInput).Limit)
	}
	assert.Equal(t, []int32{100, 2, 102, 204, 408, 816, 1632}, limits)
	assert.Equal(t, 7, page.Requests)

	client.Reset()
	n := 0
	for _, err := range p.All(t.Context(), db, testmodel.Order{UserID: "u1"}, singletable.Limit(100)) {
		require.NoError(t, err)
		n++
	}
	assert.Equal(t, 100, n)
	assert.Len(t, client.Calls(), 7)
}
