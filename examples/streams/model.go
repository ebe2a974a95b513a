package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/stream"
)

// The seed's orders (dynamodb-access-patterns.txt) with a stream: orders
// under their user, order items under their order, and what a stream
// processor derives from them (dynamodb-design-patterns.txt, "Streams"):
// each order's total, kept from its items' changes, and a log of its
// status changes.
//
//	PK: USER#user_123    SK: ORDER#2026-02-17#order_456   Order
//	PK: ORDER#order_456  SK: ITEM#item_789                OrderItem
//	PK: ORDER#order_456  SK: TOTAL                        OrderTotal (derived)
//	PK: ORDER#order_456  SK: STATUS#<sequence number>     StatusChange (derived)

// Order is an order, stored under its user.
type Order struct {
	UserID  string `dynamodbav:"userId"`
	ID      string `dynamodbav:"orderId"`
	Date    string `dynamodbav:"orderDate"`
	Status  string `dynamodbav:"status"`
	Address string `dynamodbav:"shippingAddress,omitempty"`
}

// OrderItem is one line of an order; prices are in cents.
type OrderItem struct {
	OrderID   string `dynamodbav:"orderId"`
	ID        string `dynamodbav:"itemId"`
	ProductID string `dynamodbav:"productId"`
	Quantity  int64  `dynamodbav:"quantity"`
	UnitPrice int64  `dynamodbav:"unitPrice"`
}

// OrderTotal is the derived total of an order's items. LastSeq is the
// sequence number of the last item change applied, zero-padded so that it
// compares as text: a change at or before it was applied already.
type OrderTotal struct {
	OrderID string `dynamodbav:"orderId"`
	Total   int64  `dynamodbav:"total"`
	Lines   int64  `dynamodbav:"lines"`
	LastSeq string `dynamodbav:"lastSeq"`
}

// StatusChange records one change of an order's status, keyed by the
// stream record that carried it, so that it is written once.
type StatusChange struct {
	OrderID string `dynamodbav:"orderId"`
	Seq     string `dynamodbav:"seq"`
	UserID  string `dynamodbav:"userId"`
	From    string `dynamodbav:"from"`
	To      string `dynamodbav:"to"`
}

var (
	Shop          = st.MustTable("StreamsOrders", st.WithStream(st.StreamNewAndOldImages))
	Orders        = st.MustDefine[Order](Shop, "Order", st.Key("USER#{UserID}", "ORDER#{Date}#{ID}"))
	OrderItems    = st.MustDefine[OrderItem](Shop, "OrderItem", st.Key("ORDER#{OrderID}", "ITEM#{ID}"))
	OrderTotals   = st.MustDefine[OrderTotal](Shop, "OrderTotal", st.Key("ORDER#{OrderID}", "TOTAL"))
	StatusChanges = st.MustDefine[StatusChange](Shop, "StatusChange", st.Key("ORDER#{OrderID}", "STATUS#{Seq}"))

	ItemsOfOrder    = OrderItems.Pattern("ItemsOfOrder").Partition("ORDER#{OrderID}").SortBeginsWith("ITEM#").Must()
	StatusesOfOrder = StatusChanges.Pattern("StatusesOfOrder").Partition("ORDER#{OrderID}").SortBeginsWith("STATUS#").Must()
)

// newHandler is the stream processor: the same one for a Lambda event and
// for records read from the stream. Orders' and items' changes update the
// derived items; the derived items' own records come back through the
// stream and are skipped, as nothing is registered for them.
func newHandler(db *st.DB) (*stream.Handler, error) {
	h, err := stream.NewHandler(Shop)
	if err != nil {
		return nil, err
	}
	stream.On(h, OrderItems, func(ctx context.Context, c stream.Change[OrderItem]) error {
		return applyItem(ctx, db, c)
	})
	stream.On(h, Orders, func(ctx context.Context, c stream.Change[Order]) error {
		if !c.FieldChanged("Status") {
			return nil
		}
		return recordStatus(ctx, db, c)
	}, stream.EventModify)
	return h, nil
}

// applyItem adds an item change's difference to its order's total, once:
// on condition that the total has not seen this record yet. An order's
// items share its partition, so their records come in one shard, in order,
// and their sequence numbers grow.
func applyItem(ctx context.Context, db *st.DB, c stream.Change[OrderItem]) error {
	value := func(it *OrderItem) (cents, lines int64) {
		if it == nil {
			return 0, 0
		}
		return it.Quantity * it.UnitPrice, 1
	}
	newV, newL := value(c.New)
	oldV, oldL := value(c.Old)
	seq := padSeq(c.SequenceNumber)
	_, err := OrderTotals.Update(ctx, db, OrderTotal{OrderID: c.Key.OrderID},
		st.Increment("Total", newV-oldV).Increment("Lines", newL-oldL).Set("LastSeq", seq).
			If(st.Or(st.NotExists("LastSeq"), st.Lt("LastSeq", seq))), st.Upsert())
	if errors.Is(err, st.ErrConditionFailed) {
		return nil // applied before: a replay
	}
	return err
}

// recordStatus logs a status change, once: keyed by its record.
func recordStatus(ctx context.Context, db *st.DB, c stream.Change[Order]) error {
	err := StatusChanges.Create(ctx, db, StatusChange{
		OrderID: c.New.ID, Seq: padSeq(c.SequenceNumber), UserID: c.New.UserID, From: c.Old.Status, To: c.New.Status,
	})
	if errors.Is(err, st.ErrAlreadyExists) {
		return nil // logged before: a replay
	}
	return err
}

// padSeq makes sequence numbers (up to 40 digits) compare as text.
func padSeq(seq string) string {
	if len(seq) >= 40 {
		return seq
	}
	return strings.Repeat("0", 40-len(seq)) + seq
}

// seedScript is what happens to the seed's orders: the changes the stream
// records (and testdata/orders_events.json holds, recorded from DynamoDB
// Local's stream by record_integration_test.go).
func seedScript(ctx context.Context, db *st.DB) error {
	steps := []func() error{
		func() error {
			return Orders.Create(ctx, db, Order{UserID: "user_123", ID: "order_456", Date: "2026-02-17", Status: "PENDING"})
		},
		func() error {
			return Orders.Create(ctx, db, Order{UserID: "user_123", ID: "order_457", Date: "2026-02-20", Status: "PENDING"})
		},
		func() error {
			return Orders.Create(ctx, db, Order{UserID: "user_789", ID: "order_900", Date: "2026-02-21", Status: "PENDING"})
		},
		func() error {
			return OrderItems.Create(ctx, db, OrderItem{OrderID: "order_456", ID: "item_789", ProductID: "prod_1", Quantity: 2, UnitPrice: 1999})
		},
		func() error {
			return OrderItems.Create(ctx, db, OrderItem{OrderID: "order_456", ID: "item_790", ProductID: "prod_2", Quantity: 1, UnitPrice: 4500})
		},
		func() error {
			return OrderItems.Create(ctx, db, OrderItem{OrderID: "order_457", ID: "item_800", ProductID: "prod_3", Quantity: 3, UnitPrice: 250})
		},
		func() error {
			return OrderItems.Create(ctx, db, OrderItem{OrderID: "order_900", ID: "item_900", ProductID: "prod_4", Quantity: 1, UnitPrice: 12000})
		},
		func() error { // one more of item_789: +19.99
			_, err := OrderItems.Update(ctx, db, OrderItem{OrderID: "order_456", ID: "item_789"}, st.Increment("Quantity", 1))
			return err
		},
		func() error { return OrderItems.Delete(ctx, db, OrderItem{OrderID: "order_456", ID: "item_790"}) },
		func() error { return setStatus(ctx, db, "user_123", "2026-02-17", "order_456", "PENDING", "SHIPPED") },
		func() error { return setStatus(ctx, db, "user_123", "2026-02-20", "order_457", "PENDING", "CANCELLED") },
		func() error { return setStatus(ctx, db, "user_123", "2026-02-17", "order_456", "SHIPPED", "DELIVERED") },
		func() error { // not a status change
			_, err := Orders.Update(ctx, db, Order{UserID: "user_789", Date: "2026-02-21", ID: "order_900"}, st.Set("Address", "1 Main St"))
			return err
		},
	}
	for i, step := range steps {
		if err := step(); err != nil {
			return fmt.Errorf("seed step %d: %w", i+1, err)
		}
	}
	return nil
}

func setStatus(ctx context.Context, db *st.DB, user, date, id, from, to string) error {
	_, err := Orders.Update(ctx, db, Order{UserID: user, Date: date, ID: id}, st.Set("Status", to).If(st.Eq("Status", from)))
	return err
}

// What the seed script leaves, which the derived items must show.
var (
	wantTotals = map[string]OrderTotal{
		"order_456": {OrderID: "order_456", Total: 3 * 1999, Lines: 1},
		"order_457": {OrderID: "order_457", Total: 3 * 250, Lines: 1},
		"order_900": {OrderID: "order_900", Total: 12000, Lines: 1},
	}
	wantStatuses = map[string][]string{
		"order_456": {"PENDING>SHIPPED", "SHIPPED>DELIVERED"},
		"order_457": {"PENDING>CANCELLED"},
		"order_900": nil,
	}
)
