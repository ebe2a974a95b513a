package singletable

// The model of the tests inside package singletable (the W* names). It lives
// here, not in internal/testmodel, because a test of package singletable
// cannot import a package that imports singletable; the external tests use
// it as st.WUsers and so on.

import (
	"time"
)

// The write-side test model: a shop (users with a unique email, products
// with a version, orders and their items) and a bank.

var WShop = MustTable("WriteShop", WithGSI("GSI1"))

type WUser struct {
	ID      string            `dynamodbav:"id"`
	Email   string            `dynamodbav:"email" singletable:"unique"`
	Name    string            `dynamodbav:"name"` // a reserved word
	Status  string            `dynamodbav:"status"`
	Tags    []string          `dynamodbav:"tags,stringset,omitempty"`
	Log     []string          `dynamodbav:"log,omitempty"`
	Logins  int               `dynamodbav:"logins"`
	Address WAddress          `dynamodbav:"address"`
	Attrs   map[string]string `dynamodbav:"attrs,omitempty"`
	Version int64             `dynamodbav:"version" singletable:"version"`
	Created time.Time         `dynamodbav:"created" singletable:"created"`
	Updated time.Time         `dynamodbav:"updated" singletable:"updated"`
}

type WAddress struct {
	City string `dynamodbav:"city"`
	Zip  string `dynamodbav:"zip-code"` // a special character
}

var WUsers = MustDefine[WUser](WShop, "User",
	Key("USER#{ID}", "PROFILE"),
	Index("GSI1", "STATUS#{Status}", "USER#{ID}"),
)

type WProduct struct {
	ID        string  `dynamodbav:"id"`
	Name      string  `dynamodbav:"name"`
	Category  string  `dynamodbav:"category"`
	Price     float64 `dynamodbav:"price"`
	Inventory int     `dynamodbav:"inventory"`
	Version   int64   `dynamodbav:"version"`
}

var WProducts = MustDefine[WProduct](WShop, "Product",
	Key("PRODUCT#{ID}", "DETAILS"),
	Index("GSI1", "CATEGORY#{Category}", "PRODUCT#{Name}"),
	Version("Version"),
)

type WOrder struct {
	UserID string  `dynamodbav:"userId"`
	ID     string  `dynamodbav:"orderId"`
	Date   string  `dynamodbav:"orderDate"`
	Status string  `dynamodbav:"status"`
	Total  float64 `dynamodbav:"total"`
}

var WOrders = MustDefine[WOrder](WShop, "Order",
	Key("USER#{UserID}", "ORDER#{ID}"),
	Index("GSI1", "STATUS#{Status}", "{Date}#{ID}").When(Eq("Status", "PENDING")),
)

type WOrderItem struct {
	OrderID   string  `dynamodbav:"orderId"`
	ProductID string  `dynamodbav:"productId"`
	Quantity  int     `dynamodbav:"quantity"`
	Price     float64 `dynamodbav:"price"`
}

var WOrderItems = MustDefine[WOrderItem](WShop, "OrderItem", Key("ORDER#{OrderID}", "ITEM#{ProductID}"))

// WCounter has no index: the plain version-checked counter.
type WCounter struct {
	ID      string `dynamodbav:"id"`
	Value   int    `dynamodbav:"value"`
	Version int64  `dynamodbav:"version" singletable:"version"`
}

var WCounters = MustDefine[WCounter](WShop, "Counter", Key("COUNTER#{ID}", "COUNTER"))

// WRecord is a plain entity for batches.
type WRecord struct {
	ID   string `dynamodbav:"id"`
	N    int    `dynamodbav:"n"`
	Data string `dynamodbav:"data"`
}

var WRecords = MustDefine[WRecord](WShop, "Record", Key("REC#{ID}", "REC"))

var WClock = time.Date(2024, 1, 15, 10, 30, 0, 0, time.UTC)

func FixedClock() time.Time { return WClock }
