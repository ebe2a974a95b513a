package bench

import (
	"context"
	"fmt"
	"maps"
	"sort"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/capacity"
)

// Native multi-attribute index keys (issue #24, item 4): the helpdesk's
// tickets by tenant and queue sorted by status and priority, once through
// a template index (GSI1PK "TENANT#{TenantID}#QUEUE#{Queue}", GSI1SK
// "STATUS#{Status}#{Priority:3}", written on every item) and once through
// a multi-attribute key over the ticket's own attributes (nothing
// written). The same Put and the same read ("a queue's open tickets", 25
// of them) on both.

// Ticket is a tenant's ticket in a queue.
type Ticket struct {
	TenantID string `dynamodbav:"tenantId"`
	ID       string `dynamodbav:"ticketId"`
	Queue    string `dynamodbav:"queue"`
	Status   string `dynamodbav:"status,omitempty"`
	Priority int    `dynamodbav:"priority"`
	Title    string `dynamodbav:"title"`
}

const deskTable = "BenchDesk"

var (
	TplDesk    = st.MustTable(deskTable, st.WithGSI("GSI1"))
	TplTickets = st.MustDefine[Ticket](TplDesk, "Ticket",
		st.Key("TENANT#{TenantID}#TICKET#{ID}", "TICKET"),
		st.Index("GSI1", "TENANT#{TenantID}#QUEUE#{Queue}", "STATUS#{Status}#{Priority:3}"))
	TplQueue = TplTickets.Pattern("QueueTickets").On("GSI1").SortPrefix().Must()

	NatDesk    = st.MustTable(deskTable, st.WithGSI("ByQueue", st.IndexKeys("tenantId,queue", "status,priority")))
	NatTickets = st.MustDefine[Ticket](NatDesk, "Ticket", st.Key("TENANT#{TenantID}#TICKET#{ID}", "TICKET"))
	NatQueue   = NatTickets.Pattern("QueueTickets").On("ByQueue").SortPrefix().Must()
)

var (
	putTicket = Ticket{TenantID: "acme", ID: "t00042", Queue: "billing", Status: "OPEN", Priority: 7, Title: "Refund not received"}
	// queueParams ask for acme's open billing tickets, every priority.
	queueParams = Ticket{TenantID: "acme", Queue: "billing", Status: "OPEN"}
)

// ticketSet is the 25 tickets the read returns, in index order.
func ticketSet() []Ticket {
	out := make([]Ticket, nQuery)
	for i := range out {
		out[i] = Ticket{TenantID: "acme", ID: fmt.Sprintf("t%05d", i), Queue: "billing", Status: "OPEN", Priority: i + 1, Title: fmt.Sprintf("ticket %d", i)}
	}
	return out
}

// deskForm is one form of the index: its entity, its read and a DB whose
// Query answers with the 25 tickets as that form stores them.
type deskForm struct {
	name    string
	tickets *st.Entity[Ticket]
	queue   *st.Pattern[Ticket]
	db      *st.DB
	client  *deskClient
}

// deskClient answers PutItem as DynamoDB does and every Query with query
// (read-only, as canned answers are).
type deskClient struct {
	cannedClient
	query *dynamodb.QueryOutput
}

func (c *deskClient) Query(_ context.Context, in *dynamodb.QueryInput, _ ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	c.record("Query", in)
	return c.query, nil
}

func deskForms(t testing.TB) []*deskForm {
	forms := []*deskForm{
		{name: "Template", tickets: TplTickets, queue: TplQueue},
		{name: "Native", tickets: NatTickets, queue: NatQueue},
	}
	set := ticketSet()
	for _, f := range forms {
		f.client = &deskClient{cannedClient: cannedClient{out: &canned{put: &dynamodb.PutItemOutput{}}}}
		f.db = st.New(f.client, f.tickets.Table(), st.WithTableName(deskTable))
		items := make([]map[string]types.AttributeValue, len(set))
		for i, tk := range set {
			in, err := f.tickets.PutInput(f.db, tk)
			require.NoError(t, err)
			items[i] = in.Item
		}
		f.client.query = &dynamodb.QueryOutput{Items: items, Count: int32(len(items)), ScannedCount: int32(len(items))}
	}
	return forms
}

func (f *deskForm) put(ctx context.Context) error { return f.tickets.Put(ctx, f.db, putTicket) }

func (f *deskForm) query(ctx context.Context) ([]Ticket, error) {
	page, err := f.queue.Query(ctx, f.db, queueParams, st.SortFields(1))
	if err != nil {
		return nil, err
	}
	return page.Items, nil
}

// TestNativeKeyRequests checks that the two forms do the same work: the
// native item is the template item without its two index key attributes
// (so it is smaller by exactly their size, which the test logs), the
// reads ask for the same tickets (the template by prefix, the native key
// by equality on each attribute) and decode the same values.
func TestNativeKeyRequests(t *testing.T) {
	ctx := context.Background()
	forms := deskForms(t)
	puts := map[string]*dynamodb.PutItemInput{}
	queries := map[string]*dynamodb.QueryInput{}
	for _, f := range forms {
		f.client.capture = func(op string, in any) {
			switch in := in.(type) {
			case *dynamodb.PutItemInput:
				puts[f.name] = in
			case *dynamodb.QueryInput:
				queries[f.name] = in
			}
		}
		require.NoError(t, f.put(ctx))
		got, err := f.query(ctx)
		require.NoError(t, err)
		assert.Equal(t, ticketSet(), got, "%s: decoded tickets", f.name)
		f.client.capture = nil
	}

	tpl, nat := puts["Template"].Item, puts["Native"].Item
	want := maps.Clone(tpl)
	delete(want, "GSI1PK")
	delete(want, "GSI1SK")
	assert.Equal(t, want, nat, "the native item is the template item without GSI1PK and GSI1SK")
	assert.Equal(t, &types.AttributeValueMemberS{Value: "TENANT#acme#QUEUE#billing"}, tpl["GSI1PK"])
	assert.Equal(t, &types.AttributeValueMemberS{Value: "STATUS#OPEN#007"}, tpl["GSI1SK"])
	keys := map[string]types.AttributeValue{"GSI1PK": tpl["GSI1PK"], "GSI1SK": tpl["GSI1SK"]}
	ts, ns := capacity.ItemSize(tpl), capacity.ItemSize(nat)
	t.Logf("bytes stored per item: template %d, native %d (the template's index keys: %d, written again in GSI1)", ts, ns, capacity.ItemSize(keys))
	assert.Equal(t, ts-ns, capacity.ItemSize(keys))

	q := queries["Template"]
	assert.Equal(t, "GSI1", *q.IndexName)
	assert.Equal(t, []string{"S:STATUS#OPEN#", "S:TENANT#acme#QUEUE#billing"}, exprValues(q.ExpressionAttributeValues))
	assert.Contains(t, *q.KeyConditionExpression, "begins_with(")
	q = queries["Native"]
	assert.Equal(t, "ByQueue", *q.IndexName)
	assert.Equal(t, []string{"S:OPEN", "S:acme", "S:billing"}, exprValues(q.ExpressionAttributeValues))
	assert.NotContains(t, *q.KeyConditionExpression, "begins_with(", "equality on each given attribute")
	for _, a := range []string{"tenantId", "queue", "status"} {
		assert.Contains(t, exprNames(q.ExpressionAttributeNames), a)
	}
	assert.NotContains(t, exprNames(q.ExpressionAttributeNames), "priority", "a trailing zero number is not given")
}

// exprValues lists the string values of a request's expressions, sorted,
// with their type, except the entity type filter's.
func exprValues(vs map[string]types.AttributeValue) []string {
	var out []string
	for _, v := range vs {
		if s, ok := v.(*types.AttributeValueMemberS); ok && s.Value != "Ticket" {
			out = append(out, "S:"+s.Value)
		}
	}
	sort.Strings(out)
	return out
}

func exprNames(ns map[string]string) []string {
	var out []string
	for _, n := range ns {
		out = append(out, n)
	}
	return out
}

// TestAllocationsNativeKeys holds the allocation counts of the two forms'
// Put and Query25 (exact, unlike timings): budget is what each allocates
// now; a regression of one allocation fails, an improvement should lower
// it. The native Put allocates no more than the template's: it renders no
// key, and checks its key attributes in place (it allocated 20 times when
// that check built each field's template and list).
//
// The native Query25 allocates twice the template's, all of it in
// building the request: its key condition (an equality per attribute,
// typed values) is rendered on each call, where the template's is one
// begins_with; the 25 items decode alike.
func TestAllocationsNativeKeys(t *testing.T) {
	ctx := context.Background()
	budget := map[string]float64{
		"Put/Template": 9, "Put/Native": 9,
		"Query25/Template": 23, "Query25/Native": 46,
	}
	got := map[string]float64{}
	for _, f := range deskForms(t) {
		got["Put/"+f.name] = testing.AllocsPerRun(50, func() {
			if err := f.put(ctx); err != nil {
				t.Fatal(err)
			}
		})
		got["Query25/"+f.name] = testing.AllocsPerRun(50, func() {
			if _, err := f.query(ctx); err != nil {
				t.Fatal(err)
			}
		})
	}
	for _, op := range []string{"Put", "Query25"} {
		tpl, nat := got[op+"/Template"], got[op+"/Native"]
		t.Logf("%s: template %.0f allocs/op, native %.0f", op, tpl, nat)
		for _, name := range []string{op + "/Template", op + "/Native"} {
			if got[name] > budget[name] {
				t.Errorf("%s allocates %.0f times per op, over its budget of %.0f", name, got[name], budget[name])
			}
		}
	}
	if got["Put/Native"] > got["Put/Template"] {
		t.Errorf("the native Put allocates %.0f times per op, the template's %.0f", got["Put/Native"], got["Put/Template"])
	}
}

// BenchmarkNativeKeys writes a ticket and reads a queue's 25 open tickets
// through each form; Put reports the bytes stored per item.
func BenchmarkNativeKeys(b *testing.B) {
	ctx := context.Background()
	for _, f := range deskForms(b) {
		in, err := f.tickets.PutInput(f.db, putTicket)
		if err != nil {
			b.Fatal(err)
		}
		size := capacity.ItemSize(in.Item)
		b.Run("Put/"+f.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := f.put(ctx); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(size), "item-bytes")
		})
		b.Run("Query25/"+f.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := f.query(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
