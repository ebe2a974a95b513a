//go:build integration

package graph_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/graph"
)

// Found by attacking the relation links from a user's module: the edge's
// own outcome comes before the ends' refusals, and a link that creates
// both ends sends two transactions, not three.

// A ticket tagged already, whose tag is at its cap or fails the Link's
// condition since: tagging it again is "already linked" (false, nil; with
// FailIfLinked ErrEdgeExists), in one request, not "the tag is full".
func TestIntegrationLinkRepeatedOverARefusingEnd(t *testing.T) {
	ctx := context.Background()
	db, sent := helpdeskDB(t)
	require.NoError(t, hTickets.Create(ctx, db, hTicket{TenantID: "acme", ID: "1", Status: "OPEN"}))
	require.NoError(t, hTags.Create(ctx, db, hTag{TenantID: "acme", Name: "vip", Color: "gold"}))
	e := hTagging{TenantID: "acme", TicketID: "1", Tag: "vip"}
	ok, err := hTaggings.Link(ctx, db, e, graph.CapIn(1))
	require.NoError(t, err)
	require.True(t, ok)

	for _, c := range []struct {
		name string
		opts []graph.LinkOption
	}{
		{"at the cap", []graph.LinkOption{graph.CapIn(1)}},
		{"condition failing", []graph.LinkOption{graph.IfTo(st.Eq("Color", "red"))}},
		{"both ends refusing", []graph.LinkOption{graph.CapOut(1), graph.IfTo(st.Eq("Color", "red"))}},
	} {
		sent.take()
		ok, err := hTaggings.Link(ctx, db, e, c.opts...)
		assert.NoError(t, err, c.name)
		assert.False(t, ok, c.name)
		assert.Equal(t, map[string]int{"TransactWriteItems": 1}, sent.take(), c.name)

		ok, err = hTaggings.Link(ctx, db, e, append(c.opts, graph.FailIfLinked())...)
		assert.False(t, ok, c.name)
		var le *graph.LinkError
		require.ErrorAs(t, err, &le, c.name)
		assert.ErrorIs(t, err, graph.ErrEdgeExists, c.name)
		assert.NotErrorIs(t, err, graph.ErrCapReached, c.name)
		assert.Equal(t, "", le.End, c.name)
	}
	tag, err := hTags.Get(ctx, db, hTag{TenantID: "acme", Name: "vip"}, st.ConsistentRead())
	require.NoError(t, err)
	assert.Equal(t, 1, tag.Tickets)
}

// Unlink of an edge that is not there, with an end's condition failing:
// nothing to unlink (false, nil), not the end's refusal; with the edge
// there, the condition refuses.
func TestIntegrationUnlinkAbsentEdgeWithARefusingEnd(t *testing.T) {
	ctx := context.Background()
	db, sent := helpdeskDB(t)
	require.NoError(t, hTickets.Create(ctx, db, hTicket{TenantID: "acme", ID: "1", Status: "OPEN"}))
	require.NoError(t, hTags.Create(ctx, db, hTag{TenantID: "acme", Name: "vip"}))
	e := hTagging{TenantID: "acme", TicketID: "1", Tag: "vip"}
	sent.take()
	ok, err := hTaggings.Unlink(ctx, db, e, graph.IfFrom(st.Eq("Status", "CLOSED")))
	assert.NoError(t, err)
	assert.False(t, ok)
	assert.Equal(t, map[string]int{"TransactWriteItems": 1}, sent.take())

	ok, err = hTaggings.Link(ctx, db, e)
	require.NoError(t, err)
	require.True(t, ok)
	ok, err = hTaggings.Unlink(ctx, db, e, graph.IfFrom(st.Eq("Status", "CLOSED")))
	assert.False(t, ok)
	var le *graph.LinkError
	require.ErrorAs(t, err, &le)
	assert.ErrorIs(t, err, graph.ErrEndCondition)
	assert.Equal(t, "from", le.End)
}

// A link whose two ends are both missing, both to be created: the first
// transaction finds both missing, the second creates both.
func TestIntegrationLinkCreatesBothEndsInTwoTransactions(t *testing.T) {
	ctx := context.Background()
	db, sent := helpdeskDB(t)
	sent.take()
	ok, err := hTaggings.Link(ctx, db, hTagging{TenantID: "ü#1", TicketID: "7", Tag: "new"},
		graph.CreateFrom(hTicket{Status: "OPEN"}), graph.CreateTo(hTag{Color: "red"}), graph.CapIn(1), graph.CapOut(1))
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, map[string]int{"TransactWriteItems": 2}, sent.take())
	tk, err := hTickets.Get(ctx, db, hTicket{TenantID: "ü#1", ID: "7"}, st.ConsistentRead())
	require.NoError(t, err)
	assert.Equal(t, hTicket{TenantID: "ü#1", ID: "7", Status: "OPEN", Tags: 1}, tk)
	tag, err := hTags.Get(ctx, db, hTag{TenantID: "ü#1", Name: "new"}, st.ConsistentRead())
	require.NoError(t, err)
	assert.Equal(t, hTag{TenantID: "ü#1", Name: "new", Color: "red", Tickets: 1}, tag)
}
