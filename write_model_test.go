package singletable

import (
	"time"
)

// The write-side test model: a shop (users with a unique email, products
// with a version, orders and their items) and a bank.

var wShop = MustTable("WriteShop", WithGSI("GSI1"))

type wUser struct {
	ID      string            `dynamodbav:"id"`
	Email   string            `dynamodbav:"email" singletable:"unique"`
	Name    string            `dynamodbav:"name"` // a reserved word
	Status  string            `dynamodbav:"status"`
	Tags    []string          `dynamodbav:"tags,stringset,omitempty"`
	Log     []string          `dynamodbav:"log,omitempty"`
	Logins  int               `dynamodbav:"logins"`
	Address wAddress          `dynamodbav:"address"`
	Attrs   map[string]string `dynamodbav:"attrs,omitempty"`
	Version int64             `dynamodbav:"version" singletable:"version"`
	Created time.Time         `dynamodbav:"created" singletable:"created"`
	Updated time.Time         `dynamodbav:"updated" singletable:"updated"`
}

type wAddress struct {
	City string `dynamodbav:"city"`
	Zip  string `dynamodbav:"zip-code"` // a special character
}

var wUsers = MustDefine[wUser](wShop, "User",
	Key("USER#{ID}", "PROFILE"),
	Index("GSI1", "STATUS#{Status}", "USER#{ID}"),
)

type wProduct struct {
	ID        string  `dynamodbav:"id"`
	Name      string  `dynamodbav:"name"`
	Category  string  `dynamodbav:"category"`
	Price     float64 `dynamodbav:"price"`
	Inventory int     `dynamodbav:"inventory"`
	Version   int64   `dynamodbav:"version"`
}

var wProducts = MustDefine[wProduct](wShop, "Product",
	Key("PRODUCT#{ID}", "DETAILS"),
	Index("GSI1", "CATEGORY#{Category}", "PRODUCT#{Name}"),
	Version("Version"),
)

type wOrder struct {
	UserID string  `dynamodbav:"userId"`
	ID     string  `dynamodbav:"orderId"`
	Date   string  `dynamodbav:"orderDate"`
	Status string  `dynamodbav:"status"`
	Total  float64 `dynamodbav:"total"`
}

var wOrders = MustDefine[wOrder](wShop, "Order",
	Key("USER#{UserID}", "ORDER#{ID}"),
	Index("GSI1", "STATUS#{Status}", "{Date}#{ID}").When(func(o *wOrder) bool { return o.Status == "PENDING" }, "Status"),
)

type wOrderItem struct {
	OrderID   string  `dynamodbav:"orderId"`
	ProductID string  `dynamodbav:"productId"`
	Quantity  int     `dynamodbav:"quantity"`
	Price     float64 `dynamodbav:"price"`
}

var wOrderItems = MustDefine[wOrderItem](wShop, "OrderItem", Key("ORDER#{OrderID}", "ITEM#{ProductID}"))

// wCounter has no index: the plain version-checked counter.
type wCounter struct {
	ID      string `dynamodbav:"id"`
	Value   int    `dynamodbav:"value"`
	Version int64  `dynamodbav:"version" singletable:"version"`
}

var wCounters = MustDefine[wCounter](wShop, "Counter", Key("COUNTER#{ID}", "COUNTER"))

// wRecord is a plain entity for batches.
type wRecord struct {
	ID   string `dynamodbav:"id"`
	N    int    `dynamodbav:"n"`
	Data string `dynamodbav:"data"`
}

var wRecords = MustDefine[wRecord](wShop, "Record", Key("REC#{ID}", "REC"))

var wClock = time.Date(2024, 1, 15, 10, 30, 0, 0, time.UTC)

func fixedClock() time.Time { return wClock }
