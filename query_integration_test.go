//go:build integration

package singletable_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
)

func TestIntegrationQueryAndCollection(t *testing.T) {
	db, _ := coreLocalDB(t)
	require.NoError(t, shopUsers.Put(ctx, db, seedUser))
	var want []shopOrder
	for _, id := range []string{"1", "10", "2", "3"} {
		o := shopOrder{UserID: "u123", ID: id, Date: "2024-01-0" + id[:1], Status: "PENDING", Total: 1}
		require.NoError(t, shopOrders.Put(ctx, db, o))
		want = append(want, o)
	}
	require.NoError(t, shopOrders.Put(ctx, db, shopOrder{UserID: "u999", ID: "x", Date: "2024-01-01", Status: "PENDING"}))

	got, err := shopOrders.Query(ctx, db, shopOrder{UserID: "u123"})
	require.NoError(t, err)
	assert.Equal(t, want, got.Items, "sorted by SK, other partitions and entities left out")
	assert.Empty(t, got.Cursor)

	got, err = shopOrders.Query(ctx, db, shopOrder{UserID: "u123"}, st.Descending(), st.Limit(3))
	require.NoError(t, err)
	assert.Equal(t, []shopOrder{want[3], want[2], want[1]}, got.Items)
	// The entity's query pages as a pattern does.
	got, err = shopOrders.Query(ctx, db, shopOrder{UserID: "u123"}, st.Descending(), st.Limit(3), st.After(got.Cursor))
	require.NoError(t, err)
	assert.Equal(t, []shopOrder{want[0]}, got.Items)
	var all []shopOrder
	for o, err := range shopOrders.All(ctx, db, shopOrder{UserID: "u123"}) {
		require.NoError(t, err)
		all = append(all, o)
	}
	assert.Equal(t, want, all)

	// A full key is an equality: ORDER#1 does not match ORDER#10.
	got, err = shopOrders.Query(ctx, db, shopOrder{UserID: "u123", ID: "1"})
	require.NoError(t, err)
	assert.Equal(t, []shopOrder{want[0]}, got.Items)

	res, err := shopUserAndOrders.Query(ctx, db, st.Values{"UserID": "u123"})
	require.NoError(t, err)
	assert.Equal(t, []shopUser{seedUser}, shopUsers.From(res))
	assert.Equal(t, want, shopOrders.From(res))
	assert.Len(t, res.Items, 5)
	assert.Empty(t, res.Unknown)
}
