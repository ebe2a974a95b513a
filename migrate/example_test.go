package migrate_test

// Runnable examples of migrations, on the recording mock.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/migrate"
	"github.com/singletable/singletable/revision"
	"github.com/singletable/singletable/singletabletest"
)

type HelpTicket struct {
	ID    string `dynamodbav:"ticketId"`
	Queue string `dynamodbav:"queue"`
}

// scannedTickets answers a Scan with two stored tickets, written before
// the model had its ByQueue index, all in the first segment.
func scannedTickets(_ context.Context, in *dynamodb.ScanInput) (*dynamodb.ScanOutput, error) {
	if in.Segment != nil && *in.Segment != 0 {
		return &dynamodb.ScanOutput{}, nil
	}
	item := func(id, queue string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{
			"PK": &types.AttributeValueMemberS{Value: "TICKET#" + id}, "SK": &types.AttributeValueMemberS{Value: "TICKET"},
			"_type":    &types.AttributeValueMemberS{Value: "Ticket"},
			"ticketId": &types.AttributeValueMemberS{Value: id}, "queue": &types.AttributeValueMemberS{Value: queue},
		}
	}
	return &dynamodb.ScanOutput{Items: []map[string]types.AttributeValue{item("t1", "billing"), item("t2", "support")}, ScannedCount: 2}, nil
}

// printPuts prints attribute attr of every item the client was asked to
// put.
func printPuts(client *singletabletest.Client, attr string) {
	for _, c := range client.Calls() {
		if put, ok := c.Input.(*dynamodb.PutItemInput); ok {
			fmt.Println(put.Item[attr].(*types.AttributeValueMemberS).Value)
		}
	}
}

// After adding an index to the model (and to the table, with
// EnsureTable(ctx, AddMissingIndexes())), one call writes its keys into
// the items stored before.
func ExampleBackfillIndex() {
	table := st.MustTable("Helpdesk", st.WithGSI("ByQueue"))
	tickets := st.MustDefine[HelpTicket](table, "Ticket", st.Key("TICKET#{ID}", "TICKET"),
		st.Index("ByQueue", "QUEUE#{Queue}", "TICKET#{ID}"))
	client := &singletabletest.Client{ScanFunc: scannedTickets}
	db := st.New(client, table)

	report, err := migrate.BackfillIndex(context.Background(), db, tickets, "ByQueue", migrate.Segments(4))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("scanned %d, changed %d, skipped %d, failed %d\n", report.Scanned, report.Changed, report.Skipped, report.Failed)
	printPuts(client, "ByQueuePK")
	// Output:
	// scanned 2, changed 2, skipped 0, failed 0
	// QUEUE#billing
	// QUEUE#support
}

// A transform changes the items' content; one that returns ErrSkipItem
// leaves an item as stored.
func ExampleRun() {
	table := st.MustTable("Helpdesk")
	tickets := st.MustDefine[HelpTicket](table, "Ticket", st.Key("TICKET#{ID}", "TICKET"))
	client := &singletabletest.Client{ScanFunc: scannedTickets}
	db := st.New(client, table)

	report, err := migrate.Run(context.Background(), db, tickets, func(_ context.Context, t *HelpTicket) error {
		if t.Queue == "support" {
			return migrate.ErrSkipItem
		}
		t.Queue = strings.ToUpper(t.Queue)
		return nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("changed %d, skipped %d\n", report.Changed, report.Skipped)
	printPuts(client, "queue")
	// Output:
	// changed 1, skipped 1
	// BILLING
}

// A dry run reports what would change, and writes nothing.
func ExampleDryRun() {
	table := st.MustTable("Helpdesk", st.WithGSI("ByQueue"))
	tickets := st.MustDefine[HelpTicket](table, "Ticket", st.Key("TICKET#{ID}", "TICKET"),
		st.Index("ByQueue", "QUEUE#{Queue}", "TICKET#{ID}"))
	client := &singletabletest.Client{ScanFunc: scannedTickets}
	db := st.New(client, table)

	report, err := migrate.BackfillIndex(context.Background(), db, tickets, "ByQueue", migrate.DryRun(),
		migrate.OnChange(func(c migrate.Change) { fmt.Println(c.Attributes) }))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("would change %d; writes sent: %d\n", report.Changed, len(client.Calls())-1)
	// Output:
	// [ByQueuePK ByQueueSK]
	// [ByQueuePK ByQueueSK]
	// would change 2; writes sent: 0
}

// With a checkpoint store, a migration resumes where an earlier run
// stopped; once it has completed, running it again reads nothing.
func ExampleSaveCheckpoints() {
	table := st.MustTable("Helpdesk", st.WithGSI("ByQueue"))
	tickets := st.MustDefine[HelpTicket](table, "Ticket", st.Key("TICKET#{ID}", "TICKET"),
		st.Index("ByQueue", "QUEUE#{Queue}", "TICKET#{ID}"))
	db := st.New(&singletabletest.Client{ScanFunc: scannedTickets}, table, st.WithCursorKeys([]byte("a key of 32 bytes for the example")))
	dir, err := os.MkdirTemp("", "checkpoint")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	store := migrate.FileCheckpoint(filepath.Join(dir, "tickets.pos"))

	for range 2 {
		report, err := migrate.BackfillIndex(context.Background(), db, tickets, "ByQueue",
			migrate.Segments(2), migrate.SaveCheckpoints(store, 0))
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("scanned %d, changed %d\n", report.Scanned, report.Changed)
	}
	// Output:
	// scanned 2, changed 2
	// scanned 0, changed 0
}

// RevTicket is revision 2 of a ticket: revision 0 stored the queue as
// "q", and revision 2 gives tickets without one the triage queue.
type RevTicket struct {
	ID    string `dynamodbav:"ticketId"`
	Queue string `dynamodbav:"queue"`
}

// scannedRevisions answers a Scan with a ticket at each revision: 0, 1
// and the current 2.
func scannedRevisions(context.Context, *dynamodb.ScanInput) (*dynamodb.ScanOutput, error) {
	item := func(id string, attrs ...string) map[string]types.AttributeValue {
		it := map[string]types.AttributeValue{
			"PK": &types.AttributeValueMemberS{Value: "TICKET#" + id}, "SK": &types.AttributeValueMemberS{Value: "TICKET"},
			"_type": &types.AttributeValueMemberS{Value: "Ticket"}, "ticketId": &types.AttributeValueMemberS{Value: id},
		}
		for i := 0; i < len(attrs); i += 2 {
			if attrs[i] == "_rev" {
				it[attrs[i]] = &types.AttributeValueMemberN{Value: attrs[i+1]}
			} else {
				it[attrs[i]] = &types.AttributeValueMemberS{Value: attrs[i+1]}
			}
		}
		return it
	}
	return &dynamodb.ScanOutput{Items: []map[string]types.AttributeValue{
		item("t1", "q", "billing"), item("t2", "_rev", "1"), item("t3", "queue", "support", "_rev", "2"),
	}, ScannedCount: 3}, nil
}

// After a deploy at a new shape revision, one pass writes every older item
// in the current shape (as reads upgrade it), skips the current ones, and
// counts the items per revision before and after.
func ExampleUpgradeRevisions() {
	table := st.MustTable("Helpdesk")
	tickets := st.MustDefine[RevTicket](table, "Ticket", st.Key("TICKET#{ID}", "TICKET"),
		revision.Current(2),
		revision.UpgradeItem(0, func(item map[string]types.AttributeValue) error {
			if q, ok := item["q"]; ok { // 0 → 1: renamed
				item["queue"] = q
				delete(item, "q")
			}
			return nil
		}),
		revision.Upgrade(1, func(t *RevTicket) error {
			if t.Queue == "" { // 1 → 2: a default
				t.Queue = "triage"
			}
			return nil
		}),
	)
	client := &singletabletest.Client{ScanFunc: scannedRevisions}
	db := st.New(client, table)

	report, err := migrate.UpgradeRevisions(context.Background(), db, tickets)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("changed %d, skipped %d\n", report.Changed, report.Skipped)
	fmt.Println("before:", report.RevisionsBefore, "after:", report.RevisionsAfter)
	printPuts(client, "queue")
	// Output:
	// changed 2, skipped 1
	// before: map[0:1 1:1 2:1] after: map[2:3]
	// billing
	// triage
}
