// Command revisions evolves a helpdesk's ticket model through three shape
// revisions on one table, against DynamoDB Local, with live traffic during
// each deploy (package revision; docs/migrations.md, "Shape revisions"):
//
//   - revision 1: v1 code opens 30 tickets;
//   - revision 2 renames the customer attribute and adds a field (a raw
//     upgrader) and an index of tickets by customer, in the safe order:
//     ship code that writes the new keys, backfill, then read from the
//     new index;
//   - revision 3 adds a priority (a typed upgrader), then upgrades every
//     ticket in one pass.
//
// While each new version deploys, old and new writers serve replies at the
// same time and new readers read: every reader sees the current shape; an
// old writer's write to a ticket new code wrote is refused (a
// *revision.ConflictError, matching revision.ErrNewer), and the request is retried on the new code, so
// that no index key is left stale and no reply is lost. It exits non-zero
// if any result is wrong.
//
//	scripts/dynamodb-local.sh run -- go run ./examples/revisions
//	make examples   # runs every example, this one included
package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/examplekit"
	"github.com/singletable/singletable/migrate"
	"github.com/singletable/singletable/revision"
	"github.com/singletable/singletable/singletabletest/local"
)

const (
	openTickets   = 30 // opened by v1
	activeTickets = 20 // the ones customers reply to: the others stay at revision 1 until the backfill
)

var customers = []string{"c1", "c2", "c3", "c4", "c5", "c6"}

func ticketID(n int) string { return fmt.Sprintf("t%02d", n) }

func main() {
	if err := run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		os.Exit(1)
	}
	fmt.Println("\nThree revisions deployed under live traffic: every ticket current, every index key right, no reply lost.")
}

func run(ctx context.Context) error {
	client, err := local.Client(ctx)
	if err != nil {
		return err
	}
	var c examplekit.Checker
	name := examplekit.UniqueName("revisions-example")
	db1 := st.New(client, DeskV1, st.WithTableName(name))
	if err := db1.EnsureTable(ctx); err != nil {
		return err
	}
	defer func() { _ = db1.DeleteTable(ctx) }()
	db2 := st.New(client, DeskV2, st.WithTableName(name))
	db3 := st.New(client, DeskV3, st.WithTableName(name))

	v1 := &service[TicketV1]{name: "v1", db: db1, tickets: TicketsV1, customer: "Customer",
		key:   func(id string) TicketV1 { return TicketV1{ID: id} },
		apply: func(t *TicketV1, r request) { t.Replies++; t.Customer = cmp.Or(r.customer, t.Customer) }}
	v2 := &service[TicketV2]{name: "v2", db: db2, tickets: TicketsV2, customer: "CustomerID",
		key:   func(id string) TicketV2 { return TicketV2{ID: id} },
		apply: func(t *TicketV2, r request) { t.Replies++; t.CustomerID = cmp.Or(r.customer, t.CustomerID) }}
	v3 := &service[TicketV3]{name: "v3", db: db3, tickets: TicketsV3, customer: "CustomerID",
		key:   func(id string) TicketV3 { return TicketV3{ID: id} },
		apply: func(t *TicketV3, r request) { t.Replies++; t.CustomerID = cmp.Or(r.customer, t.CustomerID) }}
	replies := map[string]int{} // what each ticket must end with
	seed := rand.New(rand.NewPCG(27, 3))

	fmt.Printf("Revision 1: v1 code opens %d tickets.\n", openTickets)
	for n := 1; n <= openTickets; n++ {
		t := TicketV1{ID: ticketID(n), Customer: customers[n%len(customers)], Subject: "printer " + strconv.Itoa(n)}
		if err := TicketsV1.Create(ctx, db1, t); err != nil {
			return err
		}
	}

	fmt.Println("\nRevision 2 deploys: customer → customerId, a channel, GSI1 (tickets by customer).")
	fmt.Println("1. The table gets GSI1; v2 code writes its keys while reads stay off it.")
	if err := db2.EnsureTable(ctx, st.AddMissingIndexes()); err != nil {
		return err
	}
	if err := TicketsV2.Create(ctx, db2, TicketV2{ID: ticketID(openTickets + 1), CustomerID: "c1", Subject: "no dial tone", Channel: "phone"}); err != nil {
		return err
	}
	if err := v2.handle(ctx, request{ticket: "t01", customer: "c6"}); err != nil {
		return err
	}
	replies["t01"]++
	c.Equal("v2 read t01 at revision 1 (its Update refused), and Put it upgraded", int64(1), v2.upgraded.Load())
	c.Equal("t01 is stored at revision 2 under GSI1 key CUSTOMER#c6", [2]string{"2", "CUSTOMER#c6"},
		[2]string{attr(ctx, client, name, "t01", revision.DefaultAttribute), attr(ctx, client, name, "t01", "GSI1PK")})

	fmt.Println("   A v1 instance, still running, moves t01 to c9 (the Update that left a stale index key before revisions):")
	req := request{ticket: "t01", customer: "c9"}
	err = v1.handle(ctx, req)
	var refused *revision.ConflictError
	c.That("v1's Update is refused with a *revision.ConflictError naming both revisions, at no extra request",
		errors.As(err, &refused) && errors.Is(err, revision.ErrNewer) && refused.Stored == 2 && refused.Writer == 1)
	fmt.Println("     ", err)
	if err := v2.handle(ctx, req); err != nil { // the client's retry reaches a v2 instance
		return err
	}
	replies["t01"]++
	c.Equal("retried on v2: t01's GSI1 key moved with its customer", "CUSTOMER#c9", attr(ctx, client, name, "t01", "GSI1PK"))

	fmt.Println("2. Live traffic: 4 v1 writers and 4 v2 writers reply, 2 v2 readers read.")
	d2 := &deploy[TicketV1, TicketV2]{old: v1, cur: v2, read: func(ctx context.Context, r *rand.Rand) (string, error) {
		t, err := TicketsV2.Get(ctx, db2, TicketV2{ID: ticketID(1 + r.IntN(openTickets))})
		if err == nil && (t.CustomerID == "" || t.Channel == "") {
			return fmt.Sprintf("%+v is not in revision 2's shape", t), nil
		}
		return "", err
	}}
	reads, wrong, err := d2.run(ctx, requests(seed, 4, 25, "t01", replies), requests(seed, 4, 25, "t02", replies))
	if err != nil {
		return err
	}
	fmt.Printf("   %d reads; v1 handed %d requests to v2; v2 upgraded %d tickets by Put\n", reads, v1.handedOff.Load(), v2.upgraded.Load())
	c.Equal("every v2 read saw revision 2's shape", []string(nil), wrong)
	c.That("each v1 writer's reply to t01 was refused and retried on v2", v1.handedOff.Load() >= 4)
	byRev := revisionCounts(ctx, client, name)
	fmt.Println("   stored revisions now:", byRev)
	c.That("tickets no v2 code touched are still at revision 1", byRev["1"] >= openTickets-activeTickets)

	fmt.Println("3. No v1 code runs any more: backfill GSI1 (which upgrades every ticket to revision 2).")
	rep, err := migrate.BackfillIndex(ctx, db2, TicketsV2, "GSI1")
	if err != nil {
		return err
	}
	fmt.Printf("   backfill: %d scanned, %d changed, %d failed\n", rep.Scanned, rep.Changed, rep.Failed)
	c.Equal("every ticket is at revision 2", map[string]int{"2": openTickets + 1}, revisionCounts(ctx, client, name))
	fmt.Println("4. Read from GSI1:")
	checkIndex(ctx, &c, "v2", db2, TicketsV2, ByCustomerV2, func(cu string) TicketV2 { return TicketV2{CustomerID: cu} },
		func(t TicketV2) (string, string) { return t.ID, t.CustomerID })

	fmt.Println("\nRevision 3 deploys: a priority, from the channel (a typed upgrader).")
	if err := v3.handle(ctx, request{ticket: "t02"}); err != nil {
		return err
	}
	replies["t02"]++
	_, err = TicketsV2.Get(ctx, db2, TicketV2{ID: "t02"})
	var newer *revision.NewerError
	c.That("v2 code reading t02, which v3 wrote, gets a *revision.NewerError", errors.As(err, &newer) && newer.Stored == 3 && newer.Current == 2)
	fmt.Println("  ", err)

	fmt.Println("Live traffic: 4 v2 writers and 4 v3 writers reply, 2 v3 readers read (by ticket and by customer).")
	v2.upgraded.Store(0)
	d3 := &deploy[TicketV2, TicketV3]{old: v2, cur: v3, read: func(ctx context.Context, r *rand.Rand) (string, error) {
		var got []TicketV3
		if r.IntN(2) == 0 {
			t, err := TicketsV3.Get(ctx, db3, TicketV3{ID: ticketID(1 + r.IntN(openTickets+1))})
			if err != nil {
				return "", err
			}
			got = append(got, t)
		} else {
			for t, err := range ByCustomerV3.All(ctx, db3, TicketV3{CustomerID: customers[r.IntN(len(customers))]}) {
				if err != nil {
					return "", err
				}
				got = append(got, t)
			}
		}
		for _, t := range got {
			if t.Priority != priorityOf(t.Channel) {
				return fmt.Sprintf("%+v is not in revision 3's shape", t), nil
			}
		}
		return "", nil
	}}
	reads, wrong, err = d3.run(ctx, requests(seed, 4, 25, "t02", replies), requests(seed, 4, 25, "t03", replies))
	if err != nil {
		return err
	}
	fmt.Printf("   %d reads; v2 handed %d requests to v3; v3 upgraded %d tickets by Put\n", reads, v2.handedOff.Load(), v3.upgraded.Load())
	c.Equal("every v3 read saw revision 3's shape", []string(nil), wrong)
	c.That("each v2 writer's reply to t02 was refused and retried on v3", v2.handedOff.Load() >= 4)
	c.Equal("v2 upgraded nothing: no ticket was older than revision 2", int64(0), v2.upgraded.Load())

	before := revisionCounts(ctx, client, name)
	rep, err = migrate.UpgradeRevisions(ctx, db3, TicketsV3)
	if err != nil {
		return err
	}
	after := revisionCounts(ctx, client, name)
	fmt.Printf("Upgrade pass: %d scanned, %d changed, %d failed; revisions %v → %v\n", rep.Scanned, rep.Changed, rep.Failed, rep.RevisionsBefore, rep.RevisionsAfter)
	c.Equal("the pass changed exactly the tickets at revision 2", int64(before["2"]), rep.Changed)
	c.Equal("the pass counted the revisions a raw scan sees", map[int]int64{2: int64(before["2"]), 3: int64(before["3"])}, rep.RevisionsBefore)
	c.Equal("the pass left every ticket at revision 3", map[int]int64{3: int64(openTickets + 1)}, rep.RevisionsAfter)
	c.Equal("every ticket is at revision 3", map[string]int{"3": openTickets + 1}, after)

	fmt.Println("\nThe end state, read by v3:")
	got := map[string]int{}
	prio := true
	for t, err := range TicketsV3.Scan(ctx, db3) {
		if err != nil {
			return err
		}
		if t.Replies > 0 {
			got[t.ID] = t.Replies
		}
		prio = prio && t.Priority == priorityOf(t.Channel)
	}
	c.Equal("every reply counted once, across three versions of the code", replies, got)
	c.That("every ticket's priority is its channel's", prio)
	checkIndex(ctx, &c, "v3", db3, TicketsV3, ByCustomerV3, func(cu string) TicketV3 { return TicketV3{CustomerID: cu} },
		func(t TicketV3) (string, string) { return t.ID, t.CustomerID })
	return c.Err()
}

// checkIndex checks that GSI1 lists every ticket under its customer and
// nowhere else: no entry under a stale key.
func checkIndex[T any](ctx context.Context, c *examplekit.Checker, who string, db *st.DB, tickets *st.Entity[T],
	byCustomer *st.Pattern[T], params func(customer string) T, of func(T) (id, customer string)) {
	want, got := map[string][]string{}, map[string][]string{}
	for t, err := range tickets.Scan(ctx, db) {
		if err != nil {
			c.That(who+" scans the tickets: "+err.Error(), false)
			return
		}
		id, customer := of(t)
		want[customer] = append(want[customer], id)
	}
	for _, ids := range want {
		slices.Sort(ids)
	}
	for _, customer := range append(slices.Clone(customers), "c9") {
		for t, err := range byCustomer.All(ctx, db, params(customer)) {
			if err != nil {
				c.That(who+" queries GSI1: "+err.Error(), false)
				return
			}
			id, _ := of(t)
			got[customer] = append(got[customer], id)
		}
	}
	c.Equal(who+": GSI1 lists every ticket under its customer, and none under a stale key", want, got)
}

// revisionCounts counts the stored tickets by their revision attribute, as
// a raw scan sees them.
func revisionCounts(ctx context.Context, client *dynamodb.Client, table string) map[string]int {
	out := map[string]int{}
	p := dynamodb.NewScanPaginator(client, &dynamodb.ScanInput{TableName: aws.String(table),
		ProjectionExpression: aws.String("#r"), ExpressionAttributeNames: map[string]string{"#r": revision.DefaultAttribute}})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			fmt.Fprintln(os.Stderr, "FAIL:", err)
			os.Exit(1)
		}
		for _, item := range page.Items {
			n, _ := item[revision.DefaultAttribute].(*types.AttributeValueMemberN)
			if n == nil {
				out["none"]++
				continue
			}
			out[n.Value]++
		}
	}
	return out
}

// attr is a ticket's attribute as stored, "" when it has none.
func attr(ctx context.Context, client *dynamodb.Client, table, id, name string) string {
	out, err := client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table),
		Key: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "TICKET#" + id}, "SK": &types.AttributeValueMemberS{Value: "TICKET"}}})
	if err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		os.Exit(1)
	}
	switch v := out.Item[name].(type) {
	case *types.AttributeValueMemberS:
		return v.Value
	case *types.AttributeValueMemberN:
		return v.Value
	}
	return ""
}
