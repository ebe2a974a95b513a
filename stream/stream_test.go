package stream_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	streamtypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/lambdaevent"
	"github.com/singletable/singletable/internal/testmodel"
	"github.com/singletable/singletable/singletabletest"
	"github.com/singletable/singletable/stream"
)

// The kinds model: every kind the codec stores, on a table with a stream.
type (
	Kinds      = testmodel.Kinds
	StreamNote = testmodel.StreamNote
	Deep       = testmodel.Deep
)

var (
	kindsTable = testmodel.KindsTable
	kindsE     = testmodel.KindsE
	notesE     = testmodel.NotesE
	kindsValue = testmodel.KindsValue
)

// kindsItem is the item Put writes for v.
func kindsItem(t *testing.T, v Kinds) map[string]types.AttributeValue {
	t.Helper()
	in, err := kindsE.PutInput(st.New(&singletabletest.Client{}, kindsTable), v)
	require.NoError(t, err)
	return in.Item
}

// toStreams converts an SDK item into the Streams API's attribute values.
func toStreams(t *testing.T, m map[string]types.AttributeValue) map[string]streamtypes.AttributeValue {
	t.Helper()
	if m == nil {
		return nil
	}
	var conv func(types.AttributeValue) streamtypes.AttributeValue
	conv = func(v types.AttributeValue) streamtypes.AttributeValue {
		switch v := v.(type) {
		case *types.AttributeValueMemberS:
			return &streamtypes.AttributeValueMemberS{Value: v.Value}
		case *types.AttributeValueMemberN:
			return &streamtypes.AttributeValueMemberN{Value: v.Value}
		case *types.AttributeValueMemberB:
			return &streamtypes.AttributeValueMemberB{Value: v.Value}
		case *types.AttributeValueMemberBOOL:
			return &streamtypes.AttributeValueMemberBOOL{Value: v.Value}
		case *types.AttributeValueMemberNULL:
			return &streamtypes.AttributeValueMemberNULL{Value: v.Value}
		case *types.AttributeValueMemberSS:
			return &streamtypes.AttributeValueMemberSS{Value: v.Value}
		case *types.AttributeValueMemberNS:
			return &streamtypes.AttributeValueMemberNS{Value: v.Value}
		case *types.AttributeValueMemberBS:
			return &streamtypes.AttributeValueMemberBS{Value: v.Value}
		case *types.AttributeValueMemberL:
			l := make([]streamtypes.AttributeValue, len(v.Value))
			for i, e := range v.Value {
				l[i] = conv(e)
			}
			return &streamtypes.AttributeValueMemberL{Value: l}
		case *types.AttributeValueMemberM:
			m := map[string]streamtypes.AttributeValue{}
			for k, e := range v.Value {
				m[k] = conv(e)
			}
			return &streamtypes.AttributeValueMemberM{Value: m}
		}
		t.Fatalf("unknown attribute value %T", v)
		return nil
	}
	out := map[string]streamtypes.AttributeValue{}
	for k, v := range m {
		out[k] = conv(v)
	}
	return out
}

// streamsRecord makes a Streams API record from SDK items.
func streamsRecord(t *testing.T, event, seq string, old, nu map[string]types.AttributeValue) streamtypes.Record {
	t.Helper()
	img := nu
	if img == nil {
		img = old
	}
	keys := map[string]types.AttributeValue{"PK": img["PK"], "SK": img["SK"]}
	return streamtypes.Record{
		EventID: aws.String("ev-" + seq), EventName: streamtypes.OperationType(event), EventSource: aws.String("aws:dynamodb"),
		Dynamodb: &streamtypes.StreamRecord{
			SequenceNumber: aws.String(seq), Keys: toStreams(t, keys), OldImage: toStreams(t, old), NewImage: toStreams(t, nu),
			ApproximateCreationDateTime: aws.Time(time.Unix(1700000000, 0)), StreamViewType: streamtypes.StreamViewTypeNewAndOldImages,
		},
	}
}

// bothShapes gives a Streams API record as a Record through both event
// shapes: the Streams API's, and a Lambda event's after a JSON round trip
// (what a Lambda function receives).
func bothShapes(t *testing.T, r streamtypes.Record) map[string]stream.Record {
	t.Helper()
	fromAPI, err := stream.FromStreams(r)
	require.NoError(t, err)
	lr, err := lambdaevent.FromRecord(fromAPI, "arn:stream")
	require.NoError(t, err)
	raw, err := json.Marshal(events.DynamoDBEvent{Records: []events.DynamoDBEventRecord{lr}})
	require.NoError(t, err)
	var ev events.DynamoDBEvent
	require.NoError(t, json.Unmarshal(raw, &ev))
	fromLambda, err := stream.FromLambda(ev.Records[0])
	require.NoError(t, err)
	return map[string]stream.Record{"streams": fromAPI, "lambda": fromLambda}
}

func TestStreamDecodeFidelity(t *testing.T) {
	v := kindsValue()
	item := kindsItem(t, v)
	for shape, rec := range bothShapes(t, streamsRecord(t, "INSERT", "100", nil, item)) {
		t.Run(shape, func(t *testing.T) {
			assert.Equal(t, item, rec.NewImage, "the image converts back exactly")
			c, err := stream.Decode(kindsE, rec)
			require.NoError(t, err)
			require.NotNil(t, c.New)
			assert.Nil(t, c.Old)
			assert.Equal(t, v, *c.New)
			assert.Equal(t, stream.EventInsert, c.Event)
			assert.Equal(t, "100", c.SequenceNumber)
			assert.Equal(t, Kinds{ID: v.ID, Seq: v.Seq}, c.Key, "the key fields parse back from Keys, delimiters included")
			got, err := kindsTable.Decode(rec.NewImage)
			require.NoError(t, err)
			assert.Equal(t, v, got)
		})
	}
}

func TestStreamChangedFields(t *testing.T) {
	old := kindsValue()
	nu := old
	nu.Text = "other"
	nu.Tags = []string{"a", "b"} // the same set in another order: unchanged
	nu.Ptr = nil                 // an attribute that goes away
	oldItem, newItem := kindsItem(t, old), kindsItem(t, nu)
	for shape, rec := range bothShapes(t, streamsRecord(t, "MODIFY", "200", oldItem, newItem)) {
		t.Run(shape, func(t *testing.T) {
			c, err := stream.Decode(kindsE, rec)
			require.NoError(t, err)
			assert.Equal(t, []string{"Text", "Ptr"}, c.Changed)
			assert.True(t, c.FieldChanged("Text"))
			assert.False(t, c.FieldChanged("Tags"))
			assert.Equal(t, old, *c.Old)
			assert.Equal(t, nu, *c.New)
		})
	}
	ins, err := stream.FromStreams(streamsRecord(t, "INSERT", "1", nil, oldItem))
	require.NoError(t, err)
	c, err := stream.Decode(kindsE, ins)
	require.NoError(t, err)
	assert.Len(t, c.Changed, 21, "an insert changes every stored field")
	mod := ins
	mod.Event, mod.OldImage = stream.EventModify, nil // a NEW_IMAGE stream: no old image to compare
	c, err = stream.Decode(kindsE, mod)
	require.NoError(t, err)
	assert.Nil(t, c.Changed)
}

func TestStreamRemoveAndTTL(t *testing.T) {
	item := kindsItem(t, kindsValue())
	r := streamsRecord(t, "REMOVE", "300", item, nil)
	rec, err := stream.FromStreams(r)
	require.NoError(t, err)
	assert.False(t, rec.Expired, "a removal by a request")
	// DynamoDB Local never expires items, so the TTL removal is hand-made,
	// with the user identity the service documents.
	r.UserIdentity = &streamtypes.Identity{Type: aws.String("Service"), PrincipalId: aws.String("dynamodb.amazonaws.com")}
	for shape, rec := range bothShapes(t, r) {
		t.Run(shape, func(t *testing.T) {
			assert.True(t, rec.Expired)
			c, err := stream.Decode(kindsE, rec)
			require.NoError(t, err)
			assert.True(t, c.Expired)
			assert.Equal(t, stream.EventRemove, c.Event)
			assert.Nil(t, c.New)
			assert.Equal(t, kindsValue(), *c.Old)
		})
	}
	r.UserIdentity = &streamtypes.Identity{Type: aws.String("Service"), PrincipalId: aws.String("someone.else")}
	rec, err = stream.FromStreams(r)
	require.NoError(t, err)
	assert.False(t, rec.Expired, "only the DynamoDB service principal is TTL")
}

func TestStreamRecordRefused(t *testing.T) {
	r := streamsRecord(t, "INSERT", "1", nil, kindsItem(t, kindsValue()))
	r.EventName = "UPSERT"
	_, err := stream.FromStreams(r)
	assert.ErrorIs(t, err, st.ErrInvalidInput)
	r.EventName, r.Dynamodb.SequenceNumber = "INSERT", nil
	_, err = stream.FromStreams(r)
	assert.ErrorIs(t, err, st.ErrInvalidInput)
	_, err = stream.FromLambda(events.DynamoDBEventRecord{EventName: "INSERT", Change: events.DynamoDBStreamRecord{
		SequenceNumber: "1", NewImage: map[string]events.DynamoDBAttributeValue{"x": {}}}})
	assert.ErrorContains(t, err, "no type")
}

// lambdaEvent builds a Lambda event of records, through JSON.
func lambdaEvent(t *testing.T, recs ...streamtypes.Record) events.DynamoDBEvent {
	t.Helper()
	var ev events.DynamoDBEvent
	for _, r := range recs {
		rec, err := stream.FromStreams(r)
		require.NoError(t, err)
		lr, err := lambdaevent.FromRecord(rec, "arn:stream")
		require.NoError(t, err)
		ev.Records = append(ev.Records, lr)
	}
	raw, err := json.Marshal(ev)
	require.NoError(t, err)
	var out events.DynamoDBEvent
	require.NoError(t, json.Unmarshal(raw, &out))
	return out
}

func noteItem(id, body string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "NOTE#" + id}, "SK": &types.AttributeValueMemberS{Value: "NOTE"},
		"_type": &types.AttributeValueMemberS{Value: "Note"}, "id": &types.AttributeValueMemberS{Value: id}, "body": &types.AttributeValueMemberS{Value: body}}
}

func TestStreamHandlerPartialFailure(t *testing.T) {
	var seen []string
	var failures []*stream.RecordError
	h := mustHandler(t, kindsTable, stream.OnFailure(func(_ context.Context, err *stream.RecordError) { failures = append(failures, err) }))
	stream.On(h, notesE, func(_ context.Context, c stream.Change[StreamNote]) error {
		seen = append(seen, c.SequenceNumber+":"+c.New.Body)
		if c.New.Body == "poison" {
			return errors.New("cannot apply")
		}
		return nil
	}, stream.EventInsert)
	ev := lambdaEvent(t,
		streamsRecord(t, "INSERT", "1", nil, noteItem("a", "ok")),
		streamsRecord(t, "MODIFY", "2", noteItem("a", "ok"), noteItem("a", "skip: not subscribed")),
		streamsRecord(t, "INSERT", "3", nil, noteItem("b", "poison")),
		streamsRecord(t, "INSERT", "4", nil, noteItem("c", "after")),
	)
	resp, err := h.HandleLambda(context.Background(), ev)
	require.NoError(t, err, "the error would make Lambda replay the whole batch")
	assert.Equal(t, []events.DynamoDBBatchItemFailure{{ItemIdentifier: "3"}}, resp.BatchItemFailures)
	assert.Equal(t, []string{"1:ok", "3:poison"}, seen, "stops at the failure: record 4 comes again after it")
	require.Len(t, failures, 1)
	assert.Equal(t, "Note", failures[0].Entity)
	assert.ErrorContains(t, failures[0], "cannot apply")

	// Every record handled: no failures reported.
	seen = nil
	resp, err = h.HandleLambda(context.Background(), lambdaEvent(t, streamsRecord(t, "INSERT", "5", nil, noteItem("d", "fine"))))
	require.NoError(t, err)
	assert.Empty(t, resp.BatchItemFailures)
	assert.Equal(t, []string{"5:fine"}, seen)
}

func TestStreamHandlerUnknown(t *testing.T) {
	ghost := noteItem("g", "boo")
	ghost["_type"] = &types.AttributeValueMemberS{Value: "Ghost"}
	recs := []streamtypes.Record{streamsRecord(t, "INSERT", "1", nil, ghost), streamsRecord(t, "INSERT", "2", nil, noteItem("n", "x"))}
	var notes int
	count := func(_ context.Context, c stream.Change[StreamNote]) error { notes++; return nil }

	h := mustHandler(t, kindsTable, stream.OnFailure(func(context.Context, *stream.RecordError) {}))
	stream.On(h, notesE, count)
	resp, err := h.HandleLambda(context.Background(), lambdaEvent(t, recs...))
	require.NoError(t, err)
	assert.Equal(t, []events.DynamoDBBatchItemFailure{{ItemIdentifier: "1"}}, resp.BatchItemFailures, "an unknown type fails by default")
	assert.Zero(t, notes)

	var skipped []string
	h = mustHandler(t, kindsTable, stream.OnUnknown(func(_ context.Context, rec stream.Record, err error) error {
		var ue *st.UnknownEntityError
		if !errors.As(err, &ue) {
			return fmt.Errorf("want an UnknownEntityError, got %w", err)
		}
		skipped = append(skipped, ue.Type+"@"+rec.SequenceNumber)
		return nil
	}))
	stream.On(h, notesE, count)
	var records []stream.Record
	for _, r := range recs {
		rec, err := stream.FromStreams(r)
		require.NoError(t, err)
		records = append(records, rec)
	}
	assert.Nil(t, h.Process(context.Background(), records))
	assert.Equal(t, []string{"Ghost@1"}, skipped)
	assert.Equal(t, 1, notes)
}

// guardItem is a unique-value guard item as the library writes it beside
// an item with unique fields.
func guardItem(value string) map[string]types.AttributeValue {
	key := "_unique#Note#body#" + value
	return map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: key}, "SK": &types.AttributeValueMemberS{Value: key},
		"_type": &types.AttributeValueMemberS{Value: "_unique"}, "_ownerPK": &types.AttributeValueMemberS{Value: "NOTE#a"}}
}

// The stream of a table with unique fields carries the guard items' records
// beside the entities': the handler skips them rather than failing them as
// unknown (which stopped the shard at the first Create of such an item).
func TestStreamHandlerSkipsGuardItems(t *testing.T) {
	var seen []string
	var failures []*stream.RecordError
	h := mustHandler(t, kindsTable, stream.OnFailure(func(_ context.Context, err *stream.RecordError) { failures = append(failures, err) }),
		stream.OnUnknown(func(_ context.Context, rec stream.Record, err error) error {
			return fmt.Errorf("record %s reached OnUnknown: %w", rec.SequenceNumber, err)
		}))
	stream.On(h, notesE, func(_ context.Context, c stream.Change[StreamNote]) error {
		seen = append(seen, c.SequenceNumber+":"+string(c.Event))
		return nil
	})
	keysOnly := streamsRecord(t, "REMOVE", "4", guardItem("y"), nil) // a KEYS_ONLY view: keys alone
	keysOnly.Dynamodb.OldImage = nil
	ev := lambdaEvent(t,
		streamsRecord(t, "INSERT", "1", nil, noteItem("a", "x")),
		streamsRecord(t, "INSERT", "2", nil, guardItem("x")),
		streamsRecord(t, "REMOVE", "3", guardItem("x"), nil),
		keysOnly,
		streamsRecord(t, "REMOVE", "5", noteItem("a", "x"), nil),
	)
	resp, err := h.HandleLambda(context.Background(), ev)
	require.NoError(t, err)
	assert.Empty(t, resp.BatchItemFailures)
	assert.Empty(t, failures)
	assert.Equal(t, []string{"1:INSERT", "5:REMOVE"}, seen)

	// Process, and a Record without keys (built by hand): the type says so.
	seen = nil
	rec := stream.Record{Event: stream.EventInsert, SequenceNumber: "6", NewImage: guardItem("z")}
	assert.Nil(t, h.Process(context.Background(), []stream.Record{rec}))
	assert.Empty(t, seen)
}

// mustHandler is stream.NewHandler for options known to be valid.
func mustHandler(t *testing.T, table *st.Table, opts ...stream.Option) *stream.Handler {
	t.Helper()
	h, err := stream.NewHandler(table, opts...)
	require.NoError(t, err)
	return h
}

// An option that would do nothing (nil, or given a nil function) is an
// error naming it, not a handler that silently lacks it.
func TestNewHandlerRefusesNothing(t *testing.T) {
	cases := map[string]struct {
		table *st.Table
		opts  []stream.Option
		want  string
	}{
		"nil table":        {nil, nil, "the table is nil"},
		"nil option":       {kindsTable, []stream.Option{stream.OnFailure(func(context.Context, *stream.RecordError) {}), nil}, "option 2 is nil"},
		"nil OnUnknown fn": {kindsTable, []stream.Option{stream.OnUnknown(nil)}, "OnUnknown: the function is nil"},
		"nil OnFailure fn": {kindsTable, []stream.Option{stream.OnFailure(nil)}, "OnFailure: the function is nil"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			h, err := stream.NewHandler(c.table, c.opts...)
			assert.Nil(t, h)
			var ie *st.InputError
			require.ErrorAs(t, err, &ie)
			assert.ErrorIs(t, err, st.ErrInvalidInput)
			assert.Equal(t, "stream.NewHandler", ie.Op)
			assert.Contains(t, err.Error(), c.want)
		})
	}
}

// A registration that could never run panics when it is made.
func TestOnRefusesNothing(t *testing.T) {
	h := mustHandler(t, kindsTable)
	fn := func(context.Context, stream.Change[StreamNote]) error { return nil }
	refused := func(want string, register func()) {
		t.Helper()
		defer func() {
			t.Helper()
			r := recover()
			err, ok := r.(error)
			require.True(t, ok, "want a panic with an error, got %v", r)
			assert.ErrorIs(t, err, st.ErrInvalidInput)
			assert.Contains(t, err.Error(), want)
		}()
		register()
	}
	refused("the handler is nil", func() { stream.On(nil, notesE, fn) })
	refused("the handler was not made by NewHandler", func() { stream.On(&stream.Handler{}, notesE, fn) })
	refused("the entity is nil", func() { stream.On(h, (*st.Entity[StreamNote])(nil), fn) })
	refused("the function for entity Note is nil", func() { stream.On(h, notesE, nil) })
	refused(`event "UPSERT"`, func() { stream.On(h, notesE, fn, stream.EventInsert, "UPSERT") })
	refused(`event ""`, func() { stream.On(h, notesE, fn, "") })
}

// TestStreamKeysShareTheImage checks that FromStreams converts a key
// value once: Keys holds the image's own value when the image has the
// same, and a converted one when it has not (or has another: Decode then
// refuses the record).
func TestStreamKeysShareTheImage(t *testing.T) {
	item := kindsItem(t, kindsValue())
	rec, err := stream.FromStreams(streamsRecord(t, "INSERT", "1", nil, item))
	require.NoError(t, err)
	assert.Equal(t, map[string]types.AttributeValue{"PK": item["PK"], "SK": item["SK"]}, rec.Keys)
	assert.Same(t, rec.NewImage["PK"], rec.Keys["PK"], "the image's value, not a second copy")
	assert.Same(t, rec.NewImage["SK"], rec.Keys["SK"])

	r := streamsRecord(t, "INSERT", "2", nil, item)
	r.Dynamodb.Keys["SK"] = &streamtypes.AttributeValueMemberS{Value: "other"}
	rec, err = stream.FromStreams(r)
	require.NoError(t, err)
	assert.Equal(t, &types.AttributeValueMemberS{Value: "other"}, rec.Keys["SK"], "a key the image does not hold is converted")
	_, err = stream.Decode(kindsE, rec)
	assert.ErrorIs(t, err, st.ErrDecode)
}

// TestStreamDecodeKeysOnly decodes a record of a KEYS_ONLY stream: the
// key fields, no images, no changed fields.
func TestStreamDecodeKeysOnly(t *testing.T) {
	v := kindsValue()
	r := streamsRecord(t, "REMOVE", "3", kindsItem(t, v), nil)
	r.Dynamodb.OldImage = nil
	rec, err := stream.FromStreams(r)
	require.NoError(t, err)
	c, err := stream.Decode(kindsE, rec)
	require.NoError(t, err)
	assert.Equal(t, Kinds{ID: v.ID, Seq: v.Seq}, c.Key)
	assert.Nil(t, c.Old)
	assert.Nil(t, c.New)
	assert.Nil(t, c.Changed)
}
