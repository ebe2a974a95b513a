package bench

import (
	"fmt"

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
)

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

// Fixtures.

const (
	userID   = "u00042"
	nQuery   = 25  // items a Query25 decodes
	nBatch   = 100 // items a BatchWrite100 puts
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
)

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
