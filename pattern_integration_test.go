//go:build integration

package singletable_test

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/ddblocal"
	"github.com/singletable/singletable/internal/testmodel"
)

// readClient counts the Query, GetItem and BatchGetItem requests that reach
// DynamoDB Local.
type readClient struct {
	*dynamodb.Client
	queries, gets, batches atomic.Int64
}

func (c *readClient) Query(ctx context.Context, in *dynamodb.QueryInput, o ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	c.queries.Add(1)
	return c.Client.Query(ctx, in, o...)
}

func (c *readClient) GetItem(ctx context.Context, in *dynamodb.GetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	c.gets.Add(1)
	return c.Client.GetItem(ctx, in, o...)
}

func (c *readClient) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	c.batches.Add(1)
	return c.Client.BatchGetItem(ctx, in, o...)
}

func (c *readClient) sent() int64 { return c.queries.Load() + c.gets.Load() + c.batches.Load() }

// readLocalDB binds a fresh seed model to a new table in DynamoDB Local,
// deleted when the test ends. Without DynamoDB Local the test fails: it
// never skips.
func readLocalDB(t *testing.T) (*testmodel.Seed, *singletable.DB, *readClient) {
	t.Helper()
	m := testmodel.NewSeed()
	client, err := ddblocal.Client(t.Context())
	require.NoError(t, err, "integration tests need DynamoDB Local: run them with `make test`")
	rc := &readClient{Client: client}
	db := singletable.New(rc, m.Table, singletable.WithTableName(ddblocal.UniqueName("read")))
	require.NoError(t, db.EnsureTable(t.Context()))
	t.Cleanup(func() { _ = db.DeleteTable(context.Background()) })
	return m, db, rc
}

// seedData writes the seed scenario: three users, their orders, the orders'
// details and items, team memberships.
func seedData(t *testing.T, m *testmodel.Seed, db *singletable.DB) {
	t.Helper()
	require.NoError(t, m.Load(t.Context(), db))
}

func orderIDs(os []testmodel.Order) []string {
	out := make([]string, len(os))
	for i, o := range os {
		out[i] = o.ID
	}
	return out
}

func TestIntegrationSeedPatterns(t *testing.T) {
	m, db, _ := readLocalDB(t)
	seedData(t, m, db)
	ctx := t.Context()

	t.Run("get user", func(t *testing.T) {
		u, err := m.GetUser.Get(ctx, db, testmodel.User{ID: "user_123"})
		require.NoError(t, err)
		assert.Equal(t, testmodel.User{ID: "user_123", Name: "Ann", Email: "ann@example.com", Created: "2025-12-01"}, u)
		_, err = m.GetUser.Get(ctx, db, testmodel.User{ID: "nobody"})
		assert.ErrorIs(t, err, singletable.ErrNotFound)
	})
	t.Run("a user's orders by date, descending", func(t *testing.T) {
		page, err := m.ListUserOrders.Query(ctx, db, testmodel.Order{UserID: "user_123"})
		require.NoError(t, err)
		assert.Equal(t, []string{"order_470", "order_458", "order_457", "order_456", "order_100"}, orderIDs(page.Items))
		assert.Empty(t, page.Cursor)
	})
	t.Run("orders in a date range, the last day whole", func(t *testing.T) {
		page, err := m.UserOrdersByDate.QueryBetween(ctx, db, testmodel.Order{UserID: "user_123", Date: "2026-01-01"}, testmodel.Order{Date: "2026-02-28"})
		require.NoError(t, err)
		assert.Equal(t, []string{"order_456", "order_457", "order_458"}, orderIDs(page.Items))
	})
	t.Run("pending orders across users", func(t *testing.T) {
		var got []string
		for o, err := range m.PendingOrders.All(ctx, db, testmodel.Order{}) {
			require.NoError(t, err)
			assert.Equal(t, "PENDING", o.Status)
			got = append(got, o.ID)
		}
		assert.Equal(t, []string{"order_500", "order_456", "order_457"}, got, "by GSI1SK: ORDER#date#id")
	})
	t.Run("order by id", func(t *testing.T) {
		d, err := m.GetOrder.Get(ctx, db, testmodel.OrderDetail{OrderID: "order_456"})
		require.NoError(t, err)
		assert.Equal(t, testmodel.OrderDetail{OrderID: "order_456", UserID: "user_123", Status: "PENDING", Total: 39, Created: "2026-02-17"}, d)
	})
	t.Run("items of an order", func(t *testing.T) {
		page, err := m.ListOrderItems.Query(ctx, db, testmodel.OrderItem{OrderID: "order_456"})
		require.NoError(t, err)
		require.Len(t, page.Items, 2)
		assert.Equal(t, testmodel.OrderItem{OrderID: "order_456", ID: "item_789", ProductID: "p1", Quantity: 2, UnitPrice: 9.5}, page.Items[0])
	})
	t.Run("user by email", func(t *testing.T) {
		u, err := m.UserByEmail.Get(ctx, db, testmodel.User{Email: "bob@example.com"})
		require.NoError(t, err)
		assert.Equal(t, "user_456", u.ID)
		_, err = m.UserByEmail.Get(ctx, db, testmodel.User{Email: "nobody@example.com"})
		assert.ErrorIs(t, err, singletable.ErrNotFound)
	})
	t.Run("a user's teams", func(t *testing.T) {
		page, err := m.UserTeams.Query(ctx, db, testmodel.Membership{UserID: "user_123"})
		require.NoError(t, err)
		assert.Equal(t, []testmodel.Membership{
			{UserID: "user_123", TeamID: "team_1", Role: "owner", Joined: "2025-12-02"},
			{UserID: "user_123", TeamID: "team_2", Role: "member", Joined: "2026-01-02"},
		}, page.Items)
	})
	t.Run("a team's members, keys only and fetched in full", func(t *testing.T) {
		page, err := m.TeamMembers.Query(ctx, db, testmodel.Membership{TeamID: "team_1"})
		require.NoError(t, err)
		assert.Equal(t, []testmodel.Membership{{UserID: "user_123", TeamID: "team_1"}, {UserID: "user_456", TeamID: "team_1"}}, page.Items)
		page, err = m.TeamMembers.Query(ctx, db, testmodel.Membership{TeamID: "team_1"}, singletable.FetchFull())
		require.NoError(t, err)
		assert.Equal(t, []testmodel.Membership{
			{UserID: "user_123", TeamID: "team_1", Role: "owner", Joined: "2025-12-02"},
			{UserID: "user_456", TeamID: "team_1", Role: "member", Joined: "2026-01-06"},
		}, page.Items)
		page, err = m.TeamMembers.Query(ctx, db, testmodel.Membership{TeamID: "team_1"}, singletable.FetchFull(), singletable.Project("Role"))
		require.NoError(t, err)
		assert.Equal(t, []testmodel.Membership{{UserID: "user_123", TeamID: "team_1", Role: "owner"}, {UserID: "user_456", TeamID: "team_1", Role: "member"}}, page.Items)
	})
	t.Run("orders containing a product", func(t *testing.T) {
		page, err := m.OrdersWithProduct.Query(ctx, db, testmodel.OrderItem{ProductID: "p1"})
		require.NoError(t, err)
		var orders []string
		for _, it := range page.Items {
			orders = append(orders, it.OrderID)
		}
		assert.Equal(t, []string{"order_456", "order_500"}, orders)
	})
	t.Run("a user's item collection", func(t *testing.T) {
		res, err := m.UserProfile.Query(ctx, db, singletable.Values{"UserID": "user_123"})
		require.NoError(t, err)
		assert.Equal(t, []testmodel.User{{ID: "user_123", Name: "Ann", Email: "ann@example.com", Created: "2025-12-01"}}, m.Users.From(res))
		assert.Len(t, m.Orders.From(res), 5)
		assert.Len(t, m.Memberships.From(res), 2)
		assert.Empty(t, res.Unknown)
	})
	t.Run("an order with its items", func(t *testing.T) {
		res, err := m.OrderWithItems.Query(ctx, db, singletable.Values{"OrderID": "order_456"}, singletable.ConsistentRead())
		require.NoError(t, err)
		require.Len(t, m.OrderDetails.From(res), 1)
		assert.Len(t, m.OrderItems.From(res), 2)
	})
	t.Run("filter, projection and consistent read", func(t *testing.T) {
		page, err := m.ListUserOrders.Query(ctx, db, testmodel.Order{UserID: "user_123"}, singletable.Filter(singletable.Gt("Total", 9)),
			singletable.Project("Total"), singletable.ConsistentRead())
		require.NoError(t, err)
		assert.Equal(t, []testmodel.Order{
			{UserID: "user_123", ID: "order_457", Date: "2026-02-28", Total: 12},
			{UserID: "user_123", ID: "order_456", Date: "2026-02-17", Total: 39},
			{UserID: "user_123", ID: "order_100", Date: "2025-12-30", Total: 10},
		}, page.Items, "projected: Total, and the key fields from the keys")
		assert.Equal(t, 5, page.Scanned, "the filter does not reduce what is read")
	})
}

// Every sort operator against DynamoDB Local, compared with the keys it
// should match, computed here by brute force.
func TestIntegrationSortOperators(t *testing.T) {
	m, db, _ := readLocalDB(t)
	ctx := t.Context()
	var all []testmodel.Order
	for _, d := range []string{"2026-01-01", "2026-01-02", "2026-01-020", "2026-01-03"} {
		for _, id := range []string{"1", "10", "2"} {
			o := testmodel.Order{UserID: "u1", ID: id, Date: d, Status: "SHIPPED", Total: 1}
			all = append(all, o)
			require.NoError(t, m.Orders.Put(ctx, db, o))
		}
	}
	// Other entities in the partition: before and after the orders.
	require.NoError(t, m.Users.Put(ctx, db, testmodel.User{ID: "u1", Name: "U"}))
	require.NoError(t, m.Memberships.Put(ctx, db, testmodel.Membership{UserID: "u1", TeamID: "t"}))

	sk := func(o testmodel.Order) string { return "ORDER#" + o.Date + "#" + o.ID }
	want := func(pred func(k string) bool) []string {
		var out []string
		for _, o := range all {
			if pred(sk(o)) {
				out = append(out, sk(o))
			}
		}
		sort.Strings(out)
		return out
	}
	got := func(p *singletable.Pattern[testmodel.Order], params testmodel.Order, opts ...singletable.QueryOption) []string {
		t.Helper()
		var out []string
		for o, err := range p.All(ctx, db, params, opts...) {
			require.NoError(t, err)
			out = append(out, sk(o))
		}
		return out
	}
	gotBetween := func(from, to testmodel.Order) []string {
		t.Helper()
		var out []string
		for o, err := range m.UserOrdersByDate.AllBetween(ctx, db, from, to) {
			require.NoError(t, err)
			out = append(out, sk(o))
		}
		return out
	}
	o := m.Orders
	day := testmodel.Order{UserID: "u1", Date: "2026-01-02"}
	full := testmodel.Order{UserID: "u1", Date: "2026-01-02", ID: "1"}
	dayPrefix := "ORDER#2026-01-02#"
	cases := []struct {
		name string
		got  []string
		want []string
	}{
		{"= full key", got(o.Pattern("Eq").Partition("USER#{UserID}").SortPrefix().Must(), full), want(func(k string) bool { return k == sk(full) })},
		{"begins_with a date: not 2026-01-020", got(o.Pattern("Pre").Partition("USER#{UserID}").SortPrefix().Must(), day), want(func(k string) bool { return strings.HasPrefix(k, dayPrefix) })},
		{"begins_with partial, asked for", got(o.Pattern("Part").Partition("USER#{UserID}").SortPrefix().Must(), day, singletable.PartialMatch()),
			want(func(k string) bool { return strings.HasPrefix(k, "ORDER#2026-01-02") })},
		{"begins_with a literal", got(o.Pattern("Lit").Partition("USER#{UserID}").SortBeginsWith("ORDER#2026-01-0").Must(), testmodel.Order{UserID: "u1"}),
			want(func(k string) bool { return strings.HasPrefix(k, "ORDER#2026-01-0") })},
		{"between dates, both whole", gotBetween(testmodel.Order{UserID: "u1", Date: "2026-01-02"}, testmodel.Order{Date: "2026-01-03"}),
			want(func(k string) bool { return k >= dayPrefix && (k < "ORDER#2026-01-03$") })},
		{"between full keys", gotBetween(full, testmodel.Order{Date: "2026-01-03", ID: "10"}),
			want(func(k string) bool { return k >= sk(full) && k <= "ORDER#2026-01-03#10" })},
		{"< date", got(o.Pattern("Lt").Partition("USER#{UserID}").SortLessThan().Must(), day), want(func(k string) bool { return k < dayPrefix })},
		{"<= date", got(o.Pattern("Le").Partition("USER#{UserID}").SortLessOrEqual().Must(), day), want(func(k string) bool { return k < dayPrefix || strings.HasPrefix(k, dayPrefix) })},
		{"> date", got(o.Pattern("Gt").Partition("USER#{UserID}").SortGreaterThan().Must(), day), want(func(k string) bool { return k > dayPrefix && !strings.HasPrefix(k, dayPrefix) })},
		{">= date", got(o.Pattern("Ge").Partition("USER#{UserID}").SortGreaterOrEqual().Must(), day), want(func(k string) bool { return k >= dayPrefix })},
		{"< key", got(o.Pattern("LtK").Partition("USER#{UserID}").SortLessThan().Must(), full), want(func(k string) bool { return k < sk(full) })},
		{"<= key", got(o.Pattern("LeK").Partition("USER#{UserID}").SortLessOrEqual().Must(), full), want(func(k string) bool { return k <= sk(full) })},
		{"> key", got(o.Pattern("GtK").Partition("USER#{UserID}").SortGreaterThan().Must(), full), want(func(k string) bool { return k > sk(full) })},
		{">= key", got(o.Pattern("GeK").Partition("USER#{UserID}").SortGreaterOrEqual().Must(), full), want(func(k string) bool { return k >= sk(full) })},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.NotEmpty(t, c.want)
			assert.Equal(t, c.want, c.got)
		})
	}
}

// Sparse index: the item enters and leaves the index on Put and on Update,
// its index key attributes removed when it leaves.
func TestIntegrationSparseIndexEnterLeave(t *testing.T) {
	m, db, _ := readLocalDB(t)
	ctx := t.Context()
	pending := func() []string {
		t.Helper()
		var ids []string
		for o, err := range m.PendingOrders.All(ctx, db, testmodel.Order{}) {
			require.NoError(t, err)
			ids = append(ids, o.ID)
		}
		return ids
	}
	raw := func(sk string) map[string]types.AttributeValue {
		t.Helper()
		out, err := db.Client().GetItem(ctx, &dynamodb.GetItemInput{TableName: ptr(db.TableName()), Key: map[string]types.AttributeValue{
			"PK": s("USER#u1"), "SK": s(sk)}})
		require.NoError(t, err)
		return out.Item
	}
	o := testmodel.Order{UserID: "u1", ID: "o1", Date: "2026-02-01", Status: "PENDING", Total: 5}
	sk := "ORDER#2026-02-01#o1"

	// Put enters, Put leaves.
	require.NoError(t, m.Orders.Put(ctx, db, o))
	assert.Equal(t, []string{"o1"}, pending())
	assert.Equal(t, "STATUS#PENDING", sv(raw(sk)["GSI1PK"]))
	o.Status = "SHIPPED"
	require.NoError(t, m.Orders.Put(ctx, db, o))
	assert.Empty(t, pending())
	assert.NotContains(t, raw(sk), "GSI1PK")
	assert.NotContains(t, raw(sk), "GSI1SK")

	// Update enters, Update leaves.
	key := testmodel.Order{UserID: "u1", ID: "o1", Date: "2026-02-01"}
	got, err := m.Orders.Update(ctx, db, key, singletable.Set("Status", "PENDING"))
	require.NoError(t, err)
	assert.Equal(t, "PENDING", got.Status)
	assert.Equal(t, []string{"o1"}, pending())
	assert.Equal(t, "ORDER#2026-02-01#o1", sv(raw(sk)["GSI1SK"]))
	_, err = m.Orders.Update(ctx, db, key, singletable.Set("Status", "DELIVERED"))
	require.NoError(t, err)
	assert.Empty(t, pending())
	assert.NotContains(t, raw(sk), "GSI1PK")
	assert.NotContains(t, raw(sk), "GSI1SK")
	// An update that does not touch the condition's fields leaves the index alone.
	_, err = m.Orders.Update(ctx, db, key, singletable.Set("Status", "PENDING"))
	require.NoError(t, err)
	_, err = m.Orders.Update(ctx, db, key, singletable.Set("Total", 6.0))
	require.NoError(t, err)
	assert.Equal(t, []string{"o1"}, pending())

	// A GSI key field removed: the user leaves the email index.
	require.NoError(t, m.Users.Put(ctx, db, testmodel.User{ID: "u1", Name: "U", Email: "u@x"}))
	_, err = m.UserByEmail.Get(ctx, db, testmodel.User{Email: "u@x"})
	require.NoError(t, err)
	_, err = m.Users.Update(ctx, db, testmodel.User{ID: "u1"}, singletable.Remove("Email"))
	require.NoError(t, err)
	_, err = m.UserByEmail.Get(ctx, db, testmodel.User{Email: "u@x"})
	assert.ErrorIs(t, err, singletable.ErrNotFound)
	_, err = m.Users.Update(ctx, db, testmodel.User{ID: "u1"}, singletable.Set("Email", "v@x"))
	require.NoError(t, err)
	u, err := m.UserByEmail.Get(ctx, db, testmodel.User{Email: "v@x"})
	require.NoError(t, err)
	assert.Equal(t, "u1", u.ID)
}

func ptr[T any](v T) *T { return &v }

// Pagination over a few hundred items, with a filter and other entity types
// in the range read: every item exactly once, every page but the last full.
func TestIntegrationPagination(t *testing.T) {
	m, db, rc := readLocalDB(t)
	ctx := t.Context()
	const n = 300
	var wantShipped, wantAll []string
	for i := range n {
		status := "SHIPPED"
		if i%4 == 0 {
			status = "PENDING"
		}
		o := testmodel.Order{UserID: "u1", ID: fmt.Sprintf("o%03d", i), Date: fmt.Sprintf("2026-01-%02d", 1+i%28), Status: status, Total: float64(i)}
		require.NoError(t, m.Orders.Put(ctx, db, o))
		wantAll = append(wantAll, o.Date+"#"+o.ID)
		if status == "SHIPPED" {
			wantShipped = append(wantShipped, o.Date+"#"+o.ID)
		}
	}
	for i := range 40 {
		require.NoError(t, m.Memberships.Put(ctx, db, testmodel.Membership{UserID: "u1", TeamID: fmt.Sprintf("t%02d", i)}))
	}
	require.NoError(t, m.Users.Put(ctx, db, testmodel.User{ID: "u1", Name: "U"}))
	sort.Strings(wantAll)
	sort.Strings(wantShipped)

	// A pattern whose range also holds the memberships (TEAM# > ORDER#...).
	from := m.Orders.Pattern("OrdersFrom").Partition("USER#{UserID}").SortGreaterOrEqual().Must()
	key := func(o testmodel.Order) string { return o.Date + "#" + o.ID }

	for _, limit := range []int{1, 7, 64} {
		t.Run(fmt.Sprintf("filter, limit %d", limit), func(t *testing.T) {
			var got []string
			cursor := ""
			for pages := 0; ; pages++ {
				require.Less(t, pages, n+2)
				page, err := from.Query(ctx, db, testmodel.Order{UserID: "u1", Date: "2026-01-01"}, singletable.Limit(limit),
					singletable.Filter(singletable.Eq("Status", "SHIPPED")), singletable.After(cursor))
				require.NoError(t, err)
				if page.Cursor != "" && len(page.Items) < limit {
					// Only the last page, past the last match, may be short.
					require.Empty(t, page.Items, "a short page with a cursor must be the empty tail")
				}
				for _, o := range page.Items {
					require.Equal(t, "SHIPPED", o.Status)
					got = append(got, key(o))
				}
				if page.Cursor == "" {
					break
				}
				cursor = page.Cursor
			}
			assert.Equal(t, wantShipped, got, "no item missed or duplicated")
		})
	}
	t.Run("iterator over everything", func(t *testing.T) {
		var got []string
		for o, err := range from.All(ctx, db, testmodel.Order{UserID: "u1", Date: "2026-01-01"}) {
			require.NoError(t, err)
			got = append(got, key(o))
		}
		assert.Equal(t, wantAll, got)
	})
	t.Run("iterator stops when the loop stops", func(t *testing.T) {
		before := rc.queries.Load()
		i := 0
		for _, err := range from.All(ctx, db, testmodel.Order{UserID: "u1", Date: "2026-01-01"}, singletable.Limit(n)) {
			require.NoError(t, err)
			if i++; i == 10 {
				break
			}
		}
		assert.Equal(t, int64(1), rc.queries.Load()-before)
	})
	t.Run("descending collection pages, mixed types", func(t *testing.T) {
		var orders, teams, users int
		seen := map[string]bool{}
		cursor := ""
		for pages := 0; ; pages++ {
			require.Less(t, pages, 100)
			res, err := m.UserProfile.Query(ctx, db, singletable.Values{"UserID": "u1"}, singletable.Limit(25),
				singletable.Descending(), singletable.After(cursor))
			require.NoError(t, err)
			if res.Cursor != "" {
				require.True(t, len(res.Items) == 25 || len(res.Items) == 0)
			}
			for _, v := range res.Items {
				var id string
				switch v := v.(type) {
				case testmodel.Order:
					orders++
					id = "o" + v.ID
				case testmodel.Membership:
					teams++
					id = "t" + v.TeamID
				case testmodel.User:
					users++
					id = "u" + v.ID
				}
				require.False(t, seen[id], "duplicate %s", id)
				seen[id] = true
			}
			if res.Cursor == "" {
				break
			}
			cursor = res.Cursor
		}
		assert.Equal(t, []int{n, 40, 1}, []int{orders, teams, users})
	})
}

func TestIntegrationCursorTampering(t *testing.T) {
	m, db, rc := readLocalDB(t)
	ctx := t.Context()
	for i := range 10 {
		require.NoError(t, m.Orders.Put(ctx, db, testmodel.Order{UserID: "u1", ID: fmt.Sprintf("o%d", i), Date: "2026-01-01", Status: "X"}))
		require.NoError(t, m.Orders.Put(ctx, db, testmodel.Order{UserID: "u2", ID: fmt.Sprintf("o%d", i), Date: "2026-01-01", Status: "X"}))
	}
	page, err := m.ListUserOrders.Query(ctx, db, testmodel.Order{UserID: "u1"}, singletable.Limit(4))
	require.NoError(t, err)
	require.NotEmpty(t, page.Cursor)
	next, err := m.ListUserOrders.Query(ctx, db, testmodel.Order{UserID: "u1"}, singletable.Limit(4), singletable.After(page.Cursor))
	require.NoError(t, err)
	assert.Len(t, next.Items, 4)

	b := []byte(page.Cursor)
	for i := range b {
		if b[i] != '.' {
			b[i] = map[bool]byte{true: 'A', false: 'B'}[b[i] != 'A']
			break
		}
	}
	sent := rc.sent()
	_, err = m.ListUserOrders.Query(ctx, db, testmodel.Order{UserID: "u1"}, singletable.After(string(b)))
	assert.ErrorIs(t, err, singletable.ErrInvalidCursor)
	_, err = m.ListUserOrders.Query(ctx, db, testmodel.Order{UserID: "u2"}, singletable.After(page.Cursor))
	assert.ErrorIs(t, err, singletable.ErrInvalidCursor, "another partition")
	_, err = m.UserOrdersByDate.QueryBetween(ctx, db, testmodel.Order{UserID: "u1"}, testmodel.Order{}, singletable.After(page.Cursor))
	assert.ErrorIs(t, err, singletable.ErrInvalidCursor, "another pattern")
	_, err = m.PendingOrders.Query(ctx, db, testmodel.Order{}, singletable.ConsistentRead())
	assert.ErrorIs(t, err, singletable.ErrInvalidInput, "ConsistentRead on a GSI")
	assert.Equal(t, sent, rc.sent(), "no request was sent for any of them")
}

// The cursor of a GSI query carries the table and the index keys.
func TestIntegrationGSICursor(t *testing.T) {
	m, db, _ := readLocalDB(t)
	ctx := t.Context()
	var want []string
	for i := range 25 {
		o := testmodel.Order{UserID: fmt.Sprintf("u%d", i%5), ID: fmt.Sprintf("o%02d", i), Date: "2026-01-01", Status: "PENDING"}
		require.NoError(t, m.Orders.Put(ctx, db, o))
		want = append(want, o.ID)
	}
	var got []string
	cursor := ""
	for {
		page, err := m.PendingOrders.Query(ctx, db, testmodel.Order{}, singletable.Limit(6), singletable.After(cursor))
		require.NoError(t, err)
		got = append(got, orderIDs(page.Items)...)
		if page.Cursor == "" {
			break
		}
		cursor = page.Cursor
	}
	slices.Sort(got)
	assert.Equal(t, want, got)
}
