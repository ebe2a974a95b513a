package singletable_test

import (
	"context"
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
