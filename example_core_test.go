package singletable_test

// Runnable examples (example_*_test.go, by theme, as Go names example
// files): Put, Get and Update requests.

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable"
	"github.com/singletable/singletable/singletabletest"
)

type Customer struct {
	ID    string `dynamodbav:"customerId"`
	Name  string `dynamodbav:"name"`
	Email string `dynamodbav:"email"`
	Tier  string `dynamodbav:"tier"`
}

var (
	exampleTable = singletable.MustTable("Example", singletable.WithGSI("GSI1"))
	Customers    = singletable.MustDefine[Customer](exampleTable, "Customer",
		singletable.Key("CUSTOMER#{ID}", "CUSTOMER#{ID}"),
		singletable.Index("GSI1", "TIER#{Tier}", "CUSTOMER#{Name}"),
	)
)

// The request an operation sends can be built without sending it.
func ExampleEntity_PutInput() {
	db := singletable.New(&singletabletest.Client{}, exampleTable)
	in, err := Customers.PutInput(db, Customer{ID: "42", Name: "Ada", Email: "ada@example.com", Tier: "gold"})
	if err != nil {
		panic(err)
	}
	for _, attr := range []string{"PK", "SK", "GSI1PK", "GSI1SK", "_type"} {
		fmt.Printf("%s = %s\n", attr, in.Item[attr].(*types.AttributeValueMemberS).Value)
	}
	// Output:
	// PK = CUSTOMER#42
	// SK = CUSTOMER#42
	// GSI1PK = TIER#gold
	// GSI1SK = CUSTOMER#Ada
	// _type = Customer
}

// Field values cannot forge keys: the delimiter is escaped.
func ExampleEntity_GetInput_escaping() {
	db := singletable.New(&singletabletest.Client{}, exampleTable)
	in, _ := Customers.GetInput(db, Customer{ID: "42#CUSTOMER#7"})
	fmt.Println(in.Key["PK"].(*types.AttributeValueMemberS).Value)
	// Output: CUSTOMER#42%23CUSTOMER%237
}

// Update recomputes the index keys that read a changed field, or says which
// fields it needs to.
func ExampleEntity_UpdateInput() {
	db := singletable.New(&singletabletest.Client{}, exampleTable)
	_, err := Customers.UpdateInput(db, Customer{ID: "42"}, singletable.Set("Tier", "platinum"))
	fmt.Println(err)
	in, _ := Customers.UpdateInput(db, Customer{ID: "42"}, singletable.Set("Tier", "platinum").Set("Name", "Ada"))
	fmt.Println(*in.UpdateExpression)
	// Output:
	// singletable: Customer.Update: the change to index GSI1's key (GSI1PK "TIER#{Tier}", GSI1SK "CUSTOMER#{Name}") also needs Name: Update would read them first (a strongly consistent GetItem); Set them too, or give Current, for one request
	// SET #n0 = :v0, #n1 = :v1, #n2 = :v2, #n3 = :v3
}

// Unit tests run against the recording mock client.
func ExampleEntity_Get() {
	client := &singletabletest.Client{
		GetItemFunc: func(_ context.Context, in *dynamodb.GetItemInput) (*dynamodb.GetItemOutput, error) {
			return &dynamodb.GetItemOutput{}, nil // no such item
		},
	}
	db := singletable.New(client, exampleTable)
	_, err := Customers.Get(context.Background(), db, Customer{ID: "404"})
	fmt.Println(errors.Is(err, singletable.ErrNotFound), len(client.Calls()))
	// Output: true 1
}

// meteredClient wraps a Client, counting the items it writes: a stand-in
// for a metrics or tracing wrapper.
type meteredClient struct {
	singletable.Client
	puts int
}

func (c *meteredClient) PutItem(ctx context.Context, in *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	c.puts++
	return c.Client.PutItem(ctx, in, optFns...)
}

// A DB's client is wrapped with WithClient, which keeps the DB's other
// settings (table name, clock, cursor keys); New(wrapper, table) would
// start from the defaults.
func ExampleDB_WithClient() {
	db := singletable.New(&singletabletest.Client{}, exampleTable,
		singletable.WithTableName("example-prod"),
		singletable.WithCursorKeys([]byte("a secret of 16 bytes or more")))
	counted := &meteredClient{Client: db.Client()}
	metered := db.WithClient(counted)
	if err := Customers.Put(context.Background(), metered, Customer{ID: "42", Name: "Ada"}); err != nil {
		panic(err)
	}
	fmt.Println(metered.TableName(), counted.puts)
	// Output: example-prod 1
}
