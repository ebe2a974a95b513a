package singletable_test

import (
	"time"

	st "github.com/singletable/singletable"
)

// The e-commerce model of the seed dynamodb-data-modeling.txt, shared by the
// core's unit and integration tests.

type shopUser struct {
	ID        string    `dynamodbav:"userId"`
	Name      string    `dynamodbav:"name"`
	Email     string    `dynamodbav:"email,omitempty"`
	CreatedAt time.Time `dynamodbav:"createdAt"`
}

type shopOrder struct {
	UserID string  `dynamodbav:"userId"`
	ID     string  `dynamodbav:"orderId"`
	Date   string  `dynamodbav:"orderDate"`
	Status string  `dynamodbav:"status"`
	Total  float64 `dynamodbav:"total"`
	Note   string  `dynamodbav:"note,omitempty"`
}

type shopOrderItem struct {
	OrderID     string  `dynamodbav:"orderId"`
	ProductID   string  `dynamodbav:"productId"`
	ProductName string  `dynamodbav:"productName"`
	Quantity    int     `dynamodbav:"quantity"`
	Price       float64 `dynamodbav:"price"`
}

type shopProduct struct {
	ID        string  `dynamodbav:"productId"`
	Name      string  `dynamodbav:"name"`
	Category  string  `dynamodbav:"category"`
	Price     float64 `dynamodbav:"price"`
	Inventory int     `dynamodbav:"inventory"`
}

type shopSession struct {
	ID      string    `dynamodbav:"sessionId"`
	UserID  string    `dynamodbav:"userId"`
	Expires time.Time `dynamodbav:"ttl,unixtime"`
}

var (
	shop = st.MustTable("ECommerceApp",
		st.WithGSI("GSI1"),
		st.WithGSI("GSI2", st.KeysOnly()),
		st.WithTTL("ttl"),
	)
	shopUsers = st.MustDefine[shopUser](shop, "User",
		st.Key("USER#{ID}", "PROFILE"),
		st.Index("GSI1", "EMAIL#{Email}", "USER#{ID}"),
	)
	shopOrders = st.MustDefine[shopOrder](shop, "Order",
		st.Key("USER#{UserID}", "ORDER#{ID}"),
		st.Index("GSI1", "STATUS#{Status}", "{Date}#{ID}"),
		st.Index("GSI2", "FLAGGED", "{Date}#{ID}").When(func(o *shopOrder) bool { return o.Status == "FLAGGED" }, "Status"),
	)
	shopOrderItems = st.MustDefine[shopOrderItem](shop, "OrderItem",
		st.Key("ORDER#{OrderID}", "ITEM#{ProductID}"),
	)
	shopProducts = st.MustDefine[shopProduct](shop, "Product",
		st.Key("PRODUCT#{ID}", "DETAILS"),
		st.Index("GSI1", "CATEGORY#{Category}", "PRODUCT#{ID}"),
	)
	shopSessions = st.MustDefine[shopSession](shop, "Session",
		st.Key("SESSION#{ID}", "METADATA"),
	)
	shopUserAndOrders = st.MustCollection(shop, "UserAndOrders", "USER#{UserID}", shopUsers, shopOrders)
)
