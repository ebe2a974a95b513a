//go:build integration

package stream_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/ddblocal"
	"github.com/singletable/singletable/internal/lambdaevent"
	"github.com/singletable/singletable/singletabletest"
	"github.com/singletable/singletable/stream"
)

// readStream reads the DB's stream on DynamoDB Local as Streams API records
// and as Records.
func readStream(t *testing.T, db *st.DB) []stream.Record {
	t.Helper()
	ctx := context.Background()
	arn, err := db.StreamARN(ctx)
	require.NoError(t, err)
	sc, err := ddblocal.StreamsClient(ctx)
	require.NoError(t, err)
	var out []stream.Record
	for rec, err := range stream.Read(ctx, sc, arn) {
		require.NoError(t, err)
		out = append(out, rec)
	}
	return out
}

func TestIntegrationStreamEvents(t *testing.T) {
	ctx := context.Background()
	db := singletabletest.LocalDB(t, kindsTable)
	v := localKinds()
	require.NoError(t, kindsE.Create(ctx, db, v))
	key := Kinds{ID: v.ID, Seq: v.Seq}
	_, err := kindsE.Update(ctx, db, key, st.Set("Text", "changed #1").Set("Tags", []string{"a", "b", "c"}))
	require.NoError(t, err)
	require.NoError(t, notesE.Put(ctx, db, StreamNote{ID: "n%1", Body: "note"}))
	require.NoError(t, kindsE.Delete(ctx, db, key))
	// An item of a type the model does not define, written around the library.
	client, err := singletabletest.LocalClient(ctx)
	require.NoError(t, err)
	_, err = client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(db.TableName()), Item: map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "GHOST#1"}, "SK": &types.AttributeValueMemberS{Value: "G"}, "_type": &types.AttributeValueMemberS{Value: "Ghost"}}})
	require.NoError(t, err)

	recs := readStream(t, db)
	require.Len(t, recs, 5)
	var kinds []stream.Change[Kinds]
	var other []stream.Record
	for _, rec := range recs {
		name, err := kindsTable.EntityOf(rec.Keys)
		if err != nil {
			other = append(other, rec)
			continue
		}
		if name != "Kinds" {
			other = append(other, rec)
			continue
		}
		c, err := stream.Decode(kindsE, rec)
		require.NoError(t, err)
		kinds = append(kinds, c)
	}
	require.Len(t, kinds, 3)
	require.Len(t, other, 2)

	changed := v
	changed.Text, changed.Tags = "changed #1", []string{"a", "b", "c"}
	ins, mod, rem := kinds[0], kinds[1], kinds[2]
	for _, c := range kinds {
		sortSets(c.Old)
		sortSets(c.New)
	}
	assert.Equal(t, stream.EventInsert, ins.Event)
	assert.Nil(t, ins.Old)
	assert.Equal(t, v, *ins.New, "every kind comes back from the real stream as it was written")
	assert.Equal(t, stream.EventModify, mod.Event)
	assert.Equal(t, v, *mod.Old)
	assert.Equal(t, changed, *mod.New)
	assert.Equal(t, []string{"Text", "Tags"}, mod.Changed)
	assert.Equal(t, stream.EventRemove, rem.Event)
	assert.False(t, rem.Expired)
	assert.Nil(t, rem.New)
	assert.Equal(t, changed, *rem.Old)
	for _, c := range kinds {
		assert.Equal(t, key, c.Key)
		assert.False(t, c.Time.IsZero())
	}
	assert.True(t, seqLess(ins.SequenceNumber, mod.SequenceNumber) && seqLess(mod.SequenceNumber, rem.SequenceNumber),
		"sequence numbers grow: %s %s %s", ins.SequenceNumber, mod.SequenceNumber, rem.SequenceNumber)

	// The same records as a Lambda function receives them, through JSON.
	arn, err := db.StreamARN(ctx)
	require.NoError(t, err)
	ev, err := lambdaevent.Event(recs, arn)
	require.NoError(t, err)
	raw, err := json.Marshal(ev)
	require.NoError(t, err)
	ev = events.DynamoDBEvent{}
	require.NoError(t, json.Unmarshal(raw, &ev))
	require.Len(t, ev.Records, len(recs))
	bySeq := map[string]stream.Record{}
	for _, rec := range recs {
		bySeq[rec.SequenceNumber] = rec
	}
	for _, lr := range ev.Records {
		rec, err := stream.FromLambda(lr)
		require.NoError(t, err)
		want, ok := bySeq[rec.SequenceNumber]
		require.True(t, ok, rec.SequenceNumber)
		assert.Equal(t, want.NewImage, rec.NewImage)
		assert.Equal(t, want.OldImage, rec.OldImage)
		assert.Equal(t, want.Keys, rec.Keys)
		assert.Equal(t, want.Event, rec.Event)
		assert.Equal(t, arn, rec.SourceARN)
	}

	// The handler: per entity and event; the unknown type fails the
	// batch at its record unless OnUnknown takes it.
	var got []stream.EventType
	var notes []string
	h := mustHandler(t, kindsTable, stream.OnFailure(func(context.Context, *stream.RecordError) {}))
	stream.On(h, kindsE, func(_ context.Context, c stream.Change[Kinds]) error { got = append(got, c.Event); return nil })
	stream.On(h, notesE, func(_ context.Context, c stream.Change[StreamNote]) error {
		notes = append(notes, c.New.ID)
		return nil
	}, stream.EventInsert)
	resp, err := h.HandleLambda(ctx, ev)
	require.NoError(t, err)
	require.Len(t, resp.BatchItemFailures, 1)
	var ghostSeq string
	for _, o := range other {
		if o.NewImage["_type"].(*types.AttributeValueMemberS).Value == "Ghost" {
			ghostSeq = o.SequenceNumber
		}
	}
	assert.Equal(t, ghostSeq, resp.BatchItemFailures[0].ItemIdentifier)

	got, notes = nil, nil
	h = mustHandler(t, kindsTable, stream.OnUnknown(func(context.Context, stream.Record, error) error { return nil }))
	stream.On(h, kindsE, func(_ context.Context, c stream.Change[Kinds]) error { got = append(got, c.Event); return nil })
	stream.On(h, notesE, func(_ context.Context, c stream.Change[StreamNote]) error {
		notes = append(notes, c.New.ID)
		return nil
	}, stream.EventInsert)
	require.Nil(t, h.Process(ctx, recs))
	assert.Equal(t, []stream.EventType{stream.EventInsert, stream.EventModify, stream.EventRemove}, got)
	assert.Equal(t, []string{"n%1"}, notes)
}

// localKinds is kindsValue without an empty map inside a list: DynamoDB
// Local's stream sends one as {} (no type), which the SDK's Streams client
// then decodes wrongly; the service sends {"M":{}}. The unit tests cover
// that value through both event shapes. Sets are in sorted order, which is
// the order sortSets gives what comes back in (sets have none).
func localKinds() Kinds {
	v := kindsValue()
	v.Deep = []map[string]Deep{{"z": {N: 1}}, {"y": {B: true}}}
	sortSets(&v)
	return v
}

func sortSets(v *Kinds) {
	if v == nil {
		return
	}
	slices.Sort(v.Tags)
	slices.Sort(v.Nums)
	slices.SortFunc(v.Blobs, bytes.Compare)
}

// seqLess compares sequence numbers: decimal strings of any length.
func seqLess(a, b string) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}

// lease expires by the real clock: DynamoDB Local deletes it within seconds.
type lease struct {
	ID    string    `dynamodbav:"id"`
	Until time.Time `dynamodbav:"ttl,unixtime"`
}

var (
	leaseTable = st.MustTable("Leases", st.WithTTL("ttl"), st.WithStream(st.StreamNewAndOldImages))
	leases     = st.MustDefine[lease](leaseTable, "Lease", st.Key("LEASE#{ID}", "LEASE"))
)

// DynamoDB Local (3.3.0) deletes expired items by the real clock, and its
// stream then carries a record the library cannot take for a TTL removal:
// event "UNKNOWN_TO_SDK_VERSION", no user identity (the service sends
// REMOVE with the principal dynamodb.amazonaws.com). stream.Read reports
// that record, with its position, and reads on to the records after it.
func TestIntegrationStreamLocalTTLRemoval(t *testing.T) {
	ctx := context.Background()
	db := singletabletest.LocalDB(t, leaseTable)
	past := time.Now().Add(-time.Hour).Truncate(time.Second)
	require.NoError(t, leases.Put(ctx, db, lease{ID: "gone#%", Until: past}))
	require.Eventually(t, func() bool {
		_, err := leases.Get(ctx, db, lease{ID: "gone#%"}, st.IncludeExpired())
		return errors.Is(err, st.ErrNotFound)
	}, 2*time.Minute, 500*time.Millisecond, "DynamoDB Local deletes the expired item")
	require.NoError(t, leases.Put(ctx, db, lease{ID: "after", Until: time.Now().Add(time.Hour)}))

	arn, err := db.StreamARN(ctx)
	require.NoError(t, err)
	sc, err := ddblocal.StreamsClient(ctx)
	require.NoError(t, err)
	var events []string
	var refused stream.Record
	for rec, err := range stream.Read(ctx, sc, arn) {
		if err != nil {
			require.ErrorIs(t, err, st.ErrInvalidInput)
			refused = rec
			events = append(events, "error")
			continue
		}
		got, err := stream.Decode(leases, rec)
		require.NoError(t, err)
		events = append(events, string(rec.Event)+" "+got.New.ID)
	}
	assert.Equal(t, []string{"INSERT gone#%", "error", "INSERT after"}, events)
	assert.False(t, refused.Expired, "Local sends no user identity")
	assert.NotEmpty(t, refused.SequenceNumber, "the refused record says where it is")
	assert.Equal(t, "gone#%", refused.OldImage["id"].(*types.AttributeValueMemberS).Value)
}

// handle is a stream user with a unique field: each Create, Update of it
// and Delete also writes a guard item, whose records are in the stream.
type handle struct {
	ID   string `dynamodbav:"id"`
	Name string `dynamodbav:"name" singletable:"unique"`
}

var (
	handleTable = st.MustTable("Handles", st.WithStream(st.StreamNewAndOldImages))
	handles     = st.MustDefine[handle](handleTable, "Handle", st.Key("HANDLE#{ID}", "HANDLE"))
)

// The live stream of a table with unique fields: the handler takes the
// entity's records and skips the guard items' (it used to fail the first
// one as an unknown entity, which stops a Lambda shard for good).
func TestIntegrationStreamGuardItems(t *testing.T) {
	ctx := context.Background()
	db := singletabletest.LocalDB(t, handleTable)
	require.NoError(t, handles.Create(ctx, db, handle{ID: "h1", Name: "ann"}))
	_, err := handles.Update(ctx, db, handle{ID: "h1"}, st.Set("Name", "bob"))
	require.NoError(t, err)
	require.NoError(t, handles.Delete(ctx, db, handle{ID: "h1"}))
	recs := readStream(t, db)
	require.Equal(t, 7, len(recs), "3 item records, 4 guard records (ann put and deleted, bob put and deleted)")

	var seen []stream.EventType
	h := mustHandler(t, handleTable)
	stream.On(h, handles, func(_ context.Context, c stream.Change[handle]) error {
		seen = append(seen, c.Event)
		return nil
	})
	assert.Nil(t, h.Process(ctx, recs))
	assert.Equal(t, []stream.EventType{stream.EventInsert, stream.EventModify, stream.EventRemove}, seen)
}
