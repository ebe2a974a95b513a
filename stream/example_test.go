package stream_test

// Runnable examples: decoding a stream record, and a stream handler as a
// Lambda function.

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable"
	"github.com/singletable/singletable/stream"
)

type Shipment struct {
	ID     string `dynamodbav:"shipmentId"`
	Status string `dynamodbav:"status"`
}

var (
	shipTable = singletable.MustTable("Shipping", singletable.WithStream(singletable.StreamNewAndOldImages))
	Shipments = singletable.MustDefine[Shipment](shipTable, "Shipment", singletable.Key("SHIPMENT#{ID}", "SHIPMENT"))
)

// A Lambda function for the table's stream: one function per entity and
// event, typed; the first failing record is reported in BatchItemFailures.
func ExampleNewHandler() {
	h, err := stream.NewHandler(shipTable)
	if err != nil {
		panic(err)
	}
	stream.On(h, Shipments, func(ctx context.Context, c stream.Change[Shipment]) error {
		if c.FieldChanged("Status") {
			fmt.Printf("shipment %s: %s -> %s (record %s)\n", c.Key.ID, c.Old.Status, c.New.Status, c.SequenceNumber)
		}
		return nil
	}, stream.EventModify)
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

// A record of one entity decodes into a typed Change: the values before
// and after, and the fields that changed. A record of another entity is
// an error matching singletable.ErrWrongEntity.
func ExampleDecode() {
	item := func(status string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{
			"PK": &types.AttributeValueMemberS{Value: "SHIPMENT#s1"}, "SK": &types.AttributeValueMemberS{Value: "SHIPMENT"},
			"_type": &types.AttributeValueMemberS{Value: "Shipment"}, "shipmentId": &types.AttributeValueMemberS{Value: "s1"},
			"status": &types.AttributeValueMemberS{Value: status},
		}
	}
	rec := stream.Record{Event: stream.EventModify, SequenceNumber: "7", OldImage: item("PACKED"), NewImage: item("SENT")}
	c, err := stream.Decode(Shipments, rec)
	fmt.Println(c.Event, c.Key.ID, c.Old.Status, "->", c.New.Status, c.Changed, err)

	rec.NewImage["_type"] = &types.AttributeValueMemberS{Value: "Parcel"}
	_, err = stream.Decode(Shipments, rec)
	fmt.Println(errors.Is(err, singletable.ErrWrongEntity))
	// Output:
	// MODIFY s1 PACKED -> SENT [Status] <nil>
	// true
}

// Records of an entity the model does not define fail the batch, unless
// OnUnknown takes them; Process handles records however they were read
// (stream.Read, say).
func ExampleOnUnknown() {
	h, err := stream.NewHandler(shipTable, stream.OnUnknown(func(ctx context.Context, rec stream.Record, err error) error {
		fmt.Println("skipped record", rec.SequenceNumber+":", errors.Is(err, singletable.ErrWrongEntity))
		return nil
	}))
	if err != nil {
		panic(err)
	}
	ghost := map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "GHOST#1"}, "SK": &types.AttributeValueMemberS{Value: "GHOST"},
		"_type": &types.AttributeValueMemberS{Value: "Ghost"},
	}
	failed := h.Process(context.Background(), []stream.Record{{Event: stream.EventInsert, SequenceNumber: "8", NewImage: ghost}})
	fmt.Println(failed == nil)
	// Output:
	// skipped record 8: true
	// true
}
