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
	order    Order
	orders   []Order
	guOrders []guOrder
}

// client is what env needs of a client: singletable's Client for the
// library and the SDK code, the full DynamoDB API for guregu.
type client interface {
	st.Client
	dynamodbiface.DynamoDBAPI
}

func newEnv(c client, table string) *env {
	g := dynamo.NewFromIface(c)
	return &env{
		table: table,
		db:    st.New(c, Shop, st.WithTableName(table)),
		ddb:   c,
		gdb:   g,
		gt:    g.Table(table),
	}
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
	{"TxWrite3", libTx, sdkTx, guTx},
	{"BatchWrite100", libBatch, sdkBatch, guBatch},
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
				ConditionExpression: aws.String("attribute_exists(#pk) AND #inv >= :qty"),
				ExpressionAttributeNames: map[string]string{
					"#inv": "inventory", "#pk": "PK",
				},
				ExpressionAttributeValues: map[string]types.AttributeValue{
					":zero": &types.AttributeValueMemberN{Value: "0"},
					":qty":  qty,
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
			If("attribute_exists($) AND $ >= ?", "PK", "inventory", txQty)).
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
