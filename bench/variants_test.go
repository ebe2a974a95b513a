package bench

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"
	"github.com/guregu/dynamo/v2/dynamodbiface"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/stream"
)

// env is what the three variants of an operation run against: the same
// client, seen through the library (db), directly (ddb: what hand-written
// code calls) and through guregu (gt).
type env struct {
	table string
	db    *st.DB
	ddb   st.Client // the SDK's calls the hand-written code makes
	gdb   *dynamo.DB
	gt    dynamo.Table

	// Results of the last call, kept so that the work cannot be optimised
	// away and so that TestSameRequests can compare what each variant
	// decoded. Assigning them allocates nothing.
	order       Order
	orders      []Order
	guOrders    []guOrder
	found       []*Order // BatchGet100, library: one per key, in key order
	customer    Customer
	customers   []Customer
	guCustomers []guCustomer
	sharded     []ShardedCustomer // FanOutWide

	// streams answers the stream op's GetRecords.
	streams streamsClient
	// keep: the stream op keeps every change it decoded (TestSameRequests);
	// the benchmarks hand each change to nothing, as a consumer that
	// handles records one at a time.
	keep       bool
	changes    []stream.Change[Customer]
	sdkChanges []sdkChange
}

// client is what env needs of a client: singletable's Client for the
// library and the SDK code, the full DynamoDB API for guregu.
type client interface {
	st.Client
	dynamodbiface.DynamoDBAPI
}

func newEnv(c client, table string) *env {
	g := dynamo.NewFromIface(c)
	e := &env{
		table: table,
		db:    st.New(c, Shop, st.WithTableName(table)),
		ddb:   c,
		gdb:   g,
		gt:    g.Table(table),
	}
	if s, ok := c.(streamsClient); ok {
		e.streams = s
	}
	return e
}

// variant is one implementation of an operation.
type variant func(ctx context.Context, e *env) error

// benchOp is one benchmarked operation and its variants; a nil variant is
// one the peer library cannot express.
type benchOp struct {
	name                 string
	library, sdk, guregu variant
}

var benchOps = []benchOp{
	{"Put", libPut, sdkPut, guPut},
	{"Get", libGet, sdkGet, guGet},
	{"Query25", libQuery, sdkQuery, guQuery},
	{"Update", libUpdate, sdkUpdate, guUpdate},
	{"TxWrite3", libTx, sdkTx, guTx},
	{"BatchWrite100", libBatch, sdkBatch, guBatch},
	{"BatchGet100", libBatchGet, sdkBatchGet, guBatchGet},
	{"PutWide", libPutWide, sdkPutWide, guPutWide},
	{"GetWide", libGetWide, sdkGetWide, guGetWide},
	{"QueryWide25", libQueryWide, sdkQueryWide, guQueryWide},
	{"TxWide5", libTxWide, sdkTxWide, guTxWide},
	{"FanOutWide", libFanWide, sdkFanWide, nil},
	{"StreamWide100", libStream, sdkStream, nil},
}

var errNotFound = errors.New("not found")

// --- Put: an order with its table key and two GSI keys ----------------------

func libPut(ctx context.Context, e *env) error {
	return Orders.Put(ctx, e.db, putOrder)
}

func sdkPut(ctx context.Context, e *env) error {
	return sdkPutOrder(ctx, e.ddb, e.table, putOrder)
}

// sdkPutOrder is hand-written SDK code for Put: the struct marshalled with
// attributevalue, the key attributes added by hand.
func sdkPutOrder(ctx context.Context, c st.Client, table string, o Order) error {
	item, err := attributevalue.MarshalMap(o)
	if err != nil {
		return err
	}
	addOrderKeys(item, &o)
	_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item})
	return err
}

func guPut(ctx context.Context, e *env) error {
	return e.gt.Put(guOrderOf(putOrder)).Run(ctx)
}

// --- Get: one order by key, decoded ----------------------------------------

func libGet(ctx context.Context, e *env) error {
	o, err := Orders.Get(ctx, e.db, getKey)
	e.order = o
	return err
}

func sdkGet(ctx context.Context, e *env) error {
	o, err := sdkGetOrder(ctx, e.ddb, e.table, getKey.UserID, getKey.ID)
	e.order = o
	return err
}

// sdkGetOrder is hand-written SDK code for Get.
func sdkGetOrder(ctx context.Context, c st.Client, table, userID, id string) (Order, error) {
	var o Order
	out, err := c.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(table),
		Key: map[string]types.AttributeValue{
			"PK": &types.AttributeValueMemberS{Value: orderPK(userID)},
			"SK": &types.AttributeValueMemberS{Value: orderSK(id)},
		},
	})
	if err != nil {
		return o, err
	}
	if len(out.Item) == 0 {
		return o, errNotFound
	}
	err = attributevalue.UnmarshalMap(out.Item, &o)
	return o, err
}

func guGet(ctx context.Context, e *env) error {
	var g guOrder
	err := e.gt.Get("PK", orderPK(getKey.UserID)).Range("SK", dynamo.Equal, orderSK(getKey.ID)).One(ctx, &g)
	e.order = g.Order
	return err
}

// --- Query25: a user's orders (25), decoded ---------------------------------

func libQuery(ctx context.Context, e *env) error {
	page, err := Orders.Query(ctx, e.db, Order{UserID: userID})
	if err != nil {
		return err
	}
	e.orders = page.Items
	return nil
}

func sdkQuery(ctx context.Context, e *env) error {
	os, err := sdkQueryOrders(ctx, e.ddb, e.table, userID)
	e.orders = os
	return err
}

// sdkQueryOrders is hand-written SDK code for a user's orders: the same key
// condition and type filter as the library's, every page decoded.
func sdkQueryOrders(ctx context.Context, c st.Client, table, userID string) ([]Order, error) {
	in := &dynamodb.QueryInput{
		TableName:              aws.String(table),
		KeyConditionExpression: aws.String("#pk = :pk AND begins_with(#sk, :sk)"),
		FilterExpression:       aws.String("#type = :type"),
		ExpressionAttributeNames: map[string]string{
			"#pk": "PK", "#sk": "SK", "#type": typeAttr,
		},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk":   &types.AttributeValueMemberS{Value: orderPK(userID)},
			":sk":   &types.AttributeValueMemberS{Value: "ORDER#"},
			":type": &types.AttributeValueMemberS{Value: "Order"},
		},
	}
	var orders []Order
	for {
		out, err := c.Query(ctx, in)
		if err != nil {
			return nil, err
		}
		var page []Order
		if err := attributevalue.UnmarshalListOfMaps(out.Items, &page); err != nil {
			return nil, err
		}
		if orders == nil {
			orders = page
		} else {
			orders = append(orders, page...)
		}
		if len(out.LastEvaluatedKey) == 0 {
			return orders, nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

func guQuery(ctx context.Context, e *env) error {
	var gs []guOrder
	err := e.gt.Get("PK", orderPK(userID)).Range("SK", dynamo.BeginsWith, "ORDER#").
		Filter("$ = ?", typeAttr, "Order").All(ctx, &gs)
	e.guOrders = gs
	return err
}

// --- TxWrite3: place an order: put the order, put a line item, take the
// quantity from the product's inventory if there is enough ------------------

func libTx(ctx context.Context, e *env) error {
	return e.db.Transact(ctx, func(tx *st.Tx) error {
		Orders.TxPut(tx, txOrder)
		OrderItems.TxPut(tx, txItem)
		Products.TxUpdate(tx, txProduct, st.Decrement("Inventory", txQty).If(st.Ge("Inventory", txQty)))
		return nil
	})
}

func sdkTx(ctx context.Context, e *env) error {
	o, li := txOrder, txItem
	orderItem, err := attributevalue.MarshalMap(o)
	if err != nil {
		return err
	}
	addOrderKeys(orderItem, &o)
	lineItem, err := attributevalue.MarshalMap(li)
	if err != nil {
		return err
	}
	addItemKeys(lineItem, &li)
	qty := &types.AttributeValueMemberN{Value: "2"}
	_, err = e.ddb.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
		TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{TableName: aws.String(e.table), Item: orderItem}},
			{Put: &types.Put{TableName: aws.String(e.table), Item: lineItem}},
			{Update: &types.Update{
				TableName: aws.String(e.table),
				Key: map[string]types.AttributeValue{
					"PK": &types.AttributeValueMemberS{Value: productPK(txProduct.ID)},
					"SK": &types.AttributeValueMemberS{Value: productSK},
				},
				UpdateExpression:    aws.String("SET #inv = if_not_exists(#inv, :zero) - :qty"),
				ConditionExpression: aws.String("attribute_exists(#pk) AND #type = :type AND #inv >= :qty"),
				ExpressionAttributeNames: map[string]string{
					"#inv": "inventory", "#pk": "PK", "#type": typeAttr,
				},
				ExpressionAttributeValues: map[string]types.AttributeValue{
					":zero": &types.AttributeValueMemberN{Value: "0"},
					":qty":  qty,
					":type": &types.AttributeValueMemberS{Value: "Product"},
				},
				ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
			}},
		},
	})
	return err
}

func guTx(ctx context.Context, e *env) error {
	// guregu cannot ask for ReturnValuesOnConditionCheckFailure in a
	// transaction; otherwise the request is the same (TestSameRequests).
	return e.gdb.WriteTx().
		Put(e.gt.Put(guOrderOf(txOrder))).
		Put(e.gt.Put(guOrderItemOf(txItem))).
		Update(e.gt.Update("PK", productPK(txProduct.ID)).Range("SK", productSK).
			SetExpr("$ = if_not_exists($, ?) - ?", "inventory", "inventory", 0, txQty).
			If("attribute_exists($) AND $ = ? AND $ >= ?", "PK", typeAttr, "Product", "inventory", txQty)).
		Run(ctx)
}

// --- BatchWrite100: put 100 orders, in requests of 25 -----------------------

func libBatch(ctx context.Context, e *env) error {
	return e.db.BatchWrite(ctx, []st.BatchOp{st.BatchPut(Orders, batchSet...)})
}

func sdkBatch(ctx context.Context, e *env) error {
	const chunk = 25
	for start := 0; start < len(batchSet); start += chunk {
		part := batchSet[start:min(start+chunk, len(batchSet))]
		reqs := make([]types.WriteRequest, len(part))
		for i := range part {
			item, err := attributevalue.MarshalMap(part[i])
			if err != nil {
				return err
			}
			addOrderKeys(item, &part[i])
			reqs[i] = types.WriteRequest{PutRequest: &types.PutRequest{Item: item}}
		}
		pending := map[string][]types.WriteRequest{e.table: reqs}
		for attempt := 0; len(pending) > 0; attempt++ {
			if attempt > 0 {
				if attempt == 10 {
					return fmt.Errorf("batch write: items still unprocessed after %d attempts", attempt)
				}
				time.Sleep(time.Duration(25<<attempt) * time.Millisecond)
			}
			out, err := e.ddb.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: pending})
			if err != nil {
				return err
			}
			pending = out.UnprocessedItems
		}
	}
	return nil
}

func guBatch(ctx context.Context, e *env) error {
	items := make([]any, len(batchSet))
	for i := range batchSet {
		items[i] = guOrderOf(batchSet[i])
	}
	_, err := e.gt.Batch("PK", "SK").Write().Put(items...).Run(ctx)
	return err
}

// --- Update: set an order's status and date, which feed the keys of both
// GSIs, and decode the item as it is afterwards ------------------------------

func libUpdate(ctx context.Context, e *env) error {
	o, err := Orders.Update(ctx, e.db, updKey, st.Set("Status", updStatus).Set("Date", updDate))
	e.order = o
	return err
}

func sdkUpdate(ctx context.Context, e *env) error {
	o, err := sdkUpdateOrder(ctx, e.ddb, e.table, updKey.UserID, updKey.ID, updStatus, updDate)
	e.order = o
	return err
}

// sdkUpdateOrder is hand-written SDK code for the update: a constant
// expression, the index keys the new status and date give written beside
// them, only if the order exists (and is an Order), the new item returned and decoded.
func sdkUpdateOrder(ctx context.Context, c st.Client, table, userID, id, status, date string) (Order, error) {
	var o Order
	out, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(table),
		Key: map[string]types.AttributeValue{
			"PK": &types.AttributeValueMemberS{Value: orderPK(userID)},
			"SK": &types.AttributeValueMemberS{Value: orderSK(id)},
		},
		UpdateExpression:    aws.String("SET #status = :status, #date = :date, #g1pk = :g1pk, #g1sk = :g1sk, #g2pk = :g2pk, #g2sk = :g2sk"),
		ConditionExpression: aws.String("attribute_exists(#pk) AND #type = :type"),
		ExpressionAttributeNames: map[string]string{
			"#status": "status", "#date": "orderDate", "#pk": "PK", "#type": typeAttr,
			"#g1pk": "GSI1PK", "#g1sk": "GSI1SK", "#g2pk": "GSI2PK", "#g2sk": "GSI2SK",
		},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":status": &types.AttributeValueMemberS{Value: status},
			":date":   &types.AttributeValueMemberS{Value: date},
			":g1pk":   &types.AttributeValueMemberS{Value: "STATUS#" + status},
			":g1sk":   &types.AttributeValueMemberS{Value: date + "#" + id},
			":g2pk":   &types.AttributeValueMemberS{Value: "DATE#" + date},
			":g2sk":   &types.AttributeValueMemberS{Value: userID + "#" + id},
			":type":   &types.AttributeValueMemberS{Value: "Order"},
		},
		ReturnValues:                        types.ReturnValueAllNew,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	if err != nil {
		return o, err
	}
	err = attributevalue.UnmarshalMap(out.Attributes, &o)
	return o, err
}

func guUpdate(ctx context.Context, e *env) error {
	// guregu cannot ask for ReturnValuesOnConditionCheckFailure either.
	var g guOrder
	err := e.gt.Update("PK", orderPK(updKey.UserID)).Range("SK", orderSK(updKey.ID)).
		Set("status", updStatus).Set("orderDate", updDate).
		Set("GSI1PK", "STATUS#"+updStatus).Set("GSI1SK", updDate+"#"+updKey.ID).
		Set("GSI2PK", "DATE#"+updDate).Set("GSI2SK", updKey.UserID+"#"+updKey.ID).
		If("attribute_exists($) AND $ = ?", "PK", typeAttr, "Order").
		Value(ctx, &g)
	e.order = g.Order
	return err
}

// --- BatchGet100: read 100 orders by key (one BatchGetItem), decoded -------

func libBatchGet(ctx context.Context, e *env) error {
	found, err := Orders.BatchGet(ctx, e.db, batchGetKeys)
	e.found = found
	return err
}

func sdkBatchGet(ctx context.Context, e *env) error {
	os, err := sdkBatchGetOrders(ctx, e.ddb, e.table, batchGetKeys)
	e.orders = os
	return err
}

// sdkBatchGetOrders is hand-written SDK code for a batch read: the keys in
// requests of 100, unprocessed keys sent again with backoff, every response
// decoded. The orders come in the order DynamoDB returns them (the
// library's BatchGet returns one entry per key, in the keys' order).
func sdkBatchGetOrders(ctx context.Context, c st.Client, table string, keys []Order) ([]Order, error) {
	const chunk = 100
	var orders []Order
	for start := 0; start < len(keys); start += chunk {
		part := keys[start:min(start+chunk, len(keys))]
		ks := make([]map[string]types.AttributeValue, len(part))
		for i, k := range part {
			ks[i] = map[string]types.AttributeValue{
				"PK": &types.AttributeValueMemberS{Value: orderPK(k.UserID)},
				"SK": &types.AttributeValueMemberS{Value: orderSK(k.ID)},
			}
		}
		pending := map[string]types.KeysAndAttributes{table: {Keys: ks}}
		for attempt := 0; len(pending) > 0; attempt++ {
			if attempt > 0 {
				if attempt == 10 {
					return nil, fmt.Errorf("batch get: keys still unprocessed after %d attempts", attempt)
				}
				time.Sleep(time.Duration(25<<attempt) * time.Millisecond)
			}
			out, err := c.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: pending})
			if err != nil {
				return nil, err
			}
			var page []Order
			if err := attributevalue.UnmarshalListOfMaps(out.Responses[table], &page); err != nil {
				return nil, err
			}
			if orders == nil {
				orders = page
			} else {
				orders = append(orders, page...)
			}
			pending = out.UnprocessedKeys
		}
	}
	return orders, nil
}

func guBatchGet(ctx context.Context, e *env) error {
	keys := make([]dynamo.Keyed, len(batchGetKeys))
	for i, k := range batchGetKeys {
		keys[i] = dynamo.Keys{orderPK(k.UserID), orderSK(k.ID)}
	}
	var gs []guOrder
	err := e.gt.Batch("PK", "SK").Get(keys...).All(ctx, &gs)
	e.guOrders = gs
	return err
}

// --- PutWide, GetWide, QueryWide25: Put, Get and Query25 of the wide
// entity (Customer, 21 fields) --------------------------------------------

func libPutWide(ctx context.Context, e *env) error {
	return Customers.Put(ctx, e.db, putCustomer)
}

func sdkPutWide(ctx context.Context, e *env) error {
	return sdkPutCustomer(ctx, e.ddb, e.table, putCustomer)
}

func sdkPutCustomer(ctx context.Context, c st.Client, table string, v Customer) error {
	item, err := attributevalue.MarshalMap(v)
	if err != nil {
		return err
	}
	addCustomerKeys(item, &v)
	_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item})
	return err
}

func guPutWide(ctx context.Context, e *env) error {
	return e.gt.Put(guCustomerOf(putCustomer)).Run(ctx)
}

func libGetWide(ctx context.Context, e *env) error {
	c, err := Customers.Get(ctx, e.db, getCustomer)
	e.customer = c
	return err
}

func sdkGetWide(ctx context.Context, e *env) error {
	c, err := sdkGetCustomer(ctx, e.ddb, e.table, getCustomer.Tenant, getCustomer.ID)
	e.customer = c
	return err
}

func sdkGetCustomer(ctx context.Context, c st.Client, table, tenant, id string) (Customer, error) {
	var v Customer
	out, err := c.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(table),
		Key: map[string]types.AttributeValue{
			"PK": &types.AttributeValueMemberS{Value: customerPK(tenant)},
			"SK": &types.AttributeValueMemberS{Value: customerSK(id)},
		},
	})
	if err != nil {
		return v, err
	}
	if len(out.Item) == 0 {
		return v, errNotFound
	}
	err = attributevalue.UnmarshalMap(out.Item, &v)
	return v, err
}

func guGetWide(ctx context.Context, e *env) error {
	var g guCustomer
	err := e.gt.Get("PK", customerPK(getCustomer.Tenant)).Range("SK", dynamo.Equal, customerSK(getCustomer.ID)).One(ctx, &g)
	e.customer = g.Customer
	return err
}

func libQueryWide(ctx context.Context, e *env) error {
	page, err := Customers.Query(ctx, e.db, Customer{Tenant: wideTenant})
	if err != nil {
		return err
	}
	e.customers = page.Items
	return nil
}

func sdkQueryWide(ctx context.Context, e *env) error {
	cs, err := sdkQueryCustomers(ctx, e.ddb, e.table, wideTenant)
	e.customers = cs
	return err
}

func sdkQueryCustomers(ctx context.Context, c st.Client, table, tenant string) ([]Customer, error) {
	in := &dynamodb.QueryInput{
		TableName:              aws.String(table),
		KeyConditionExpression: aws.String("#pk = :pk AND begins_with(#sk, :sk)"),
		FilterExpression:       aws.String("#type = :type"),
		ExpressionAttributeNames: map[string]string{
			"#pk": "PK", "#sk": "SK", "#type": typeAttr,
		},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk":   &types.AttributeValueMemberS{Value: customerPK(tenant)},
			":sk":   &types.AttributeValueMemberS{Value: "CUSTOMER#"},
			":type": &types.AttributeValueMemberS{Value: "Customer"},
		},
	}
	var customers []Customer
	for {
		out, err := c.Query(ctx, in)
		if err != nil {
			return nil, err
		}
		var page []Customer
		if err := attributevalue.UnmarshalListOfMaps(out.Items, &page); err != nil {
			return nil, err
		}
		if customers == nil {
			customers = page
		} else {
			customers = append(customers, page...)
		}
		if len(out.LastEvaluatedKey) == 0 {
			return customers, nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

func guQueryWide(ctx context.Context, e *env) error {
	var gs []guCustomer
	err := e.gt.Get("PK", customerPK(wideTenant)).Range("SK", dynamo.BeginsWith, "CUSTOMER#").
		Filter("$ = ?", typeAttr, "Customer").All(ctx, &gs)
	e.guCustomers = gs
	return err
}
