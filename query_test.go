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
	sh := newSeed(t)
	db, client := readMockDB(sh)
	client.QueryFunc = fakePartition(mixedPartition(50))
	ctx := t.Context()
	p := sh.Orders.Pattern("Asc").Partition("USER#{UserID}").SortBeginsWith("ORDER#").Must()

	var all []string
	cursor := ""
	pages := 0
	for {
		page, err := p.Query(ctx, db, Order{UserID: "u1"}, singletable.Limit(7), singletable.After(cursor))
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
	sh := newSeed(t)
	db, client := readMockDB(sh)
	client.QueryFunc = fakePartition(mixedPartition(100))
	n := 0
	for o, err := range sh.ListUserOrders.All(t.Context(), db, Order{UserID: "u1"}, singletable.Limit(1000)) {
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
	for o, err := range sh.ListUserOrders.All(t.Context(), db, Order{UserID: "u1"}) {
		require.NoError(t, err)
		ids = append(ids, o.ID)
	}
	assert.Len(t, ids, 100)
	assert.Equal(t, "o0099", ids[0], "declared Descending")
}

func TestCursorTamperingIsRefusedWithoutARequest(t *testing.T) {
	sh := newSeed(t)
	db, client := readMockDB(sh)
	client.QueryFunc = fakePartition(mixedPartition(20))
	ctx := t.Context()
	page, err := sh.ListUserOrders.Query(ctx, db, Order{UserID: "u1"}, singletable.Limit(3))
	require.NoError(t, err)
	require.NotEmpty(t, page.Cursor)

	flip := []byte(page.Cursor)
	flip[len(flip)/3] ^= 1
	otherKeyDB := singletable.New(client, sh.Table, singletable.WithCursorKey([]byte("another key, 16 bytes or more...")))
	other := sh.Orders.Pattern("Other").Partition("USER#{UserID}").SortBeginsWith("ORDER#").Descending().Must()
	cases := []struct {
		name string
		run  func() error
	}{
		{"tampered", func() error {
			_, err := sh.ListUserOrders.Query(ctx, db, Order{UserID: "u1"}, singletable.After(string(flip)))
			return err
		}},
		{"garbage", func() error {
			_, err := sh.ListUserOrders.Query(ctx, db, Order{UserID: "u1"}, singletable.After("not a cursor"))
			return err
		}},
		{"another partition", func() error {
			_, err := sh.ListUserOrders.Query(ctx, db, Order{UserID: "u2"}, singletable.After(page.Cursor))
			return err
		}},
		{"another pattern", func() error {
			_, err := other.Query(ctx, db, Order{UserID: "u1"}, singletable.After(page.Cursor))
			return err
		}},
		{"the other direction", func() error {
			_, err := sh.ListUserOrders.Query(ctx, db, Order{UserID: "u1"}, singletable.After(page.Cursor), singletable.Ascending())
			return err
		}},
		{"another cursor key", func() error {
			_, err := sh.ListUserOrders.Query(ctx, otherKeyDB, Order{UserID: "u1"}, singletable.After(page.Cursor))
			return err
		}},
		{"collection: another pattern's cursor", func() error {
			_, err := sh.UserProfile.Query(ctx, db, singletable.Values{"UserID": "u1"}, singletable.After(page.Cursor))
			return err
		}},
		{"All too", func() error {
			for _, err := range sh.ListUserOrders.All(ctx, db, Order{UserID: "u2"}, singletable.After(page.Cursor)) {
				return err
			}
			return nil
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			client.Reset()
			err := c.run()
			require.ErrorIs(t, err, singletable.ErrInvalidCursor)
			var ce *singletable.CursorError
			require.ErrorAs(t, err, &ce)
			assert.Empty(t, client.Calls())
		})
	}

	// The default key is derived from the table: a cursor survives a new DB over it.
	d1 := singletable.New(client, sh.Table)
	d2 := singletable.New(client, sh.Table)
	p1, err := sh.ListUserOrders.Query(ctx, d1, Order{UserID: "u1"}, singletable.Limit(3))
	require.NoError(t, err)
	_, err = sh.ListUserOrders.Query(ctx, d2, Order{UserID: "u1"}, singletable.After(p1.Cursor))
	assert.NoError(t, err)
	// A short key is refused before sending.
	client.Reset()
	short := singletable.New(client, sh.Table, singletable.WithCursorKey([]byte("short")))
	_, err = sh.ListUserOrders.Query(ctx, short, Order{UserID: "u1"})
	assert.ErrorIs(t, err, singletable.ErrInvalidInput)
	assert.Empty(t, client.Calls())
}

func TestKeysOnlyIndexDecodesFromKeysAndFetchesFull(t *testing.T) {
	sh := newSeed(t)
	db, client := readMockDB(sh)
	keys := func(user string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{
			"PK": s("USER#" + user), "SK": s("TEAM#t1"), "GSI2PK": s("TEAM#t1"), "GSI2SK": s("USER#" + user),
		}
	}
	client.QueryFunc = func(context.Context, *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
		return &dynamodb.QueryOutput{Items: []map[string]types.AttributeValue{keys("a"), keys("b"), keys("c")}, Count: 3, ScannedCount: 3}, nil
	}
	page, err := sh.TeamMembers.Query(t.Context(), db, Membership{TeamID: "t1"})
	require.NoError(t, err)
	assert.Equal(t, []Membership{{UserID: "a", TeamID: "t1"}, {UserID: "b", TeamID: "t1"}, {UserID: "c", TeamID: "t1"}}, page.Items,
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
	page, err = sh.TeamMembers.Query(t.Context(), db, Membership{TeamID: "t1"}, singletable.FetchFull())
	require.NoError(t, err)
	assert.Equal(t, []Membership{{UserID: "a", TeamID: "t1", Role: "owner"}, {UserID: "c", TeamID: "t1", Role: "member"}}, page.Items,
		"in query order; b was deleted between the query and the batch read")
	assert.Equal(t, 2, batches)
}

func TestCollectionDecodesByTypeAndReportsUnknown(t *testing.T) {
	sh := newSeed(t)
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
	assert.Equal(t, []User{{ID: "u1", Name: "Ann"}}, sh.Users.From(res))
	assert.Equal(t, []Order{{UserID: "u1", ID: "o1"}}, sh.Orders.From(res))
	assert.Equal(t, []Membership{{UserID: "u1", TeamID: "t1"}}, sh.Memberships.From(res))
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

func TestGetOnQueryPattern(t *testing.T) {
	sh := newSeed(t)
	db, client := readMockDB(sh)
	user := func(id string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"PK": s("USER#" + id), "SK": s("#METADATA#" + id), "_type": s("User"), "userId": s(id), "email": s("a@x")}
	}
	var answer []map[string]types.AttributeValue
	client.QueryFunc = func(context.Context, *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
		return &dynamodb.QueryOutput{Items: answer}, nil
	}
	_, err := sh.UserByEmail.Get(t.Context(), db, User{Email: "a@x"})
	assert.ErrorIs(t, err, singletable.ErrNotFound)
	answer = []map[string]types.AttributeValue{user("u1")}
	u, err := sh.UserByEmail.Get(t.Context(), db, User{Email: "a@x"})
	require.NoError(t, err)
	assert.Equal(t, "u1", u.ID)
	answer = append(answer, user("u2"))
	_, err = sh.UserByEmail.Get(t.Context(), db, User{Email: "a@x"})
	assert.ErrorIs(t, err, singletable.ErrNotUnique)

	client.GetItemFunc = func(context.Context, *dynamodb.GetItemInput) (*dynamodb.GetItemOutput, error) {
		return &dynamodb.GetItemOutput{}, nil
	}
	_, err = sh.GetUser.Get(t.Context(), db, User{ID: "nobody"})
	assert.ErrorIs(t, err, singletable.ErrNotFound)
	page, err := sh.GetUser.Query(t.Context(), db, User{ID: "nobody"})
	require.NoError(t, err)
	assert.Empty(t, page.Items)
	assert.Empty(t, page.Cursor)
}

func TestProjectAsksForFieldsAndKeys(t *testing.T) {
	sh := newSeed(t)
	db, client := readMockDB(sh)
	in, err := sh.ListUserOrders.QueryInput(db, Order{UserID: "u1"}, singletable.Project("Total", "Status"))
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
	page, err := sh.ListUserOrders.Query(t.Context(), db, Order{UserID: "u1"}, singletable.Project("Total"))
	require.NoError(t, err)
	assert.Equal(t, []Order{{UserID: "u1", ID: "o1", Date: "2026-01-01", Total: 12.5}}, page.Items, "key fields come back from the keys")

	_, err = sh.ListUserOrders.QueryInput(db, Order{UserID: "u1"}, singletable.Project("Nope"))
	assert.ErrorIs(t, err, singletable.ErrInvalidInput)
	_ = singletabletest.Call{}
}

// Every page is its own request: a client that keeps the requests it is
// given (a recorder, a logging wrapper) sees each page as it was sent.
func TestEachPageIsItsOwnRequest(t *testing.T) {
	sh := newSeed(t)
	db, client := readMockDB(sh)
	client.QueryFunc = fakePartition(mixedPartition(20))
	p := sh.Orders.Pattern("Asc").Partition("USER#{UserID}").SortBeginsWith("ORDER#").Must()
	for name, query := range map[string]func() (int, error){
		"Entity.Query": func() (int, error) {
			page, err := sh.Orders.Query(t.Context(), db, Order{UserID: "u1"}, singletable.Limit(15))
			return len(page.Items), err
		},
		"Pattern.Query": func() (int, error) {
			page, err := p.Query(t.Context(), db, Order{UserID: "u1"}, singletable.Limit(15))
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
