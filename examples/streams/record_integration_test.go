//go:build integration

package main

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"slices"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/require"

	"github.com/singletable/singletable/internal/lambdaevent"
	"github.com/singletable/singletable/singletabletest"
	"github.com/singletable/singletable/singletabletest/local"
	"github.com/singletable/singletable/stream"
)

var record = flag.Bool("record", false, "write testdata/orders_events.json from DynamoDB Local's stream")

const recording = "testdata/orders_events.json"

// TestRecordedEvents runs the seed script on a fresh table on DynamoDB
// Local, reads its stream and turns the records into the Lambda event the
// example replays. With -record it writes testdata/orders_events.json:
//
//	scripts/dynamodb-local.sh run -- go test -tags integration -run TestRecordedEvents ./examples/streams -record
//
// Without, it checks that the recording holds the records a fresh run
// gives (sequence numbers, event IDs, times and the ARN aside).
func TestRecordedEvents(t *testing.T) {
	ctx := context.Background()
	db := singletabletest.LocalDB(t, Shop)
	require.NoError(t, seedScript(ctx, db))
	arn, err := db.StreamARN(ctx)
	require.NoError(t, err)
	sc, err := local.StreamsClient(ctx)
	require.NoError(t, err)
	var recs []stream.Record
	for rec, err := range stream.Read(ctx, sc, arn) {
		require.NoError(t, err)
		recs = append(recs, rec)
	}
	ev, err := lambdaevent.Event(recs, "arn:aws:dynamodb:us-east-1:000000000000:table/StreamsOrders/stream/recorded")
	require.NoError(t, err)
	fresh, err := json.MarshalIndent(ev, "", "  ")
	require.NoError(t, err)
	if *record {
		require.NoError(t, os.WriteFile(recording, append(fresh, '\n'), 0o644))
		return
	}
	stored, err := os.ReadFile(recording)
	require.NoError(t, err)
	require.Equal(t, shape(t, fresh), shape(t, stored), "the recording is out of date: run with -record")
}

// shape is what a recording says beyond sequence numbers, IDs and times:
// each record's event, keys and images, in a canonical order.
func shape(t *testing.T, raw []byte) []string {
	t.Helper()
	var ev events.DynamoDBEvent
	require.NoError(t, json.Unmarshal(raw, &ev))
	var out []string
	for _, r := range ev.Records {
		b, err := json.Marshal([]any{r.EventName, r.Change.Keys, r.Change.OldImage, r.Change.NewImage})
		require.NoError(t, err)
		out = append(out, string(b))
	}
	slices.Sort(out)
	return out
}
