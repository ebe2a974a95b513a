//go:build integration

package singletable_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/testmodel"
)

func TestIntegrationBadInputSendsNothing(t *testing.T) {
	db, cc := coreLocalDB(t)
	before := cc.count()
	for name, call := range map[string]func() error{
		"empty key field": func() error { return testmodel.ShopUsers.Put(ctx, db, testmodel.ShopUser{}) },
		"key over 2 KB": func() error {
			_, err := testmodel.ShopUsers.Get(ctx, db, testmodel.ShopUser{ID: strings.Repeat("é", 1100)})
			return err
		},
		"primary key change": func() error {
			_, err := testmodel.ShopUsers.Update(ctx, db, testmodel.ShopUser{ID: "u"}, st.Set("ID", "v"))
			return err
		},
		"stale index key": func() error {
			_, err := testmodel.ShopOrders.Update(ctx, db, testmodel.ShopOrder{UserID: "u", ID: "o"}, st.Set("Status", "X"), st.NoRead())
			return err
		},
		"unknown field": func() error {
			return testmodel.ShopUsers.Delete(ctx, db, testmodel.ShopUser{ID: "u"}, st.If(st.Exists("Nope")))
		},
		"huge item": func() error {
			return testmodel.ShopOrders.Put(ctx, db, testmodel.ShopOrder{UserID: "u", ID: "o", Note: strings.Repeat("x", 500_000)})
		},
	} {
		err := call()
		require.Error(t, err, name)
		assert.True(t, errors.Is(err, st.ErrInvalidKey) || errors.Is(err, st.ErrInvalidInput), "%s: %v", name, err)
	}
	assert.Equal(t, before, cc.count(), "no request reached DynamoDB Local")

	// Adversarial ids are stored and read back intact, and never collide.
	for _, id := range []string{"u1#ORDER#x", "u1\\", "ünï#😀", "%23", strings.Repeat("z", 2000)} {
		u := testmodel.ShopUser{ID: id, Name: "adversary"}
		require.NoError(t, testmodel.ShopUsers.Create(ctx, db, u), id)
		got, err := testmodel.ShopUsers.Get(ctx, db, testmodel.ShopUser{ID: id})
		require.NoError(t, err)
		assert.Equal(t, id, got.ID)
	}
	require.NoError(t, testmodel.ShopOrders.Create(ctx, db, testmodel.ShopOrder{UserID: "u1", ID: "x", Date: "2024-01-01"}))
	_, err := testmodel.ShopUsers.Get(ctx, db, testmodel.ShopUser{ID: "u1"})
	assert.ErrorIs(t, err, st.ErrNotFound)
}
