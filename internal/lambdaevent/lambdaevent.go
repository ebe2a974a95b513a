// Package lambdaevent turns stream records into the records a Lambda
// function receives (aws-lambda-go's events package), so that tests and the
// streams example can record DynamoDB Local's real stream as Lambda events.
package lambdaevent

import (
	"fmt"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/stream"
)

// FromRecord converts a record of the stream arn (read with
// stream.Read, say) into a Lambda event record, as Lambda's
// event source mapping delivers it.
func FromRecord(r stream.Record, arn string) (events.DynamoDBEventRecord, error) {
	out := events.DynamoDBEventRecord{
		AWSRegion: "us-east-1", EventID: r.EventID, EventName: string(r.Event),
		EventSource: "aws:dynamodb", EventVersion: "1.1", EventSourceArn: arn,
		Change: events.DynamoDBStreamRecord{
			SequenceNumber:              r.SequenceNumber,
			ApproximateCreationDateTime: events.SecondsEpochTime{Time: r.Time},
		},
	}
	if r.Expired {
		out.UserIdentity = &events.DynamoDBUserIdentity{Type: "Service", PrincipalID: "dynamodb.amazonaws.com"}
	}
	var err error
	if out.Change.Keys, err = Map(r.Keys); err != nil {
		return out, err
	}
	if out.Change.OldImage, err = Map(r.OldImage); err != nil {
		return out, err
	}
	out.Change.NewImage, err = Map(r.NewImage)
	return out, err
}

// Map converts an item into Lambda's attribute values.
func Map(m map[string]types.AttributeValue) (map[string]events.DynamoDBAttributeValue, error) {
	if m == nil {
		return nil, nil
	}
	out := make(map[string]events.DynamoDBAttributeValue, len(m))
	for k, v := range m {
		av, err := Value(v)
		if err != nil {
			return nil, fmt.Errorf("attribute %s: %w", k, err)
		}
		out[k] = av
	}
	return out, nil
}

// Value converts one attribute value into Lambda's.
func Value(v types.AttributeValue) (events.DynamoDBAttributeValue, error) {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return events.NewStringAttribute(v.Value), nil
	case *types.AttributeValueMemberN:
		return events.NewNumberAttribute(v.Value), nil
	case *types.AttributeValueMemberB:
		return events.NewBinaryAttribute(v.Value), nil
	case *types.AttributeValueMemberBOOL:
		return events.NewBooleanAttribute(v.Value), nil
	case *types.AttributeValueMemberNULL:
		return events.NewNullAttribute(), nil
	case *types.AttributeValueMemberSS:
		return events.NewStringSetAttribute(v.Value), nil
	case *types.AttributeValueMemberNS:
		return events.NewNumberSetAttribute(v.Value), nil
	case *types.AttributeValueMemberBS:
		return events.NewBinarySetAttribute(v.Value), nil
	case *types.AttributeValueMemberL:
		l := make([]events.DynamoDBAttributeValue, len(v.Value))
		for i, e := range v.Value {
			av, err := Value(e)
			if err != nil {
				return av, fmt.Errorf("[%d]: %w", i, err)
			}
			l[i] = av
		}
		return events.NewListAttribute(l), nil
	case *types.AttributeValueMemberM:
		m, err := Map(v.Value)
		if err != nil {
			return events.DynamoDBAttributeValue{}, err
		}
		if m == nil {
			m = map[string]events.DynamoDBAttributeValue{}
		}
		return events.NewMapAttribute(m), nil
	}
	return events.DynamoDBAttributeValue{}, fmt.Errorf("unknown attribute value %T", v)
}

// Event converts records of the stream arn into one Lambda event.
func Event(recs []stream.Record, arn string) (events.DynamoDBEvent, error) {
	var ev events.DynamoDBEvent
	for _, r := range recs {
		lr, err := FromRecord(r, arn)
		if err != nil {
			return ev, err
		}
		ev.Records = append(ev.Records, lr)
	}
	return ev, nil
}
