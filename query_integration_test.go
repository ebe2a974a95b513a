//go:build integration

package singletable_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/testmodel"
	"github.com/singletable/singletable/singletabletest"
)

func TestIntegrationQueryAndCollection(t *testing.T) {
	db, _ := coreLocalDB(t)
	require.NoError(t, testmodel.ShopUsers.Put(ctx, db, seedUser))
	var want []testmodel.ShopOrder
	for _, id := range []string{"1", "10", "2", "3"} {
		o := testmodel.ShopOrder{UserID: "u123", ID: id, Date: "2024-01-0" + id[:1], Status: "PENDING", Total: 1}
		require.NoError(t, testmodel.ShopOrders.Put(ctx, db, o))
		want = append(want, o)
	}
	require.NoError(t, testmodel.ShopOrders.Put(ctx, db, testmodel.ShopOrder{UserID: "u999", ID: "x", Date: "2024-01-01", Status: "PENDING"}))

	got, err := testmodel.ShopOrders.Query(ctx, db, testmodel.ShopOrder{UserID: "u123"})
	require.NoError(t, err)
	assert.Equal(t, want, got.Items, "sorted by SK, other partitions and entities left out")
	assert.Empty(t, got.Cursor)

	got, err = testmodel.ShopOrders.Query(ctx, db, testmodel.ShopOrder{UserID: "u123"}, st.Descending(), st.Limit(3))
	require.NoError(t, err)
	assert.Equal(t, []testmodel.ShopOrder{want[3], want[2], want[1]}, got.Items)
	// The entity's query pages as a pattern does.
	got, err = testmodel.ShopOrders.Query(ctx, db, testmodel.ShopOrder{UserID: "u123"}, st.Descending(), st.Limit(3), st.After(got.Cursor))
	require.NoError(t, err)
	assert.Equal(t, []testmodel.ShopOrder{want[0]}, got.Items)
	var all []testmodel.ShopOrder
	for o, err := range testmodel.ShopOrders.All(ctx, db, testmodel.ShopOrder{UserID: "u123"}) {
		require.NoError(t, err)
		all = append(all, o)
	}
	assert.Equal(t, want, all)

	// A full key is an equality: ORDER#1 does not match ORDER#10.
	got, err = testmodel.ShopOrders.Query(ctx, db, testmodel.ShopOrder{UserID: "u123", ID: "1"})
	require.NoError(t, err)
	assert.Equal(t, []testmodel.ShopOrder{want[0]}, got.Items)

	res, err := testmodel.ShopUserAndOrders.Query(ctx, db, st.Values{"UserID": "u123"})
	require.NoError(t, err)
	assert.Equal(t, []testmodel.ShopUser{seedUser}, testmodel.ShopUsers.From(res))
	assert.Equal(t, want, testmodel.ShopOrders.From(res))
	assert.Len(t, res.Items, 5)
	assert.Empty(t, res.Unknown)
}

// A collection's filter on a field that its members store under different
// attributes (Author.Name as authorName, Book.Name as title) returns every
// member's matching items: it used to send authorName = "Go" alone and drop
// the book titled Go.
func TestIntegrationCollectionFilterEveryMember(t *testing.T) {
	db := singletabletest.LocalDB(t, filterTable)
	require.NoError(t, filterAuthors.Put(ctx, db, filterAuthor{ID: "a1", Name: "Go", Rank: 1}))
	require.NoError(t, filterBooks.Put(ctx, db, filterBook{AuthorID: "a1", ISBN: "b1", Name: "Go", Rank: "1"}))
	require.NoError(t, filterBooks.Put(ctx, db, filterBook{AuthorID: "a1", ISBN: "b2", Name: "Rust", Rank: "2"}))

	res, err := filterShelf.Query(ctx, db, st.Values{"AuthorID": "a1"}, st.Filter(st.Eq("Name", "Go")))
	require.NoError(t, err)
	assert.Equal(t, []filterAuthor{{ID: "a1", Name: "Go", Rank: 1}}, filterAuthors.From(res))
	assert.Equal(t, []filterBook{{AuthorID: "a1", ISBN: "b1", Name: "Go", Rank: "1"}}, filterBooks.From(res))
	assert.Equal(t, 3, res.Scanned)

	res, err = filterShelf.Query(ctx, db, st.Values{"AuthorID": "a1"}, st.Filter(st.Ne("Name", "Go")))
	require.NoError(t, err)
	assert.Empty(t, filterAuthors.From(res))
	assert.Equal(t, []filterBook{{AuthorID: "a1", ISBN: "b2", Name: "Rust", Rank: "2"}}, filterBooks.From(res))
}
