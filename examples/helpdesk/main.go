// Command helpdesk runs a multi-tenant helpdesk against DynamoDB Local:
// tenants, their agents, tickets and tags, every key inside its tenant.
//
//   - Tickets are read by tenant and queue, sorted by status then
//     priority, through an index whose keys are the ticket's own
//     attributes (multi-attribute index keys: IndexKeys("tenantId,queue",
//     "status,priority")): nothing is written for the index, priorities
//     sort as numbers, and a draft without a status is not in it.
//   - An agent's email is unique within the tenant (`singletable:"unique
//     within TenantID"`): two tenants may each have ann@example.com, one
//     tenant may not have it twice, and the refusal says in which tenant.
//   - Tagging a ticket creates the tag in the same transaction when it is
//     new (graph.CreateTo); ticket and tag share the tenant, which the
//     edge stores once (graph.Shared).
//   - An agent holds at most two open tickets (graph.CapOut), and only
//     open tickets are assigned (graph.IfTo): a refusal says which.
//
// It checks every result against what the writes imply and exits non-zero
// if one is wrong.
//
//	go run ./cmd/singletable-local run -- go run ./examples/helpdesk
//	make examples   # runs every example, this one included
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/graph"
	"github.com/singletable/singletable/internal/examplekit"
	"github.com/singletable/singletable/singletabletest/local"
)

// Tenant is a customer of the helpdesk.
type Tenant struct {
	ID   string `dynamodbav:"tenantId"`
	Name string `dynamodbav:"name"`
}

// Agent answers a tenant's tickets; Open counts the tickets assigned.
type Agent struct {
	TenantID string `dynamodbav:"tenantId"`
	ID       string `dynamodbav:"agentId"`
	Email    string `dynamodbav:"email" singletable:"unique within TenantID"`
	Name     string `dynamodbav:"name"`
	Open     int    `dynamodbav:"open"`
}

// Ticket is a tenant's ticket in a queue. A draft has no status yet.
type Ticket struct {
	TenantID string `dynamodbav:"tenantId"`
	ID       string `dynamodbav:"ticketId"`
	Queue    string `dynamodbav:"queue"`
	Status   string `dynamodbav:"status,omitempty"`
	Priority int    `dynamodbav:"priority"`
	Title    string `dynamodbav:"title"`
	Tags     int    `dynamodbav:"tags"`
}

// Tag labels tickets; Tickets counts them.
type Tag struct {
	TenantID string `dynamodbav:"tenantId"`
	Name     string `dynamodbav:"name"`
	Tickets  int    `dynamodbav:"tickets"`
}

// Tagging is one tag on one ticket.
type Tagging struct {
	TenantID string    `dynamodbav:"tenantId"`
	TicketID string    `dynamodbav:"ticketId"`
	Tag      string    `dynamodbav:"tag"`
	Added    time.Time `dynamodbav:"added" singletable:"created"`
}

// Assignment is one ticket assigned to one agent.
type Assignment struct {
	TenantID string `dynamodbav:"tenantId"`
	AgentID  string `dynamodbav:"agentId"`
	TicketID string `dynamodbav:"ticketId"`
}

// openCap is how many open tickets an agent holds at most.
const openCap = 2

var (
	Helpdesk = st.MustTable("Helpdesk",
		// A ticket's own attributes are the keys: tenant and queue the
		// partition, status then priority the sort.
		st.WithGSI("ByQueue", st.IndexKeys("tenantId,queue", "status,priority")),
		st.WithGSI("GSI1"))
	Tenants = st.MustDefine[Tenant](Helpdesk, "Tenant", st.Key("TENANT#{ID}", "TENANT"))
	Agents  = st.MustDefine[Agent](Helpdesk, "Agent", st.Key("TENANT#{TenantID}#AGENT#{ID}", "AGENT"))
	Tickets = st.MustDefine[Ticket](Helpdesk, "Ticket", st.Key("TENANT#{TenantID}#TICKET#{ID}", "TICKET"))
	Tags    = st.MustDefine[Tag](Helpdesk, "Tag", st.Key("TENANT#{TenantID}#TAG#{Name}", "TAG"))

	// A queue's tickets in (status, priority) order; with a status given
	// (the zero priority after it is not), that status's tickets by
	// priority; with a status and a priority, those at that priority or
	// above.
	QueueTickets = Tickets.Pattern("QueueTickets").On("ByQueue").SortPrefix().Must()
	QueueUrgent  = Tickets.Pattern("QueueUrgent").On("ByQueue").SortGreaterOrEqual().Must()

	// A ticket's tags (Out) and a tag's tickets (In, through GSI1), both
	// inside the tenant the edge stores once.
	TaggingEdges = st.MustDefine[Tagging](Helpdesk, "Tagging",
		st.Key("TENANT#{TenantID}#TICKET#{TicketID}", "TAG#{Tag}"),
		st.Index("GSI1", "TENANT#{TenantID}#TAG#{Tag}", "TICKET#{TicketID}"))
	Taggings = graph.MustRelate("Tagging", Tickets, TaggingEdges, Tags,
		graph.Shared("TenantID", "TenantID", "TenantID"),
		graph.FromField("TicketID", "ID"), graph.ToField("Tag", "Name"),
		graph.InIndex("GSI1"), graph.CountOut("Tags"), graph.CountIn("Tickets"))

	// An agent's tickets, mirrored under the ticket; Open counts them.
	AssignmentEdges = st.MustDefine[Assignment](Helpdesk, "Assignment",
		st.Key("TENANT#{TenantID}#AGENT#{AgentID}", "TICKET#{TicketID}"))
	Assignments = graph.MustRelate("Assignments", Agents, AssignmentEdges, Tickets,
		graph.Shared("TenantID", "TenantID", "TenantID"),
		graph.FromField("AgentID", "ID"), graph.ToField("TicketID", "ID"),
		graph.InMirror("AssignedTo", "TENANT#{TenantID}#TICKET#{TicketID}", "AGENT#{AgentID}"),
		graph.CountOut("Open"))
)

func main() {
	if err := run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		os.Exit(1)
	}
	fmt.Println("\nEvery query, guard, tag and assignment is what the writes imply.")
}

func run(ctx context.Context) error {
	client, err := local.Client(ctx)
	if err != nil {
		return err
	}
	db := st.New(client, Helpdesk)
	fmt.Print(Helpdesk.Sheet())
	if err := examplekit.FreshTable(ctx, db); err != nil {
		return err
	}
	fmt.Printf("\nCreated table %s.\n", db.TableName())
	var c examplekit.Checker

	fmt.Println("\n1. Two tenants, their agents; an email is unique within its tenant")
	for _, t := range []Tenant{{ID: "acme", Name: "Acme"}, {ID: "globex", Name: "Globex"}} {
		if err := Tenants.Create(ctx, db, t); err != nil {
			return err
		}
	}
	for _, a := range []Agent{
		{TenantID: "acme", ID: "ann", Email: "ann@example.com", Name: "Ann"},
		{TenantID: "acme", ID: "bob", Email: "bob@example.com", Name: "Bob"},
		{TenantID: "globex", ID: "ann", Email: "ann@example.com", Name: "Ann (Globex)"},
	} {
		err := Agents.Create(ctx, db, a)
		c.Equal(fmt.Sprintf("agent %s/%s <%s> created", a.TenantID, a.ID, a.Email), nil, err)
	}
	err = Agents.Create(ctx, db, Agent{TenantID: "acme", ID: "ann2", Email: "ann@example.com", Name: "Ann again"})
	fmt.Printf("  refused: %v\n", err)
	var uv *st.UniqueViolationError
	c.That("a second ann@example.com in acme is a *UniqueViolationError", errors.As(err, &uv))
	if uv != nil {
		c.Equal("it names the field and the scope", []string{"Email", "ann@example.com", "TenantID", "acme"}, []string{uv.Field, uv.Value, uv.Scope, uv.ScopeValue})
	}
	// Bob takes a new address: Update moves his guard in its transaction,
	// and his old address is free for someone else in acme.
	_, err = Agents.Update(ctx, db, Agent{TenantID: "acme", ID: "bob"}, st.Set("Email", "robert@example.com"))
	c.Equal("bob's email changed with Update", nil, err)
	err = Agents.Create(ctx, db, Agent{TenantID: "acme", ID: "bea", Email: "bob@example.com", Name: "Bea"})
	c.Equal("bob@example.com is free again in acme", nil, err)

	fmt.Println("\n2. Tickets by tenant and queue, sorted by status then priority (native keys)")
	for _, t := range []Ticket{
		{TenantID: "acme", ID: "t1", Queue: "billing", Status: "OPEN", Priority: 2, Title: "Refund"},
		{TenantID: "acme", ID: "t2", Queue: "billing", Status: "OPEN", Priority: 10, Title: "Double charge"},
		{TenantID: "acme", ID: "t3", Queue: "billing", Status: "OPEN", Priority: 9, Title: "Invoice address"},
		{TenantID: "acme", ID: "t4", Queue: "billing", Status: "CLOSED", Priority: 5, Title: "VAT number"},
		{TenantID: "acme", ID: "t5", Queue: "billing", Priority: 7, Title: "Draft: card expired"},
		{TenantID: "acme", ID: "t6", Queue: "login", Status: "OPEN", Priority: 3, Title: "Locked out"},
		{TenantID: "globex", ID: "t1", Queue: "billing", Status: "OPEN", Priority: 1, Title: "Globex's refund"},
	} {
		if err := Tickets.Create(ctx, db, t); err != nil {
			return err
		}
	}
	in, err := Tickets.PutInput(db, Ticket{TenantID: "acme", ID: "t1", Queue: "billing", Status: "OPEN", Priority: 2})
	if err != nil {
		return err
	}
	var attrs []string
	for a := range in.Item {
		attrs = append(attrs, a)
	}
	c.Equal("a ticket stores no index key of its own: keys, type and fields", 10, len(attrs))
	queue := func(what string, p *st.Pattern[Ticket], params Ticket, want []string, opts ...st.QueryOption) {
		page, err := p.Query(ctx, db, params, opts...)
		var got []string
		if page != nil {
			for _, t := range page.Items {
				got = append(got, fmt.Sprintf("%s %s/%d", t.ID, t.Status, t.Priority))
			}
		}
		fmt.Printf("  %s: %v\n", what, got)
		c.Equal(what, []any{nil, want}, []any{err, got})
	}
	queue("acme's billing queue (the draft t5 has no status: not in the index)", QueueTickets,
		Ticket{TenantID: "acme", Queue: "billing"},
		[]string{"t4 CLOSED/5", "t1 OPEN/2", "t3 OPEN/9", "t2 OPEN/10"})
	queue("its open tickets, most urgent first (priorities are numbers: 10 > 9)", QueueTickets,
		Ticket{TenantID: "acme", Queue: "billing", Status: "OPEN"},
		[]string{"t2 OPEN/10", "t3 OPEN/9", "t1 OPEN/2"}, st.Descending())
	queue("its open tickets at priority 5 or more", QueueUrgent,
		Ticket{TenantID: "acme", Queue: "billing", Status: "OPEN", Priority: 5},
		[]string{"t3 OPEN/9", "t2 OPEN/10"})
	queue("globex's billing queue", QueueTickets, Ticket{TenantID: "globex", Queue: "billing"}, []string{"t1 OPEN/1"})
	// The draft gets a status: the item joins the index, no backfill.
	_, err = Tickets.Update(ctx, db, Ticket{TenantID: "acme", ID: "t5"}, st.Set("Status", "OPEN"))
	c.Equal("t5 opened", nil, err)
	queue("acme's open billing tickets after t5 opened", QueueTickets,
		Ticket{TenantID: "acme", Queue: "billing", Status: "OPEN"},
		[]string{"t1 OPEN/2", "t5 OPEN/7", "t3 OPEN/9", "t2 OPEN/10"})

	fmt.Println("\n3. Tags: the first ticket tagged creates the tag, in the same transaction")
	tag := func(tenant, ticket, name string) {
		made, err := Taggings.Link(ctx, db, Tagging{TenantID: tenant, TicketID: ticket, Tag: name}, graph.CreateTo(Tag{}))
		c.Equal(fmt.Sprintf("%s/%s tagged %s", tenant, ticket, name), []any{nil, true}, []any{err, made})
	}
	tag("acme", "t1", "refund")
	tag("acme", "t2", "refund")
	tag("acme", "t2", "urgent")
	tag("globex", "t1", "refund")
	for _, want := range []Tag{{TenantID: "acme", Name: "refund", Tickets: 2}, {TenantID: "acme", Name: "urgent", Tickets: 1}, {TenantID: "globex", Name: "refund", Tickets: 1}} {
		got, err := Tags.Get(ctx, db, Tag{TenantID: want.TenantID, Name: want.Name}, st.ConsistentRead())
		c.Equal(fmt.Sprintf("tag %s/%s counts %d ticket(s)", want.TenantID, want.Name, want.Tickets), []any{nil, want}, []any{err, got})
	}
	var tagged []string
	for e, err := range Taggings.InAll(ctx, db, Tag{TenantID: "acme", Name: "refund"}) {
		if err != nil {
			return err
		}
		tagged = append(tagged, e.TicketID)
	}
	c.Equal("acme's refund tag is on t1 and t2 (not globex's t1)", []string{"t1", "t2"}, tagged)
	t2, err := Tickets.Get(ctx, db, Ticket{TenantID: "acme", ID: "t2"}, st.ConsistentRead())
	c.Equal("acme/t2 counts 2 tags", []any{nil, 2}, []any{err, t2.Tags})

	fmt.Println("\n4. Assignments: an agent holds at most", openCap, "open tickets")
	assign := func(agent, ticket string) error {
		_, err := Assignments.Link(ctx, db, Assignment{TenantID: "acme", AgentID: agent, TicketID: ticket},
			graph.CapOut(openCap), graph.IfTo(st.Eq("Status", "OPEN")))
		return err
	}
	c.Equal("ann takes t1", nil, assign("ann", "t1"))
	c.Equal("ann takes t2", nil, assign("ann", "t2"))
	err = assign("ann", "t3")
	fmt.Printf("  refused: %v\n", err)
	var le *graph.LinkError
	c.That("ann's third is refused: ErrCapReached", errors.Is(err, graph.ErrCapReached) && errors.As(err, &le))
	if le != nil {
		c.Equal("the refusal names the end, its count and the cap", []any{"from", int64(openCap), int64(openCap)}, []any{le.End, le.Count, le.Cap})
	}
	err = assign("bob", "t4")
	fmt.Printf("  refused: %v\n", err)
	c.That("a closed ticket is refused: its condition failed", errors.As(err, &le) && le.End == "to" && errors.Is(err, st.ErrConditionFailed))
	c.Equal("bob takes t3", nil, assign("bob", "t3"))
	for _, want := range []struct {
		agent string
		open  int
	}{{"ann", 2}, {"bob", 1}} {
		a, err := Agents.Get(ctx, db, Agent{TenantID: "acme", ID: want.agent}, st.ConsistentRead())
		n := 0
		for _, err := range Assignments.OutAll(ctx, db, Agent{TenantID: "acme", ID: want.agent}, st.ConsistentRead()) {
			if err != nil {
				return err
			}
			n++
		}
		c.Equal(fmt.Sprintf("%s's open count is %d and equals the assignments stored", want.agent, want.open), []any{nil, want.open, want.open}, []any{err, a.Open, n})
	}
	// Ann hands t2 back: her count drops below the cap again.
	done, err := Assignments.Unlink(ctx, db, Assignment{TenantID: "acme", AgentID: "ann", TicketID: "t2"})
	c.Equal("ann hands t2 back", []any{nil, true}, []any{err, done})
	c.Equal("ann takes t5 (below the cap again)", nil, assign("ann", "t5"))
	return c.Err()
}
