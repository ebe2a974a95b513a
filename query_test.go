package singletable_test

import (
	"context"
	"fmt"
	"slices"
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

// fakePartition answers Queries over one partition like DynamoDB does for
// the parts these tests need: items sorted by SK, Limit counted before the
// filter, the filter on the entity type only, LastEvaluatedKey after the
// last item read.
func fakePartition(items []map[string]types.AttributeValue) func(context.Context, *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
	slices.SortFunc(items, func(a, b map[string]types.AttributeValue) int { return strings.Compare(sv(a["SK"]), sv(b["SK"])) })
	return func(_ context.Context, in *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
		order := slices.Clone(items)
		if in.ScanIndexForward != nil && !*in.ScanIndexForward {
			slices.Reverse(order)
		}
		start := 0
		if in.ExclusiveStartKey != nil {
			after := sv(in.ExclusiveStartKey["SK"])
			start = slices.IndexFunc(order, func(it map[string]types.AttributeValue) bool { return sv(it["SK"]) == after }) + 1
		}
		wantType := ""
		if in.FilterExpression != nil {
			for k, n := range in.ExpressionAttributeNames {
				if n == "_type" {
					wantType = sv(in.ExpressionAttributeValues[":v"+strings.TrimPrefix(k, "#n")])
				}
			}
		}
		out := &dynamodb.QueryOutput{}
		end := len(order)
		if in.Limit != nil {
			end = min(end, start+int(*in.Limit))
		}
		for _, it := range order[start:end] {
			out.ScannedCount++
			if wantType == "" || sv(it["_type"]) == wantType {
				out.Items = append(out.Items, it)
				out.Count++
			}
		}
		if end < len(order) {
			last := order[end-1]
			out.LastEvaluatedKey = map[string]types.AttributeValue{"PK": last["PK"], "SK": last["SK"]}
		}
		return out, nil
	}
}

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

// orderItems builds n orders of user u1, with a Membership item after every
// third order in sort order (TEAM# sorts after ORDER#, so they are mixed in
// with a fake SK).
func mixedPartition(n int) []map[string]types.AttributeValue {
	var items []map[string]types.AttributeValue
	for i := range n {
		sk := fmt.Sprintf("ORDER#2026-01-01#o%04d", i)
		items = append(items, map[string]types.AttributeValue{
			"PK": s("USER#u1"), "SK": s(sk), "_type": s("Order"),
			"userId": s("u1"), "orderId": s(fmt.Sprintf("o%04d", i)), "orderDate": s("2026-01-01"), "status": s("SHIPPED"),
		})
		if i%3 == 0 {
			items = append(items, map[string]types.AttributeValue{"PK": s("USER#u1"), "SK": s(sk + "#x"), "_type": s("Noise")})
		}
	}
	return items
}

func TestLimitCountsMatchingItemsAcrossPages(t *testing.T) {
	sh := testmodel.NewSeed()
	db, client := readMockDB(sh)
	client.QueryFunc = fakePartition(mixedPartition(50))
	ctx := t.Context()
	p := sh.Orders.Pattern("Asc").Partition("USER#{UserID}").SortBeginsWith("ORDER#").Must()

	var all []string
	cursor := ""
	pages := 0
	for {
		page, err := p.Query(ctx, db, testmodel.Order{UserID: "u1"}, singletable.Limit(7), singletable.After(cursor))
		require.NoError(t, err)
		pages++
		require.LessOrEqual(t, len(page.Items), 7)
		if page.Cursor != "" {
			assert.Len(t, page.Items, 7, "a page with a cursor has the full Limit of matching items")
		}
		for _, o := range page.Items {
			all = append(all, o.ID)
		}
		if page.Cursor == "" {
			break
		}
		cursor = page.Cursor
		require.Less(t, pages, 20)
	}
	want := make([]string, 50)
	for i := range want {
		want[i] = fmt.Sprintf("o%04d", i)
	}
	assert.Equal(t, want, all, "every item once, in order")
}

func TestAllStopsWhenTheLoopStops(t *testing.T) {
	sh := testmodel.NewSeed()
	db, client := readMockDB(sh)
	client.QueryFunc = fakePartition(mixedPartition(100))
	n := 0
	for o, err := range sh.ListUserOrders.All(t.Context(), db, testmodel.Order{UserID: "u1"}, singletable.Limit(1000)) {
		require.NoError(t, err)
		require.NotEmpty(t, o.ID)
		n++
		if n == 5 {
			break
		}
	}
	assert.Equal(t, 5, n)
	calls := len(client.Calls())
	assert.LessOrEqual(t, calls, 1, "one page answered the five items")

	// Without a limit it reads to the end, descending as declared.
	client.Reset()
	var ids []string
	for o, err := range sh.ListUserOrders.All(t.Context(), db, testmodel.Order{UserID: "u1"}) {
		require.NoError(t, err)
		ids = append(ids, o.ID)
	}
	assert.Len(t, ids, 100)
	assert.Equal(t, "o0099", ids[0], "declared Descending")
}

// Every page is its own request: a client that keeps the requests it is
// given (a recorder, a logging wrapper) sees each page as it was sent.
func TestEachPageIsItsOwnRequest(t *testing.T) {
	sh := testmodel.NewSeed()
	db, client := readMockDB(sh)
	client.QueryFunc = fakePartition(mixedPartition(20))
	p := sh.Orders.Pattern("Asc").Partition("USER#{UserID}").SortBeginsWith("ORDER#").Must()
	for name, query := range map[string]func() (int, error){
		"Entity.Query": func() (int, error) {
			page, err := sh.Orders.Query(t.Context(), db, testmodel.Order{UserID: "u1"}, singletable.Limit(15))
			return len(page.Items), err
		},
		"Pattern.Query": func() (int, error) {
			page, err := p.Query(t.Context(), db, testmodel.Order{UserID: "u1"}, singletable.Limit(15))
			return len(page.Items), err
		},
	} {
		client.Reset()
		n, err := query()
		require.NoError(t, err, name)
		require.Equal(t, 15, n, name)
		calls := client.Calls()
		require.Greater(t, len(calls), 1, "%s: the Noise items make a second page necessary", name)
		first := calls[0].Input.(*dynamodb.QueryInput)
		assert.Nil(t, first.ExclusiveStartKey, "%s: the first page starts at the beginning", name)
		assert.Equal(t, int32(15), *first.Limit, name)
		for i, c := range calls[1:] {
			in := c.Input.(*dynamodb.QueryInput)
			assert.NotSame(t, first, in, "%s: page %d", name, i+1)
			assert.NotNil(t, in.ExclusiveStartKey, "%s: page %d resumes", name, i+1)
		}
	}
}

// Entity.Query is a query like the others: a page with a cursor that After
// resumes, and an All that reads every page.
func TestEntityQueryPages(t *testing.T) {
	sh := testmodel.NewSeed()
	db, client := readMockDB(sh)
	client.QueryFunc = fakePartition(mixedPartition(20))
	ctx := t.Context()
	var ids []string
	cursor := ""
	for range 10 {
		page, err := sh.Orders.Query(ctx, db, testmodel.Order{UserID: "u1"}, singletable.Limit(6), singletable.After(cursor))
		require.NoError(t, err)
		for _, o := range page.Items {
			ids = append(ids, o.ID)
		}
		if cursor = page.Cursor; cursor == "" {
			break
		}
	}
	require.Len(t, ids, 20)
	assert.True(t, slices.IsSorted(ids))

	var all []string
	for o, err := range sh.Orders.All(ctx, db, testmodel.Order{UserID: "u1"}) {
		require.NoError(t, err)
		all = append(all, o.ID)
	}
	assert.Equal(t, ids, all)

	_, err := sh.Orders.Query(ctx, db, testmodel.Order{UserID: "u2"}, singletable.After("not a cursor"))
	assert.ErrorIs(t, err, singletable.ErrInvalidCursor)
}

// An entity Query request, built without a network, matches its golden file.
func TestQueryGolden(t *testing.T) {
	_, db := mockDB()
	must := mustInput(t)
	golden.Request(t, "query/orders", must(testmodel.ShopOrders.QueryInput(db, testmodel.ShopOrder{UserID: "u123"}, st.Descending(), st.Limit(10))))
	golden.Request(t, "query/order_prefix", must(testmodel.ShopOrders.QueryInput(db, testmodel.ShopOrder{UserID: "u123", ID: "2024-001"})))
}

// filterAuthor and filterBook both have a Go field Name, stored as
// "authorName" and "title": a collection's filter on Name means each
// member's own attribute.
type filterAuthor struct {
	ID   string `dynamodbav:"authorId"`
	Name string `dynamodbav:"authorName"`
	Rank int    `dynamodbav:"rank"`
}

type filterBook struct {
	AuthorID string `dynamodbav:"authorId"`
	ISBN     string `dynamodbav:"isbn"`
	Name     string `dynamodbav:"title"`
	Rank     string `dynamodbav:"rank"` // another encoding under the same name
}

var (
	filterTable   = st.MustTable("FilterTable", st.WithGSI("GSI1", st.Include("authorName", "title", "rank")))
	filterAuthors = st.MustDefine[filterAuthor](filterTable, "Author", st.Key("AUTHOR#{ID}", "#META"),
		st.Index("GSI1", "SHELF#{ID}", "#META"))
	filterBooks = st.MustDefine[filterBook](filterTable, "Book", st.Key("AUTHOR#{AuthorID}", "BOOK#{ISBN}"),
		st.Index("GSI1", "SHELF#{AuthorID}", "BOOK#{ISBN}"))
	filterShelf      = filterTable.Collection("FilterShelf", filterAuthors, filterBooks).Partition("AUTHOR#{AuthorID}").Must()
	filterShelfIndex = filterTable.Collection("FilterShelfIndex", filterAuthors, filterBooks).On("GSI1").Partition("SHELF#{AuthorID}").Must()
)

// A collection's filter was rendered with the first member that has the
// field, so Eq("Name", "Go") sent authorName = "Go" and dropped every book
// titled Go. Each member now renders it, joined with its type when they
// differ; members that render it alike still send one plain expression.
func TestCollectionFilterMeansEachMembersField(t *testing.T) {
	db := st.New(&singletabletest.Client{}, filterTable)
	filter := func(c *st.Collection, cond st.Cond) (string, error) {
		in, err := c.QueryInput(db, st.Values{"AuthorID": "a1"}, st.Filter(cond))
		if err != nil {
			return "", err
		}
		return readableFilter(in), nil
	}
	got, err := filter(filterShelf, st.Eq("Name", "Go"))
	require.NoError(t, err)
	assert.Equal(t, `(_type = "Author" AND (authorName = "Go")) OR (_type = "Book" AND (title = "Go"))`, got)

	// A field both members store alike: one plain expression.
	got, err = filter(filterShelf, st.Exists("AuthorID"))
	require.NoError(t, err)
	assert.Equal(t, `attribute_exists(authorId)`, got)
	// A field only one member has (or only one member's type takes the
	// value): that member's expression, as before.
	got, err = filter(filterShelf, st.Eq("ISBN", "b1"))
	require.NoError(t, err)
	assert.Equal(t, `isbn = "b1"`, got)

	// An index without the type attribute cannot tell the members apart:
	// refused, naming them, before anything is sent.
	_, err = filter(filterShelfIndex, st.Eq("Name", "Go"))
	require.ErrorIs(t, err, st.ErrInvalidInput)
	assert.ErrorContains(t, err, "Author, Book")
	got, err = filter(filterShelfIndex, st.Eq("Rank", 1))
	require.NoError(t, err, "only Author's Rank takes an int: nothing to tell apart")
	assert.Equal(t, `rank = "1"`, got)
}

// readableFilter is a query's filter with its placeholders replaced by
// the attribute names and the values (quoted) they stand for.
func readableFilter(in *dynamodb.QueryInput) string {
	out := *in.FilterExpression
	// Longest placeholders first, so that #n1 does not replace part of #n10.
	var phs []string
	for ph := range in.ExpressionAttributeNames {
		phs = append(phs, ph)
	}
	for ph := range in.ExpressionAttributeValues {
		phs = append(phs, ph)
	}
	slices.SortFunc(phs, func(a, b string) int { return len(b) - len(a) })
	for _, ph := range phs {
		if name, ok := in.ExpressionAttributeNames[ph]; ok {
			out = strings.ReplaceAll(out, ph, name)
			continue
		}
		v := in.ExpressionAttributeValues[ph]
		if n, ok := v.(*types.AttributeValueMemberN); ok {
			out = strings.ReplaceAll(out, ph, fmt.Sprintf("%q", n.Value))
			continue
		}
		out = strings.ReplaceAll(out, ph, fmt.Sprintf("%q", sv(v)))
	}
	return out
}

// Limit(0) is no cap (its godoc says so): the request is the one sent
// without Limit, not a Limit DynamoDB would refuse.
func TestLimitZeroIsNoCap(t *testing.T) {
	_, db := mockDB()
	params := testmodel.ShopOrder{UserID: "u123"}
	without, err := testmodel.ShopOrders.QueryInput(db, params)
	require.NoError(t, err)
	zero, err := testmodel.ShopOrders.QueryInput(db, params, st.Limit(0))
	require.NoError(t, err)
	assert.Nil(t, zero.Limit)
	assert.Equal(t, without, zero)
}

// A filter on the read's own key attributes is refused before sending
// (DynamoDB answers a ValidationException): a field stored as the
// attribute an index is keyed on, read through that index.
type fkPerson struct {
	ID    string `dynamodbav:"id"`
	Email string `dynamodbav:"email"`
	Age   int    `dynamodbav:"age"`
	Name  string `dynamodbav:"name"`
}

func TestFilterOnIndexKeyAttributeRefused(t *testing.T) {
	tbl := st.MustTable("FilterKeys", st.WithGSI("ByEmail", st.IndexKeys("email", "")), st.WithGSI("ByAge", st.IndexKeys("age", "name")))
	people := st.MustDefine[fkPerson](tbl, "Person", st.Key("PERSON#{ID}", "PROFILE"))
	byEmail := people.Pattern("ByEmail").On("ByEmail").Partition("{Email}").Must()
	byAge := people.Pattern("ByAge").On("ByAge").Partition("{Age}").Must()
	client := &singletabletest.Client{}
	db := st.New(client, tbl)
	for _, c := range []struct {
		read  func(st.QueryOption) error
		field string
		value any
	}{
		{func(o st.QueryOption) error { _, err := byEmail.Query(ctx, db, fkPerson{Email: "a@x"}, o); return err }, "Email", "x"},
		{func(o st.QueryOption) error { _, err := byAge.Query(ctx, db, fkPerson{Age: 3}, o); return err }, "Name", "x"},
		{func(o st.QueryOption) error { _, err := byAge.Query(ctx, db, fkPerson{Age: 3}, o); return err }, "Age", 4},
	} {
		err := c.read(st.Filter(st.Eq(c.field, c.value)))
		require.ErrorIs(t, err, st.ErrInvalidInput, c.field)
		assert.Contains(t, err.Error(), "key attribute", c.field)
	}
	assert.Empty(t, client.Calls(), "nothing sent")
	_, err := byEmail.Query(ctx, db, fkPerson{Email: "a@x"}, st.Filter(st.Eq("Name", "x")))
	require.NoError(t, err, "other attributes filter")
	assert.Len(t, client.Calls(), 1)
}
