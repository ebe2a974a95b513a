package singletable_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/testmodel"
	"github.com/singletable/singletable/singletabletest"
)

// A cursor resumes one query: reused with other sort bounds on the same
// pattern and partition it is refused before sending, as one from another
// partition is; with the same bounds it is sent.
func TestCursorIsBoundToTheSortBounds(t *testing.T) {
	sh := testmodel.NewSeed()
	db, client := readMockDB(sh)
	client.QueryFunc = orderPages(20)
	ctx := t.Context()
	o := sh.Orders
	gt := o.Pattern("OrdersAfter").Partition("USER#{UserID}").SortGreaterThan().Must()
	prefix := o.Pattern("OrdersOn").Partition("USER#{UserID}").SortPrefix().Must()

	// A query returns its page's cursor.
	type query func(cursor string) (string, error)
	between := func(from, upTo string) query {
		return func(cursor string) (string, error) {
			p, err := sh.UserOrdersByDate.QueryBetween(ctx, db, testmodel.Order{UserID: "u1", Date: from}, testmodel.Order{Date: upTo},
				singletable.Limit(3), singletable.After(cursor))
			if err != nil {
				return "", err
			}
			return p.Cursor, nil
		}
	}
	after := func(date string) query {
		return func(cursor string) (string, error) {
			p, err := gt.Query(ctx, db, testmodel.Order{UserID: "u1", Date: date}, singletable.Limit(3), singletable.After(cursor))
			if err != nil {
				return "", err
			}
			return p.Cursor, nil
		}
	}
	on := func(date string, opts ...singletable.QueryOption) query {
		return func(cursor string) (string, error) {
			p, err := prefix.Query(ctx, db, testmodel.Order{UserID: "u1", Date: date}, append(opts, singletable.Limit(3), singletable.After(cursor))...)
			if err != nil {
				return "", err
			}
			return p.Cursor, nil
		}
	}
	cases := []struct {
		name   string
		issue  query
		others []query
	}{
		{"SortBetween", between("2025-12-01", "2026-01-31"), []query{
			between("2025-12-01", "2026-01-15"), // another upper bound
			between("2025-11-01", "2026-01-31"), // another lower bound
			between("2026-01-01", "2026-01-01"), // narrower bounds that still hold the cursor's item
		}},
		{"SortGreaterThan", after("2025-12-31"), []query{after("2025-11-30"), after("2026-01-02")}},
		{"SortPrefix", on("2026-01-01"), []query{on("2026-01-02"), on("2026-01", singletable.PartialMatch())}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cursor, err := c.issue("")
			require.NoError(t, err)
			require.NotEmpty(t, cursor)

			client.Reset()
			_, err = c.issue(cursor)
			require.NoError(t, err, "the same bounds resume")
			assert.Len(t, client.Calls(), 1)
			assert.NotEmpty(t, client.Calls()[0].Input.(*dynamodb.QueryInput).ExclusiveStartKey)

			for i, other := range c.others {
				client.Reset()
				_, err := other(cursor)
				require.ErrorIs(t, err, singletable.ErrInvalidCursor, "other bounds %d", i)
				var ce *singletable.CursorError
				require.ErrorAs(t, err, &ce)
				assert.Contains(t, ce.Reason, "sort bounds")
				assert.Empty(t, client.Calls(), "nothing is sent")
			}
		})
	}
}

// orderPages answers every Query with the next Limit orders of user u1
// after its ExclusiveStartKey, whatever its conditions.
func orderPages(n int) func(context.Context, *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
	var items []map[string]types.AttributeValue
	for i := range n {
		items = append(items, map[string]types.AttributeValue{
			"PK": s("USER#u1"), "SK": s(fmt.Sprintf("ORDER#2026-01-01#o%04d", i)), "_type": s("Order"),
			"userId": s("u1"), "orderId": s(fmt.Sprintf("o%04d", i)), "orderDate": s("2026-01-01"),
		})
	}
	return func(_ context.Context, in *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
		start := 0
		if k := in.ExclusiveStartKey; k != nil {
			start = slices.IndexFunc(items, func(it map[string]types.AttributeValue) bool { return sv(it["SK"]) == sv(k["SK"]) }) + 1
		}
		end := len(items)
		if in.Limit != nil {
			end = min(end, start+int(*in.Limit))
		}
		out := &dynamodb.QueryOutput{Items: items[start:end], Count: int32(end - start), ScannedCount: int32(end - start)}
		if end < len(items) {
			out.LastEvaluatedKey = map[string]types.AttributeValue{"PK": items[end-1]["PK"], "SK": items[end-1]["SK"]}
		}
		return out, nil
	}
}

// Two processes build the same model separately: by default each accepts
// the other's cursors, as instances behind a load balancer must.
func TestCursorDefaultKeyIsSharedByInstancesOfTheModel(t *testing.T) {
	ctx := t.Context()
	client := &singletabletest.Client{}
	client.QueryFunc = orderPages(20)
	s1, s2 := testmodel.NewSeed(), testmodel.NewSeed()
	db1, db2 := singletable.New(client, s1.Table), singletable.New(client, s2.Table)

	page, err := s1.ListUserOrders.Query(ctx, db1, testmodel.Order{UserID: "u1"}, singletable.Limit(3))
	require.NoError(t, err)
	require.NotEmpty(t, page.Cursor)
	client.Reset()
	next, err := s2.ListUserOrders.Query(ctx, db2, testmodel.Order{UserID: "u1"}, singletable.Limit(3), singletable.After(page.Cursor))
	require.NoError(t, err, "another instance of the same model accepts the cursor")
	assert.Len(t, client.Calls(), 1)
	assert.NotEqual(t, page.Items, next.Items)

	// Another physical table derives another key: its cursors are refused.
	client.Reset()
	other := singletable.New(client, s2.Table, singletable.WithTableName("OtherOrdersTable"))
	_, err = s2.ListUserOrders.Query(ctx, other, testmodel.Order{UserID: "u1"}, singletable.After(page.Cursor))
	require.ErrorIs(t, err, singletable.ErrInvalidCursor)
	assert.Empty(t, client.Calls())

	// A DB with a cursor key of its own refuses the default key's cursors.
	keyed := singletable.New(client, s2.Table, singletable.WithCursorKeys([]byte("0123456789abcdef0123456789abcdef")))
	_, err = s2.ListUserOrders.Query(ctx, keyed, testmodel.Order{UserID: "u1"}, singletable.After(page.Cursor))
	require.ErrorIs(t, err, singletable.ErrInvalidCursor)
	assert.Empty(t, client.Calls())
}

// Rotation: cursors are sealed with the current key and opened with the
// current or a previous one.
func TestCursorKeyRotation(t *testing.T) {
	ctx := t.Context()
	sh := testmodel.NewSeed()
	client := &singletabletest.Client{}
	client.QueryFunc = orderPages(20)
	oldKey := []byte("the old cursor key, 32 bytes....")
	newKey := []byte("the new cursor key, 32 bytes....")
	unknown := []byte("a key no DB here knows, 32 bytes")
	withKeys := func(current []byte, previous ...[]byte) *singletable.DB {
		return singletable.New(client, sh.Table, singletable.WithCursorKeys(current, previous...))
	}
	issue := func(db *singletable.DB) string {
		t.Helper()
		page, err := sh.ListUserOrders.Query(ctx, db, testmodel.Order{UserID: "u1"}, singletable.Limit(3))
		require.NoError(t, err)
		require.NotEmpty(t, page.Cursor)
		return page.Cursor
	}
	resume := func(db *singletable.DB, cursor string) error {
		client.Reset()
		_, err := sh.ListUserOrders.Query(ctx, db, testmodel.Order{UserID: "u1"}, singletable.Limit(3), singletable.After(cursor))
		if err == nil {
			assert.Len(t, client.Calls(), 1)
		} else {
			assert.Empty(t, client.Calls())
		}
		return err
	}
	before := singletable.New(client, sh.Table, singletable.WithCursorKeys(oldKey))
	rotated := withKeys(newKey, oldKey)
	after := withKeys(newKey)

	require.NoError(t, resume(rotated, issue(before)), "a cursor sealed with a previous key is accepted")
	fresh := issue(rotated)
	require.NoError(t, resume(after, fresh), "the current key seals")
	require.ErrorIs(t, resume(before, fresh), singletable.ErrInvalidCursor, "not the previous one")

	err := resume(rotated, issue(withKeys(unknown)))
	require.ErrorIs(t, err, singletable.ErrInvalidCursor, "a cursor sealed with an unknown key")
	var ce *singletable.CursorError
	require.ErrorAs(t, err, &ce)
	assert.Contains(t, ce.Reason, "cursor key")
	require.ErrorIs(t, resume(rotated, issue(singletable.New(client, sh.Table))), singletable.ErrInvalidCursor,
		"nor one sealed with the default key")

	// A key of an invalid length makes every query with a cursor fail,
	// naming the key, before anything is sent.
	for _, c := range []struct {
		db   *singletable.DB
		want string
	}{
		{withKeys([]byte("short")), "the cursor key is 5 bytes"},
		{withKeys(nil), "the cursor key is 0 bytes"},
		{withKeys(newKey, oldKey, []byte("tiny")), "previous cursor key 2 is 4 bytes"},
	} {
		client.Reset()
		_, err := sh.ListUserOrders.Query(ctx, c.db, testmodel.Order{UserID: "u1"})
		require.ErrorIs(t, err, singletable.ErrInvalidInput)
		assert.Contains(t, err.Error(), c.want)
		assert.Contains(t, err.Error(), fmt.Sprint(singletable.MinCursorKeyBytes))
		assert.Empty(t, client.Calls())
	}
}

func TestCursorTamperingIsRefusedWithoutARequest(t *testing.T) {
	sh := testmodel.NewSeed()
	db, client := readMockDB(sh)
	client.QueryFunc = fakePartition(mixedPartition(20))
	ctx := t.Context()
	page, err := sh.ListUserOrders.Query(ctx, db, testmodel.Order{UserID: "u1"}, singletable.Limit(3))
	require.NoError(t, err)
	require.NotEmpty(t, page.Cursor)

	flip := []byte(page.Cursor)
	flip[len(flip)/3] ^= 1
	otherKeyDB := singletable.New(client, sh.Table, singletable.WithCursorKeys([]byte("another key, 16 bytes or more...")))
	other := sh.Orders.Pattern("Other").Partition("USER#{UserID}").SortBeginsWith("ORDER#").Descending().Must()
	cases := []struct {
		name string
		run  func() error
	}{
		{"tampered", func() error {
			_, err := sh.ListUserOrders.Query(ctx, db, testmodel.Order{UserID: "u1"}, singletable.After(string(flip)))
			return err
		}},
		{"garbage", func() error {
			_, err := sh.ListUserOrders.Query(ctx, db, testmodel.Order{UserID: "u1"}, singletable.After("not a cursor"))
			return err
		}},
		{"another partition", func() error {
			_, err := sh.ListUserOrders.Query(ctx, db, testmodel.Order{UserID: "u2"}, singletable.After(page.Cursor))
			return err
		}},
		{"another pattern", func() error {
			_, err := other.Query(ctx, db, testmodel.Order{UserID: "u1"}, singletable.After(page.Cursor))
			return err
		}},
		{"the other direction", func() error {
			_, err := sh.ListUserOrders.Query(ctx, db, testmodel.Order{UserID: "u1"}, singletable.After(page.Cursor), singletable.Ascending())
			return err
		}},
		{"another cursor key", func() error {
			_, err := sh.ListUserOrders.Query(ctx, otherKeyDB, testmodel.Order{UserID: "u1"}, singletable.After(page.Cursor))
			return err
		}},
		{"collection: another pattern's cursor", func() error {
			_, err := sh.UserProfile.Query(ctx, db, singletable.Values{"UserID": "u1"}, singletable.After(page.Cursor))
			return err
		}},
		{"All too", func() error {
			for _, err := range sh.ListUserOrders.All(ctx, db, testmodel.Order{UserID: "u2"}, singletable.After(page.Cursor)) {
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
	p1, err := sh.ListUserOrders.Query(ctx, d1, testmodel.Order{UserID: "u1"}, singletable.Limit(3))
	require.NoError(t, err)
	_, err = sh.ListUserOrders.Query(ctx, d2, testmodel.Order{UserID: "u1"}, singletable.After(p1.Cursor))
	assert.NoError(t, err)
	// A short key is refused before sending.
	client.Reset()
	short := singletable.New(client, sh.Table, singletable.WithCursorKeys([]byte("short")))
	_, err = sh.ListUserOrders.Query(ctx, short, testmodel.Order{UserID: "u1"})
	assert.ErrorIs(t, err, singletable.ErrInvalidInput)
	assert.Empty(t, client.Calls())
}

// A cursor whose start key lies outside the read it resumes (another
// partition, or beyond the sort condition) is refused before sending, even
// when its seal is good: the default cursor key is derived from the table,
// so anyone who knows the model can seal one (here the Client hands the
// library such a LastEvaluatedKey). DynamoDB would refuse it with a
// ValidationException.
func TestCursorStartKeyOutsideTheReadIsRefused(t *testing.T) {
	sh := testmodel.NewSeed()
	db, client := readMockDB(sh)
	ctx := t.Context()
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	pending := s("STATUS#PENDING")
	for _, tc := range []struct {
		name   string
		read   func(after string) (string, error)
		last   map[string]types.AttributeValue
		reason string
	}{
		{"another partition", func(after string) (string, error) {
			p, err := sh.ListUserOrders.Query(ctx, db, testmodel.Order{UserID: "u1"}, singletable.Limit(1), singletable.After(after))
			if err != nil {
				return "", err
			}
			return p.Cursor, nil
		}, map[string]types.AttributeValue{"PK": s("USER#u2"), "SK": s("ORDER#2024-01-01#o1")}, `its start key is not in partition "USER#u1"`},
		{"outside the sort condition", func(after string) (string, error) {
			p, err := sh.ListUserOrders.Query(ctx, db, testmodel.Order{UserID: "u1"}, singletable.Limit(1), singletable.After(after))
			if err != nil {
				return "", err
			}
			return p.Cursor, nil
		}, map[string]types.AttributeValue{"PK": s("USER#u1"), "SK": s("PROFILE")}, "outside the read's sort bounds"},
		{"an index's partition", func(after string) (string, error) {
			p, err := sh.PendingOrders.Query(ctx, db, testmodel.Order{}, singletable.Limit(1), singletable.After(after))
			if err != nil {
				return "", err
			}
			return p.Cursor, nil
		}, map[string]types.AttributeValue{"PK": s("USER#u1"), "SK": s("ORDER#x"), "GSI1PK": s("STATUS#SHIPPED"), "GSI1SK": s("2024-01-01#o1")}, `not in partition "STATUS#PENDING"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client.QueryFunc = func(context.Context, *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
				// One item fills the page; the cursor is the key given.
				return &dynamodb.QueryOutput{Items: mixedPartition(1)[:1], LastEvaluatedKey: tc.last}, nil
			}
			cursor, err := tc.read("")
			require.NoError(t, err)
			require.NotEmpty(t, cursor)
			client.Reset()
			_, err = tc.read(cursor)
			require.ErrorIs(t, err, singletable.ErrInvalidCursor)
			assert.Contains(t, err.Error(), tc.reason)
			assert.Empty(t, client.Calls(), "nothing may be sent")
		})
	}
	// A start key inside the read resumes it.
	last := map[string]types.AttributeValue{"PK": s("USER#u1"), "SK": s("ORDER#2024-01-01#o1")}
	client.QueryFunc = func(_ context.Context, in *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
		return &dynamodb.QueryOutput{Items: mixedPartition(1)[:1], LastEvaluatedKey: last}, nil
	}
	p, err := sh.ListUserOrders.Query(ctx, db, testmodel.Order{UserID: "u1"}, singletable.Limit(1))
	require.NoError(t, err)
	_, err = sh.ListUserOrders.Query(ctx, db, testmodel.Order{UserID: "u1"}, singletable.Limit(1), singletable.After(p.Cursor))
	require.NoError(t, err)
	last = map[string]types.AttributeValue{"PK": s("USER#u1"), "SK": s("ORDER#2024-01-01#o1"), "GSI1PK": pending, "GSI1SK": s("ORDER#2024-01-01#o1")}
	p, err = sh.PendingOrders.Query(ctx, db, testmodel.Order{}, singletable.Limit(1))
	require.NoError(t, err)
	_, err = sh.PendingOrders.Query(ctx, db, testmodel.Order{}, singletable.Limit(1), singletable.After(p.Cursor))
	require.NoError(t, err)

	// A Client that answers every Query with the key it was sent (a mock)
	// ends the read with an error rather than keeping it going.
	client.QueryFunc = func(_ context.Context, in *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
		return &dynamodb.QueryOutput{LastEvaluatedKey: map[string]types.AttributeValue{"PK": s("USER#u1"), "SK": s("ORDER#2024-01-01#o1")}}, nil
	}
	_, err = sh.ListUserOrders.Query(ctx, db, testmodel.Order{UserID: "u1"}, singletable.Limit(1))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the read would never end")
}
