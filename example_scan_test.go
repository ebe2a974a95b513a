package singletable_test

// A runnable example of scans, on the recording mock.

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable"
	"github.com/singletable/singletable/singletabletest"
)

type HelpTicket struct {
	ID    string `dynamodbav:"ticketId"`
	Queue string `dynamodbav:"queue"`
}

// scannedTickets answers a Scan with two stored tickets, all in the first
// segment.
func scannedTickets(_ context.Context, in *dynamodb.ScanInput) (*dynamodb.ScanOutput, error) {
	if in.Segment != nil && *in.Segment != 0 {
		return &dynamodb.ScanOutput{}, nil
	}
	item := func(id, queue string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{
			"PK": &types.AttributeValueMemberS{Value: "TICKET#" + id}, "SK": &types.AttributeValueMemberS{Value: "TICKET"},
			"_type":    &types.AttributeValueMemberS{Value: "Ticket"},
			"ticketId": &types.AttributeValueMemberS{Value: id}, "queue": &types.AttributeValueMemberS{Value: queue},
		}
	}
	return &dynamodb.ScanOutput{Items: []map[string]types.AttributeValue{item("t1", "billing"), item("t2", "support")}, ScannedCount: 2}, nil
}

// A scan reads every item of an entity, in parallel segments.
func ExampleEntity_Scan() {
	table := singletable.MustTable("Helpdesk")
	tickets := singletable.MustDefine[HelpTicket](table, "Ticket", singletable.Key("TICKET#{ID}", "TICKET"))
	db := singletable.New(&singletabletest.Client{ScanFunc: scannedTickets}, table)

	for t, err := range tickets.Scan(context.Background(), db, singletable.Segments(4)) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(t.ID, t.Queue)
	}
	// Output:
	// t1 billing
	// t2 support
}
