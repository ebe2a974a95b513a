package singletable_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	streamtypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/golden"
	"github.com/singletable/singletable/internal/lambdaevent"
	"github.com/singletable/singletable/singletabletest"
)

// Kinds holds every kind the codec stores, for decode fidelity through
// both stream event shapes.
type Kinds struct {
	ID       string            `dynamodbav:"id"`
	Seq      int               `dynamodbav:"seq"`
	Text     string            `dynamodbav:"text"`
	Int      int64             `dynamodbav:"int"`
	Uint     uint64            `dynamodbav:"uint"`
	Float    float64           `dynamodbav:"float"`
	Bin      []byte            `dynamodbav:"bin"`
	Flag     bool              `dynamodbav:"flag"`
	Nothing  *string           `dynamodbav:"nothing,nullempty"`
	List     []any             `dynamodbav:"list"`
	Map      map[string]int    `dynamodbav:"map"`
	Tags     []string          `dynamodbav:"tags,stringset"`
	Nums     []int             `dynamodbav:"nums,numberset"`
	Blobs    [][]byte          `dynamodbav:"blobs,binaryset"`
	Set      map[string]bool   `dynamodbav:"set,stringset"`
	Nested   KindsInner        `dynamodbav:"nested"`
	Deep     []map[string]Deep `dynamodbav:"deep"`
	At       time.Time         `dynamodbav:"at"`
	Unix     time.Time         `dynamodbav:"unix,unixtime"`
	AsString int               `dynamodbav:"asString,string"`
	Ptr      *int              `dynamodbav:"ptr"`
}

type KindsInner struct {
	Name  string   `dynamodbav:"name"`
	Inner *Deep    `dynamodbav:"inner"`
	Items []string `dynamodbav:"items"`
}

type Deep struct {
	N float64 `dynamodbav:"n"`
	B bool    `dynamodbav:"b"`
}

var (
	kindsTable = st.MustTable("Kinds", st.WithStream(st.StreamNewAndOldImages), st.WithGSI("GSI1", st.KeysOnly()))
	kindsE     = st.MustDefine[Kinds](kindsTable, "Kinds", st.Key("K#{ID}", "SEQ#{Seq:4}"),
		st.Index("GSI1", "TEXT#{Text}", "K#{ID}#{Seq:4}"))
	notesE = st.MustDefine[StreamNote](kindsTable, "Note", st.Key("NOTE#{ID}", "NOTE"))
)

type StreamNote struct {
	ID   string `dynamodbav:"id"`
	Body string `dynamodbav:"body"`
}

func kindsValue() Kinds {
	seven := 7
	return Kinds{
		ID: "a#b%c", Seq: 12, Text: "héllo # world", Int: math.MinInt64, Uint: math.MaxUint64, Float: 1.25e-130,
		Bin: []byte{0, 1, 0xff}, Flag: true, List: []any{"x", 1.25, true, nil, []any{"y"}, map[string]any{"k": "v"}},
		Map: map[string]int{"a": 1, "#": 0}, Tags: []string{"b", "a"}, Nums: []int{3, -1, 0}, Blobs: [][]byte{{1}, {2, 3}},
		Set:    map[string]bool{"p": true, "q": true},
		Nested: KindsInner{Name: "n", Inner: &Deep{N: -0.5, B: true}, Items: []string{""}},
		Deep:   []map[string]Deep{{"z": {N: 1}}, {}},
		At:     time.Date(2024, 2, 29, 23, 59, 59, 999999999, time.UTC), Unix: time.Unix(1700000000, 0), // unixtime decodes in time.Local, as attributevalue does
		AsString: -42, Ptr: &seven,
	}
}

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
func bothShapes(t *testing.T, r streamtypes.Record) map[string]st.Record {
	t.Helper()
	fromAPI, err := st.StreamsRecord(r)
	require.NoError(t, err)
	lr, err := lambdaevent.FromRecord(fromAPI, "arn:stream")
	require.NoError(t, err)
	raw, err := json.Marshal(events.DynamoDBEvent{Records: []events.DynamoDBEventRecord{lr}})
	require.NoError(t, err)
	var ev events.DynamoDBEvent
	require.NoError(t, json.Unmarshal(raw, &ev))
	fromLambda, err := st.LambdaRecord(ev.Records[0])
	require.NoError(t, err)
	return map[string]st.Record{"streams": fromAPI, "lambda": fromLambda}
}

func TestStreamDecodeFidelity(t *testing.T) {
	v := kindsValue()
	item := kindsItem(t, v)
	for shape, rec := range bothShapes(t, streamsRecord(t, "INSERT", "100", nil, item)) {
		t.Run(shape, func(t *testing.T) {
			assert.Equal(t, item, rec.NewImage, "the image converts back exactly")
			c, err := kindsE.Change(rec)
			require.NoError(t, err)
			require.NotNil(t, c.New)
			assert.Nil(t, c.Old)
			assert.Equal(t, v, *c.New)
			assert.Equal(t, st.EventInsert, c.Event)
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
			c, err := kindsE.Change(rec)
			require.NoError(t, err)
			assert.Equal(t, []string{"Text", "Ptr"}, c.Changed)
			assert.True(t, c.FieldChanged("Text"))
			assert.False(t, c.FieldChanged("Tags"))
			assert.Equal(t, old, *c.Old)
			assert.Equal(t, nu, *c.New)
		})
	}
	ins, err := st.StreamsRecord(streamsRecord(t, "INSERT", "1", nil, oldItem))
	require.NoError(t, err)
	c, err := kindsE.Change(ins)
	require.NoError(t, err)
	assert.Len(t, c.Changed, 21, "an insert changes every stored field")
	mod := ins
	mod.Event, mod.OldImage = st.EventModify, nil // a NEW_IMAGE stream: no old image to compare
	c, err = kindsE.Change(mod)
	require.NoError(t, err)
	assert.Nil(t, c.Changed)
}

func TestStreamRemoveAndTTL(t *testing.T) {
	item := kindsItem(t, kindsValue())
	r := streamsRecord(t, "REMOVE", "300", item, nil)
	rec, err := st.StreamsRecord(r)
	require.NoError(t, err)
	assert.False(t, rec.Expired, "a removal by a request")
	// DynamoDB Local never expires items, so the TTL removal is hand-made,
	// with the user identity the service documents.
	r.UserIdentity = &streamtypes.Identity{Type: aws.String("Service"), PrincipalId: aws.String("dynamodb.amazonaws.com")}
	for shape, rec := range bothShapes(t, r) {
		t.Run(shape, func(t *testing.T) {
			assert.True(t, rec.Expired)
			c, err := kindsE.Change(rec)
			require.NoError(t, err)
			assert.True(t, c.Expired)
			assert.Equal(t, st.EventRemove, c.Event)
			assert.Nil(t, c.New)
			assert.Equal(t, kindsValue(), *c.Old)
		})
	}
	r.UserIdentity = &streamtypes.Identity{Type: aws.String("Service"), PrincipalId: aws.String("someone.else")}
	rec, err = st.StreamsRecord(r)
	require.NoError(t, err)
	assert.False(t, rec.Expired, "only the DynamoDB service principal is TTL")
}

func TestStreamRecordRefused(t *testing.T) {
	r := streamsRecord(t, "INSERT", "1", nil, kindsItem(t, kindsValue()))
	r.EventName = "UPSERT"
	_, err := st.StreamsRecord(r)
	assert.ErrorIs(t, err, st.ErrInvalidInput)
	r.EventName, r.Dynamodb.SequenceNumber = "INSERT", nil
	_, err = st.StreamsRecord(r)
	assert.ErrorIs(t, err, st.ErrInvalidInput)
	_, err = st.LambdaRecord(events.DynamoDBEventRecord{EventName: "INSERT", Change: events.DynamoDBStreamRecord{
		SequenceNumber: "1", NewImage: map[string]events.DynamoDBAttributeValue{"x": {}}}})
	assert.ErrorContains(t, err, "no type")
}

func TestDecodeRawItems(t *testing.T) {
	v := kindsValue()
	item := kindsItem(t, v)

	// A KEYS_ONLY index item: no type attribute; matched by its keys, its
	// fields parsed from the table and index keys.
	keysOnly := map[string]types.AttributeValue{"PK": item["PK"], "SK": item["SK"], "GSI1PK": item["GSI1PK"], "GSI1SK": item["GSI1SK"]}
	got, err := kindsTable.Decode(keysOnly)
	require.NoError(t, err)
	assert.Equal(t, Kinds{ID: v.ID, Seq: v.Seq, Text: v.Text}, got)
	name, err := kindsTable.EntityOf(keysOnly)
	require.NoError(t, err)
	assert.Equal(t, "Kinds", name)
	k, err := kindsE.Decode(keysOnly)
	require.NoError(t, err)
	assert.Equal(t, Kinds{ID: v.ID, Seq: v.Seq, Text: v.Text}, k)

	note := map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "NOTE#n1"}, "SK": &types.AttributeValueMemberS{Value: "NOTE"},
		"_type": &types.AttributeValueMemberS{Value: "Note"}, "body": &types.AttributeValueMemberS{Value: "hi"}, "id": &types.AttributeValueMemberS{Value: "n1"}}
	got, err = kindsTable.Decode(note)
	require.NoError(t, err)
	assert.Equal(t, StreamNote{ID: "n1", Body: "hi"}, got)

	// Another entity's item, to Entity.Decode.
	_, err = kindsE.Decode(note)
	var mismatch *st.EntityMismatchError
	require.ErrorAs(t, err, &mismatch)
	assert.Equal(t, "Note", mismatch.Got)

	// An unknown type: reported with the item.
	unknown := map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "X#1"}, "SK": &types.AttributeValueMemberS{Value: "X"},
		"_type": &types.AttributeValueMemberS{Value: "Ghost"}}
	_, err = kindsTable.Decode(unknown)
	var ue *st.UnknownEntityError
	require.ErrorAs(t, err, &ue)
	assert.ErrorIs(t, err, st.ErrWrongEntity)
	assert.Equal(t, "Ghost", ue.Type)
	assert.Equal(t, unknown, ue.Item)
	assert.Contains(t, err.Error(), `"Ghost"`)

	// No type and keys of no entity (a Note's partition with a Kinds sort key).
	_, err = kindsTable.Decode(map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "NOTE#1"}, "SK": &types.AttributeValueMemberS{Value: "SEQ#0001"}})
	require.ErrorAs(t, err, &ue)
	assert.Empty(t, ue.Type)
	// A typed item whose keys do not parse as its entity's.
	bad := map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "K#x"}, "SK": &types.AttributeValueMemberS{Value: "SEQ#notanumber"},
		"_type": &types.AttributeValueMemberS{Value: "Kinds"}}
	_, err = kindsTable.Decode(bad)
	assert.ErrorIs(t, err, st.ErrWrongEntity)
}

func TestDecodeAmbiguousKeys(t *testing.T) {
	tbl := st.MustTable("Ambiguous")
	st.MustDefine[StreamNote](tbl, "A", st.Key("X#{ID}", "S"))
	st.MustDefine[StreamNote](tbl, "B", st.Key("X#{Body}", "S"))
	_, err := tbl.Decode(map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "X#1"}, "SK": &types.AttributeValueMemberS{Value: "S"}})
	var ue *st.UnknownEntityError
	require.ErrorAs(t, err, &ue, "keys two entities parse are unknown, never a guess")
}

func TestWithStream(t *testing.T) {
	_, err := st.NewTable("Bad", st.WithStream("EVERYTHING"))
	assert.ErrorIs(t, err, st.ErrInvalidModel)
	golden.Request(t, "table/create_stream", kindsTable.CreateTableInput("Kinds"))
	golden.Request(t, "table/enable_stream", kindsTable.EnableStreamInput("Kinds"))
	assert.Nil(t, st.MustTable("NoStream").EnableStreamInput("NoStream"))
	assert.Equal(t, st.StreamNewAndOldImages, kindsTable.Stream())
}

// lambdaEvent builds a Lambda event of records, through JSON.
func lambdaEvent(t *testing.T, recs ...streamtypes.Record) events.DynamoDBEvent {
	t.Helper()
	var ev events.DynamoDBEvent
	for _, r := range recs {
		rec, err := st.StreamsRecord(r)
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
	var failures []*st.RecordError
	h := st.NewStreamHandler(kindsTable, st.OnFailure(func(_ context.Context, err *st.RecordError) { failures = append(failures, err) }))
	st.On(h, notesE, func(_ context.Context, c st.Change[StreamNote]) error {
		seen = append(seen, c.SequenceNumber+":"+c.New.Body)
		if c.New.Body == "poison" {
			return errors.New("cannot apply")
		}
		return nil
	}, st.EventInsert)
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
	count := func(_ context.Context, c st.Change[StreamNote]) error { notes++; return nil }

	h := st.NewStreamHandler(kindsTable, st.OnFailure(func(context.Context, *st.RecordError) {}))
	st.On(h, notesE, count)
	resp, err := h.HandleLambda(context.Background(), lambdaEvent(t, recs...))
	require.NoError(t, err)
	assert.Equal(t, []events.DynamoDBBatchItemFailure{{ItemIdentifier: "1"}}, resp.BatchItemFailures, "an unknown type fails by default")
	assert.Zero(t, notes)

	var skipped []string
	h = st.NewStreamHandler(kindsTable, st.OnUnknown(func(_ context.Context, rec st.Record, err error) error {
		var ue *st.UnknownEntityError
		if !errors.As(err, &ue) {
			return fmt.Errorf("want an UnknownEntityError, got %w", err)
		}
		skipped = append(skipped, ue.Type+"@"+rec.SequenceNumber)
		return nil
	}))
	st.On(h, notesE, count)
	var records []st.Record
	for _, r := range recs {
		rec, err := st.StreamsRecord(r)
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
	var failures []*st.RecordError
	h := st.NewStreamHandler(kindsTable, st.OnFailure(func(_ context.Context, err *st.RecordError) { failures = append(failures, err) }),
		st.OnUnknown(func(_ context.Context, rec st.Record, err error) error {
			return fmt.Errorf("record %s reached OnUnknown: %w", rec.SequenceNumber, err)
		}))
	st.On(h, notesE, func(_ context.Context, c st.Change[StreamNote]) error {
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
	rec := st.Record{Event: st.EventInsert, SequenceNumber: "6", NewImage: guardItem("z")}
	assert.Nil(t, h.Process(context.Background(), []st.Record{rec}))
	assert.Empty(t, seen)
}
