package singletable_test

// Runnable examples: decoding raw items, stream records and a stream
// handler.

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable"
)

type Shipment struct {
	ID     string `dynamodbav:"shipmentId"`
	Status string `dynamodbav:"status"`
}

var (
	shipTable = singletable.MustTable("Shipping", singletable.WithStream(singletable.StreamNewAndOldImages))
	Shipments = singletable.MustDefine[Shipment](shipTable, "Shipment", singletable.Key("SHIPMENT#{ID}", "SHIPMENT"))
)

// Any raw item of the table decodes into its entity's Go type; an item of
// no entity is an error that carries it.
func ExampleTable_Decode() {
	item := map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "SHIPMENT#s1"}, "SK": &types.AttributeValueMemberS{Value: "SHIPMENT"},
		"_type": &types.AttributeValueMemberS{Value: "Shipment"}, "status": &types.AttributeValueMemberS{Value: "SENT"},
	}
	v, err := shipTable.Decode(item)
	fmt.Printf("%#v %v\n", v, err)

	// A keys-only index item: matched, and its fields parsed, by its keys.
	v, err = shipTable.Decode(map[string]types.AttributeValue{"PK": item["PK"], "SK": item["SK"]})
	fmt.Printf("%#v %v\n", v, err)

	item["_type"] = &types.AttributeValueMemberS{Value: "Parcel"}
	_, err = shipTable.Decode(item)
	var unknown *singletable.UnknownEntityError
	fmt.Println(errors.As(err, &unknown), unknown.Type, errors.Is(err, singletable.ErrWrongEntity))
	// Output:
	// singletable_test.Shipment{ID:"s1", Status:"SENT"} <nil>
	// singletable_test.Shipment{ID:"s1", Status:""} <nil>
	// true Parcel true
}

// A Lambda function for the table's stream: one function per entity and
// event, typed; the first failing record is reported in BatchItemFailures.
func ExampleNewStreamHandler() {
	h := singletable.NewStreamHandler(shipTable)
	singletable.On(h, Shipments, func(ctx context.Context, c singletable.Change[Shipment]) error {
		if c.FieldChanged("Status") {
			fmt.Printf("shipment %s: %s -> %s (record %s)\n", c.Key.ID, c.Old.Status, c.New.Status, c.SequenceNumber)
		}
		return nil
	}, singletable.EventModify)
	image := func(status string) map[string]events.DynamoDBAttributeValue {
		return map[string]events.DynamoDBAttributeValue{
			"PK": events.NewStringAttribute("SHIPMENT#s1"), "SK": events.NewStringAttribute("SHIPMENT"),
			"_type": events.NewStringAttribute("Shipment"), "shipmentId": events.NewStringAttribute("s1"),
			"status": events.NewStringAttribute(status),
		}
	}
	ev := events.DynamoDBEvent{Records: []events.DynamoDBEventRecord{{
		EventName: "MODIFY",
		Change: events.DynamoDBStreamRecord{
			SequenceNumber: "4100000000019118544662",
			Keys:           map[string]events.DynamoDBAttributeValue{"PK": events.NewStringAttribute("SHIPMENT#s1"), "SK": events.NewStringAttribute("SHIPMENT")},
			OldImage:       image("PACKED"), NewImage: image("SENT"),
		},
	}}}
	resp, err := h.HandleLambda(context.Background(), ev) // lambda.Start(h.HandleLambda) in a function
	fmt.Println(len(resp.BatchItemFailures), err)
	// Output:
	// shipment s1: PACKED -> SENT (record 4100000000019118544662)
	// 0 <nil>
}
