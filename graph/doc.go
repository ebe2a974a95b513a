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
// Reads and writes take the singletable DB, and the options of the
// operation they run: Out and In are a Pattern's Query (OutOption,
// singletable.PartitionQueryOption: no sort-key options, and Out no
// FetchFull), Has an Entity's Get (GetOption), Update an Entity's Update
// (UpdateOption).
// See docs/graphs.md.
package graph
