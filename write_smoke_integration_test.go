package singletable

import (
	"context"
	"errors"
	"testing"
)

func TestSmokeWriteIntegration(t *testing.T) {
	ctx := context.Background()
	db := localDB(t, WShop, nil, WithClock(FixedClock))
	u := WUser{ID: "u1", Email: "a@x.com", Name: "Ann", Status: "ACTIVE"}
	if err := WUsers.Create(ctx, db, u); err != nil {
		t.Fatal(err)
	}
	err := WUsers.Create(ctx, db, WUser{ID: "u2", Email: "a@x.com"})
	t.Logf("dup email: %v", err)
	if !errors.Is(err, ErrUniqueViolation) {
		t.Fatalf("want unique violation, got %v", err)
	}
	got, err := WUsers.Get(ctx, db, WUser{ID: "u1"})
	t.Logf("got %+v %v", got, err)
	got2, err := WUsers.Update(ctx, db, got, Set("Email", "b@x.com"), Increment("Logins", 1))
	t.Logf("updated %+v %v", got2, err)
	_, err = WUsers.Update(ctx, db, got, Set("Name", "Bob"))
	t.Logf("stale: %v", err)
	if !errors.Is(err, ErrVersionConflict) {
		t.Fatalf("want version conflict, got %v", err)
	}
	cur, ok := WUsers.CurrentItem(err)
	t.Logf("current %+v %v", cur, ok)
	if err := WUsers.Create(ctx, db, WUser{ID: "u3", Email: "a@x.com"}); err != nil {
		t.Fatalf("a@x.com should be free again: %v", err)
	}
	if err := WUsers.Delete(ctx, db, WUser{ID: "u1"}); err != nil {
		t.Fatal(err)
	}
	if err := WUsers.Create(ctx, db, WUser{ID: "u4", Email: "b@x.com"}); err != nil {
		t.Fatalf("b@x.com should be free again: %v", err)
	}
	// transaction failure
	if err := WProducts.Put(ctx, db, WProduct{ID: "p1", Name: "Pen", Category: "office", Price: 1.5, Inventory: 3}); err != nil {
		t.Fatal(err)
	}
	err = db.Transact(ctx, func(tx *Tx) error {
		WOrders.TxCreate(tx, WOrder{UserID: "u3", ID: "o1", Date: "2024-01-15", Status: "PENDING", Total: 6})
		WProducts.TxUpdate(tx, WProduct{ID: "p1"}, Decrement("Inventory", 4), If(Ge("Inventory", 4)))
		return nil
	})
	t.Logf("tx: %v", err)
	var te *TxError
	if !errors.As(err, &te) || !errors.Is(err, ErrConditionFailed) {
		t.Fatalf("want TxError, got %v", err)
	}
	t.Logf("failures: %+v", te.Actions)
}
