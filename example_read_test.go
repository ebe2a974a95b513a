package singletable_test

// Runnable examples (example_*_test.go, by theme, as Go names example
// files): patterns, queries, collections and the sheet.

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/testmodel"
	"github.com/singletable/singletable/singletabletest"
)

// exampleModel declares the seed model's users and orders (types of
// internal/testmodel) without its patterns, which the examples declare.
func exampleModel() (*singletable.Table, *singletable.Entity[testmodel.Order], *singletable.Entity[testmodel.User]) {
	tbl := singletable.MustTable("ExampleShop", singletable.WithGSI("GSI1"))
	users := singletable.MustDefine[testmodel.User](tbl, "User",
		singletable.Key("USER#{ID}", "#METADATA#{ID}"),
		singletable.Index("GSI1", "EMAIL#{Email}", "#METADATA#{ID}"),
	)
	orders := singletable.MustDefine[testmodel.Order](tbl, "Order",
		singletable.Key("USER#{UserID}", "ORDER#{Date}#{ID}"),
		singletable.Index("GSI1", "STATUS#{Status}", "ORDER#{Date}#{ID}").
			When(singletable.Eq("Status", "PENDING")),
	)
	return tbl, orders, users
}

// A named pattern is declared once, checked against the model, and shows
// the request it sends.
func ExampleEntity_Pattern() {
	tbl, orders, _ := exampleModel()
	listUserOrders := orders.Pattern("ListUserOrders").
		Partition("USER#{UserID}").SortBeginsWith("ORDER#").Descending().Must()

	db := singletable.New(&singletabletest.Client{}, tbl)
	in, err := listUserOrders.QueryInput(db, testmodel.Order{UserID: "u123"}, singletable.Limit(10))
	if err != nil {
		panic(err)
	}
	fmt.Println(listUserOrders.Operation(), *in.KeyConditionExpression)
	fmt.Println(in.ExpressionAttributeValues[":v0"].(*types.AttributeValueMemberS).Value,
		in.ExpressionAttributeValues[":v1"].(*types.AttributeValueMemberS).Value, *in.ScanIndexForward, *in.Limit)
	// Output:
	// Query #n0 = :v0 AND begins_with(#n1, :v1)
	// USER#u123 ORDER# false 10
}

// A pattern that does not fit the model fails when it is declared.
func ExamplePattern_Err() {
	_, orders, _ := exampleModel()
	p := orders.Pattern("ByCustomer").Partition("CUSTOMER#{UserID}")
	fmt.Println(p.Err())
	// Output:
	// singletable: entity Order, template "CUSTOMER#{UserID}": pattern ByCustomer: no index serves partition "CUSTOMER#{UserID}": entity Order writes PK "USER#{UserID}", GSI1PK "STATUS#{Status}"; a read no index serves would need a Scan
}

// A SortBetween pattern is read between two typed bounds (QueryBetween,
// or QueryBetweenInput for the request); a bound that stops at the date
// covers the whole day.
func ExamplePattern_SortBetween() {
	tbl, orders, _ := exampleModel()
	byDate := orders.Pattern("UserOrdersByDate").Partition("USER#{UserID}").SortBetween().Must()
	db := singletable.New(&singletabletest.Client{}, tbl)
	in, err := byDate.QueryBetweenInput(db, testmodel.Order{UserID: "u1", Date: "2026-01-01"}, testmodel.Order{Date: "2026-02-28"})
	if err != nil {
		panic(err)
	}
	v := func(k string) string { return in.ExpressionAttributeValues[k].(*types.AttributeValueMemberS).Value }
	fmt.Println(*in.KeyConditionExpression)
	fmt.Println(v(":v1"), "..", v(":v2"))
	// Output:
	// #n0 = :v0 AND #n1 BETWEEN :v1 AND :v2
	// ORDER#2026-01-01# .. ORDER#2026-02-28$
}

// Pages carry an opaque cursor; All iterates across pages and stops when
// the loop does.
func ExamplePattern_All() {
	tbl, orders, _ := exampleModel()
	pending := orders.Pattern("PendingOrders").On("GSI1").Partition("STATUS#PENDING").Must()
	client := &singletabletest.Client{
		QueryFunc: func(_ context.Context, in *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
			item := func(user, id string) map[string]types.AttributeValue {
				s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
				return map[string]types.AttributeValue{
					"PK": s("USER#" + user), "SK": s("ORDER#2026-01-01#" + id), "GSI1PK": s("STATUS#PENDING"), "GSI1SK": s("ORDER#2026-01-01#" + id),
					"_type": s("Order"), "userId": s(user), "orderId": s(id), "orderDate": s("2026-01-01"), "status": s("PENDING"),
				}
			}
			return &dynamodb.QueryOutput{Items: []map[string]types.AttributeValue{item("u1", "o1"), item("u2", "o2"), item("u3", "o3")}}, nil
		},
	}
	db := singletable.New(client, tbl)
	for o, err := range pending.All(context.Background(), db, testmodel.Order{}) {
		if err != nil {
			panic(err)
		}
		fmt.Println(o.UserID, o.ID, o.Status)
		if o.ID == "o2" {
			break
		}
	}
	_, err := pending.Query(context.Background(), db, testmodel.Order{}, singletable.ConsistentRead())
	fmt.Println(err)
	fmt.Println(len(client.Calls()), "request")
	// Output:
	// u1 o1 PENDING
	// u2 o2 PENDING
	// singletable: PendingOrders: ConsistentRead: index GSI1 is a global secondary index, which serves only eventually consistent reads
	// 1 request
}

// Entity.Query reads an entity's partition as a pattern does: a Page, whose
// Cursor resumes it with After.
func ExampleEntity_Query() {
	tbl, orders, _ := exampleModel()
	client := &singletabletest.Client{
		QueryFunc: func(_ context.Context, in *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
			s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
			item := func(id string) map[string]types.AttributeValue {
				return map[string]types.AttributeValue{"PK": s("USER#u1"), "SK": s("ORDER#2026-01-01#" + id),
					"_type": s("Order"), "userId": s("u1"), "orderId": s(id), "orderDate": s("2026-01-01")}
			}
			if in.ExclusiveStartKey == nil { // the first page, and where the next one starts
				return &dynamodb.QueryOutput{Items: []map[string]types.AttributeValue{item("o1"), item("o2")},
					LastEvaluatedKey: map[string]types.AttributeValue{"PK": s("USER#u1"), "SK": s("ORDER#2026-01-01#o2")}}, nil
			}
			return &dynamodb.QueryOutput{Items: []map[string]types.AttributeValue{item("o3")}}, nil
		},
	}
	db := singletable.New(client, tbl)
	ctx := context.Background()
	page, err := orders.Query(ctx, db, testmodel.Order{UserID: "u1"}, singletable.Limit(2))
	if err != nil {
		panic(err)
	}
	next, err := orders.Query(ctx, db, testmodel.Order{UserID: "u1"}, singletable.Limit(2), singletable.After(page.Cursor))
	if err != nil {
		panic(err)
	}
	for _, o := range append(page.Items, next.Items...) {
		fmt.Println(o.ID)
	}
	fmt.Println(next.Cursor == "")
	// Output:
	// o1
	// o2
	// o3
	// true
}

// The access-pattern sheet is generated from the model.
func ExampleTable_Sheet() {
	tbl, orders, users := exampleModel()
	users.Pattern("UserByEmail").On("GSI1").Partition("EMAIL#{Email}").Must()
	orders.Pattern("PendingOrders").On("GSI1").Partition("STATUS#PENDING").Must()
	fmt.Print(tbl.Sheet())
	fmt.Print(singletable.LintReport(tbl.Lint()))
	// Output:
	// # Table ExampleShop
	//
	// Keys: partition key `PK`, sort key `SK`; entity type in `_type`.
	//
	// ## Access patterns
	//
	// | # | Pattern | Operation | Index | Key condition | Returns |
	// |---|---|---|---|---|---|
	// | 1 | UserByEmail | Query | GSI1 | `GSI1PK = EMAIL#{Email} AND begins_with(GSI1SK, "#METADATA#")` | User |
	// | 2 | PendingOrders | Query | GSI1 | `GSI1PK = STATUS#PENDING AND begins_with(GSI1SK, "ORDER#")` | Order |
	//
	// ## Table layout
	//
	// | Entity | PK | SK | GSI1PK | GSI1SK |
	// |---|---|---|---|---|
	// | User | `USER#{ID}` | `#METADATA#{ID}` | `EMAIL#{Email}` sparse by absence of Email | `#METADATA#{ID}` |
	// | Order | `USER#{UserID}` | `ORDER#{Date}#{ID}` | `STATUS#{Status}` when Status | `ORDER#{Date}#{ID}` |
	//
	// ## Indexes
	//
	// | Index | Partition key | Sort key | Projection |
	// |---|---|---|---|
	// | GSI1 | GSI1PK | GSI1SK | ALL |
	// info: pattern PendingOrders: reads the single partition "STATUS#PENDING": every such read hits one partition (hot); fine for a small sparse index
}

// A collection reads several entity types from one partition in one Query.
func ExampleCollection() {
	tbl, orders, users := exampleModel()
	profile := tbl.Collection("UserAndOrders", users, orders).Partition("USER#{UserID}").Must()
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	client := &singletabletest.Client{
		QueryFunc: func(context.Context, *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
			return &dynamodb.QueryOutput{Items: []map[string]types.AttributeValue{
				{"PK": s("USER#u1"), "SK": s("#METADATA#u1"), "_type": s("User"), "userId": s("u1"), "name": s("Ann")},
				{"PK": s("USER#u1"), "SK": s("ORDER#2026-01-01#o1"), "_type": s("Order"), "userId": s("u1"), "orderId": s("o1")},
				{"PK": s("USER#u1"), "SK": s("WISHLIST#1"), "_type": s("Wishlist")},
			}}, nil
		},
	}
	res, err := profile.Query(context.Background(), singletable.New(client, tbl), singletable.Values{"UserID": "u1"})
	if err != nil {
		panic(err)
	}
	fmt.Println(users.From(res)[0].Name, len(orders.From(res)), "order,", len(res.Unknown), "unknown")
	// Output:
	// Ann 1 order, 1 unknown
}
