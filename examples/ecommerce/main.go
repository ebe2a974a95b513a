// Command ecommerce runs the access patterns of the seed article
// dynamodb-data-modeling.txt against DynamoDB Local: it creates the
// ECommerceApp table, writes the seed's users, orders, order details, line
// items and products, runs each access pattern, prints the results, and
// exits non-zero if any result differs from what the seed says.
//
//	make example   # starts DynamoDB Local and runs this
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/examplekit"
	"github.com/singletable/singletable/singletabletest/local"
)

func main() {
	if err := run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		os.Exit(1)
	}
	fmt.Println("\nAll access patterns returned what the seed says.")
}

var (
	created = time.Date(2024, 1, 2, 10, 0, 0, 0, time.UTC)
	users   = []User{
		{ID: "u123", Name: "Jane Doe", Email: "user@example.com", CreatedAt: created},
		{ID: "u456", Name: "John Roe", Email: "john@example.com", CreatedAt: created},
	}
	orders = []Order{
		{UserID: "u123", ID: "2024-001", Date: "2024-01-14", Status: "PENDING", Total: 109.97},
		{UserID: "u123", ID: "2024-002", Date: "2024-01-15", Status: "SHIPPED", Total: 24.99},
		{UserID: "u456", ID: "2024-003", Date: "2024-01-16", Status: "PENDING", Total: 5},
	}
	details = []OrderDetails{
		{OrderID: "2024-001", ShippingAddr: "1 Main St, Springfield", PaymentMethod: "card"},
		{OrderID: "2024-002", ShippingAddr: "1 Main St, Springfield", PaymentMethod: "paypal"},
	}
	items = []OrderItem{
		{OrderID: "2024-001", ProductID: "prod-a", ProductName: "Headphones", Quantity: 1, Price: 79.99},
		{OrderID: "2024-001", ProductID: "prod-b", ProductName: "USB cable", Quantity: 2, Price: 14.99},
		{OrderID: "2024-002", ProductID: "prod-c", ProductName: "Mouse", Quantity: 1, Price: 24.99},
	}
	products = []Product{
		{ID: "prod-a", Name: "Headphones", Category: "electronics", Price: 79.99, Inventory: 25},
		{ID: "prod-b", Name: "USB cable", Category: "electronics", Price: 14.99, Inventory: 100},
		{ID: "prod-c", Name: "Mouse", Category: "electronics", Price: 24.99, Inventory: 40},
	}
)

func run(ctx context.Context) error {
	client, err := local.Client(ctx)
	if err != nil {
		return err
	}
	db := st.New(client, Shop)

	// A fresh table each run, so that the results are the seed's.
	if err := examplekit.FreshTable(ctx, db); err != nil {
		return err
	}
	fmt.Printf("Created table %s (PK/SK, GSI1, keys-only GSI2).\n", db.TableName())
	if err := seed(ctx, db); err != nil {
		return err
	}
	for _, demo := range demos {
		if err := demo(ctx, db); err != nil {
			return err
		}
	}
	return nil
}

// demos are the example's steps after seeding: the read patterns, and any
// further demonstrations registered by other files of this package.
var demos = []func(context.Context, *st.DB) error{readPatterns}

func seed(ctx context.Context, db *st.DB) error {
	for _, u := range users {
		if err := Users.Create(ctx, db, u); err != nil {
			return err
		}
	}
	for _, o := range orders {
		if err := Orders.Create(ctx, db, o); err != nil {
			return err
		}
	}
	for _, d := range details {
		if err := OrderDetailsE.Create(ctx, db, d); err != nil {
			return err
		}
	}
	for _, it := range items {
		if err := OrderItems.Create(ctx, db, it); err != nil {
			return err
		}
	}
	for _, p := range products {
		if err := Products.Create(ctx, db, p); err != nil {
			return err
		}
	}
	fmt.Printf("Wrote %d users, %d orders, %d order details, %d line items, %d products.\n",
		len(users), len(orders), len(details), len(items), len(products))
	return nil
}

func readPatterns(ctx context.Context, db *st.DB) error {
	var c examplekit.Checker

	// 1. Get user profile: GetItem PK=USER#u123, SK=PROFILE.
	u, err := Users.Get(ctx, db, User{ID: "u123"})
	if err != nil {
		return err
	}
	section("1. Get user profile", "GetItem PK=USER#u123 SK=PROFILE")
	table([]string{"userId", "name", "email", "createdAt"}, []string{u.ID, u.Name, u.Email, u.CreatedAt.Format(time.RFC3339)})
	c.Equal("profile", users[0], u)

	// 2. List a user's orders, newest first: Query PK=USER#u123, SK
	// begins_with ORDER#, ScanIndexForward=false, Limit 10. The sort key is
	// ORDER#{ID} and order ids are issued in sequence, so descending by id
	// is newest first (2024-002 of Jan 15, then 2024-001 of Jan 14).
	page, err := Orders.Query(ctx, db, Order{UserID: "u123"}, st.Descending(), st.Limit(10))
	if err != nil {
		return err
	}
	section("2. List user's orders (newest first: ids are sequential)", "Query PK=USER#u123 SK begins_with ORDER# (descending by order id, limit 10)")
	orderRows(page.Items)
	c.Equal("orders newest first", []Order{orders[1], orders[0]}, page.Items)

	// 3. Get an order with all its items: Query PK=ORDER#2024-001.
	res, err := OrderWithItems.Query(ctx, db, st.Values{"OrderID": "2024-001"})
	if err != nil {
		return err
	}
	section("3. Get order with all items", "Query PK=ORDER#2024-001 (meta + line items)")
	var rows [][]string
	for _, it := range res.Items {
		switch v := it.(type) {
		case OrderDetails:
			rows = append(rows, []string{"OrderDetails", "META", v.ShippingAddr + " / " + v.PaymentMethod})
		case OrderItem:
			rows = append(rows, []string{"OrderItem", "ITEM#" + v.ProductID, fmt.Sprintf("%d x %s @ %.2f", v.Quantity, v.ProductName, v.Price)})
		}
	}
	table([]string{"entity", "SK", "data"}, rows...)
	c.Equal("order details", []OrderDetails{details[0]}, OrderDetailsE.From(res))
	c.Equal("order items", items[:2], OrderItems.From(res))
	c.Equal("unknown items", 0, len(res.Unknown))

	// 4. Profile and orders in one query: Query PK=USER#u123.
	res, err = UserAndOrders.Query(ctx, db, st.Values{"UserID": "u123"})
	if err != nil {
		return err
	}
	section("4. Get user profile + orders in one query", "Query PK=USER#u123 (profile + all orders)")
	rows = nil
	for _, it := range res.Items {
		switch v := it.(type) {
		case User:
			rows = append(rows, []string{"User", "PROFILE", v.Name})
		case Order:
			rows = append(rows, []string{"Order", "ORDER#" + v.ID, fmt.Sprintf("%s %.2f %s", v.Date, v.Total, v.Status)})
		}
	}
	table([]string{"entity", "SK", "data"}, rows...)
	c.Equal("profile in collection", []User{users[0]}, Users.From(res))
	c.Equal("orders in collection", orders[:2], Orders.From(res))

	// 5. A specific order of a user: GetItem PK=USER#u123, SK=ORDER#2024-001.
	o, err := Orders.Get(ctx, db, Order{UserID: "u123", ID: "2024-001"})
	if err != nil {
		return err
	}
	section("5. Get specific order for user", "GetItem PK=USER#u123 SK=ORDER#2024-001")
	orderRows([]Order{o})
	c.Equal("specific order", orders[0], o)

	// A key that holds no item is ErrNotFound, not a zero value.
	_, err = Orders.Get(ctx, db, Order{UserID: "u123", ID: "2099-999"})
	c.Equal("missing order is ErrNotFound", true, errors.Is(err, st.ErrNotFound))

	return c.Err()
}

func orderRows(os []Order) {
	rows := make([][]string, len(os))
	for i, o := range os {
		rows[i] = []string{o.ID, o.Date, o.Status, fmt.Sprintf("%.2f", o.Total)}
	}
	table([]string{"orderId", "orderDate", "status", "total"}, rows...)
}

func section(title, request string) {
	fmt.Printf("\n%s\n  %s\n", title, request)
}

func table(header []string, rows ...[]string) {
	w := tabwriter.NewWriter(os.Stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(w, "  "+strings.Join(header, "\t"))
	for _, r := range rows {
		fmt.Fprintln(w, "  "+strings.Join(r, "\t"))
	}
	w.Flush()
}
