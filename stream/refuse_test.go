package stream_test

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/stream"
)

// countingStreams is a stream.Client that answers nothing and counts the
// requests it is sent.
type countingStreams struct{ calls int }

func (c *countingStreams) DescribeStream(context.Context, *dynamodbstreams.DescribeStreamInput, ...func(*dynamodbstreams.Options)) (*dynamodbstreams.DescribeStreamOutput, error) {
	c.calls++
	return nil, errors.New("not here")
}

func (c *countingStreams) GetShardIterator(context.Context, *dynamodbstreams.GetShardIteratorInput, ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetShardIteratorOutput, error) {
	c.calls++
	return nil, errors.New("not here")
}

func (c *countingStreams) GetRecords(context.Context, *dynamodbstreams.GetRecordsInput, ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetRecordsOutput, error) {
	c.calls++
	return nil, errors.New("not here")
}

// firstErr is the first error Read yields, and how many values it yields.
func firstErr(t *testing.T, client stream.Client, arn string) error {
	t.Helper()
	n := 0
	var first error
	for _, err := range stream.Read(context.Background(), client, arn) {
		if n++; first == nil {
			first = err
		}
	}
	assert.Equal(t, 1, n, "one error, then the iteration ends")
	return first
}

// Nil and zero inputs of the functions that return errors: an
// *InputError naming the argument, no panic, nothing sent.
func TestStreamNilInputs(t *testing.T) {
	rec := stream.Record{Event: stream.EventInsert, SequenceNumber: "1", Keys: map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "NOTE#a"}, "SK": &types.AttributeValueMemberS{Value: "NOTE"}}}

	_, err := stream.Decode[StreamNote](nil, rec)
	assert.ErrorIs(t, err, st.ErrInvalidInput)
	assert.ErrorContains(t, err, "stream.Decode: the entity is nil")

	err = firstErr(t, nil, "arn:stream")
	assert.ErrorIs(t, err, st.ErrInvalidInput)
	assert.ErrorContains(t, err, "stream.Read: the client is nil")
	client := &countingStreams{}
	err = firstErr(t, client, "")
	assert.ErrorIs(t, err, st.ErrInvalidInput)
	assert.ErrorContains(t, err, "the stream ARN is empty")
	assert.Zero(t, client.calls, "nothing is sent")

	// A Handler not made by NewHandler: each record fails, none panics.
	for name, h := range map[string]*stream.Handler{"zero": {}, "nil": nil} {
		re := h.Process(context.Background(), []stream.Record{rec})
		require.NotNil(t, re, name)
		assert.ErrorIs(t, re, st.ErrInvalidInput, name)
		assert.ErrorContains(t, re, "not made by NewHandler", name)
		resp, err := h.HandleLambda(context.Background(), lambdaEvent(t, streamsRecord(t, "INSERT", "7", nil, noteItem("a", "x"))))
		assert.NoError(t, err, name)
		assert.Equal(t, []events.DynamoDBBatchItemFailure{{ItemIdentifier: "7"}}, resp.BatchItemFailures, name)
	}
}

// A record without a sequence number cannot be reported to Lambda (an
// empty ItemIdentifier fails the whole batch unsaid): HandleLambda returns
// the error instead, after the records before it, and calls OnFailure.
func TestStreamHandleLambdaNoSequenceNumber(t *testing.T) {
	var seen []string
	var failures []*stream.RecordError
	h := mustHandler(t, kindsTable, stream.OnFailure(func(_ context.Context, err *stream.RecordError) { failures = append(failures, err) }))
	stream.On(h, notesE, func(_ context.Context, c stream.Change[StreamNote]) error {
		seen = append(seen, c.New.ID)
		return nil
	})
	ev := lambdaEvent(t,
		streamsRecord(t, "INSERT", "1", nil, noteItem("a", "x")),
		streamsRecord(t, "INSERT", "2", nil, noteItem("b", "x")),
		streamsRecord(t, "INSERT", "3", nil, noteItem("c", "x")),
	)
	ev.Records[1].Change.SequenceNumber = ""
	_, err := stream.FromLambda(ev.Records[1])
	assert.ErrorIs(t, err, st.ErrInvalidInput)
	assert.ErrorContains(t, err, "stream record ev-2: no sequence number")

	resp, err := h.HandleLambda(context.Background(), ev)
	var re *stream.RecordError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, "ev-2", re.EventID)
	assert.ErrorIs(t, err, st.ErrInvalidInput)
	assert.Empty(t, resp.BatchItemFailures, "no empty ItemIdentifier")
	assert.Equal(t, []string{"a"}, seen, "stops at the record")
	require.Len(t, failures, 1)
	assert.Equal(t, "ev-2", failures[0].EventID)
}

// A record whose images are not of the item its Keys name, or whose two
// images are of two items, is a DecodeError: no function sees it.
func TestStreamDecodeRefusesMismatchedImages(t *testing.T) {
	keysOf := func(item map[string]types.AttributeValue) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"PK": item["PK"], "SK": item["SK"]}
	}
	a, b := noteItem("a", "x"), noteItem("b", "y")
	cases := map[string]stream.Record{
		"NewImage of another item than Keys": {Event: stream.EventInsert, SequenceNumber: "1", Keys: keysOf(b), NewImage: a},
		"OldImage of another item than Keys": {Event: stream.EventRemove, SequenceNumber: "1", Keys: keysOf(b), OldImage: a},
		"both images of another item":        {Event: stream.EventModify, SequenceNumber: "1", Keys: keysOf(b), OldImage: a, NewImage: a},
		"old and new of two items":           {Event: stream.EventModify, SequenceNumber: "1", Keys: keysOf(a), OldImage: b, NewImage: a},
		"old and new of two items, no Keys":  {Event: stream.EventModify, SequenceNumber: "1", OldImage: b, NewImage: a},
		"an image without a sort key":        {Event: stream.EventInsert, SequenceNumber: "1", Keys: keysOf(a), NewImage: map[string]types.AttributeValue{"PK": a["PK"], "_type": a["_type"], "id": a["id"]}},
	}
	var calls int
	h := mustHandler(t, kindsTable)
	stream.On(h, notesE, func(context.Context, stream.Change[StreamNote]) error { calls++; return nil })
	for name, rec := range cases {
		_, err := stream.Decode(notesE, rec)
		var de *st.DecodeError
		if assert.ErrorAs(t, err, &de, name) {
			assert.ErrorIs(t, err, st.ErrDecode, name)
			assert.Contains(t, err.Error(), "is of another item than its Keys", name)
		}
		re := h.Process(context.Background(), []stream.Record{rec})
		assert.ErrorIs(t, re, st.ErrDecode, name)
	}
	assert.Zero(t, calls, "no function sees a garbled record")

	// A record of one item, every view, decodes.
	for name, rec := range map[string]stream.Record{
		"both images": {Event: stream.EventModify, SequenceNumber: "1", Keys: keysOf(a), OldImage: noteItem("a", "old"), NewImage: a},
		"keys only":   {Event: stream.EventRemove, SequenceNumber: "1", Keys: keysOf(a)},
		"no keys":     {Event: stream.EventInsert, SequenceNumber: "1", NewImage: a},
	} {
		_, err := stream.Decode(notesE, rec)
		assert.NoError(t, err, name)
	}
}
