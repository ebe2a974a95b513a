package singletabletest_test

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/singletable/singletable"
	"github.com/singletable/singletable/singletabletest"
)

type Note struct {
	ID   string `dynamodbav:"id"`
	Text string `dynamodbav:"text"`
}

var (
	notesTable = singletable.MustTable("Notes")
	Notes      = singletable.MustDefine[Note](notesTable, "Note", singletable.Key("NOTE#{ID}", "NOTE"))
)

// A unit test runs the code under test against a Client and checks the
// requests it recorded; the Func fields script the answers.
func ExampleClient() {
	mock := &singletabletest.Client{
		PutItemFunc: func(context.Context, *dynamodb.PutItemInput) (*dynamodb.PutItemOutput, error) {
			return &dynamodb.PutItemOutput{}, nil
		},
	}
	db := singletable.New(mock, notesTable)
	if err := Notes.Put(context.Background(), db, Note{ID: "n1", Text: "hello"}); err != nil {
		panic(err)
	}
	for _, c := range mock.Calls() {
		in := c.Input.(*dynamodb.PutItemInput)
		fmt.Println(c.Op, *in.TableName, len(in.Item), "attributes")
	}
	// Output: PutItem Notes 5 attributes
}

// An integration test talks to DynamoDB Local (AWS_ENDPOINT_URL_DYNAMODB);
// in a test, LocalDB does this and also makes a fresh table.
func ExampleLocalClient() {
	ctx := context.Background()
	client, err := singletabletest.LocalClient(ctx)
	if err != nil {
		fmt.Println(err) // AWS_ENDPOINT_URL_DYNAMODB is not set ...
		return
	}
	db := singletable.New(client, notesTable, singletable.WithTableName("notes-dev"))
	if err := db.EnsureTable(ctx); err != nil {
		panic(err)
	}
	_ = Notes.Put(ctx, db, Note{ID: "n1", Text: "hello"})
}
