package stream

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	streamtypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	st "github.com/singletable/singletable"
)

// EventType is what happened to a stream record's item.
type EventType string

// The event types of stream records.
const (
	EventInsert EventType = "INSERT" // a new item was written
	EventModify EventType = "MODIFY" // an existing item was changed
	EventRemove EventType = "REMOVE" // an item was deleted (by a request, or by TTL: see Record.Expired)
)

// valid reports whether the event is one of the three.
func (e EventType) valid() bool {
	return e == EventInsert || e == EventModify || e == EventRemove
}

// ttlPrincipal and ttlIdentityType are the user identity of a removal by
// time to live.
const (
	ttlPrincipal    = "dynamodb.amazonaws.com"
	ttlIdentityType = "Service"
)

// Record is one stream record, whichever way it came (a Lambda event or
// the DynamoDB Streams API), with its images as the SDK's DynamoDB
// attribute values, ready for Decode, a Handler, or the root package's
// Table.Decode.
type Record struct {
	EventID string
	Event   EventType
	// SequenceNumber orders the records of one item: within a shard, a
	// later change has a greater number. It is what a Lambda function
	// reports in BatchItemFailures.
	SequenceNumber string
	// Time is the record's approximate creation time.
	Time time.Time
	// Keys is the item's table key; OldImage and NewImage the item before
	// and after, as the stream's view carries them (nil otherwise).
	// FromStreams shares a key's value with the image that holds the same
	// one: treat them as read-only.
	Keys, OldImage, NewImage map[string]types.AttributeValue
	// Expired is set on a removal by time to live: the service deleted the
	// item (its user identity is the service principal dynamodb.amazonaws.com).
	Expired bool
	// SourceARN is the stream's ARN when the record says (Lambda events do).
	SourceARN string
}

// FromLambda converts a record of a Lambda DynamoDB event, whose
// attribute values are aws-lambda-go's own type, into a Record.
func FromLambda(r events.DynamoDBEventRecord) (Record, error) {
	rec := Record{
		EventID: r.EventID, Event: EventType(r.EventName), SequenceNumber: r.Change.SequenceNumber,
		Time: r.Change.ApproximateCreationDateTime.Time, SourceARN: r.EventSourceArn,
		Expired: r.UserIdentity != nil && r.UserIdentity.Type == ttlIdentityType && r.UserIdentity.PrincipalID == ttlPrincipal,
	}
	var err error
	if rec.Keys, err = fromLambdaMap(r.Change.Keys); err != nil {
		return Record{}, fmt.Errorf("singletable: stream record %s: Keys: %w", r.EventID, err)
	}
	if rec.OldImage, err = fromLambdaMap(r.Change.OldImage); err != nil {
		return Record{}, fmt.Errorf("singletable: stream record %s: OldImage: %w", r.EventID, err)
	}
	if rec.NewImage, err = fromLambdaMap(r.Change.NewImage); err != nil {
		return Record{}, fmt.Errorf("singletable: stream record %s: NewImage: %w", r.EventID, err)
	}
	return rec, rec.check()
}

// FromStreams converts a record of the DynamoDB Streams API (GetRecords)
// into a Record. With an error, the Record holds what was read before it
// (EventID, SequenceNumber, Time), so that the caller can say which record
// it refused.
func FromStreams(r streamtypes.Record) (Record, error) {
	rec := Record{EventID: aws.ToString(r.EventID), Event: EventType(r.EventName)}
	if u := r.UserIdentity; u != nil {
		rec.Expired = aws.ToString(u.Type) == ttlIdentityType && aws.ToString(u.PrincipalId) == ttlPrincipal
	}
	if d := r.Dynamodb; d != nil {
		rec.SequenceNumber = aws.ToString(d.SequenceNumber)
		rec.Time = aws.ToTime(d.ApproximateCreationDateTime)
		var err error
		if rec.OldImage, err = fromStreamsMap(d.OldImage); err != nil {
			return rec, fmt.Errorf("singletable: stream record %s: OldImage: %w", rec.EventID, err)
		}
		if rec.NewImage, err = fromStreamsMap(d.NewImage); err != nil {
			return rec, fmt.Errorf("singletable: stream record %s: NewImage: %w", rec.EventID, err)
		}
		img := rec.NewImage
		if img == nil {
			img = rec.OldImage
		}
		if rec.Keys, err = streamKeys(d.Keys, img); err != nil {
			return rec, fmt.Errorf("singletable: stream record %s: Keys: %w", rec.EventID, err)
		}
	}
	return rec, rec.check()
}

// check refuses a record the library cannot handle rightly: an unknown
// event (a newer record format) or no sequence number.
func (r Record) check() error {
	if !r.Event.valid() {
		return &st.InputError{Op: "stream record " + r.EventID, Reason: fmt.Sprintf("event %q is none of INSERT, MODIFY, REMOVE", string(r.Event))}
	}
	if r.SequenceNumber == "" {
		return &st.InputError{Op: "stream record " + r.EventID, Reason: "no sequence number"}
	}
	return nil
}

// image is the item a record is about: its new image, else its old one,
// else its keys.
func (r Record) image() map[string]types.AttributeValue {
	switch {
	case r.NewImage != nil:
		return r.NewImage
	case r.OldImage != nil:
		return r.OldImage
	}
	return r.Keys
}

func fromStreamsMap(m map[string]streamtypes.AttributeValue) (map[string]types.AttributeValue, error) {
	if m == nil {
		return nil, nil
	}
	return attributevalue.FromDynamoDBStreamsMap(m)
}

// streamKeys converts a record's keys, taking each value the image (nil:
// none) holds the same of from it rather than converting it again.
func streamKeys(keys map[string]streamtypes.AttributeValue, img map[string]types.AttributeValue) (map[string]types.AttributeValue, error) {
	if keys == nil || img == nil {
		return fromStreamsMap(keys)
	}
	out := make(map[string]types.AttributeValue, len(keys))
	for k, v := range keys {
		if same, ok := sameKeyValue(v, img[k]); ok {
			out[k] = same
			continue
		}
		av, err := attributevalue.FromDynamoDBStreams(v)
		if err != nil {
			return nil, err
		}
		out[k] = av
	}
	return out, nil
}

// sameKeyValue returns img when it is the key value v (a string, number
// or binary).
func sameKeyValue(v streamtypes.AttributeValue, img types.AttributeValue) (types.AttributeValue, bool) {
	switch v := v.(type) {
	case *streamtypes.AttributeValueMemberS:
		s, ok := img.(*types.AttributeValueMemberS)
		return img, ok && s.Value == v.Value
	case *streamtypes.AttributeValueMemberN:
		n, ok := img.(*types.AttributeValueMemberN)
		return img, ok && n.Value == v.Value
	case *streamtypes.AttributeValueMemberB:
		b, ok := img.(*types.AttributeValueMemberB)
		return img, ok && bytes.Equal(b.Value, v.Value)
	}
	return nil, false
}

func fromLambdaMap(m map[string]events.DynamoDBAttributeValue) (map[string]types.AttributeValue, error) {
	if m == nil {
		return nil, nil
	}
	out := make(map[string]types.AttributeValue, len(m))
	for k, v := range m {
		av, err := fromLambda(v)
		if err != nil {
			return nil, fmt.Errorf("attribute %s: %w", k, err)
		}
		out[k] = av
	}
	return out, nil
}

// fromLambda converts aws-lambda-go's attribute value into the SDK's.
func fromLambda(v events.DynamoDBAttributeValue) (types.AttributeValue, error) {
	if reflect.ValueOf(v).IsZero() {
		// The zero value reads as an untyped binary, whose accessor panics.
		return nil, errors.New("an empty attribute value (no type)")
	}
	switch v.DataType() {
	case events.DataTypeString:
		return &types.AttributeValueMemberS{Value: v.String()}, nil
	case events.DataTypeNumber:
		return &types.AttributeValueMemberN{Value: v.Number()}, nil
	case events.DataTypeBinary:
		return &types.AttributeValueMemberB{Value: v.Binary()}, nil
	case events.DataTypeBoolean:
		return &types.AttributeValueMemberBOOL{Value: v.Boolean()}, nil
	case events.DataTypeNull:
		return &types.AttributeValueMemberNULL{Value: true}, nil
	case events.DataTypeStringSet:
		return &types.AttributeValueMemberSS{Value: v.StringSet()}, nil
	case events.DataTypeNumberSet:
		return &types.AttributeValueMemberNS{Value: v.NumberSet()}, nil
	case events.DataTypeBinarySet:
		return &types.AttributeValueMemberBS{Value: v.BinarySet()}, nil
	case events.DataTypeList:
		l := v.List()
		out := make([]types.AttributeValue, len(l))
		for i, e := range l {
			av, err := fromLambda(e)
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
			out[i] = av
		}
		return &types.AttributeValueMemberL{Value: out}, nil
	case events.DataTypeMap:
		m, err := fromLambdaMap(v.Map())
		if err != nil {
			return nil, err
		}
		if m == nil {
			m = map[string]types.AttributeValue{}
		}
		return &types.AttributeValueMemberM{Value: m}, nil
	}
	return nil, fmt.Errorf("unknown attribute value type %d", v.DataType())
}
