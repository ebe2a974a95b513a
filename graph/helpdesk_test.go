package graph_test

import (
	"time"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/graph"
)

// The helpdesk model (issue 24): tenants' tickets, tags and agents, every
// key inside its tenant. A ticket's tags and an agent's assignments are
// relations whose ends share the tenant, which the edge stores once
// (Shared); a tag is created by the first ticket tagged with it
// (CreateTo); an agent holds at most a few open tickets (CapOut), while
// active (IfFrom), and only open tickets (IfTo). Beside it, a game that
// its first player's join creates, joined while it has fewer players than
// its cap.

type hTicket struct {
	TenantID string `dynamodbav:"tenantId"`
	ID       string `dynamodbav:"ticketId"`
	Status   string `dynamodbav:"status"`
	Tags     int    `dynamodbav:"tags"`
}

type hTag struct {
	TenantID string `dynamodbav:"tenantId"`
	Name     string `dynamodbav:"name"`
	Color    string `dynamodbav:"color,omitempty"`
	Tickets  int    `dynamodbav:"tickets"`
}

type hAgent struct {
	TenantID string `dynamodbav:"tenantId"`
	ID       string `dynamodbav:"agentId"`
	Active   bool   `dynamodbav:"active"`
	Open     int    `dynamodbav:"open"`
}

type hTagging struct {
	TenantID string    `dynamodbav:"tenantId"`
	TicketID string    `dynamodbav:"ticketId"`
	Tag      string    `dynamodbav:"tag"`
	Added    time.Time `dynamodbav:"added" singletable:"created"`
}

type hAssignment struct {
	TenantID string `dynamodbav:"tenantId"`
	AgentID  string `dynamodbav:"agentId"`
	TicketID string `dynamodbav:"ticketId"`
}

type hGame struct {
	ID      string `dynamodbav:"gameId"`
	Mode    string `dynamodbav:"mode"`
	Players int    `dynamodbav:"players"`
}

type hPlayer struct {
	ID string `dynamodbav:"playerId"`
}

type hJoin struct {
	GameID   string `dynamodbav:"gameId"`
	PlayerID string `dynamodbav:"playerId"`
}

var (
	helpdesk = st.MustTable("Helpdesk", st.WithGSI("GSI1"))
	hTickets = st.MustDefine[hTicket](helpdesk, "Ticket", st.Key("TENANT#{TenantID}#TICKET#{ID}", "TICKET"))
	hTags    = st.MustDefine[hTag](helpdesk, "Tag", st.Key("TENANT#{TenantID}#TAG#{Name}", "TAG"))
	hAgents  = st.MustDefine[hAgent](helpdesk, "Agent", st.Key("TENANT#{TenantID}#AGENT#{ID}", "AGENT"))
	// A ticket's tags: Out from the ticket, In (the tag's tickets)
	// through GSI1, both inside the tenant.
	hTaggingEdges = st.MustDefine[hTagging](helpdesk, "Tagging",
		st.Key("TENANT#{TenantID}#TICKET#{TicketID}", "TAG#{Tag}"),
		st.Index("GSI1", "TENANT#{TenantID}#TAG#{Tag}", "TICKET#{TicketID}"))
	hTaggings = graph.MustRelate("Tagging", hTickets, hTaggingEdges, hTags,
		graph.Shared("TenantID", "TenantID", "TenantID"),
		graph.FromField("TicketID", "ID"), graph.ToField("Tag", "Name"),
		graph.InIndex("GSI1"), graph.CountOut("Tags"), graph.CountIn("Tickets"))
	// An agent's assigned tickets, mirrored under the ticket.
	hAssignmentEdges = st.MustDefine[hAssignment](helpdesk, "Assignment",
		st.Key("TENANT#{TenantID}#AGENT#{AgentID}", "TICKET#{TicketID}"))
	hAssignments = graph.MustRelate("Assignments", hAgents, hAssignmentEdges, hTickets,
		graph.Shared("TenantID", "TenantID", "TenantID"),
		graph.FromField("AgentID", "ID"), graph.ToField("TicketID", "ID"),
		graph.InMirror("AssignedTo", "TENANT#{TenantID}#TICKET#{TicketID}", "AGENT#{AgentID}"),
		graph.CountOut("Open"))

	hGames     = st.MustDefine[hGame](helpdesk, "Game", st.Key("GAME#{ID}", "GAME"))
	hPlayers   = st.MustDefine[hPlayer](helpdesk, "Player", st.Key("PLAYER#{ID}", "PLAYER"))
	hJoinEdges = st.MustDefine[hJoin](helpdesk, "Join", st.Key("PLAYER#{PlayerID}", "GAME#{GameID}"))
	hJoins     = graph.MustRelate("Joins", hPlayers, hJoinEdges, hGames,
		graph.FromField("PlayerID", "ID"), graph.ToField("GameID", "ID"),
		graph.InMirror("GamePlayer", "GAME#{GameID}", "PLAYER#{PlayerID}"), graph.CountIn("Players"))
)
