//go:build integration

package graph_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/capacity"
	"github.com/singletable/singletable/graph"
	"github.com/singletable/singletable/internal/soak"
	"github.com/singletable/singletable/observe"
	"github.com/singletable/singletable/singletabletest"
)

// Issue 24, relations that fit real models, on DynamoDB Local: the
// helpdesk's shared tenant, ends created by the link, caps under
// concurrent joins, conditions on either end, and which one refused.
// The model is helpdesk_test.go's.

// sends counts the requests a DB sends, by operation.
type sends struct {
	mu sync.Mutex
	n  map[string]int
}

func (s *sends) observe(r observe.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.n == nil {
		s.n = map[string]int{}
	}
	s.n[r.Operation]++
}

// take returns the counts so far and starts again.
func (s *sends) take() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.n
	s.n = nil
	return n
}

func helpdeskDB(t *testing.T) (*st.DB, *sends) {
	s := &sends{}
	return singletabletest.LocalDB(t, helpdesk, observe.With(s.observe, observe.WithoutCapacity()), singletabletest.NoRetryDelay()), s
}

// One tenant's ticket tagged with a tag that does not exist yet: the tag
// is created by the link, in its transaction, inside the tenant the edge
// stores once; a second ticket counts the same tag and leaves it as it
// is; another tenant's ticket and tag of the same ids are apart.
func TestIntegrationLinkSharedTenantCreatesTheTag(t *testing.T) {
	ctx := context.Background()
	db, sent := helpdeskDB(t)
	for _, tk := range []hTicket{{TenantID: "acme", ID: "1", Status: "OPEN"}, {TenantID: "acme", ID: "2", Status: "OPEN"}, {TenantID: "globex", ID: "1", Status: "OPEN"}} {
		require.NoError(t, hTickets.Create(ctx, db, tk))
	}
	sent.take()

	// The tag is missing: one transaction finds it so, a second creates
	// it with the edge.
	ok, err := hTaggings.Link(ctx, db, hTagging{TenantID: "acme", TicketID: "1", Tag: "billing"},
		graph.CreateTo(hTag{Name: "billing", Color: "red"}))
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, map[string]int{"TransactWriteItems": 2}, sent.take())
	tag, err := hTags.Get(ctx, db, hTag{TenantID: "acme", Name: "billing"}, st.ConsistentRead())
	require.NoError(t, err)
	assert.Equal(t, hTag{TenantID: "acme", Name: "billing", Color: "red", Tickets: 1}, tag, "created with the value's fields, the edge's key, a count of 1")

	// The tag exists: one transaction counts it, the value unused.
	sent.take()
	ok, err = hTaggings.Link(ctx, db, hTagging{TenantID: "acme", TicketID: "2", Tag: "billing"},
		graph.CreateTo(hTag{Color: "blue"}))
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, map[string]int{"TransactWriteItems": 1}, sent.take())
	tag, err = hTags.Get(ctx, db, hTag{TenantID: "acme", Name: "billing"}, st.ConsistentRead())
	require.NoError(t, err)
	assert.Equal(t, hTag{TenantID: "acme", Name: "billing", Color: "red", Tickets: 2}, tag)

	// Again: idempotent, nothing counted twice.
	ok, err = hTaggings.Link(ctx, db, hTagging{TenantID: "acme", TicketID: "2", Tag: "billing"}, graph.CreateTo(hTag{}))
	require.NoError(t, err)
	assert.False(t, ok)

	// The other tenant: its own tag of the same name.
	ok, err = hTaggings.Link(ctx, db, hTagging{TenantID: "globex", TicketID: "1", Tag: "billing"}, graph.CreateTo(hTag{Color: "green"}))
	require.NoError(t, err)
	assert.True(t, ok)

	in := func(tenant string) (tickets []string) {
		for e, err := range hTaggings.InAll(ctx, db, hTag{TenantID: tenant, Name: "billing"}) {
			require.NoError(t, err)
			assert.Equal(t, tenant, e.TenantID)
			assert.Equal(t, tenant, hTaggings.From(e).TenantID, "the edge's one tenant is each end's")
			assert.Equal(t, tenant, hTaggings.To(e).TenantID)
			tickets = append(tickets, e.TicketID)
		}
		return tickets
	}
	assert.Equal(t, []string{"1", "2"}, in("acme"))
	assert.Equal(t, []string{"1"}, in("globex"))
	for _, c := range []struct{ tenant, ticket string }{{"acme", "1"}, {"acme", "2"}, {"globex", "1"}} {
		tk, err := hTickets.Get(ctx, db, hTicket{TenantID: c.tenant, ID: c.ticket}, st.ConsistentRead())
		require.NoError(t, err)
		assert.Equal(t, 1, tk.Tags, "%s/%s's tags", c.tenant, c.ticket)
	}
	g, err := hTags.Get(ctx, db, hTag{TenantID: "globex", Name: "billing"}, st.ConsistentRead())
	require.NoError(t, err)
	assert.Equal(t, hTag{TenantID: "globex", Name: "billing", Color: "green", Tickets: 1}, g)
	// The edge stores the tenant once, in its key and its one attribute.
	raw := rawItem(t, db, "TENANT#acme#TICKET#1", "TAG#billing")
	require.NotEmpty(t, raw)
	assert.Equal(t, &types.AttributeValueMemberS{Value: "acme"}, raw["tenantId"])
	assert.Len(t, raw, 9, "PK, SK, GSI1PK, GSI1SK, the type, tenantId, ticketId, tag, added: %v", raw)

	// Unlink counts down, and leaves the tag.
	ok, err = hTaggings.Unlink(ctx, db, hTagging{TenantID: "acme", TicketID: "1", Tag: "billing"})
	require.NoError(t, err)
	assert.True(t, ok)
	tag, err = hTags.Get(ctx, db, hTag{TenantID: "acme", Name: "billing"}, st.ConsistentRead())
	require.NoError(t, err)
	assert.Equal(t, 1, tag.Tickets)
}

// Players join a game that their first join creates, at most joinCap of
// them, all at once: the game is created once, exactly joinCap joins
// succeed, every other gets ErrCapReached, and the count equals the edges
// stored. SINGLETABLE_SOAK=1 (make soak) runs more rounds of more players.
func TestIntegrationLinkCapUnderConcurrentJoins(t *testing.T) {
	ctx := context.Background()
	db, sent := helpdeskDB(t)
	const joinCap = 4
	rounds, players := soak.Size(2, 20), soak.Size(9, 30)
	for round := range rounds {
		game := fmt.Sprintf("g%d", round)
		var (
			wg           sync.WaitGroup
			mu           sync.Mutex
			joined, full int
			others       []error
		)
		for p := range players {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ok, err := hJoins.Link(ctx, db, hJoin{GameID: game, PlayerID: fmt.Sprintf("p%d", p)},
					graph.CreateTo(hGame{Mode: fmt.Sprintf("mode-%d", p)}), graph.CapIn(joinCap))
				mu.Lock()
				defer mu.Unlock()
				var le *graph.LinkError
				switch {
				case err == nil && ok:
					joined++
				case errors.Is(err, graph.ErrCapReached) && errors.As(err, &le) && le.End == "to" && le.Cap == joinCap && le.Count >= joinCap:
					full++
				default:
					others = append(others, fmt.Errorf("ok %v: %w", ok, err))
				}
			}()
		}
		wg.Wait()
		require.Empty(t, others, "round %d: every join either joins or finds the game full", round)
		assert.Equal(t, joinCap, joined, "round %d", round)
		assert.Equal(t, players-joinCap, full, "round %d", round)
		g, err := hGames.Get(ctx, db, hGame{ID: game}, st.ConsistentRead())
		require.NoError(t, err)
		edges := 0
		for _, err := range hJoins.InAll(ctx, db, hGame{ID: game}, st.ConsistentRead()) {
			require.NoError(t, err)
			edges++
		}
		assert.Equal(t, joinCap, g.Players, "round %d: the count is the cap", round)
		assert.Equal(t, g.Players, edges, "round %d: the count is the edges stored", round)
		assert.NotEmpty(t, g.Mode, "created from one join's value")
	}
	n := sent.take()
	assert.GreaterOrEqual(t, n["TransactWriteItems"], rounds*players, "a transaction per join at least")
	delete(n, "TransactWriteItems")
	delete(n, "GetItem")
	delete(n, "Query")
	assert.Empty(t, n, "a join sends nothing but transactions")

	// On a game that exists, with room, a join is one request.
	_, err := hGames.Update(ctx, db, hGame{ID: "g0"}, st.Decrement("Players", 1))
	require.NoError(t, err)
	sent.take()
	ok, err := hJoins.Link(ctx, db, hJoin{GameID: "g0", PlayerID: "late"}, graph.CreateTo(hGame{}), graph.CapIn(joinCap))
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, map[string]int{"TransactWriteItems": 1}, sent.take())
}

// Each end's condition, the cap, a missing end and an existing edge
// refuse the link with a *LinkError saying which, and write nothing.
func TestIntegrationLinkRefusalsSayWhich(t *testing.T) {
	ctx := context.Background()
	db, sent := helpdeskDB(t)
	require.NoError(t, hAgents.Create(ctx, db, hAgent{TenantID: "acme", ID: "ann", Active: true}))
	require.NoError(t, hAgents.Create(ctx, db, hAgent{TenantID: "acme", ID: "bob", Active: false}))
	for _, tk := range []hTicket{{TenantID: "acme", ID: "1", Status: "OPEN"}, {TenantID: "acme", ID: "2", Status: "OPEN"}, {TenantID: "acme", ID: "3", Status: "CLOSED"}, {TenantID: "acme", ID: "4", Status: "OPEN"}} {
		require.NoError(t, hTickets.Create(ctx, db, tk))
	}
	assign := func(agent, ticket string, opts ...graph.LinkOption) (bool, error) {
		opts = append([]graph.LinkOption{graph.CapOut(2), graph.IfFrom(st.Eq("Active", true)), graph.IfTo(st.Eq("Status", "OPEN"))}, opts...)
		return hAssignments.Link(ctx, db, hAssignment{TenantID: "acme", AgentID: agent, TicketID: ticket}, opts...)
	}
	open := func(agent string) int {
		a, err := hAgents.Get(ctx, db, hAgent{TenantID: "acme", ID: agent}, st.ConsistentRead())
		require.NoError(t, err)
		return a.Open
	}
	assigned := func(agent, ticket string) bool {
		has, err := hAssignments.Has(ctx, db, hAssignment{TenantID: "acme", AgentID: agent, TicketID: ticket}, st.ConsistentRead())
		require.NoError(t, err)
		return has
	}
	refused := func(err error, end string, reason error) *graph.LinkError {
		t.Helper()
		var le *graph.LinkError
		require.ErrorAs(t, err, &le)
		assert.Equal(t, end, le.End)
		assert.ErrorIs(t, err, reason)
		assert.ErrorIs(t, err, st.ErrConditionFailed, "the cancelled transaction is wrapped")
		assert.Contains(t, err.Error(), "Assignments.")
		return le
	}

	for _, ticket := range []string{"1", "2"} {
		ok, err := assign("ann", ticket)
		require.NoError(t, err)
		require.True(t, ok)
	}
	sent.take()
	// The cap of the from end: ann holds 2.
	ok, err := assign("ann", "4")
	assert.False(t, ok)
	le := refused(err, "from", graph.ErrCapReached)
	assert.Equal(t, int64(2), le.Count)
	assert.Equal(t, int64(2), le.Cap)
	assert.Equal(t, map[string]int{"TransactWriteItems": 1}, sent.take(), "one request, refused")
	// The to end's condition: ticket 3 is closed.
	_, err = hAssignments.Unlink(ctx, db, hAssignment{TenantID: "acme", AgentID: "ann", TicketID: "2"})
	require.NoError(t, err)
	_, err = assign("ann", "3")
	refused(err, "to", graph.ErrEndCondition)
	assert.NotErrorIs(t, err, graph.ErrCapReached)
	// The from end's condition: bob is inactive.
	_, err = assign("bob", "4")
	refused(err, "from", graph.ErrEndCondition)
	// A missing counted end (the from end, counted) ...
	_, err = assign("cid", "4")
	refused(err, "from", graph.ErrEndMissing)
	assert.ErrorIs(t, err, st.ErrNotFound)
	// ... and a missing end checked by its condition.
	_, err = assign("ann", "404")
	refused(err, "to", graph.ErrEndMissing)
	// The edge exists: false, or, asked, an error.
	ok, err = assign("ann", "1")
	require.NoError(t, err)
	assert.False(t, ok)
	_, err = assign("ann", "1", graph.FailIfLinked())
	refused(err, "", graph.ErrEdgeExists)
	assert.ErrorIs(t, err, st.ErrAlreadyExists)

	// Nothing of the refused links was written.
	assert.Equal(t, 1, open("ann"))
	assert.Equal(t, 0, open("bob"))
	for _, c := range [][2]string{{"ann", "3"}, {"ann", "4"}, {"bob", "4"}, {"cid", "4"}, {"ann", "404"}} {
		assert.False(t, assigned(c[0], c[1]), "%v", c)
	}
	_, err = hAgents.Get(ctx, db, hAgent{TenantID: "acme", ID: "cid"})
	assert.ErrorIs(t, err, st.ErrNotFound)

	// Unlink takes the ends' conditions too.
	_, err = hAssignments.Unlink(ctx, db, hAssignment{TenantID: "acme", AgentID: "ann", TicketID: "1"}, graph.IfTo(st.Eq("Status", "CLOSED")))
	refused(err, "to", graph.ErrEndCondition)
	assert.True(t, assigned("ann", "1"))
	ok, err = hAssignments.Unlink(ctx, db, hAssignment{TenantID: "acme", AgentID: "ann", TicketID: "1"}, graph.IfTo(st.Eq("Status", "OPEN")))
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, 0, open("ann"))
}

// capacity.Into collects what Link and Unlink consumed, on the single
// write and on the transaction.
func TestIntegrationLinkCapacityInto(t *testing.T) {
	ctx := context.Background()
	db, _ := helpdeskDB(t)
	require.NoError(t, hTickets.Create(ctx, db, hTicket{TenantID: "acme", ID: "1"}))
	var link, unlink capacity.Consumed
	ok, err := hTaggings.Link(ctx, db, hTagging{TenantID: "acme", TicketID: "1", Tag: "x"}, graph.CreateTo(hTag{}), capacity.Into(&link))
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, 2, link.Requests, "the transaction cancelled (estimated), then the creation's")
	assert.Positive(t, link.Estimated.Write)
	assert.Greater(t, link.Write, link.Estimated.Write)
	ok, err = hTaggings.Unlink(ctx, db, hTagging{TenantID: "acme", TicketID: "1", Tag: "x"}, capacity.Into(&unlink))
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, 1, unlink.Requests)
	assert.Positive(t, unlink.Write)

	var single capacity.Consumed
	gdb := singletabletest.LocalDB(t, graphTable)
	ok, err = gBlocks.Link(ctx, gdb, gBlock{Blocker: "a", Blocked: "b"}, capacity.Into(&single))
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, 1, single.Requests, "the one PutItem")
	assert.Positive(t, single.Write)
}
