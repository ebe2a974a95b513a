package singletable_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/testmodel"
)

func TestKeysOnlyIndexDecodesFromKeysAndFetchesFull(t *testing.T) {
	sh := testmodel.NewSeed()
	db, client := readMockDB(sh)
	keys := func(user string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{
			"PK": s("USER#" + user), "SK": s("TEAM#t1"), "GSI2PK": s("TEAM#t1"), "GSI2SK": s("USER#" + user),
		}
	}
	client.QueryFunc = func(context.Context, *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
		return &dynamodb.QueryOutput{Items: []map[string]types.AttributeValue{keys("a"), keys("b"), keys("c")}, Count: 3, ScannedCount: 3}, nil
	}
	page, err := sh.TeamMembers.Query(t.Context(), db, testmodel.Membership{TeamID: "t1"})
	require.NoError(t, err)
	assert.Equal(t, []testmodel.Membership{{UserID: "a", TeamID: "t1"}, {UserID: "b", TeamID: "t1"}, {UserID: "c", TeamID: "t1"}}, page.Items,
		"the fields written in the keys are recovered; the others are not in the index")

	// FetchFull: one BatchGetItem, answered out of order, with one key left
	// unprocessed once and one item deleted meanwhile.
	full := func(user, role string) map[string]types.AttributeValue {
		it := keys(user)
		it["_type"], it["userId"], it["teamId"], it["role"] = s("Membership"), s(user), s("t1"), s(role)
		return it
	}
	batches := 0
	client.BatchGetItemFunc = func(_ context.Context, in *dynamodb.BatchGetItemInput) (*dynamodb.BatchGetItemOutput, error) {
		batches++
		ka := in.RequestItems["OrdersTable"]
		if batches == 1 {
			require.Len(t, ka.Keys, 3)
			return &dynamodb.BatchGetItemOutput{
				Responses:       map[string][]map[string]types.AttributeValue{"OrdersTable": {full("c", "member")}},
				UnprocessedKeys: map[string]types.KeysAndAttributes{"OrdersTable": {Keys: ka.Keys[:1]}},
			}, nil
		}
		require.Len(t, ka.Keys, 1)
		return &dynamodb.BatchGetItemOutput{Responses: map[string][]map[string]types.AttributeValue{"OrdersTable": {full("a", "owner")}}}, nil
	}
	page, err = sh.TeamMembers.Query(t.Context(), db, testmodel.Membership{TeamID: "t1"}, singletable.FetchFull())
	require.NoError(t, err)
	assert.Equal(t, []testmodel.Membership{{UserID: "a", TeamID: "t1", Role: "owner"}, {UserID: "c", TeamID: "t1", Role: "member"}}, page.Items,
		"in query order; b was deleted between the query and the batch read")
	assert.Equal(t, 2, batches)
}

func TestProjectAsksForFieldsAndKeys(t *testing.T) {
	sh := testmodel.NewSeed()
	db, client := readMockDB(sh)
	in, err := sh.ListUserOrders.QueryInput(db, testmodel.Order{UserID: "u1"}, singletable.Project("Total", "Status"))
	require.NoError(t, err)
	proj := *in.ProjectionExpression
	var attrs []string
	for _, n := range strings.Split(proj, ", ") {
		attrs = append(attrs, in.ExpressionAttributeNames[n])
	}
	assert.Equal(t, []string{"total", "status", "PK", "SK", "_type"}, attrs)

	client.QueryFunc = func(context.Context, *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
		return &dynamodb.QueryOutput{Items: []map[string]types.AttributeValue{
			{"PK": s("USER#u1"), "SK": s("ORDER#2026-01-01#o1"), "_type": s("Order"), "total": &types.AttributeValueMemberN{Value: "12.5"}},
		}}, nil
	}
	page, err := sh.ListUserOrders.Query(t.Context(), db, testmodel.Order{UserID: "u1"}, singletable.Project("Total"))
	require.NoError(t, err)
	assert.Equal(t, []testmodel.Order{{UserID: "u1", ID: "o1", Date: "2026-01-01", Total: 12.5}}, page.Items, "key fields come back from the keys")

	_, err = sh.ListUserOrders.QueryInput(db, testmodel.Order{UserID: "u1"}, singletable.Project("Nope"))
	assert.ErrorIs(t, err, singletable.ErrInvalidInput)
}

// Project of a name that is no field says what was meant: the attribute
// name, another case, or a path (Project takes whole top-level fields). It
// used to say only "no such field", though the field was there.
func TestProjectUnknownFieldHints(t *testing.T) {
	sh := testmodel.NewSeed()
	db, _ := readMockDB(sh)
	for name, hint := range map[string]string{
		"shippingAddress": `"shippingAddress" is the attribute name of Order's field Address; Project names Go fields`,
		"total":           `"total" is the attribute name of Order's field Total`,
		"STATUS":          "did you mean Status?",
		"Address.City":    `Project takes whole top-level fields, not paths: Project("Address")`,
		"Status[0]":       `not paths: Project("Status")`,
		"Nope":            `Project("Nope"): no such field`,
	} {
		_, err := sh.ListUserOrders.QueryInput(db, testmodel.Order{UserID: "u1"}, singletable.Project(name))
		require.ErrorIs(t, err, singletable.ErrInvalidInput, name)
		assert.Contains(t, err.Error(), hint, name)
	}
}
