// Package graph declares relationships between entities of a singletable
// table: graphs and many-to-many, stored as edge items.
//
// A Relation is a relationship declared once between two entities (users
// following users, users belonging to teams), stored as edge items of an
// entity of its own (the adjacency list of single-table design), and read
// both ways: Out from the from end ("who does alice follow"), In from the
// to end ("who follows bob"), Has for one edge ("does alice follow bob").
// The edge is a struct with the key fields of both ends and any attributes
// of its own (a role, a joined-at timestamp), defined with
// singletable.Define like any entity:
//
//	type Follow struct {
//		Follower string    `dynamodbav:"follower"`
//		Followee string    `dynamodbav:"followee"`
//		Since    time.Time `dynamodbav:"since" singletable:"created"`
//	}
//
//	var FollowEdges = st.MustDefine[Follow](Social, "Follow", st.Key("USER#{Follower}", "FOLLOWS#{Followee}"))
//	var Follows = graph.MustRelate("Follows", Users, FollowEdges, Users,
//		graph.FromField("Follower", "ID"), graph.ToField("Followee", "ID"),
//		graph.InIndex("Inverted"),                      // or graph.InMirror(...)
//		graph.CountOut("Following"), graph.CountIn("Followers"))
//
// The edge's partition key reads the from end (Out is a Query of it); the
// In direction is stored one of two ways, whichever the declaration says:
//
//   - InIndex: one item per edge, read backwards through a GSI the edge
//     entity is in: the inverted index IndexKeys("SK", "PK"), where the
//     edge's sort template ("FOLLOWS#{Followee}") is the partition, or a
//     GSI with templates of its own (Index("GSI1", "FOLLOWED_BY#{Followee}",
//     "USER#{Follower}")). Cheapest to write; In reads are eventually
//     consistent, and carry what the index projects.
//   - InMirror: two items per edge, the edge and its mirror (a second entity
//     of the same struct, keyed by the to end), written and deleted
//     together in one transaction. Twice the writes; In reads the table (a
//     consistent read is possible) and needs no index.
//
// Counts (CountOut, CountIn) are number fields of the ends kept in step in
// the same transaction as the edge: Link creates the edge only if it does
// not exist and adds 1 to each count, so a repeated Link changes nothing;
// Unlink deletes the edge only if it exists and subtracts 1. An end with a
// count must exist, or the Link fails with singletable.ErrNotFound and
// writes nothing.
//
// Ends whose keys share a field (a tenant: TENANT#{TenantID}#TICKET#{ID}
// and TENANT#{TenantID}#TAG#{Name}) map it to one edge field with Shared.
// Link's options put more in its one transaction: CreateTo (CreateFrom)
// creates a counted end that does not exist yet, CapIn (CapOut) links only
// while the end's count is below a cap, IfTo (IfFrom) only while an end
// meets a condition; so "join the game while it has fewer than 50 players,
// creating it on the first join" is one call:
//
//	ok, err := Joins.Link(ctx, db, Join{GameID: "g1", PlayerID: "ann"},
//		graph.CreateTo(Game{Mode: "duel"}), graph.CapIn(50), graph.IfTo(st.Eq("State", "WAITING")))
//
// A refusal is a *LinkError saying which end and why (ErrCapReached,
// ErrEndMissing, ErrEndCondition, ErrEdgeExists), matched with errors.Is.
//
// Reads and writes take the singletable DB, and the options of the
// operation they run: Out and In are a Pattern's Query (OutOption,
// singletable.PartitionQueryOption: no sort-key options, and Out no
// FetchFull), Has an Entity's Get (GetOption), Update an Entity's Update
// (UpdateOption); Link and TxLink a LinkOption, Unlink and TxUnlink an
// UnlinkOption (IfFrom and IfTo are both, and so is capacity.Into). These
// are sealed: an option that cannot apply to the write (CapIn to Unlink,
// singletable.IdempotencyToken to Link, a graph option to DB.Transact)
// does not compile.
// See docs/graphs.md.
package graph
