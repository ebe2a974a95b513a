package graph_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/capacity"
	"github.com/singletable/singletable/graph"
	"github.com/singletable/singletable/internal/golden"
	"github.com/singletable/singletable/singletabletest"
)

func helpdeskMock() (*st.DB, *singletabletest.Client) {
	mock := &singletabletest.Client{}
	return st.New(mock, helpdesk, st.WithClock(func() time.Time { return graphClock }), singletabletest.NoRetryDelay()), mock
}

// Options that cannot apply are refused before anything is sent, with an
// *InputError naming the option.
func TestLinkOptionsRefusedBeforeSending(t *testing.T) {
	ctx := context.Background()
	tagging := hTagging{TenantID: "acme", TicketID: "1", Tag: "x"}
	join := hJoin{GameID: "g", PlayerID: "p"}
	assign := hAssignment{TenantID: "acme", AgentID: "ann", TicketID: "1"}
	for _, c := range []struct {
		name string
		call func(db *st.DB) error
		want string
	}{
		{"nil option", func(db *st.DB) error { _, err := hJoins.Link(ctx, db, join, nil); return err }, "option 1 of 1 is nil"},
		{"cap of an end not counted", func(db *st.DB) error { _, err := hJoins.Link(ctx, db, join, graph.CapOut(3)); return err }, "CapOut: the relation keeps no CountOut of the from end"},
		{"cap below 1", func(db *st.DB) error { _, err := hJoins.Link(ctx, db, join, graph.CapIn(0)); return err }, "CapIn(0): a cap is at least 1"},
		{"cap twice", func(db *st.DB) error {
			_, err := hJoins.Link(ctx, db, join, graph.CapIn(3), graph.CapIn(4))
			return err
		}, "CapIn is given twice"},
		{"empty condition", func(db *st.DB) error { _, err := hJoins.Link(ctx, db, join, graph.IfTo(st.Cond{})); return err }, "IfTo(Cond{}): the condition is empty"},
		{"condition twice", func(db *st.DB) error {
			_, err := hJoins.Link(ctx, db, join, graph.IfFrom(st.Exists("ID")), graph.IfFrom(st.Exists("ID")))
			return err
		}, "IfFrom is given twice"},
		{"create a value of another type", func(db *st.DB) error {
			_, err := hJoins.Link(ctx, db, join, graph.CreateTo(&hGame{}))
			return err
		}, "CreateTo: the value is a *graph_test.hGame; the to end is a graph_test.hGame"},
		{"create an end not counted", func(db *st.DB) error {
			_, err := hJoins.Link(ctx, db, join, graph.CreateFrom(hPlayer{}))
			return err
		}, "CreateFrom: the from end has no count (CountOut)"},
		{"create an end of another key", func(db *st.DB) error {
			_, err := hTaggings.Link(ctx, db, tagging, graph.CreateTo(hTag{TenantID: "globex"}))
			return err
		}, "CreateTo: the value's TenantID is globex and the edge's acme"},
		{"create twice", func(db *st.DB) error {
			_, err := hJoins.Link(ctx, db, join, graph.CreateTo(hGame{}), graph.CreateTo(hGame{}))
			return err
		}, "CreateTo is given twice"},
		{"a condition on a field the end lacks", func(db *st.DB) error {
			_, err := hAssignments.Link(ctx, db, assign, graph.IfTo(st.Eq("Nope", 1)))
			return err
		}, "Nope"},
		{"TxLink creating", func(db *st.DB) error {
			return db.Transact(ctx, func(tx *st.Tx) error { hJoins.TxLink(tx, join, graph.CreateTo(hGame{})); return nil })
		}, "CreateTo: a transaction of the caller's cannot tell whether the end exists"},
		{"TxLink with the transaction's options", func(db *st.DB) error {
			return db.Transact(ctx, func(tx *st.Tx) error {
				hJoins.TxLink(tx, join, capacity.Into(&capacity.Consumed{}))
				return nil
			})
		}, "capacity.Into is the transaction's option: give it to DB.Transact"},
		{"TxUnlink with the transaction's options", func(db *st.DB) error {
			return db.Transact(ctx, func(tx *st.Tx) error {
				hJoins.TxUnlink(tx, join, capacity.Into(&capacity.Consumed{}))
				return nil
			})
		}, "capacity.Into is the transaction's option: give it to DB.Transact"},
		{"nil option to Unlink", func(db *st.DB) error { _, err := hJoins.Unlink(ctx, db, join, nil); return err }, "option 1 of 1 is nil"},
	} {
		t.Run(c.name, func(t *testing.T) {
			db, mock := helpdeskMock()
			err := c.call(db)
			require.ErrorIs(t, err, st.ErrInvalidInput)
			assert.ErrorContains(t, err, c.want)
			assert.Empty(t, mock.Calls(), "nothing sent")
		})
	}
}

// A self-loop cannot create its end: one item, counted twice.
func TestLinkSelfLoopCreateRefused(t *testing.T) {
	db, mock := graphDB()
	_, err := gFollows.Link(context.Background(), db, gFollow{Follower: "a", Followee: "a"}, graph.CreateTo(gUser{}))
	require.ErrorIs(t, err, st.ErrInvalidInput)
	assert.ErrorContains(t, err, "links an end to itself")
	assert.Empty(t, mock.Calls())
}

// The transactions of the new options, as sent: the cap and conditions
// in the counted end's update, an uncounted end's ConditionCheck, and the
// end created with the edge.
func TestLinkOptionsGolden(t *testing.T) {
	db, _ := helpdeskMock()
	tok := st.IdempotencyToken("graph")
	for name, build := range map[string]func(*st.Tx){
		// The agent's count, capped and conditioned; the ticket checked.
		"link_cap_conditions": func(tx *st.Tx) {
			hAssignments.TxLink(tx, hAssignment{TenantID: "acme", AgentID: "ann", TicketID: "1"},
				graph.CapOut(5), graph.IfFrom(st.Eq("Active", true)), graph.IfTo(st.Eq("Status", "OPEN")))
		},
		// Both ends in the shared tenant, both counts.
		"link_shared": func(tx *st.Tx) {
			hTaggings.TxLink(tx, hTagging{TenantID: "acme", TicketID: "1", Tag: "billing"}, graph.CapIn(100))
		},
		"unlink_condition": func(tx *st.Tx) {
			hAssignments.TxUnlink(tx, hAssignment{TenantID: "acme", AgentID: "ann", TicketID: "1"}, graph.IfTo(st.Eq("Status", "OPEN")))
		},
	} {
		t.Run(name, func(t *testing.T) {
			in, err := db.TransactInput(func(tx *st.Tx) error { build(tx); return nil }, tok)
			require.NoError(t, err)
			golden.Request(t, "graph/"+name, in)
		})
	}

	// The creation: Link sends it once the end turned out missing.
	db, mock := helpdeskMock()
	first := true
	mock.TransactWriteItemsFunc = func(_ context.Context, in *dynamodb.TransactWriteItemsInput) (*dynamodb.TransactWriteItemsOutput, error) {
		if first {
			first = false
			return nil, cancelled("None", "None", "ConditionalCheckFailed")
		}
		return &dynamodb.TransactWriteItemsOutput{}, nil
	}
	ok, err := hJoins.Link(context.Background(), db, hJoin{GameID: "g1", PlayerID: "p1"}, graph.CreateTo(hGame{Mode: "duel"}), graph.CapIn(50))
	require.NoError(t, err)
	assert.True(t, ok)
	calls := mock.Calls()
	require.Len(t, calls, 2)
	in := calls[1].Input.(*dynamodb.TransactWriteItemsInput)
	in.ClientRequestToken = nil // random
	golden.Request(t, "graph/link_create", in)
}

// withItem is a cancellation whose failed actions (by code, "None" for
// one that did not fail) return item.
func withItem(item map[string]types.AttributeValue, codes ...string) error {
	err := cancelled(codes...).(*types.TransactionCanceledException)
	for i, c := range codes {
		if c == "ConditionalCheckFailed" {
			err.CancellationReasons[i].Item = item
		}
	}
	return err
}

// How Link reads a cancellation: which end, which reason, and the forms
// it sends next, counted.
func TestLinkRefusalReasons(t *testing.T) {
	ctx := context.Background()
	agent := map[string]types.AttributeValue{"agentId": &types.AttributeValueMemberS{Value: "ann"}, "open": &types.AttributeValueMemberN{Value: "5"}}
	ticket := map[string]types.AttributeValue{"ticketId": &types.AttributeValueMemberS{Value: "1"}}
	game := map[string]types.AttributeValue{"gameId": &types.AttributeValueMemberS{Value: "g"}, "players": &types.AttributeValueMemberN{Value: "3"}}
	assign := func(db *st.DB) (bool, error) {
		return hAssignments.Link(ctx, db, hAssignment{TenantID: "acme", AgentID: "ann", TicketID: "1"},
			graph.CapOut(5), graph.IfTo(st.Eq("Status", "OPEN")))
	}
	join := func(db *st.DB) (bool, error) {
		return hJoins.Link(ctx, db, hJoin{GameID: "g", PlayerID: "p"}, graph.CreateTo(hGame{}), graph.CapIn(3))
	}
	for _, c := range []struct {
		name    string
		call    func(*st.DB) (bool, error)
		answers []error
		end     string
		reason  error
		sends   int
	}{
		// Actions: edge, mirror, agent's update, ticket's check.
		{"cap", assign, []error{withItem(agent, "None", "None", "ConditionalCheckFailed", "None")}, "from", graph.ErrCapReached, 1},
		{"to's condition", assign, []error{withItem(ticket, "None", "None", "None", "ConditionalCheckFailed")}, "to", graph.ErrEndCondition, 1},
		{"to missing", assign, []error{withItem(nil, "None", "None", "None", "ConditionalCheckFailed")}, "to", graph.ErrEndMissing, 1},
		{"from missing", assign, []error{withItem(nil, "None", "None", "ConditionalCheckFailed", "None")}, "from", graph.ErrEndMissing, 1},
		// Actions: edge, mirror, game's update (or creation).
		{"game full", join, []error{withItem(game, "None", "None", "ConditionalCheckFailed")}, "to", graph.ErrCapReached, 1},
		{"game missing, then created", join, []error{withItem(nil, "None", "None", "ConditionalCheckFailed"), nil}, "", nil, 2},
		{"game missing, created meanwhile, then full", join, []error{
			withItem(nil, "None", "None", "ConditionalCheckFailed"),
			withItem(game, "None", "None", "ConditionalCheckFailed"),
			withItem(game, "None", "None", "ConditionalCheckFailed"),
		}, "to", graph.ErrCapReached, 3},
		{"conflict, then joined", join, []error{cancelled("None", "None", "TransactionConflict"), nil}, "", nil, 2},
		// A condition that failed beside a conflict is the answer: sent once.
		{"game full beside a conflict", join, []error{withItem(game, "None", "TransactionConflict", "ConditionalCheckFailed")}, "to", graph.ErrCapReached, 1},
		{"to's condition beside a conflict", assign, []error{withItem(ticket, "TransactionConflict", "None", "None", "ConditionalCheckFailed")}, "to", graph.ErrEndCondition, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			db, mock := helpdeskMock()
			n := 0
			mock.TransactWriteItemsFunc = func(context.Context, *dynamodb.TransactWriteItemsInput) (*dynamodb.TransactWriteItemsOutput, error) {
				err := c.answers[n]
				n++
				return &dynamodb.TransactWriteItemsOutput{}, err
			}
			ok, err := c.call(db)
			assert.Len(t, mock.Calls(), c.sends)
			if c.reason == nil {
				require.NoError(t, err)
				assert.True(t, ok)
				return
			}
			assert.False(t, ok)
			var le *graph.LinkError
			require.ErrorAs(t, err, &le)
			assert.Equal(t, c.end, le.End)
			assert.ErrorIs(t, err, c.reason)
			for _, other := range []error{graph.ErrCapReached, graph.ErrEndCondition, graph.ErrEndMissing, graph.ErrEdgeExists} {
				if !errors.Is(other, c.reason) {
					assert.NotErrorIs(t, err, other)
				}
			}
			var te *st.TxError
			assert.ErrorAs(t, err, &te, "the cancelled transaction is wrapped")
			if errors.Is(c.reason, graph.ErrCapReached) {
				assert.Equal(t, le.Count, le.Cap)
			}
		})
	}
}

// Shared maps one edge field to both ends; without it, the field mapped
// to both is refused as before.
func TestRelateShared(t *testing.T) {
	e := hTaggings.Edge(hTicket{TenantID: "acme", ID: "1"}, hTag{TenantID: "acme", Name: "x"})
	assert.Equal(t, hTagging{TenantID: "acme", TicketID: "1", Tag: "x"}, e)
	assert.Equal(t, hTicket{TenantID: "acme", ID: "1"}, hTaggings.From(e))
	assert.Equal(t, hTag{TenantID: "acme", Name: "x"}, hTaggings.To(e))

	_, err := graph.Relate("Bad", hTickets, hTaggingEdges, hTags,
		graph.FromField("TenantID", "TenantID"), graph.ToField("TenantID", "TenantID"),
		graph.FromField("TicketID", "ID"), graph.ToField("Tag", "Name"), graph.InIndex("GSI1"))
	require.ErrorIs(t, err, st.ErrInvalidModel)
	assert.ErrorContains(t, err, "the edge's field TenantID is mapped twice")
	_, err = graph.Relate("Bad", hTickets, hTaggingEdges, hTags,
		graph.Shared("TenantID", "TenantID", "TenantID"), graph.Shared("TenantID", "TenantID", "TenantID"),
		graph.FromField("TicketID", "ID"), graph.ToField("Tag", "Name"), graph.InIndex("GSI1"))
	require.ErrorIs(t, err, st.ErrInvalidModel)
	assert.ErrorContains(t, err, "Shared(\"TenantID\", ...) is given twice")
	_, err = graph.Relate("Bad", hTickets, hTaggingEdges, hTags,
		graph.Shared("TenantID", "TenantID", "Nope"),
		graph.FromField("TicketID", "ID"), graph.ToField("Tag", "Name"), graph.InIndex("GSI1"))
	require.ErrorIs(t, err, st.ErrInvalidModel)
	assert.ErrorContains(t, err, "entity Tag has no field Nope")
}
