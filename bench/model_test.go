package bench

import (
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	st "github.com/singletable/singletable"
)

// The model every variant reads and writes: one table with two overloaded
// GSIs, as in the seed's e-commerce design. Each struct carries both the
// SDK's `dynamodbav` tags (the library and the hand-written SDK code) and
// guregu's `dynamo` tags, so that all three variants start from the same Go
// values.

const (
	tableName = "BenchShop"
	typeAttr  = st.DefaultTypeAttribute // "_type"
)

// Order has 9 fields and, besides its primary key, a key in GSI1 and GSI2.
type Order struct {
	UserID   string  `dynamodbav:"userId" dynamo:"userId"`
	ID       string  `dynamodbav:"orderId" dynamo:"orderId"`
	Date     string  `dynamodbav:"orderDate" dynamo:"orderDate"`
	Status   string  `dynamodbav:"status" dynamo:"status"`
	Total    float64 `dynamodbav:"total" dynamo:"total"`
	Currency string  `dynamodbav:"currency" dynamo:"currency"`
	Items    int     `dynamodbav:"itemCount" dynamo:"itemCount"`
	Email    string  `dynamodbav:"email" dynamo:"email"`
	Gift     bool    `dynamodbav:"gift" dynamo:"gift"`
}

// OrderItem is a line item of an order.
type OrderItem struct {
	OrderID   string  `dynamodbav:"orderId" dynamo:"orderId"`
	ProductID string  `dynamodbav:"productId" dynamo:"productId"`
	Name      string  `dynamodbav:"productName" dynamo:"productName"`
	Quantity  int     `dynamodbav:"quantity" dynamo:"quantity"`
	Price     float64 `dynamodbav:"price" dynamo:"price"`
}

// Product holds the inventory a transaction decrements.
type Product struct {
	ID        string  `dynamodbav:"productId" dynamo:"productId"`
	Name      string  `dynamodbav:"name" dynamo:"name"`
	Category  string  `dynamodbav:"category" dynamo:"category"`
	Price     float64 `dynamodbav:"price" dynamo:"price"`
	Inventory int     `dynamodbav:"inventory" dynamo:"inventory"`
}

// The library's declarations of the model.
var (
	Shop = st.MustTable(tableName, st.WithGSI("GSI1"), st.WithGSI("GSI2"))

	Orders = st.MustDefine[Order](Shop, "Order",
		st.Key("USER#{UserID}", "ORDER#{ID}"),
		st.Index("GSI1", "STATUS#{Status}", "{Date}#{ID}"),
		st.Index("GSI2", "DATE#{Date}", "{UserID}#{ID}"),
	)
	OrderItems = st.MustDefine[OrderItem](Shop, "OrderItem",
		st.Key("ORDER#{OrderID}", "ITEM#{ProductID}"),
	)
	Products = st.MustDefine[Product](Shop, "Product",
		st.Key("PRODUCT#{ID}", "DETAILS"),
	)
	Customers = st.MustDefine[Customer](Shop, "Customer",
		st.Key("TENANT#{Tenant}", "CUSTOMER#{ID}"),
		st.Index("GSI1", "TIER#{Tier}", "CUSTOMER#{ID}"),
	)
)

// Customer is the wide entity: 21 fields of every common shape (a nested
// struct, a nil pointer to one, a map of strings and one of numbers, slices,
// pointers, times, omitempty fields both set and left out), with a table
// key and a GSI1 key. Fields are encoded by the SDK's default rules (a
// slice is a list, a time an RFC 3339 string), which guregu shares.
type Customer struct {
	Tenant   string            `dynamodbav:"tenant" dynamo:"tenant"`
	ID       string            `dynamodbav:"customerId" dynamo:"customerId"`
	Name     string            `dynamodbav:"name" dynamo:"name"`
	Email    string            `dynamodbav:"email" dynamo:"email"`
	Phone    *string           `dynamodbav:"phone" dynamo:"phone"`
	Tier     string            `dynamodbav:"tier" dynamo:"tier"`
	Age      int               `dynamodbav:"age" dynamo:"age"`
	Score    float64           `dynamodbav:"score" dynamo:"score"`
	Balance  int64             `dynamodbav:"balance" dynamo:"balance"`
	Active   bool              `dynamodbav:"active" dynamo:"active"`
	Created  time.Time         `dynamodbav:"created" dynamo:"created"`
	Seen     *time.Time        `dynamodbav:"seen" dynamo:"seen"`
	Address  Address           `dynamodbav:"address" dynamo:"address"`
	Billing  *Address          `dynamodbav:"billing,omitempty" dynamo:"billing,omitempty"`
	Tags     []string          `dynamodbav:"tags" dynamo:"tags"`
	Visits   []int             `dynamodbav:"visits" dynamo:"visits"`
	Attrs    map[string]string `dynamodbav:"attrs" dynamo:"attrs"`
	Limits   map[string]int    `dynamodbav:"limits" dynamo:"limits"`
	Nickname string            `dynamodbav:"nickname,omitempty" dynamo:"nickname,omitempty"`
	Note     string            `dynamodbav:"note,omitempty" dynamo:"note,omitempty"`
	Referrer *string           `dynamodbav:"referrer,omitempty" dynamo:"referrer,omitempty"`
}

// Address is Customer's nested struct.
type Address struct {
	Street  string `dynamodbav:"street" dynamo:"street"`
	City    string `dynamodbav:"city" dynamo:"city"`
	Zip     string `dynamodbav:"zip" dynamo:"zip"`
	Country string `dynamodbav:"country" dynamo:"country"`
}

// The keys as hand-written code builds them: string concatenation, as the
// hand-written SDK and guregu variants do. (The library also escapes the
// delimiter in values and checks key sizes; the fixtures contain no '#', so
// both give the same strings.)

func orderPK(userID string) string   { return "USER#" + userID }
func orderSK(id string) string       { return "ORDER#" + id }
func itemPK(orderID string) string   { return "ORDER#" + orderID }
func itemSK(productID string) string { return "ITEM#" + productID }
func productPK(id string) string     { return "PRODUCT#" + id }

const productSK = "DETAILS"

func customerPK(tenant string) string { return "TENANT#" + tenant }
func customerSK(id string) string     { return "CUSTOMER#" + id }

func sv(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }

// addOrderKeys adds what the library stores besides the struct's fields:
// the table key, the entity type, and the GSI1 and GSI2 keys.
func addOrderKeys(item map[string]types.AttributeValue, o *Order) {
	item["PK"] = sv(orderPK(o.UserID))
	item["SK"] = sv(orderSK(o.ID))
	item[typeAttr] = sv("Order")
	item["GSI1PK"] = sv("STATUS#" + o.Status)
	item["GSI1SK"] = sv(o.Date + "#" + o.ID)
	item["GSI2PK"] = sv("DATE#" + o.Date)
	item["GSI2SK"] = sv(o.UserID + "#" + o.ID)
}

func addCustomerKeys(item map[string]types.AttributeValue, c *Customer) {
	item["PK"] = sv(customerPK(c.Tenant))
	item["SK"] = sv(customerSK(c.ID))
	item[typeAttr] = sv("Customer")
	item["GSI1PK"] = sv("TIER#" + c.Tier)
	item["GSI1SK"] = sv(customerSK(c.ID))
}

func addItemKeys(item map[string]types.AttributeValue, li *OrderItem) {
	item["PK"] = sv(itemPK(li.OrderID))
	item["SK"] = sv(itemSK(li.ProductID))
	item[typeAttr] = sv("OrderItem")
}

// guregu's idiom for single-table design: a struct holding the key
// attributes, with the domain struct embedded (guregu flattens it).
type guOrder struct {
	PK     string `dynamo:"PK,hash"`
	SK     string `dynamo:"SK,range"`
	Type   string `dynamo:"_type"`
	GSI1PK string `dynamo:"GSI1PK"`
	GSI1SK string `dynamo:"GSI1SK"`
	GSI2PK string `dynamo:"GSI2PK"`
	GSI2SK string `dynamo:"GSI2SK"`
	Order
}

func guOrderOf(o Order) guOrder {
	return guOrder{
		PK: orderPK(o.UserID), SK: orderSK(o.ID), Type: "Order",
		GSI1PK: "STATUS#" + o.Status, GSI1SK: o.Date + "#" + o.ID,
		GSI2PK: "DATE#" + o.Date, GSI2SK: o.UserID + "#" + o.ID,
		Order: o,
	}
}

type guOrderItem struct {
	PK   string `dynamo:"PK,hash"`
	SK   string `dynamo:"SK,range"`
	Type string `dynamo:"_type"`
	OrderItem
}

func guOrderItemOf(li OrderItem) guOrderItem {
	return guOrderItem{PK: itemPK(li.OrderID), SK: itemSK(li.ProductID), Type: "OrderItem", OrderItem: li}
}

type guCustomer struct {
	PK     string `dynamo:"PK,hash"`
	SK     string `dynamo:"SK,range"`
	Type   string `dynamo:"_type"`
	GSI1PK string `dynamo:"GSI1PK"`
	GSI1SK string `dynamo:"GSI1SK"`
	Customer
}

func guCustomerOf(c Customer) guCustomer {
	return guCustomer{
		PK: customerPK(c.Tenant), SK: customerSK(c.ID), Type: "Customer",
		GSI1PK: "TIER#" + c.Tier, GSI1SK: customerSK(c.ID),
		Customer: c,
	}
}

// Fixtures.

const (
	userID   = "u00042"
	nQuery   = 25  // items a Query25 decodes
	nBatch   = 100 // items a BatchWrite100 puts, and keys a BatchGet100 reads
	txQty    = 2   // units the transaction takes from the inventory
	txProdID = "p0007"
)

func makeOrder(user string, i int) Order {
	statuses := [...]string{"PENDING", "SHIPPED", "DELIVERED"}
	return Order{
		UserID:   user,
		ID:       fmt.Sprintf("o%05d", i),
		Date:     fmt.Sprintf("2024-%02d-%02d", 1+i%12, 1+i%28),
		Status:   statuses[i%len(statuses)],
		Total:    float64(1000+i*37%9000) / 100,
		Currency: "EUR",
		Items:    1 + i%7,
		Email:    "jane.doe+" + user + "@example.com",
		Gift:     i%5 == 0,
	}
}

var (
	putOrder  = makeOrder(userID, 1)
	getKey    = Order{UserID: userID, ID: putOrder.ID}
	txOrder   = makeOrder(userID, 2)
	txItem    = OrderItem{OrderID: txOrder.ID, ProductID: txProdID, Name: "USB-C cable, 2 m", Quantity: txQty, Price: 14.99}
	batchSet  = makeOrders("u00100", nBatch)
	querySet  = makeOrders(userID, nQuery)
	txProduct = Product{ID: txProdID}

	// Update sets an order's status and date: both feed GSI1's key
	// (STATUS#{Status}, {Date}#{ID}) and the date GSI2's (DATE#{Date},
	// {UserID}#{ID}); the request gives every field those keys read, so it
	// needs no read first. updOrder is the order as it is afterwards.
	updKey    = Order{UserID: userID, ID: putOrder.ID}
	updStatus = "SHIPPED"
	updDate   = "2024-03-15"
	updOrder  = func() Order { o := putOrder; o.Status, o.Date = updStatus, updDate; return o }()

	batchGetSet  = makeOrders("u00200", nBatch)
	batchGetKeys = func() []Order {
		keys := make([]Order, len(batchGetSet))
		for i, o := range batchGetSet {
			keys[i] = Order{UserID: o.UserID, ID: o.ID}
		}
		return keys
	}()

	wideTenant   = "t0042"
	putCustomer  = makeCustomer(wideTenant, 1)
	getCustomer  = Customer{Tenant: wideTenant, ID: putCustomer.ID}
	wideQuerySet = makeCustomers(wideTenant, nQuery)
)

func makeCustomer(tenant string, i int) Customer {
	tiers := [...]string{"GOLD", "SILVER", "BRONZE"}
	phone := fmt.Sprintf("+33 6 12 34 %02d %02d", i%100, (i*7)%100)
	created := time.Date(2023, time.Month(1+i%12), 1+i%28, 9, i%60, 30, 123456000, time.UTC)
	seen := created.Add(time.Duration(i) * 36 * time.Hour)
	c := Customer{
		Tenant:  tenant,
		ID:      fmt.Sprintf("c%05d", i),
		Name:    fmt.Sprintf("Customer %d", i),
		Email:   fmt.Sprintf("customer%d@example.com", i),
		Phone:   &phone,
		Tier:    tiers[i%len(tiers)],
		Age:     18 + i%60,
		Score:   float64(i*137%10000) / 100,
		Balance: int64(i) * 1234567,
		Active:  i%4 != 0,
		Created: created,
		Seen:    &seen,
		Address: Address{Street: fmt.Sprintf("%d rue de la Paix", i), City: "Paris", Zip: "75002", Country: "FR"},
		Tags:    []string{"newsletter", "vip", fmt.Sprintf("cohort-%d", i%10)},
		Visits:  []int{i, i * 2, i * 3, i * 5},
		Attrs:   map[string]string{"lang": "fr", "channel": "web", "segment": tiers[(i+1)%len(tiers)]},
		Limits:  map[string]int{"orders": 10 + i%5, "returns": 2},
	}
	if i%2 == 1 {
		c.Nickname = fmt.Sprintf("cust-%d", i)
	}
	return c
}

func makeCustomers(tenant string, n int) []Customer {
	out := make([]Customer, n)
	for i := range out {
		out[i] = makeCustomer(tenant, i+1)
	}
	return out
}

func makeOrders(user string, n int) []Order {
	out := make([]Order, n)
	for i := range out {
		out[i] = makeOrder(user, i+1)
	}
	return out
}

func storedOrderKey(o Order) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"PK": sv(orderPK(o.UserID)), "SK": sv(orderSK(o.ID))}
}
