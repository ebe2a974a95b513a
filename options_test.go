package singletable

import (
	"context"
	"reflect"
	"testing"
)

// collect hands every operation given no options the same noOptions: it
// must still be the zero settings after operations have used it.
func TestNoOptionsStaysZero(t *testing.T) {
	db := New(nil, WShop, WithClock(FixedClock))
	_, _ = WUsers.PutInput(db, WUser{ID: "u1", Email: "a@x"})
	_, _ = WProducts.GetInput(db, WProduct{ID: "p1"})
	_, _ = WProducts.DeleteInput(db, WProduct{ID: "p1"})
	_, _ = WOrders.QueryInput(db, WOrder{UserID: "u1"})
	_, _ = db.TransactInput(func(tx *Tx) error {
		WProducts.TxPut(tx, WProduct{ID: "p2"})
		WOrders.TxDelete(tx, WOrder{UserID: "u1", ID: "o1"})
		return nil
	})
	_, _ = db.BatchWriteInputs([]BatchOp{BatchPut(WRecords, WRecord{ID: "r1"})})
	_ = db.BatchWrite(context.Background(), nil)
	if !reflect.ValueOf(noOptions).IsZero() {
		t.Fatalf("noOptions was written: %+v", noOptions)
	}
}
