package main

import (
	"context"
	"errors"
	"fmt"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/examplekit"
)

// The seed's writes (dynamodb-data-modeling.txt, "Transactions and
// Conditional Writes"): placing an order atomically with its line item and
// the inventory decrement, and the optimistic-locking price update. Products
// are declared with st.Version("Version") for the latter.

func init() { demos = append(demos, placeOrderDemo, priceUpdateDemo) }

// placeOrder is the seed's place_order: create the order and its line item
// and decrement the product's inventory, in one transaction that fails
// (changing nothing) when the product has less than qty in stock.
func placeOrder(ctx context.Context, db *st.DB, order Order, productID string, qty int, price float64) error {
	return db.Transact(ctx, func(tx *st.Tx) error {
		Orders.TxCreate(tx, order)
		OrderItems.TxCreate(tx, OrderItem{OrderID: order.ID, ProductID: productID, Quantity: qty, Price: price})
		Products.TxUpdate(tx, Product{ID: productID}, st.Decrement("Inventory", qty).If(st.Ge("Inventory", qty)))
		return nil
	})
}

func placeOrderDemo(ctx context.Context, db *st.DB) error {
	var c examplekit.Checker
	section("6. Place an order (transaction)", "TransactWriteItems: Put order, Put line item, Update inventory if inventory >= qty")

	before, err := Products.Get(ctx, db, Product{ID: "prod-a"})
	if err != nil {
		return err
	}
	order := Order{UserID: "u789", ID: "2024-101", Date: "2024-01-20", Status: "PENDING", Total: 2 * before.Price}
	if err := placeOrder(ctx, db, order, "prod-a", 2, before.Price); err != nil {
		return fmt.Errorf("placing an order for 2 of %d in stock: %w", before.Inventory, err)
	}
	after, err := Products.Get(ctx, db, Product{ID: "prod-a"})
	if err != nil {
		return err
	}
	fmt.Printf("  ordered 2 x %s: inventory %d -> %d\n", before.Name, before.Inventory, after.Inventory)
	c.Equal("inventory decremented", before.Inventory-2, after.Inventory)
	got, err := Orders.Get(ctx, db, Order{UserID: "u789", ID: "2024-101"})
	c.Equal("order stored", order, got)
	c.Equal("order read without error", nil, err)
	item, err := OrderItems.Get(ctx, db, OrderItem{OrderID: "2024-101", ProductID: "prod-a"})
	c.Equal("line item stored", 2, item.Quantity)
	c.Equal("line item read without error", nil, err)

	// More than exists: the whole transaction is cancelled.
	stock, err := Products.Get(ctx, db, Product{ID: "prod-b"})
	if err != nil {
		return err
	}
	big := Order{UserID: "u789", ID: "2024-102", Date: "2024-01-21", Status: "PENDING", Total: 1000 * stock.Price}
	err = placeOrder(ctx, db, big, "prod-b", stock.Inventory+1, stock.Price)
	fmt.Printf("  ordering %d x %s with %d in stock: %v\n", stock.Inventory+1, stock.Name, stock.Inventory, err)
	var txErr *st.TxError
	c.Equal("oversized order refused as a transaction error", true, errors.As(err, &txErr))
	c.Equal("refusal matches ErrConditionFailed", true, errors.Is(err, st.ErrConditionFailed))
	if txErr != nil && len(txErr.Actions) == 1 {
		f := txErr.Actions[0]
		fmt.Printf("  failed action %d: %s %s on %s (%s)\n", f.Index, f.Op, f.Entity, "PRODUCT#"+stock.ID, f.Code)
		c.Equal("the failed action is the inventory update", []any{2, "Product", "Update", "ConditionalCheckFailed"}, []any{f.Index, f.Entity, f.Op, f.Code})
		cur, ok := Products.CurrentItem(err)
		c.Equal("the error carries the product as stored", []any{true, stock.Inventory}, []any{ok, cur.Inventory})
	} else {
		c.Equal("one failed action", 1, 0)
	}
	_, err = Orders.Get(ctx, db, Order{UserID: "u789", ID: "2024-102"})
	c.Equal("no order left behind", true, errors.Is(err, st.ErrNotFound))
	_, err = OrderItems.Get(ctx, db, OrderItem{OrderID: "2024-102", ProductID: "prod-b"})
	c.Equal("no line item left behind", true, errors.Is(err, st.ErrNotFound))
	still, err := Products.Get(ctx, db, Product{ID: "prod-b"})
	if err != nil {
		return err
	}
	c.Equal("inventory unchanged", stock.Inventory, still.Inventory)
	return c.Err()
}

// updateProductPrice is the seed's update_product_price: the write happens
// only if the product is still at the version read; Products' version field
// is checked and incremented by the library.
func updateProductPrice(ctx context.Context, db *st.DB, read Product, price float64) (Product, error) {
	return Products.Update(ctx, db, read, st.Set("Price", price))
}

func priceUpdateDemo(ctx context.Context, db *st.DB) error {
	var c examplekit.Checker
	section("7. Optimistic price update", "UpdateItem SET price, version = version + 1 IF version = :read")

	mine, err := Products.Get(ctx, db, Product{ID: "prod-c"})
	if err != nil {
		return err
	}
	fmt.Printf("  we read %s at version %d, price %.2f\n", mine.Name, mine.Version, mine.Price)

	// Meanwhile another process changes the price.
	theirs, err := Products.Get(ctx, db, Product{ID: "prod-c"})
	if err != nil {
		return err
	}
	theirs, err = updateProductPrice(ctx, db, theirs, 22.99)
	if err != nil {
		return err
	}
	fmt.Printf("  a concurrent writer set the price to %.2f (version %d)\n", theirs.Price, theirs.Version)

	// Our write is refused rather than silently overwriting theirs.
	_, err = updateProductPrice(ctx, db, mine, 19.99)
	fmt.Printf("  our update from version %d: %v\n", mine.Version, err)
	c.Equal("stale write refused with ErrVersionConflict", true, errors.Is(err, st.ErrVersionConflict))
	var vc *st.VersionConflictError
	if errors.As(err, &vc) {
		c.Equal("conflict says expected and actual versions", []int64{mine.Version, theirs.Version}, []int64{vc.Expected, vc.Actual})
	}
	current, ok := Products.CurrentItem(err)
	c.Equal("the conflict carries the current product", []any{true, 22.99}, []any{ok, current.Price})

	// Re-read (here: from the error) and retry.
	final, err := updateProductPrice(ctx, db, current, 19.99)
	if err != nil {
		return err
	}
	fmt.Printf("  retried from version %d: price %.2f, version %d\n", current.Version, final.Price, final.Version)
	c.Equal("retry succeeded on the current version", []any{19.99, theirs.Version + 1}, []any{final.Price, final.Version})
	return c.Err()
}
