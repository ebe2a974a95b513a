//go:build integration

package singletable_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/singletable/singletable"
	"github.com/singletable/singletable/singletabletest"
)

// On DynamoDB Local: a unique value whose guard key is just at the limit is
// stored, found and released; one byte more is refused before sending.
func TestIntegrationGuardKeyAtTheLimit(t *testing.T) {
	for _, withSK := range []bool{true, false} {
		table, accounts, limit := guardedModel(t, withSK)
		db := singletabletest.LocalDB(t, table)
		ctx := t.Context()
		atLimit := strings.Repeat("a", limit-guardKeyPrefix)
		require.NoError(t, accounts.Create(ctx, db, guardedAccount{ID: "a1", Email: atLimit}), "limit %d", limit)
		err := accounts.Create(ctx, db, guardedAccount{ID: "a2", Email: atLimit})
		require.ErrorIs(t, err, singletable.ErrAlreadyExists, "the guard holds the value")
		_, err = accounts.Update(ctx, db, guardedAccount{ID: "a1"}, singletable.Set("Email", atLimit[1:]))
		require.NoError(t, err)
		require.NoError(t, accounts.Create(ctx, db, guardedAccount{ID: "a2", Email: atLimit}), "the value was released")
		require.NoError(t, accounts.Delete(ctx, db, guardedAccount{ID: "a2"}))

		err = accounts.Create(ctx, db, guardedAccount{ID: "a3", Email: atLimit + "a"})
		require.ErrorIs(t, err, singletable.ErrInvalidKey)
		_, err = accounts.Get(ctx, db, guardedAccount{ID: "a3"})
		require.ErrorIs(t, err, singletable.ErrNotFound)
	}
}
