//go:build integration

package singletable_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/singletable/singletable"
	"github.com/singletable/singletable/singletabletest"
)

func TestIntegrationBoolKeyFields(t *testing.T) {
	tbl, flags, byState, byPinned := flagModel(t)
	db := singletabletest.LocalDB(t, tbl)
	ctx := t.Context()
	yes, no := true, false
	for _, f := range []Flag{
		{Name: "a", On: true, Pinned: &yes, Comment: "x"},
		{Name: "b", On: false, Pinned: &no},
		{Name: "c", On: false},
	} {
		require.NoError(t, flags.Put(ctx, db, f))
	}
	off, err := byState.Query(ctx, db, Flag{On: false})
	require.NoError(t, err)
	assert.Equal(t, []Flag{{Name: "b"}, {Name: "c"}}, off.Items, "keys-only: Name and On parsed back from the keys")
	on, err := byState.Query(ctx, db, Flag{On: true})
	require.NoError(t, err)
	assert.Equal(t, []Flag{{Name: "a", On: true}}, on.Items)

	unpinned, err := byPinned.Query(ctx, db, Flag{Pinned: &no})
	require.NoError(t, err)
	assert.Equal(t, []Flag{{Name: "b", Pinned: &no}}, unpinned.Items, "a pointer to false is the value false; nil is not in the index")
	_, err = byPinned.Query(ctx, db, Flag{})
	require.ErrorIs(t, err, singletable.ErrInvalidKey, "a nil partition value cannot be queried")
}
