// Command streams runs a stream processor for the seed's orders against
// DynamoDB Local (dynamodb-design-patterns.txt, "Streams"; the orders of
// dynamodb-access-patterns.txt). One handler, built with
// stream.NewHandler, keeps each order's total from its items'
// changes and logs its status changes, idempotently: a replayed record
// changes nothing. It is fed twice:
//
//  1. as a Lambda function, with events recorded from DynamoDB Local's
//     stream (testdata/orders_events.json, written by
//     record_integration_test.go), including a batch with a bad record,
//     reported in BatchItemFailures and retried from there;
//  2. end to end: the same changes made on a table with a stream, read
//     back from DynamoDB Local's live stream with stream.Read.
//
// It exits non-zero if any derived value is wrong.
//
//	make examples   # starts DynamoDB Local and runs every example
package main

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"slices"

	"github.com/aws/aws-lambda-go/events"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/examplekit"
	"github.com/singletable/singletable/internal/lambdaevent"
	"github.com/singletable/singletable/singletabletest/local"
	"github.com/singletable/singletable/stream"
)

//go:embed testdata/orders_events.json
var recordedEvents []byte

func main() {
	if err := run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		os.Exit(1)
	}
	fmt.Println("\nEvery derived total and status log is right, and replays changed nothing.")
}

func run(ctx context.Context) error {
	client, err := local.Client(ctx)
	if err != nil {
		return err
	}
	var c examplekit.Checker

	fmt.Println("1. A Lambda function fed events recorded from DynamoDB Local's stream")
	replay := st.New(client, Shop, st.WithTableName("StreamsOrdersReplay"))
	if err := examplekit.FreshTable(ctx, replay); err != nil {
		return err
	}
	var ev events.DynamoDBEvent
	if err := json.Unmarshal(recordedEvents, &ev); err != nil {
		return fmt.Errorf("testdata/orders_events.json: %w", err)
	}
	fmt.Printf("  %d recorded records\n", len(ev.Records))
	h, err := newHandler(replay)
	if err != nil {
		return err
	}

	// A bad record in the middle (a quantity that is not a number): the
	// handler stops there and reports it; Lambda delivers it and what
	// follows again, as below with the record fixed.
	bad := slices.Clone(ev.Records)
	at := badRecord(bad)
	if at < 0 {
		return fmt.Errorf("the recorded events have no item modification")
	}
	img := maps(bad[at].Change.NewImage)
	img["quantity"] = events.NewStringAttribute("many")
	bad[at].Change.NewImage = img
	resp, err := h.HandleLambda(ctx, events.DynamoDBEvent{Records: bad})
	if err != nil {
		return err
	}
	c.Equal("the bad record is reported, alone", []events.DynamoDBBatchItemFailure{{ItemIdentifier: bad[at].Change.SequenceNumber}}, resp.BatchItemFailures)
	resp, err = h.HandleLambda(ctx, events.DynamoDBEvent{Records: ev.Records[at:]})
	if err != nil {
		return err
	}
	c.Equal("the retry from the failed record succeeds", 0, len(resp.BatchItemFailures))
	checkDerived(ctx, replay, &c, "after the retry")

	resp, err = h.HandleLambda(ctx, ev)
	if err != nil {
		return err
	}
	c.Equal("replaying the whole batch succeeds", 0, len(resp.BatchItemFailures))
	checkDerived(ctx, replay, &c, "after replaying every record")

	fmt.Println("\n2. The same changes on a table with a stream, read back live")
	live := st.New(client, Shop)
	if err := examplekit.FreshTable(ctx, live); err != nil {
		return err
	}
	if err := seedScript(ctx, live); err != nil {
		return err
	}
	arn, err := live.StreamARN(ctx)
	if err != nil {
		return err
	}
	sc, err := local.StreamsClient(ctx)
	if err != nil {
		return err
	}
	var recs []stream.Record
	for rec, err := range stream.Read(ctx, sc, arn) {
		if err != nil {
			return err
		}
		recs = append(recs, rec)
	}
	fmt.Printf("  %d records in the stream\n", len(recs))
	c.Equal("the live stream has as many records as the recording", len(ev.Records), len(recs))
	if h, err = newHandler(live); err != nil {
		return err
	}
	if failed := h.Process(ctx, recs); failed != nil {
		return failed
	}
	checkDerived(ctx, live, &c, "from the live stream")
	checkAgainstItems(ctx, live, &c)

	// The same records once more, as a Lambda event: nothing changes.
	lev, err := lambdaevent.Event(recs, arn)
	if err != nil {
		return err
	}
	resp, err = h.HandleLambda(ctx, lev)
	if err != nil {
		return err
	}
	c.Equal("the live records as a Lambda event: no failures", 0, len(resp.BatchItemFailures))
	checkDerived(ctx, live, &c, "after replaying them as a Lambda event")
	return c.Err()
}

// badRecord finds the first modification of an order item.
func badRecord(recs []events.DynamoDBEventRecord) int {
	for i, r := range recs {
		if r.EventName == "MODIFY" && r.Change.NewImage["_type"].String() == "OrderItem" {
			return i
		}
	}
	return -1
}

func maps(m map[string]events.DynamoDBAttributeValue) map[string]events.DynamoDBAttributeValue {
	out := make(map[string]events.DynamoDBAttributeValue, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// checkDerived checks the derived totals and status logs against what the
// seed script implies.
func checkDerived(ctx context.Context, db *st.DB, c *examplekit.Checker, when string) {
	shown := "  totals:"
	for _, id := range []string{"order_456", "order_457", "order_900"} {
		got, err := OrderTotals.Get(ctx, db, OrderTotal{OrderID: id}, st.ConsistentRead())
		got.LastSeq = ""
		shown += fmt.Sprintf(" %s %s", id, money(got.Total))
		c.Equal(fmt.Sprintf("%s: total of %s", when, id), []any{nil, wantTotals[id]}, []any{err, got})
		var log []string
		for s, err := range StatusesOfOrder.All(ctx, db, StatusChange{OrderID: id}, st.ConsistentRead()) {
			if err != nil {
				c.Equal("status log readable", nil, err)
				break
			}
			log = append(log, s.From+">"+s.To)
		}
		c.Equal(fmt.Sprintf("%s: status changes of %s", when, id), wantStatuses[id], log)
	}
	fmt.Println(shown)
}

// checkAgainstItems checks each derived total against the order's items
// as the table holds them.
func checkAgainstItems(ctx context.Context, db *st.DB, c *examplekit.Checker) {
	for id, want := range wantTotals {
		var sum, lines int64
		for it, err := range ItemsOfOrder.All(ctx, db, OrderItem{OrderID: id}, st.ConsistentRead()) {
			if err != nil {
				c.Equal("items readable", nil, err)
				return
			}
			sum += it.Quantity * it.UnitPrice
			lines++
		}
		c.Equal("the derived total of "+id+" is the sum of its items", []int64{want.Total, want.Lines}, []int64{sum, lines})
	}
}

func money(cents int64) string { return fmt.Sprintf("%d.%02d", cents/100, cents%100) }
