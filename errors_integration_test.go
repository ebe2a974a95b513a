//go:build integration

package singletable_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
)

func TestIntegrationBadInputSendsNothing(t *testing.T) {
	db, cc := coreLocalDB(t)
	before := cc.count()
	for name, call := range map[string]func() error{
		"empty key field":    func() error { return shopUsers.Put(ctx, db, shopUser{}) },
		"key over 2 KB":      func() error { _, err := shopUsers.Get(ctx, db, shopUser{ID: strings.Repeat("é", 1100)}); return err },
		"primary key change": func() error { _, err := shopUsers.Update(ctx, db, shopUser{ID: "u"}, st.Set("ID", "v")); return err },
		"stale index key": func() error {
			_, err := shopOrders.Update(ctx, db, shopOrder{UserID: "u", ID: "o"}, st.Set("Status", "X"), st.NoRead())
			return err
		},
		"unknown field": func() error { return shopUsers.Delete(ctx, db, shopUser{ID: "u"}, st.If(st.Exists("Nope"))) },
		"huge item": func() error {
			return shopOrders.Put(ctx, db, shopOrder{UserID: "u", ID: "o", Note: strings.Repeat("x", 500_000)})
		},
	} {
		err := call()
		require.Error(t, err, name)
		assert.True(t, errors.Is(err, st.ErrInvalidKey) || errors.Is(err, st.ErrInvalidInput), "%s: %v", name, err)
	}
	assert.Equal(t, before, cc.count(), "no request reached DynamoDB Local")

	// Adversarial ids are stored and read back intact, and never collide.
	for _, id := range []string{"u1#ORDER#x", "u1\\", "ünï#😀", "%23", strings.Repeat("z", 2000)} {
		u := shopUser{ID: id, Name: "adversary"}
		require.NoError(t, shopUsers.Create(ctx, db, u), id)
		got, err := shopUsers.Get(ctx, db, shopUser{ID: id})
		require.NoError(t, err)
		assert.Equal(t, id, got.ID)
	}
	require.NoError(t, shopOrders.Create(ctx, db, shopOrder{UserID: "u1", ID: "x", Date: "2024-01-01"}))
	_, err := shopUsers.Get(ctx, db, shopUser{ID: "u1"})
	assert.ErrorIs(t, err, st.ErrNotFound)
}
