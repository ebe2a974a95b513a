// Package lambdaevent turns records of the DynamoDB Streams API into the
// records a Lambda function receives (aws-lambda-go's events package), so
// that tests and the streams example can record DynamoDB Local's real
// stream as Lambda events.
package lambdaevent

import (
	"fmt"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	streamtypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
)

// FromStreams converts a Streams API record of the stream arn into a Lambda
// event record, as Lambda's event source mapping delivers it.
func FromStreams(r streamtypes.Record, arn string) (events.DynamoDBEventRecord, error) {
	out := events.DynamoDBEventRecord{
		AWSRegion: aws.ToString(r.AwsRegion), EventID: aws.ToString(r.EventID), EventName: string(r.EventName),
		EventSource: aws.ToString(r.EventSource), EventVersion: aws.ToString(r.EventVersion), EventSourceArn: arn,
	}
	if u := r.UserIdentity; u != nil {
		out.UserIdentity = &events.DynamoDBUserIdentity{Type: aws.ToString(u.Type), PrincipalID: aws.ToString(u.PrincipalId)}
	}
	d := r.Dynamodb
	if d == nil {
		return out, nil
	}
	out.Change = events.DynamoDBStreamRecord{
		SequenceNumber: aws.ToString(d.SequenceNumber), SizeBytes: aws.ToInt64(d.SizeBytes), StreamViewType: string(d.StreamViewType),
	}
	if d.ApproximateCreationDateTime != nil {
		out.Change.ApproximateCreationDateTime = events.SecondsEpochTime{Time: *d.ApproximateCreationDateTime}
	}
	var err error
	if out.Change.Keys, err = Map(d.Keys); err != nil {
		return out, err
	}
	if out.Change.OldImage, err = Map(d.OldImage); err != nil {
		return out, err
	}
	out.Change.NewImage, err = Map(d.NewImage)
	return out, err
}

// Map converts a Streams API item into Lambda's attribute values.
func Map(m map[string]streamtypes.AttributeValue) (map[string]events.DynamoDBAttributeValue, error) {
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

// Value converts one Streams API attribute value into Lambda's.
func Value(v streamtypes.AttributeValue) (events.DynamoDBAttributeValue, error) {
	switch v := v.(type) {
	case *streamtypes.AttributeValueMemberS:
		return events.NewStringAttribute(v.Value), nil
	case *streamtypes.AttributeValueMemberN:
		return events.NewNumberAttribute(v.Value), nil
	case *streamtypes.AttributeValueMemberB:
		return events.NewBinaryAttribute(v.Value), nil
	case *streamtypes.AttributeValueMemberBOOL:
		return events.NewBooleanAttribute(v.Value), nil
	case *streamtypes.AttributeValueMemberNULL:
		return events.NewNullAttribute(), nil
	case *streamtypes.AttributeValueMemberSS:
		return events.NewStringSetAttribute(v.Value), nil
	case *streamtypes.AttributeValueMemberNS:
		return events.NewNumberSetAttribute(v.Value), nil
	case *streamtypes.AttributeValueMemberBS:
		return events.NewBinarySetAttribute(v.Value), nil
	case *streamtypes.AttributeValueMemberL:
		l := make([]events.DynamoDBAttributeValue, len(v.Value))
		for i, e := range v.Value {
			av, err := Value(e)
			if err != nil {
				return av, fmt.Errorf("[%d]: %w", i, err)
			}
			l[i] = av
		}
		return events.NewListAttribute(l), nil
	case *streamtypes.AttributeValueMemberM:
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
