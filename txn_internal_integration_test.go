//go:build integration

package singletable

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestIntegrationTransactGetAndBatchGet(t *testing.T) {
	ctx := context.Background()
	db := localDB(t, WShop, nil)
	require.NoError(t, db.BatchWrite(ctx, []BatchOp{
		BatchPut(WProducts, WProduct{ID: "p1", Name: "Pen", Category: "office", Inventory: 3}, WProduct{ID: "p2", Name: "Ink", Category: "office"}),
		BatchPut(WOrders, WOrder{UserID: "u1", ID: "o1", Status: "PENDING", Date: "2024-01-15"}),
	}))
	tg := db.TransactGet()
	p1 := WProducts.TxGet(tg, WProduct{ID: "p1"})
	o1 := WOrders.TxGet(tg, WOrder{UserID: "u1", ID: "o1"})
	missing := WProducts.TxGet(tg, WProduct{ID: "nope"})
	require.NoError(t, tg.Run(ctx))
	p, err := p1.Get()
	require.NoError(t, err)
	assert.Equal(t, 3, p.Inventory)
	assert.Equal(t, int64(1), p.Version, "BatchPut stores version+1")
	assert.Equal(t, "PENDING", o1.Value().Status)
	assert.False(t, missing.Found())

	got, err := WProducts.BatchGet(ctx, db, []WProduct{{ID: "p2"}, {ID: "nope"}, {ID: "p1"}})
	require.NoError(t, err)
	require.Len(t, got, 3)
	assert.Equal(t, "Ink", got[0].Name)
	assert.Nil(t, got[1])
	assert.Equal(t, "Pen", got[2].Name)

	require.NoError(t, db.BatchWrite(ctx, []BatchOp{BatchDelete(WProducts, WProduct{ID: "p1"}, WProduct{ID: "p2"})}))
	got, err = WProducts.BatchGet(ctx, db, []WProduct{{ID: "p1"}, {ID: "p2"}}, ConsistentRead())
	require.NoError(t, err)
	assert.Equal(t, []*WProduct{nil, nil}, got)
}
