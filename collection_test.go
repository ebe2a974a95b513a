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
	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/golden"
	"github.com/singletable/singletable/internal/testmodel"
	"github.com/singletable/singletable/singletabletest"
)

type projAuthor struct {
	ID   string `dynamodbav:"authorId"`
	Name string `dynamodbav:"authorName"`
}

type projBook struct {
	AuthorID string `dynamodbav:"authorId"`
	ISBN     string `dynamodbav:"isbn"`
	Name     string `dynamodbav:"title"`
}

// Project on a collection names Go fields; when two members have the field
// under different attribute names, each member's attribute is read.
func TestCollectionProjectReadsEveryMembersAttribute(t *testing.T) {
	tbl := singletable.MustTable("ProjTable")
	authors := singletable.MustDefine[projAuthor](tbl, "Author", singletable.Key("AUTHOR#{ID}", "#META"))
	books := singletable.MustDefine[projBook](tbl, "Book", singletable.Key("AUTHOR#{AuthorID}", "BOOK#{ISBN}"))
	shelf := tbl.Collection("Shelf", authors, books).Partition("AUTHOR#{AuthorID}").Must()
	client := &singletabletest.Client{}
	db := singletable.New(client, tbl)

	in, err := shelf.QueryInput(db, singletable.Values{"AuthorID": "a1"}, singletable.Project("Name"))
	require.NoError(t, err)
	var attrs []string
	for _, n := range strings.Split(*in.ProjectionExpression, ", ") {
		attrs = append(attrs, in.ExpressionAttributeNames[n])
	}
	assert.Contains(t, attrs, "authorName")
	assert.Contains(t, attrs, "title")

	client.QueryFunc = func(_ context.Context, in *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
		// DynamoDB returns only the projected attributes.
		projected := map[string]bool{}
		for _, n := range strings.Split(*in.ProjectionExpression, ", ") {
			projected[in.ExpressionAttributeNames[n]] = true
		}
		var items []map[string]types.AttributeValue
		for _, it := range []map[string]types.AttributeValue{
			{"PK": s("AUTHOR#a1"), "SK": s("#META"), "_type": s("Author"), "authorId": s("a1"), "authorName": s("Ann")},
			{"PK": s("AUTHOR#a1"), "SK": s("BOOK#b1"), "_type": s("Book"), "authorId": s("a1"), "isbn": s("b1"), "title": s("Go")},
		} {
			out := map[string]types.AttributeValue{}
			for k, v := range it {
				if projected[k] {
					out[k] = v
				}
			}
			items = append(items, out)
		}
		return &dynamodb.QueryOutput{Items: items}, nil
	}
	res, err := shelf.Query(t.Context(), db, singletable.Values{"AuthorID": "a1"}, singletable.Project("Name"))
	require.NoError(t, err)
	assert.Equal(t, []projAuthor{{ID: "a1", Name: "Ann"}}, authors.From(res))
	assert.Equal(t, []projBook{{AuthorID: "a1", ISBN: "b1", Name: "Go"}}, books.From(res))
}

func TestCollectionDecodesByTypeAndReportsUnknown(t *testing.T) {
	sh := testmodel.NewSeed()
	db, client := readMockDB(sh)
	client.QueryFunc = func(context.Context, *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
		return &dynamodb.QueryOutput{Items: []map[string]types.AttributeValue{
			{"PK": s("USER#u1"), "SK": s("#METADATA#u1"), "_type": s("User"), "userId": s("u1"), "name": s("Ann")},
			{"PK": s("USER#u1"), "SK": s("ADDRESS#home"), "_type": s("Address")},
			{"PK": s("USER#u1"), "SK": s("ORDER#2026-01-01#o1"), "_type": s("Order"), "userId": s("u1"), "orderId": s("o1")},
			{"PK": s("USER#u1"), "SK": s("TEAM#t1"), "_type": s("Membership"), "userId": s("u1"), "teamId": s("t1")},
		}}, nil
	}
	res, err := sh.UserProfile.Query(t.Context(), db, singletable.Values{"UserID": "u1"})
	require.NoError(t, err)
	assert.Equal(t, []testmodel.User{{ID: "u1", Name: "Ann"}}, sh.Users.From(res))
	assert.Equal(t, []testmodel.Order{{UserID: "u1", ID: "o1"}}, sh.Orders.From(res))
	assert.Equal(t, []testmodel.Membership{{UserID: "u1", TeamID: "t1"}}, sh.Memberships.From(res))
	assert.Equal(t, 3, len(res.Items))
	require.Len(t, res.Unknown, 1, "an unknown type is reported, not dropped")
	assert.Equal(t, "Address", sv(res.Unknown[0]["_type"]))

	var got []any
	var errs []error
	for v, err := range sh.UserProfile.All(t.Context(), db, singletable.Values{"UserID": "u1"}) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		got = append(got, v)
	}
	assert.Len(t, got, 3)
	require.Len(t, errs, 1)
	assert.ErrorIs(t, errs[0], singletable.ErrWrongEntity)
}

// A collection Query request, built without a network, matches its golden file.
func TestCollectionGolden(t *testing.T) {
	_, db := mockDB()
	must := mustInput(t)
	golden.Request(t, "query/collection", must(testmodel.ShopUserAndOrders.QueryInput(db, st.Values{"UserID": "u123"})))
}
