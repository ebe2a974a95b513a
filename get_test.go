package singletable_test

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/singletable/singletable"
	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/golden"
	"github.com/singletable/singletable/internal/testmodel"
)

func TestGetOnQueryPattern(t *testing.T) {
	sh := testmodel.NewSeed()
	db, client := readMockDB(sh)
	user := func(id string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"PK": s("USER#" + id), "SK": s("#METADATA#" + id), "_type": s("User"), "userId": s(id), "email": s("a@x")}
	}
	var answer []map[string]types.AttributeValue
	client.QueryFunc = func(context.Context, *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
		return &dynamodb.QueryOutput{Items: answer}, nil
	}
	_, err := sh.UserByEmail.Get(t.Context(), db, testmodel.User{Email: "a@x"})
	assert.ErrorIs(t, err, singletable.ErrNotFound)
	answer = []map[string]types.AttributeValue{user("u1")}
	u, err := sh.UserByEmail.Get(t.Context(), db, testmodel.User{Email: "a@x"})
	require.NoError(t, err)
	assert.Equal(t, "u1", u.ID)
	answer = append(answer, user("u2"))
	_, err = sh.UserByEmail.Get(t.Context(), db, testmodel.User{Email: "a@x"})
	assert.ErrorIs(t, err, singletable.ErrNotUnique)
	// One "singletable:" prefix: wrapping the sentinel repeated it.
	assert.Equal(t, "singletable: UserByEmail: more than one item matches", err.Error())

	client.GetItemFunc = func(context.Context, *dynamodb.GetItemInput) (*dynamodb.GetItemOutput, error) {
		return &dynamodb.GetItemOutput{}, nil
	}
	_, err = sh.GetUser.Get(t.Context(), db, testmodel.User{ID: "nobody"})
	assert.ErrorIs(t, err, singletable.ErrNotFound)
	page, err := sh.GetUser.Query(t.Context(), db, testmodel.User{ID: "nobody"})
	require.NoError(t, err)
	assert.Empty(t, page.Items)
	assert.Empty(t, page.Cursor)
}

// A Get request, built without a network, matches its golden file.
func TestGetGolden(t *testing.T) {
	_, db := mockDB()
	must := mustInput(t)
	golden.Request(t, "get/key", must(testmodel.ShopUsers.GetInput(db, testmodel.ShopUser{ID: "u123"})))
	golden.Request(t, "get/consistent", must(testmodel.ShopUsers.GetInput(db, testmodel.ShopUser{ID: "u123"}, st.ConsistentRead())))
}

// Pattern.Get takes PatternGetOptions: on a Query pattern, the options
// that decide which item is found are sent (Filter, Project); on a GetItem
// pattern, what its declaration refuses is an *InputError naming the
// option, before anything is sent, as is a nil option on either.
func TestPatternGetOptions(t *testing.T) {
	sh := testmodel.NewSeed()
	db, client := readMockDB(sh)
	_, err := sh.UserByEmail.Get(t.Context(), db, testmodel.User{Email: "a@x"},
		st.Filter(st.Eq("Name", "Ada")), st.Project("Name"), st.IncludeExpired())
	require.ErrorIs(t, err, st.ErrNotFound)
	calls := client.Calls()
	require.Len(t, calls, 1)
	in := calls[0].Input.(*dynamodb.QueryInput)
	require.NotNil(t, in.FilterExpression)
	assert.Contains(t, *in.FilterExpression, "#", "the caller's filter is sent")
	assert.Contains(t, slices.Collect(maps.Values(in.ExpressionAttributeNames)), "name")
	require.NotNil(t, in.ProjectionExpression)

	client.Reset()
	_, err = sh.GetUser.Get(t.Context(), db, testmodel.User{ID: "u1"}, st.Filter(st.Eq("Name", "Ada")))
	var ie *st.InputError
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, "Filter does not apply: the pattern runs as GetItem, which takes only ConsistentRead and Project", ie.Reason)
	_, err = sh.GetUser.GetInput(db, testmodel.User{ID: "u1"}, st.SortFields(1))
	assert.ErrorContains(t, err, "SortFields does not apply")
	// ConsistentRead on a GSI: the declaration decides, and the message says so.
	_, err = sh.UserByEmail.Get(t.Context(), db, testmodel.User{Email: "a@x"}, st.ConsistentRead())
	assert.ErrorContains(t, err, "ConsistentRead: index GSI1 is a global secondary index")
	_, err = sh.UserByEmail.Get(t.Context(), db, testmodel.User{Email: "a@x"}, nil)
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, "option 1 of 1 is nil", ie.Reason)
	_, err = sh.GetUser.GetInput(db, testmodel.User{ID: "u1"}, st.ConsistentRead(), nil)
	assert.ErrorIs(t, err, st.ErrInvalidInput)
	assert.Empty(t, client.Calls(), "refused before sending")

	in2, err := sh.GetUser.GetInput(db, testmodel.User{ID: "u1"}, st.ConsistentRead(), st.Project("Name"), st.IncludeExpired())
	require.NoError(t, err)
	assert.True(t, *in2.ConsistentRead)
	assert.NotNil(t, in2.ProjectionExpression)
}
