package singletable_test

import (
	"testing"

	"github.com/singletable/singletable"
)

// The seed model of dynamodb-access-patterns.txt: users, their orders
// (under the user, and by order id), order items, email lookup, pending
// orders through a sparse overloaded GSI, team memberships both ways.

type User struct {
	ID      string `dynamodbav:"userId"`
	Name    string `dynamodbav:"name"`
	Email   string `dynamodbav:"email,omitempty"`
	Created string `dynamodbav:"createdAt"`
}

type Order struct {
	UserID  string  `dynamodbav:"userId"`
	ID      string  `dynamodbav:"orderId"`
	Date    string  `dynamodbav:"orderDate"`
	Status  string  `dynamodbav:"status"`
	Total   float64 `dynamodbav:"total"`
	Address string  `dynamodbav:"shippingAddress,omitempty"`
}

type OrderDetail struct {
	OrderID string  `dynamodbav:"orderId"`
	UserID  string  `dynamodbav:"userId"`
	Status  string  `dynamodbav:"status"`
	Total   float64 `dynamodbav:"total"`
	Created string  `dynamodbav:"createdAt"`
}

type OrderItem struct {
	OrderID   string  `dynamodbav:"orderId"`
	ID        string  `dynamodbav:"itemId"`
	ProductID string  `dynamodbav:"productId"`
	Quantity  int     `dynamodbav:"quantity"`
	UnitPrice float64 `dynamodbav:"unitPrice"`
}

type Membership struct {
	UserID string `dynamodbav:"userId"`
	TeamID string `dynamodbav:"teamId"`
	Role   string `dynamodbav:"role"`
	Joined string `dynamodbav:"joinedAt"`
}

// seedModel is the seed model on a fresh table: entities, patterns, collections.
type seedModel struct {
	Table        *singletable.Table
	Users        *singletable.Entity[User]
	Orders       *singletable.Entity[Order]
	OrderDetails *singletable.Entity[OrderDetail]
	OrderItems   *singletable.Entity[OrderItem]
	Memberships  *singletable.Entity[Membership]

	GetUser           *singletable.Pattern[User]
	ListUserOrders    *singletable.Pattern[Order]
	UserOrdersByDate  *singletable.Pattern[Order]
	PendingOrders     *singletable.Pattern[Order]
	GetOrder          *singletable.Pattern[OrderDetail]
	ListOrderItems    *singletable.Pattern[OrderItem]
	UserByEmail       *singletable.Pattern[User]
	UserTeams         *singletable.Pattern[Membership]
	TeamMembers       *singletable.Pattern[Membership]
	OrdersWithProduct *singletable.Pattern[OrderItem]

	UserProfile    *singletable.Collection
	OrderWithItems *singletable.Collection
}

func isPending(o *Order) bool { return o.Status == "PENDING" }

// newSeed declares the seed model on a new table model.
func newSeed(t testing.TB) *seedModel {
	t.Helper()
	s := &seedModel{}
	s.Table = singletable.MustTable("OrdersTable",
		singletable.WithGSI("GSI1"),
		singletable.WithGSI("GSI2", singletable.KeysOnly()),
	)
	s.Users = singletable.MustDefine[User](s.Table, "User",
		singletable.Key("USER#{ID}", "#METADATA#{ID}"),
		singletable.Index("GSI1", "EMAIL#{Email}", "#METADATA#{ID}"),
	)
	s.Orders = singletable.MustDefine[Order](s.Table, "Order",
		singletable.Key("USER#{UserID}", "ORDER#{Date}#{ID}"),
		singletable.Index("GSI1", "STATUS#{Status}", "ORDER#{Date}#{ID}").When(isPending, "Status"),
	)
	s.OrderDetails = singletable.MustDefine[OrderDetail](s.Table, "OrderDetail",
		singletable.Key("ORDER#{OrderID}", "#METADATA#{OrderID}"),
	)
	s.OrderItems = singletable.MustDefine[OrderItem](s.Table, "OrderItem",
		singletable.Key("ORDER#{OrderID}", "ITEM#{ID}"),
		singletable.Index("GSI1", "PRODUCT#{ProductID}", "ORDER#{OrderID}#ITEM#{ID}"),
	)
	s.Memberships = singletable.MustDefine[Membership](s.Table, "Membership",
		singletable.Key("USER#{UserID}", "TEAM#{TeamID}"),
		singletable.Index("GSI2", "TEAM#{TeamID}", "USER#{UserID}"),
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
