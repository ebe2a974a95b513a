package main

import (
	"time"

	st "github.com/singletable/singletable"
)

// The e-commerce model of the seed article (dynamodb-data-modeling.txt):
//
//	| PK             | SK             | Entity            |
//	| USER#u123      | PROFILE        | User profile      |
//	| USER#u123      | ORDER#2024-001 | Order (user view) |
//	| ORDER#2024-001 | META           | Order details     |
//	| ORDER#2024-001 | ITEM#prod-a    | Order line item   |
//	| PRODUCT#prod-a | DETAILS        | Product           |
//
// with the overloaded GSI1 (STATUS#..., CATEGORY#..., EMAIL#...) and a
// keys-only GSI2, as in the seed's CreateTable input.

// User is a user profile.
type User struct {
	ID        string    `dynamodbav:"userId"`
	Name      string    `dynamodbav:"name"`
	Email     string    `dynamodbav:"email"`
	CreatedAt time.Time `dynamodbav:"createdAt"`
}

// Order is an order, stored under its user.
type Order struct {
	UserID string  `dynamodbav:"userId"`
	ID     string  `dynamodbav:"orderId"`
	Date   string  `dynamodbav:"orderDate"`
	Status string  `dynamodbav:"status"`
	Total  float64 `dynamodbav:"total"`
}

// OrderDetails is an order's metadata, stored under the order.
type OrderDetails struct {
	OrderID       string `dynamodbav:"orderId"`
	ShippingAddr  string `dynamodbav:"shippingAddr"`
	PaymentMethod string `dynamodbav:"paymentMethod"`
}

// OrderItem is a line item of an order.
type OrderItem struct {
	OrderID     string  `dynamodbav:"orderId"`
	ProductID   string  `dynamodbav:"productId"`
	ProductName string  `dynamodbav:"productName"`
	Quantity    int     `dynamodbav:"quantity"`
	Price       float64 `dynamodbav:"price"`
}

// Product is a catalogue product with its stock.
type Product struct {
	ID        string  `dynamodbav:"productId"`
	Name      string  `dynamodbav:"name"`
	Category  string  `dynamodbav:"category"`
	Price     float64 `dynamodbav:"price"`
	Inventory int     `dynamodbav:"inventory"`
	Version   int64   `dynamodbav:"version"`
}

var (
	Shop = st.MustTable("ECommerceApp",
		st.WithGSI("GSI1"),
		st.WithGSI("GSI2", st.KeysOnly()),
	)
	Users = st.MustDefine[User](Shop, "User",
		st.Key("USER#{ID}", "PROFILE"),
		st.Index("GSI1", "EMAIL#{Email}", "USER#{ID}"),
	)
	Orders = st.MustDefine[Order](Shop, "Order",
		st.Key("USER#{UserID}", "ORDER#{ID}"),
		st.Index("GSI1", "STATUS#{Status}", "{Date}"),
	)
	OrderDetailsE = st.MustDefine[OrderDetails](Shop, "OrderDetails",
		st.Key("ORDER#{OrderID}", "META"),
	)
	OrderItems = st.MustDefine[OrderItem](Shop, "OrderItem",
		st.Key("ORDER#{OrderID}", "ITEM#{ProductID}"),
	)
	Products = st.MustDefine[Product](Shop, "Product",
		st.Key("PRODUCT#{ID}", "DETAILS"),
		st.Index("GSI1", "CATEGORY#{Category}", "PRODUCT#{ID}"),
		st.Version("Version"), // optimistic locking (txn.go)
	)

	// UserAndOrders is a user's partition: the profile and every order.
	UserAndOrders = Shop.Collection("UserAndOrders", Users, Orders).Partition("USER#{UserID}").Must()
	// OrderWithItems is an order's partition: its details and line items.
	OrderWithItems = Shop.Collection("OrderWithItems", OrderDetailsE, OrderItems).Partition("ORDER#{OrderID}").Must()
)
