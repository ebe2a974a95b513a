// Package testmodel holds the models the tests of package singletable share
// (its external tests, package singletable_test), so that each is declared
// once:
//
//   - the seed model ([Seed], [NewSeed]): the access patterns of
//     dynamodb-access-patterns.txt on the table OrdersTable, with its seed data
//     ([Seed.Load]);
//   - the shop model ([Shop] and its entities): the e-commerce model of
//     dynamodb-data-modeling.txt on the table ECommerceApp.
//
// Tests that need a deliberately different model (the oracle's, keys-only
// models, the write model of the package's internal tests) keep their own
// small local model. The golden request files depend on these models: change
// them only with the golden files (go test -update) and a reason.
package testmodel

import (
	"context"
	"time"

	st "github.com/singletable/singletable"
)

// The seed model of dynamodb-access-patterns.txt: users, their orders
// (under the user, and by order id), order items, email lookup, pending
// orders through a sparse overloaded GSI, team memberships both ways.

// User is a user profile.
type User struct {
	ID      string `dynamodbav:"userId"`
	Name    string `dynamodbav:"name"`
	Email   string `dynamodbav:"email,omitempty"`
	Created string `dynamodbav:"createdAt"`
}

// Order is an order, stored under its user.
type Order struct {
	UserID  string  `dynamodbav:"userId"`
	ID      string  `dynamodbav:"orderId"`
	Date    string  `dynamodbav:"orderDate"`
	Status  string  `dynamodbav:"status"`
	Total   float64 `dynamodbav:"total"`
	Address string  `dynamodbav:"shippingAddress,omitempty"`
}

// OrderDetail is an order stored again under its own id.
type OrderDetail struct {
	OrderID string  `dynamodbav:"orderId"`
	UserID  string  `dynamodbav:"userId"`
	Status  string  `dynamodbav:"status"`
	Total   float64 `dynamodbav:"total"`
	Created string  `dynamodbav:"createdAt"`
}

// OrderItem is one line of an order.
type OrderItem struct {
	OrderID   string  `dynamodbav:"orderId"`
	ID        string  `dynamodbav:"itemId"`
	ProductID string  `dynamodbav:"productId"`
	Quantity  int     `dynamodbav:"quantity"`
	UnitPrice float64 `dynamodbav:"unitPrice"`
}

// Membership is a user's membership of a team.
type Membership struct {
	UserID string `dynamodbav:"userId"`
	TeamID string `dynamodbav:"teamId"`
	Role   string `dynamodbav:"role"`
	Joined string `dynamodbav:"joinedAt"`
}

// Seed is the seed model on a fresh table: entities, patterns, collections.
type Seed struct {
	Table        *st.Table
	Users        *st.Entity[User]
	Orders       *st.Entity[Order]
	OrderDetails *st.Entity[OrderDetail]
	OrderItems   *st.Entity[OrderItem]
	Memberships  *st.Entity[Membership]

	GetUser           *st.Pattern[User]
	ListUserOrders    *st.Pattern[Order]
	UserOrdersByDate  *st.Pattern[Order]
	PendingOrders     *st.Pattern[Order]
	GetOrder          *st.Pattern[OrderDetail]
	ListOrderItems    *st.Pattern[OrderItem]
	UserByEmail       *st.Pattern[User]
	UserTeams         *st.Pattern[Membership]
	TeamMembers       *st.Pattern[Membership]
	OrdersWithProduct *st.Pattern[OrderItem]

	UserProfile    *st.Collection
	OrderWithItems *st.Collection
}

// IsPending is the condition of the sparse PendingOrders index.
var IsPending = st.Eq("Status", "PENDING")

// NewSeed declares the seed model on a new table model (each call its own,
// so that a test may add patterns to it).
func NewSeed() *Seed {
	s := &Seed{}
	s.Table = st.MustTable("OrdersTable",
		st.WithGSI("GSI1"),
		st.WithGSI("GSI2", st.KeysOnly()),
	)
	s.Users = st.MustDefine[User](s.Table, "User",
		st.Key("USER#{ID}", "#METADATA#{ID}"),
		st.Index("GSI1", "EMAIL#{Email}", "#METADATA#{ID}"),
	)
	s.Orders = st.MustDefine[Order](s.Table, "Order",
		st.Key("USER#{UserID}", "ORDER#{Date}#{ID}"),
		st.Index("GSI1", "STATUS#{Status}", "ORDER#{Date}#{ID}").When(IsPending),
	)
	s.OrderDetails = st.MustDefine[OrderDetail](s.Table, "OrderDetail",
		st.Key("ORDER#{OrderID}", "#METADATA#{OrderID}"),
	)
	s.OrderItems = st.MustDefine[OrderItem](s.Table, "OrderItem",
		st.Key("ORDER#{OrderID}", "ITEM#{ID}"),
		st.Index("GSI1", "PRODUCT#{ProductID}", "ORDER#{OrderID}#ITEM#{ID}"),
	)
	s.Memberships = st.MustDefine[Membership](s.Table, "Membership",
		st.Key("USER#{UserID}", "TEAM#{TeamID}"),
		st.Index("GSI2", "TEAM#{TeamID}", "USER#{UserID}"),
	)

	s.GetUser = s.Users.Pattern("GetUser").Partition("USER#{ID}").SortEquals().Must()
	s.ListUserOrders = s.Orders.Pattern("ListUserOrders").Partition("USER#{UserID}").SortBeginsWith("ORDER#").Descending().Must()
	s.UserOrdersByDate = s.Orders.Pattern("UserOrdersByDate").Partition("USER#{UserID}").SortBetween().Must()
	s.PendingOrders = s.Orders.Pattern("PendingOrders").On("GSI1").Partition("STATUS#PENDING").Must()
	s.GetOrder = s.OrderDetails.Pattern("GetOrder").SortEquals().Must()
	s.ListOrderItems = s.OrderItems.Pattern("ListOrderItems").Partition("ORDER#{OrderID}").SortBeginsWith("ITEM#").Must()
	s.UserByEmail = s.Users.Pattern("UserByEmail").On("GSI1").Partition("EMAIL#{Email}").Must()
	s.UserTeams = s.Memberships.Pattern("UserTeams").Partition("USER#{UserID}").SortBeginsWith("TEAM#").Must()
	s.TeamMembers = s.Memberships.Pattern("TeamMembers").On("GSI2").Partition("TEAM#{TeamID}").Must()
	s.OrdersWithProduct = s.OrderItems.Pattern("OrdersWithProduct").On("GSI1").Partition("PRODUCT#{ProductID}").Must()

	s.UserProfile = s.Table.Collection("UserProfile", s.Users, s.Orders, s.Memberships).Partition("USER#{UserID}").Must()
	s.OrderWithItems = s.Table.Collection("OrderWithItems", s.OrderDetails, s.OrderItems).Partition("ORDER#{OrderID}").Must()
	return s
}

// The seed data: three users, seven orders (each with its OrderDetail), three
// order items and three team memberships; Load writes them.
var (
	SeedUsers = []User{
		{ID: "user_123", Name: "Ann", Email: "ann@example.com", Created: "2025-12-01"},
		{ID: "user_456", Name: "Bob", Email: "bob@example.com", Created: "2026-01-05"},
		{ID: "user_789", Name: "Cy", Created: "2026-01-09"},
	}
	SeedOrders = []Order{
		{UserID: "user_123", ID: "order_100", Date: "2025-12-30", Status: "SHIPPED", Total: 10},
		{UserID: "user_123", ID: "order_456", Date: "2026-02-17", Status: "PENDING", Total: 39},
		{UserID: "user_123", ID: "order_457", Date: "2026-02-28", Status: "PENDING", Total: 12},
		{UserID: "user_123", ID: "order_458", Date: "2026-02-28", Status: "SHIPPED", Total: 5},
		{UserID: "user_123", ID: "order_470", Date: "2026-03-01", Status: "SHIPPED", Total: 7},
		{UserID: "user_456", ID: "order_500", Date: "2026-01-20", Status: "PENDING", Total: 9.5},
		{UserID: "user_456", ID: "order_501", Date: "2026-01-21", Status: "DELIVERED", Total: 3},
	}
	SeedOrderItems = []OrderItem{
		{OrderID: "order_456", ID: "item_789", ProductID: "p1", Quantity: 2, UnitPrice: 9.5},
		{OrderID: "order_456", ID: "item_790", ProductID: "p2", Quantity: 1, UnitPrice: 20},
		{OrderID: "order_500", ID: "item_800", ProductID: "p1", Quantity: 1, UnitPrice: 9.5},
	}
	SeedMemberships = []Membership{
		{UserID: "user_123", TeamID: "team_1", Role: "owner", Joined: "2025-12-02"},
		{UserID: "user_123", TeamID: "team_2", Role: "member", Joined: "2026-01-02"},
		{UserID: "user_456", TeamID: "team_1", Role: "member", Joined: "2026-01-06"},
	}
)

// Load writes the seed data through the seed model's entities.
func (s *Seed) Load(ctx context.Context, db *st.DB) error {
	for _, u := range SeedUsers {
		if err := s.Users.Put(ctx, db, u); err != nil {
			return err
		}
	}
	for _, o := range SeedOrders {
		if err := s.Orders.Put(ctx, db, o); err != nil {
			return err
		}
		if err := s.OrderDetails.Put(ctx, db, OrderDetail{OrderID: o.ID, UserID: o.UserID, Status: o.Status, Total: o.Total, Created: o.Date}); err != nil {
			return err
		}
	}
	for _, it := range SeedOrderItems {
		if err := s.OrderItems.Put(ctx, db, it); err != nil {
			return err
		}
	}
	for _, ms := range SeedMemberships {
		if err := s.Memberships.Put(ctx, db, ms); err != nil {
			return err
		}
	}
	return nil
}

// The shop model: the e-commerce model of the seed dynamodb-data-modeling.txt
// (users, orders, order items, products, sessions with a TTL) on the table
// ECommerceApp, declared once at package level as the tests have always used
// it.

// ShopUser is a user of the shop model.
type ShopUser struct {
	ID        string    `dynamodbav:"userId"`
	Name      string    `dynamodbav:"name"`
	Email     string    `dynamodbav:"email,omitempty"`
	CreatedAt time.Time `dynamodbav:"createdAt"`
}

// ShopOrder is an order of the shop model; a FLAGGED one enters the sparse GSI2.
type ShopOrder struct {
	UserID string  `dynamodbav:"userId"`
	ID     string  `dynamodbav:"orderId"`
	Date   string  `dynamodbav:"orderDate"`
	Status string  `dynamodbav:"status"`
	Total  float64 `dynamodbav:"total"`
	Note   string  `dynamodbav:"note,omitempty"`
}

// ShopOrderItem is one line of a ShopOrder.
type ShopOrderItem struct {
	OrderID     string  `dynamodbav:"orderId"`
	ProductID   string  `dynamodbav:"productId"`
	ProductName string  `dynamodbav:"productName"`
	Quantity    int     `dynamodbav:"quantity"`
	Price       float64 `dynamodbav:"price"`
}

// ShopProduct is a product, by category on GSI1.
type ShopProduct struct {
	ID        string  `dynamodbav:"productId"`
	Name      string  `dynamodbav:"name"`
	Category  string  `dynamodbav:"category"`
	Price     float64 `dynamodbav:"price"`
	Inventory int     `dynamodbav:"inventory"`
}

// ShopSession is a session that expires through the table's TTL.
type ShopSession struct {
	ID      string    `dynamodbav:"sessionId"`
	UserID  string    `dynamodbav:"userId"`
	Expires time.Time `dynamodbav:"ttl,unixtime"`
}

// Shop is the shop model's table, with its entities and the UserAndOrders
// collection.
var (
	Shop = st.MustTable("ECommerceApp",
		st.WithGSI("GSI1"),
		st.WithGSI("GSI2", st.KeysOnly()),
		st.WithTTL("ttl"),
	)
	ShopUsers = st.MustDefine[ShopUser](Shop, "User",
		st.Key("USER#{ID}", "PROFILE"),
		st.Index("GSI1", "EMAIL#{Email}", "USER#{ID}"),
	)
	ShopOrders = st.MustDefine[ShopOrder](Shop, "Order",
		st.Key("USER#{UserID}", "ORDER#{ID}"),
		st.Index("GSI1", "STATUS#{Status}", "{Date}#{ID}"),
		st.Index("GSI2", "FLAGGED", "{Date}#{ID}").When(st.Eq("Status", "FLAGGED")),
	)
	ShopOrderItems = st.MustDefine[ShopOrderItem](Shop, "OrderItem",
		st.Key("ORDER#{OrderID}", "ITEM#{ProductID}"),
	)
	ShopProducts = st.MustDefine[ShopProduct](Shop, "Product",
		st.Key("PRODUCT#{ID}", "DETAILS"),
		st.Index("GSI1", "CATEGORY#{Category}", "PRODUCT#{ID}"),
	)
	ShopSessions = st.MustDefine[ShopSession](Shop, "Session",
		st.Key("SESSION#{ID}", "METADATA"),
	)
	ShopUserAndOrders = Shop.Collection("UserAndOrders", ShopUsers, ShopOrders).Partition("USER#{UserID}").Must()
)
