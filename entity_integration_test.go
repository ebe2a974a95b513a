//go:build integration

package singletable_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/testmodel"
)

func TestIntegrationCRUD(t *testing.T) {
	db, _ := coreLocalDB(t)

	// Create, then Create again: ErrAlreadyExists carrying the stored item.
	require.NoError(t, testmodel.ShopUsers.Create(ctx, db, seedUser))
	err := testmodel.ShopUsers.Create(ctx, db, seedUser)
	require.ErrorIs(t, err, st.ErrAlreadyExists)
	var ce *st.ConditionError
	require.ErrorAs(t, err, &ce)
	name, _ := sOf(ce.Item, "name")
	assert.Equal(t, "Ada", name)

	got, err := testmodel.ShopUsers.Get(ctx, db, testmodel.ShopUser{ID: "u123"}, st.ConsistentRead())
	require.NoError(t, err)
	assert.Equal(t, seedUser, got)

	raw := rawItem(t, db, "USER#u123", "PROFILE")
	gpk, _ := sOf(raw, "GSI1PK")
	assert.Equal(t, "EMAIL#ada@example.com", gpk)
	typ, _ := sOf(raw, "_type")
	assert.Equal(t, "User", typ)

	// Put overwrites.
	seedUser2 := seedUser
	seedUser2.Name = "Ada L."
	require.NoError(t, testmodel.ShopUsers.Put(ctx, db, seedUser2))
	got, err = testmodel.ShopUsers.Get(ctx, db, testmodel.ShopUser{ID: "u123"})
	require.NoError(t, err)
	assert.Equal(t, "Ada L.", got.Name)

	// Put with a condition that does not hold.
	err = testmodel.ShopUsers.Put(ctx, db, seedUser, st.If(st.Eq("Name", "Someone else")))
	assert.ErrorIs(t, err, st.ErrConditionFailed)
	assert.NotErrorIs(t, err, st.ErrAlreadyExists)

	// Delete, MustExist.
	require.NoError(t, testmodel.ShopUsers.Delete(ctx, db, testmodel.ShopUser{ID: "u123"}, st.MustExist()))
	_, err = testmodel.ShopUsers.Get(ctx, db, testmodel.ShopUser{ID: "u123"})
	assert.ErrorIs(t, err, st.ErrNotFound)
	assert.ErrorIs(t, testmodel.ShopUsers.Delete(ctx, db, testmodel.ShopUser{ID: "u123"}, st.MustExist()), st.ErrNotFound)
	assert.NoError(t, testmodel.ShopUsers.Delete(ctx, db, testmodel.ShopUser{ID: "u123"}), "deleting a missing item succeeds without MustExist")
}
