package singletable_test

// Runnable example: decoding raw items.

import (
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable"
)

type Shipment struct {
	ID     string `dynamodbav:"shipmentId"`
	Status string `dynamodbav:"status"`
}

var (
	shipTable = singletable.MustTable("Shipping", singletable.WithStream(singletable.StreamNewAndOldImages))
	_         = singletable.MustDefine[Shipment](shipTable, "Shipment", singletable.Key("SHIPMENT#{ID}", "SHIPMENT"))
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
