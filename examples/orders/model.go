package main

import st "github.com/singletable/singletable"

// The model of the seed dynamodb-access-patterns.txt, "A Concrete Example":
// users, their orders (stored under the user, and again by order id),
// order items, and team memberships, in one table with two overloaded
// global secondary indexes.
//
//	PK: USER#user_123     SK: #METADATA#user_123           User
//	PK: USER#user_123     SK: ORDER#2026-02-17#order_456   Order (under the user)
//	PK: ORDER#order_456   SK: #METADATA#order_456          OrderDetail (the order by id)
//	PK: ORDER#order_456   SK: ITEM#item_789                OrderItem
//	PK: USER#user_123     SK: TEAM#team_456                Membership
//
// GSI1 (ALL) is overloaded: users by email (EMAIL#...), pending orders
// (STATUS#PENDING, sparse: only pending orders write it), order items by
// product (PRODUCT#...). GSI2 (KEYS_ONLY) inverts memberships, for a
// team's members.

// User is a user profile.
type User struct {
	ID      string `dynamodbav:"userId"`
	Name    string `dynamodbav:"name"`
	Email   string `dynamodbav:"email,omitempty"`
	Created string `dynamodbav:"createdAt"`
}

// Order is an order, stored in its user's partition.
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

// Membership joins a user and a team (many to many).
type Membership struct {
	UserID string `dynamodbav:"userId"`
	TeamID string `dynamodbav:"teamId"`
	Role   string `dynamodbav:"role"`
	Joined string `dynamodbav:"joinedAt"`
}

var (
	Shop = st.MustTable("OrdersTable",
		st.WithGSI("GSI1"),
		st.WithGSI("GSI2", st.KeysOnly()),
	)
	Users = st.MustDefine[User](Shop, "User",
		st.Key("USER#{ID}", "#METADATA#{ID}"),
		st.Index("GSI1", "EMAIL#{Email}", "#METADATA#{ID}"),
	)
	Orders = st.MustDefine[Order](Shop, "Order",
		st.Key("USER#{UserID}", "ORDER#{Date}#{ID}"),
		st.Index("GSI1", "STATUS#{Status}", "ORDER#{Date}#{ID}").
			When(st.Eq("Status", "PENDING")), // sparse
	)
	OrderDetails = st.MustDefine[OrderDetail](Shop, "OrderDetail",
		st.Key("ORDER#{OrderID}", "#METADATA#{OrderID}"),
	)
	OrderItems = st.MustDefine[OrderItem](Shop, "OrderItem",
		st.Key("ORDER#{OrderID}", "ITEM#{ID}"),
		st.Index("GSI1", "PRODUCT#{ProductID}", "ORDER#{OrderID}#ITEM#{ID}"),
	)
	Memberships = st.MustDefine[Membership](Shop, "Membership",
		st.Key("USER#{UserID}", "TEAM#{TeamID}"),
		st.Index("GSI2", "TEAM#{TeamID}", "USER#{UserID}"), // inverted index
	)
)

// The access patterns of the seed, in its order.
var (
	// 1. Get user by user_id.
	GetUser = Users.Pattern("GetUser").Partition("USER#{ID}").SortEquals().Must()
	// 2. Get all orders for a user, sorted by date (descending).
	ListUserOrders = Orders.Pattern("ListUserOrders").
			Partition("USER#{UserID}").SortBeginsWith("ORDER#").Descending().Must()
	// 2b. Get orders for a user in a date range.
	UserOrdersByDate = Orders.Pattern("UserOrdersByDate").Partition("USER#{UserID}").SortBetween().Must()
	// 3. Get all orders with status=PENDING across all users (sparse GSI).
	PendingOrders = Orders.Pattern("PendingOrders").On("GSI1").Partition("STATUS#PENDING").Must()
	// 4. Get order by order_id.
	GetOrder = OrderDetails.Pattern("GetOrder").Partition("ORDER#{OrderID}").SortEquals().Must()
	// 5. Get all items in an order.
	ListOrderItems = OrderItems.Pattern("ListOrderItems").Partition("ORDER#{OrderID}").SortBeginsWith("ITEM#").Must()
	// 6. Get all orders containing a specific product_id.
	OrdersWithProduct = OrderItems.Pattern("OrdersWithProduct").On("GSI1").Partition("PRODUCT#{ProductID}").Must()
	// GSI overloading: look up a user by email address.
	UserByEmail = Users.Pattern("UserByEmail").On("GSI1").Partition("EMAIL#{Email}").Must()
	// M:N: a user's teams, and a team's members (inverted index).
	UserTeams   = Memberships.Pattern("UserTeams").Partition("USER#{UserID}").SortBeginsWith("TEAM#").Must()
	TeamMembers = Memberships.Pattern("TeamMembers").On("GSI2").Partition("TEAM#{TeamID}").Must()
	// Item collections: a user with everything under them; an order with its items.
	UserProfile    = Shop.Collection("UserProfile", Users, Orders, Memberships).Partition("USER#{UserID}").Must()
	OrderWithItems = Shop.Collection("OrderWithItems", OrderDetails, OrderItems).Partition("ORDER#{OrderID}").Must()
)
