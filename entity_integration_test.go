//go:build integration

package singletable_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
)

func TestIntegrationCRUD(t *testing.T) {
	db, _ := coreLocalDB(t)

	// Create, then Create again: ErrAlreadyExists carrying the stored item.
	require.NoError(t, shopUsers.Create(ctx, db, seedUser))
	err := shopUsers.Create(ctx, db, seedUser)
	require.ErrorIs(t, err, st.ErrAlreadyExists)
	var ce *st.ConditionError
	require.ErrorAs(t, err, &ce)
	name, _ := sOf(ce.Item, "name")
	assert.Equal(t, "Ada", name)

	got, err := shopUsers.Get(ctx, db, shopUser{ID: "u123"}, st.ConsistentRead())
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
	require.NoError(t, shopUsers.Put(ctx, db, seedUser2))
	got, err = shopUsers.Get(ctx, db, shopUser{ID: "u123"})
	require.NoError(t, err)
	assert.Equal(t, "Ada L.", got.Name)

	// Put with a condition that does not hold.
	err = shopUsers.Put(ctx, db, seedUser, st.If(st.Eq("Name", "Someone else")))
	assert.ErrorIs(t, err, st.ErrConditionFailed)
	assert.NotErrorIs(t, err, st.ErrAlreadyExists)

	// Delete, MustExist.
	require.NoError(t, shopUsers.Delete(ctx, db, shopUser{ID: "u123"}, st.MustExist()))
	_, err = shopUsers.Get(ctx, db, shopUser{ID: "u123"})
	assert.ErrorIs(t, err, st.ErrNotFound)
	assert.ErrorIs(t, shopUsers.Delete(ctx, db, shopUser{ID: "u123"}, st.MustExist()), st.ErrNotFound)
	assert.NoError(t, shopUsers.Delete(ctx, db, shopUser{ID: "u123"}), "deleting a missing item succeeds without MustExist")
}
