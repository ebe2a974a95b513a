//go:build integration

package singletable_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/ddblocal"
	"github.com/singletable/singletable/singletabletest"
)

// A helpdesk on multi-attribute index keys: tickets and tasks of a tenant
// share the index ByStatus, keyed on their own tenant, status and
// priority attributes (priority a number), and tickets are also in
// ByQueue, whose partition is two attributes (tenant, queue).
type natTicket struct {
	TenantID string `dynamodbav:"tenant"`
	ID       string `dynamodbav:"id"`
	Queue    string `dynamodbav:"queue"`
	Status   string `dynamodbav:"status"`
	Priority int    `dynamodbav:"priority"`
	Title    string `dynamodbav:"title"`
}

type natTask struct {
	TenantID string `dynamodbav:"tenant"`
	ID       string `dynamodbav:"id"`
	Status   string `dynamodbav:"status"`
	Priority int    `dynamodbav:"priority"`
}

func natModel(t *testing.T) (*st.Table, *st.Entity[natTicket], *st.Entity[natTask]) {
	t.Helper()
	tbl := st.MustTable("Helpdesk",
		st.WithGSI("ByStatus", st.IndexKeys("tenant", "status,priority")),
		st.WithGSI("ByQueue", st.IndexKeys("tenant,queue", "priority")),
	)
	tickets := st.MustDefine[natTicket](tbl, "Ticket", st.Key("TENANT#{TenantID}", "TICKET#{ID}"))
	tasks := st.MustDefine[natTask](tbl, "Task", st.Key("TENANT#{TenantID}", "TASK#{ID}"))
	return tbl, tickets, tasks
}

func ticketIDs(items []natTicket) []string {
	out := []string{}
	for _, it := range items {
		out = append(out, it.ID)
	}
	return out
}

func TestNativeKeyIndexOnDynamoDBLocal(t *testing.T) {
	ctx := context.Background()
	tbl, tickets, tasks := natModel(t)
	byStatus := tickets.Pattern("TicketsByStatus").On("ByStatus").Must()
	exact := tickets.Pattern("TicketsExact").On("ByStatus").SortEquals().Must()
	prefix := tickets.Pattern("TicketsPrefix").On("ByStatus").SortPrefix().Must()
	above := tickets.Pattern("TicketsAbove").On("ByStatus").SortGreaterThan().Must()
	atLeast := tickets.Pattern("TicketsAtLeast").On("ByStatus").SortGreaterOrEqual().Must()
	below := tickets.Pattern("TicketsBelow").On("ByStatus").SortLessThan().Must()
	atMost := tickets.Pattern("TicketsAtMost").On("ByStatus").SortLessOrEqual().Must()
	between := tickets.Pattern("TicketsBetween").On("ByStatus").SortBetween().Must()
	begins := tickets.Pattern("TicketsBegin").On("ByStatus").SortBeginsWith("OP").Descending().Must()
	byQueue := tickets.Pattern("TicketsByQueue").On("ByQueue").SortGreaterOrEqual().Must()
	taskByStatus := tasks.Pattern("TasksByStatus").On("ByStatus").SortPrefix().Must()

	// The key schema: every attribute in order, priority a number.
	in := tbl.CreateTableInput("x")
	require.Len(t, in.GlobalSecondaryIndexes, 2)
	var ks []string
	for _, k := range in.GlobalSecondaryIndexes[0].KeySchema {
		ks = append(ks, aws.ToString(k.AttributeName)+" "+string(k.KeyType))
	}
	assert.Equal(t, []string{"tenant HASH", "status RANGE", "priority RANGE"}, ks)
	defs := map[string]types.ScalarAttributeType{}
	for _, d := range in.AttributeDefinitions {
		defs[aws.ToString(d.AttributeName)] = d.AttributeType
	}
	assert.Equal(t, map[string]types.ScalarAttributeType{"PK": "S", "SK": "S", "tenant": "S", "status": "S", "priority": "N", "queue": "S"}, defs)

	db := singletabletest.LocalDB(t, tbl)
	require.NoError(t, db.EnsureTable(ctx), "EnsureTable agrees with the table it created")

	// Nothing synthetic is written: the item is the keys, the type and the fields.
	putIn, err := tickets.PutInput(db, natTicket{TenantID: "t1", ID: "a", Queue: "q1", Status: "OPEN", Priority: 2})
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"PK", "SK", "_type", "tenant", "id", "queue", "status", "priority", "title"}, keysOf(putIn.Item))

	for _, tk := range []natTicket{
		{TenantID: "t1", ID: "a", Queue: "q1", Status: "OPEN", Priority: 2},
		{TenantID: "t1", ID: "b", Queue: "q1", Status: "OPEN", Priority: 9},
		{TenantID: "t1", ID: "c", Queue: "q2", Status: "OPEN", Priority: 10},
		{TenantID: "t1", ID: "d", Queue: "q1", Status: "CLOSED", Priority: 5},
		{TenantID: "t1", ID: "e", Queue: "q1", Status: "OPENED", Priority: 1},
		{TenantID: "t1", ID: "f", Queue: "q1", Status: "", Priority: 3}, // no status: not in ByStatus
		{TenantID: "t2", ID: "g", Queue: "q1", Status: "OPEN", Priority: 1},
	} {
		require.NoError(t, tickets.Put(ctx, db, tk))
	}
	require.NoError(t, tasks.Put(ctx, db, natTask{TenantID: "t1", ID: "x", Status: "OPEN", Priority: 4}))
	// The ticket without a status is stored without the attribute (DynamoDB
	// refuses an empty string in a key attribute).
	_, has := rawItem(t, db, "TENANT#t1", "TICKET#f")["status"]
	assert.False(t, has)

	q := func(p *st.Pattern[natTicket], params natTicket, opts ...st.QueryOption) []string {
		t.Helper()
		page, err := p.Query(ctx, db, params, opts...)
		require.NoError(t, err)
		return ticketIDs(page.Items)
	}
	// Equality on the partition: every ticket of the tenant that has a
	// status, in (status, priority) order, numbers as numbers; the task
	// sharing the index is not a ticket (the type attribute tells).
	assert.Equal(t, []string{"d", "a", "b", "c", "e"}, q(byStatus, natTicket{TenantID: "t1"}))
	assert.Equal(t, []string{"b"}, q(exact, natTicket{TenantID: "t1", Status: "OPEN", Priority: 9}))
	assert.Equal(t, []string{"a", "b", "c"}, q(prefix, natTicket{TenantID: "t1", Status: "OPEN"}), "equality on status alone: the zero priority after it is not given")
	assert.Empty(t, q(prefix, natTicket{TenantID: "t1", Status: "OPEN"}, st.SortFields(2)), "SortFields(2): priority 0 asked for, and no open ticket has it")
	assert.Equal(t, []string{"a", "b", "c", "e"}, q(prefix, natTicket{TenantID: "t1", Status: "OP"}, st.PartialMatch()), "begins_with on the last given")
	assert.Equal(t, []string{"d", "a", "b", "c", "e"}, q(prefix, natTicket{TenantID: "t1"}), "no sort field given: a zero number after an absent string is not given")
	assert.Equal(t, []string{"c"}, q(above, natTicket{TenantID: "t1", Status: "OPEN", Priority: 9}), "numeric: 10 > 9")
	assert.Equal(t, []string{"b", "c"}, q(atLeast, natTicket{TenantID: "t1", Status: "OPEN", Priority: 9}))
	assert.Equal(t, []string{"a"}, q(below, natTicket{TenantID: "t1", Status: "OPEN", Priority: 9}))
	assert.Equal(t, []string{"a", "b"}, q(atMost, natTicket{TenantID: "t1", Status: "OPEN", Priority: 9}))
	assert.Equal(t, []string{"a", "b", "c", "e"}, q(above, natTicket{TenantID: "t1", Status: "CLOSED"}, st.SortFields(1)), "SortFields(1): a range on the first sort attribute")
	assert.Equal(t, []string{"d"}, q(above, natTicket{TenantID: "t1", Status: "CLOSED"}), "a comparison takes the zero priority after the status: priority > 0 within CLOSED")
	assert.Equal(t, []string{"a", "b", "c"}, q(atLeast, natTicket{TenantID: "t1", Status: "OPEN"}), "priority >= 0 within OPEN, never another status")
	assert.Equal(t, []string{"e", "c", "b", "a"}, q(begins, natTicket{TenantID: "t1"}), "begins_with, descending")
	assert.Equal(t, []string{"c", "b", "a"}, q(prefix, natTicket{TenantID: "t1", Status: "OPEN"}, st.Descending()))

	page, err := between.QueryBetween(ctx, db, natTicket{TenantID: "t1", Status: "OPEN", Priority: 2}, natTicket{TenantID: "t1", Status: "OPEN", Priority: 9})
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b"}, ticketIDs(page.Items), "BETWEEN, both bounds included")
	page, err = between.QueryBetween(ctx, db, natTicket{TenantID: "t1", Status: "CLOSED"}, natTicket{TenantID: "t1", Status: "OPEN"})
	require.NoError(t, err)
	assert.Equal(t, []string{"d", "a", "b", "c"}, ticketIDs(page.Items))
	page, err = between.QueryBetween(ctx, db, natTicket{TenantID: "t1", Status: "OPEN"}, natTicket{TenantID: "t1", Status: "OPEN", Priority: 9})
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b"}, ticketIDs(page.Items), "the lower bound's priority 0 meets the upper's 9: BETWEEN 0 AND 9")

	// Two partition attributes: tenant and queue, each by equality.
	assert.Equal(t, []string{"e", "a", "f", "d", "b"}, q(byQueue, natTicket{TenantID: "t1", Queue: "q1", Priority: 0}), "f has no status but is in ByQueue")
	assert.Equal(t, []string{"g"}, q(byQueue, natTicket{TenantID: "t2", Queue: "q1"}))

	// The other entity sharing the index reads only its own items.
	tpage, err := taskByStatus.Query(ctx, db, natTask{TenantID: "t1", Status: "OPEN"})
	require.NoError(t, err)
	require.Len(t, tpage.Items, 1)
	assert.Equal(t, "x", tpage.Items[0].ID)

	// Cursors across pages: two items a page, each page one request, the
	// last cursor empty; a cursor of one partition does not resume another.
	var all []string
	var cursor string
	pages := 0
	for {
		opts := []st.QueryOption{st.Limit(2)}
		if cursor != "" {
			opts = append(opts, st.After(cursor))
		}
		page, err := byStatus.Query(ctx, db, natTicket{TenantID: "t1"}, opts...)
		require.NoError(t, err)
		// One request a page, and one more where the type filter dropped
		// the task between a and b (tickets and tasks share the index).
		assert.LessOrEqual(t, page.Requests, 2)
		pages++
		all = append(all, ticketIDs(page.Items)...)
		if cursor = page.Cursor; cursor == "" {
			break
		}
		_, err = byStatus.Query(ctx, db, natTicket{TenantID: "t2"}, st.After(cursor))
		var ce *st.CursorError
		require.ErrorAs(t, err, &ce, "a cursor of tenant t1 does not resume tenant t2")
	}
	assert.Equal(t, []string{"d", "a", "b", "c", "e"}, all)
	assert.Equal(t, 3, pages)
	for _, opts := range [][]st.QueryOption{{st.Limit(1)}, {st.Limit(1), st.Descending()}} {
		var got []string
		for it, err := range above.All(ctx, db, natTicket{TenantID: "t1", Status: "OPEN", Priority: 1}, opts...) {
			require.NoError(t, err)
			got = append(got, it.ID)
		}
		assert.Len(t, got, 1)
	}
	var got []string
	for it, err := range prefix.All(ctx, db, natTicket{TenantID: "t1", Status: "OPEN"}, st.Descending()) {
		require.NoError(t, err)
		got = append(got, it.ID)
	}
	assert.Equal(t, []string{"c", "b", "a"}, got)

	// An update of a key attribute is the attribute: the item moves in the
	// index, and nothing else is written for it.
	up, err := tickets.UpdateInput(db, natTicket{TenantID: "t1", ID: "a"}, st.Set("Status", "CLOSED"))
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"status"}, valuesOfNames(up.ExpressionAttributeNames, "status", "priority", "tenant", "queue"))
	_, err = tickets.Update(ctx, db, natTicket{TenantID: "t1", ID: "a"}, st.Set("Status", "CLOSED"))
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "d"}, q(prefix, natTicket{TenantID: "t1", Status: "CLOSED"}), "priority 2 before 5")
	// Set to empty: the attribute is removed, the item leaves the index.
	_, err = tickets.Update(ctx, db, natTicket{TenantID: "t1", ID: "a"}, st.Set("Status", ""))
	require.NoError(t, err)
	assert.Equal(t, []string{"d"}, q(prefix, natTicket{TenantID: "t1", Status: "CLOSED"}))
}

// valuesOfNames lists which of the attributes are named in an expression.
func valuesOfNames(names map[string]string, attrs ...string) []string {
	var out []string
	for _, v := range names {
		for _, a := range attrs {
			if v == a {
				out = append(out, a)
			}
		}
	}
	return out
}

// A multi-attribute index added to a live table: EnsureTable says it is
// missing, adds it with AddMissingIndexes, and the items already stored
// are in it at once: no backfill, as their own attributes are its keys.
func TestNativeKeyIndexAddedToLiveTable(t *testing.T) {
	ctx := context.Background()
	client, err := ddblocal.Client(ctx)
	require.NoError(t, err)
	name := ddblocal.UniqueName("native-add")
	before := st.MustTable("Helpdesk")
	old := st.MustDefine[natTicket](before, "Ticket", st.Key("TENANT#{TenantID}", "TICKET#{ID}"))
	db0 := st.New(client, before, st.WithTableName(name))
	require.NoError(t, db0.EnsureTable(ctx))
	t.Cleanup(func() { _, _ = client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: &name}) })
	for _, tk := range []natTicket{
		{TenantID: "t1", ID: "a", Queue: "q1", Status: "OPEN", Priority: 2},
		{TenantID: "t1", ID: "b", Queue: "q1", Status: "OPEN", Priority: 1},
	} {
		require.NoError(t, old.Put(ctx, db0, tk))
	}

	tbl, tickets, _ := natModel(t)
	prefix := tickets.Pattern("TicketsPrefix").On("ByStatus").SortPrefix().Must()
	db := st.New(client, tbl, st.WithTableName(name))
	err = db.EnsureTable(ctx)
	require.ErrorIs(t, err, st.ErrSchemaMismatch)
	assert.Contains(t, err.Error(), "index ByStatus is missing")
	assert.Contains(t, err.Error(), "(tenant HASH, status RANGE, priority RANGE)")
	require.NoError(t, db.EnsureTable(ctx, st.AddMissingIndexes()))
	require.NoError(t, db.EnsureTable(ctx), "the live table now agrees with the model")

	page, err := prefix.Query(ctx, db, natTicket{TenantID: "t1", Status: "OPEN"})
	require.NoError(t, err)
	assert.Equal(t, []string{"b", "a"}, ticketIDs(page.Items), "the items written before the index are in it, by priority")
}
