package graph_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/graph"
	"github.com/singletable/singletable/internal/golden"
	"github.com/singletable/singletable/singletabletest"
)

// The graph model: the adjacency seed's follows (one item per edge, read
// backwards through the inverted index, with counts), the access-patterns
// seed's team memberships (an edge and its mirror, with a role and a
// joined-at), and blocks (the seed's own GSI1 templates, no counts).

type gUser struct {
	ID        string `dynamodbav:"userId"`
	Name      string `dynamodbav:"name"`
	Following int    `dynamodbav:"following"`
	Followers int    `dynamodbav:"followers"`
}

type gFollow struct {
	Follower string    `dynamodbav:"follower"`
	Followee string    `dynamodbav:"followee"`
	Since    time.Time `dynamodbav:"since" singletable:"created"`
}

type gTeam struct {
	ID      string `dynamodbav:"teamId"`
	Members int64  `dynamodbav:"members"`
}

type gMembership struct {
	UserID string    `dynamodbav:"userId"`
	TeamID string    `dynamodbav:"teamId"`
	Role   string    `dynamodbav:"role"`
	Joined time.Time `dynamodbav:"joined" singletable:"created"`
}

type gBlock struct {
	Blocker string `dynamodbav:"blocker"`
	Blocked string `dynamodbav:"blocked"`
	Reason  string `dynamodbav:"reason,omitempty"`
}

var (
	graphTable = st.MustTable("Graph",
		st.WithGSI("Inverted", st.IndexKeys("SK", "PK"), st.KeysOnly()),
		st.WithGSI("GSI1"))
	gUsers       = st.MustDefine[gUser](graphTable, "User", st.Key("USER#{ID}", "USER#{ID}"))
	gTeams       = st.MustDefine[gTeam](graphTable, "Team", st.Key("TEAM#{ID}", "TEAM#{ID}"))
	gFollowEdges = st.MustDefine[gFollow](graphTable, "Follow", st.Key("USER#{Follower}", "FOLLOWS#{Followee}"))
	gFollows     = graph.MustRelate("Follows", gUsers, gFollowEdges, gUsers,
		graph.FromField("Follower", "ID"), graph.ToField("Followee", "ID"),
		graph.InIndex("Inverted"), graph.CountOut("Following"), graph.CountIn("Followers"))
	gMemberEdges = st.MustDefine[gMembership](graphTable, "Membership", st.Key("USER#{UserID}", "TEAM#{TeamID}"))
	gMembers     = graph.MustRelate("Members", gUsers, gMemberEdges, gTeams,
		graph.FromField("UserID", "ID"), graph.ToField("TeamID", "ID"),
		graph.InMirror("TeamMember", "TEAM#{TeamID}", "MEMBER#{UserID}"), graph.CountIn("Members"))
	gBlockEdges = st.MustDefine[gBlock](graphTable, "Block", st.Key("USER#{Blocker}", "BLOCKS#{Blocked}"),
		st.Index("GSI1", "BLOCKED_BY#{Blocked}", "USER#{Blocker}"))
	gBlocks = graph.MustRelate("Blocks", gUsers, gBlockEdges, gUsers,
		graph.FromField("Blocker", "ID"), graph.ToField("Blocked", "ID"), graph.InIndex("GSI1"))
)

var graphClock = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func graphDB() (*st.DB, *singletabletest.Client) {
	mock := &singletabletest.Client{}
	return st.New(mock, graphTable, st.WithClock(func() time.Time { return graphClock }), singletabletest.NoRetryDelay()), mock
}

func TestRelationWritesGolden(t *testing.T) {
	db, _ := graphDB()
	tok := st.IdempotencyToken("graph")
	for name, build := range map[string]func(*st.Tx){
		// The edge created only if absent, both counts in the same transaction.
		"link_counts":   func(tx *st.Tx) { gFollows.TxLink(tx, gFollow{Follower: "alice", Followee: "bob"}) },
		"unlink_counts": func(tx *st.Tx) { gFollows.TxUnlink(tx, gFollow{Follower: "alice", Followee: "bob"}) },
		// A self-loop: one update of the one user, both counts.
		"link_self": func(tx *st.Tx) { gFollows.TxLink(tx, gFollow{Follower: "alice", Followee: "alice"}) },
		// The edge, its mirror (same attributes, same joined-at), the team's count.
		"link_mirror":   func(tx *st.Tx) { gMembers.TxLink(tx, gMembership{UserID: "u#1", TeamID: "t1", Role: "admin"}) },
		"unlink_mirror": func(tx *st.Tx) { gMembers.TxUnlink(tx, gMembership{UserID: "u#1", TeamID: "t1"}) },
	} {
		t.Run(name, func(t *testing.T) {
			in, err := db.TransactInput(func(tx *st.Tx) error { build(tx); return nil }, tok)
			require.NoError(t, err)
			golden.Request(t, "graph/"+name, in)
		})
	}
}

func TestRelationReadsGolden(t *testing.T) {
	db, _ := graphDB()
	for name, in := range map[string]func() (*dynamodb.QueryInput, error){
		"out":      func() (*dynamodb.QueryInput, error) { return gFollows.OutInput(db, gUser{ID: "alice"}, st.Limit(10)) },
		"in_index": func() (*dynamodb.QueryInput, error) { return gFollows.InInput(db, gUser{ID: "b#ob%"}) },
		"in_mirror": func() (*dynamodb.QueryInput, error) {
			return gMembers.InInput(db, gTeam{ID: "t1"}, st.ConsistentRead())
		},
		"in_gsi": func() (*dynamodb.QueryInput, error) { return gBlocks.InInput(db, gUser{ID: "carol"}, st.Descending()) },
	} {
		t.Run(name, func(t *testing.T) {
			q, err := in()
			require.NoError(t, err)
			golden.Request(t, "graph/"+name, q)
		})
	}
	// The index is eventually consistent only.
	_, err := gFollows.InInput(db, gUser{ID: "bob"}, st.ConsistentRead())
	assert.ErrorIs(t, err, st.ErrInvalidInput)
	// An end without its key is refused before anything is sent.
	_, err = gFollows.OutInput(db, gUser{})
	assert.ErrorIs(t, err, st.ErrInvalidKey)
}

func cancelled(codes ...string) error {
	var reasons []types.CancellationReason
	for _, c := range codes {
		reasons = append(reasons, types.CancellationReason{Code: sdkaws.String(c)})
	}
	return &types.TransactionCanceledException{Message: sdkaws.String("cancelled"), CancellationReasons: reasons}
}

func TestRelationLinkOutcomes(t *testing.T) {
	ctx := context.Background()
	e := gFollow{Follower: "alice", Followee: "bob"}
	for _, c := range []struct {
		name    string
		link    bool
		answer  error
		want    bool
		wantErr error
	}{
		{"link", true, nil, true, nil},
		{"link again: the edge exists, nothing counted", true, cancelled("ConditionalCheckFailed", "None", "None"), false, nil},
		{"link to a missing user", true, cancelled("None", "None", "ConditionalCheckFailed"), false, st.ErrNotFound},
		{"link: edge exists and a user is missing", true, cancelled("ConditionalCheckFailed", "ConditionalCheckFailed", "None"), false, st.ErrNotFound},
		// Retried, 10 times, then as it is.
		{"link: conflict", true, cancelled("TransactionConflict", "None", "None"), false, st.ErrTransactionConflict},
		{"unlink", false, nil, true, nil},
		{"unlink again: no edge", false, cancelled("ConditionalCheckFailed", "None", "None"), false, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			db, mock := graphDB()
			mock.TransactWriteItemsFunc = func(context.Context, *dynamodb.TransactWriteItemsInput) (*dynamodb.TransactWriteItemsOutput, error) {
				return &dynamodb.TransactWriteItemsOutput{}, c.answer
			}
			var got bool
			var err error
			if c.link {
				got, err = gFollows.Link(ctx, db, e)
			} else {
				got, err = gFollows.Unlink(ctx, db, e)
			}
			assert.Equal(t, c.want, got)
			if c.wantErr == nil {
				assert.NoError(t, err)
			} else {
				assert.ErrorIs(t, err, c.wantErr)
			}
			sends := 1
			if errors.Is(c.wantErr, st.ErrTransactionConflict) {
				sends = 11
			}
			require.Len(t, mock.Calls(), sends)
			assert.Equal(t, "TransactWriteItems", mock.Calls()[0].Op)
		})
	}
}

func TestRelationWithoutCountsIsOneRequest(t *testing.T) {
	ctx := context.Background()
	db, mock := graphDB()
	e := gBlock{Blocker: "alice", Blocked: "mallory", Reason: "spam"}
	ok, err := gBlocks.Link(ctx, db, e)
	require.NoError(t, err)
	assert.True(t, ok)
	require.Len(t, mock.Calls(), 1)
	golden.Request(t, "graph/link_single", mock.Calls()[0].Input)

	// The edge exists: Link does nothing, and says so.
	mock.PutItemFunc = func(context.Context, *dynamodb.PutItemInput) (*dynamodb.PutItemOutput, error) {
		return nil, &types.ConditionalCheckFailedException{Message: sdkaws.String("exists"),
			Item: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "USER#alice"}}}
	}
	ok, err = gBlocks.Link(ctx, db, e)
	assert.NoError(t, err)
	assert.False(t, ok)

	mock.Reset()
	mock.DeleteItemFunc = func(context.Context, *dynamodb.DeleteItemInput) (*dynamodb.DeleteItemOutput, error) {
		return nil, &types.ConditionalCheckFailedException{Message: sdkaws.String("no item")}
	}
	ok, err = gBlocks.Unlink(ctx, db, e)
	assert.NoError(t, err)
	assert.False(t, ok)
	require.Len(t, mock.Calls(), 1)
	golden.Request(t, "graph/unlink_single", mock.Calls()[0].Input)

	// Another failure is the caller's.
	boom := errors.New("boom")
	mock.DeleteItemFunc = func(context.Context, *dynamodb.DeleteItemInput) (*dynamodb.DeleteItemOutput, error) { return nil, boom }
	ok, err = gBlocks.Unlink(ctx, db, e)
	assert.ErrorIs(t, err, boom)
	assert.False(t, ok)
}

func TestRelationHas(t *testing.T) {
	ctx := context.Background()
	db, mock := graphDB()
	has, err := gFollows.Has(ctx, db, gFollow{Follower: "alice", Followee: "bob"}, st.ConsistentRead())
	require.NoError(t, err)
	assert.False(t, has)
	in := mock.Calls()[0].Input.(*dynamodb.GetItemInput)
	assert.Equal(t, "USER#alice", in.Key["PK"].(*types.AttributeValueMemberS).Value)
	assert.Equal(t, "FOLLOWS#bob", in.Key["SK"].(*types.AttributeValueMemberS).Value)
	assert.True(t, sdkaws.ToBool(in.ConsistentRead))

	mock.GetItemFunc = func(_ context.Context, in *dynamodb.GetItemInput) (*dynamodb.GetItemOutput, error) {
		item := map[string]types.AttributeValue{"_type": &types.AttributeValueMemberS{Value: "Follow"},
			"follower": &types.AttributeValueMemberS{Value: "alice"}, "followee": &types.AttributeValueMemberS{Value: "bob"}}
		for k, v := range in.Key {
			item[k] = v
		}
		return &dynamodb.GetItemOutput{Item: item}, nil
	}
	has, err = gFollows.Has(ctx, db, gFollow{Follower: "alice", Followee: "bob"})
	require.NoError(t, err)
	assert.True(t, has)

	_, err = gFollows.Has(ctx, db, gFollow{Follower: "alice"})
	assert.ErrorIs(t, err, st.ErrInvalidKey)
}

func TestRelationEnds(t *testing.T) {
	e := gMembers.Edge(gUser{ID: "u1", Name: "ignored"}, gTeam{ID: "t1", Members: 9})
	assert.Equal(t, gMembership{UserID: "u1", TeamID: "t1"}, e)
	e.Role = "admin"
	assert.Equal(t, gUser{ID: "u1"}, gMembers.From(e))
	assert.Equal(t, gTeam{ID: "t1"}, gMembers.To(e))
	assert.Equal(t, "Members", gMembers.Name())
	assert.Equal(t, "Members.Out", gMembers.OutPattern().Name())
	assert.Equal(t, "Members.In", gMembers.InPattern().Name())
	assert.Equal(t, "", gMembers.InPattern().Index(), "the mirrors are on the table")
	assert.Equal(t, "Inverted", gFollows.InPattern().Index())
}

func TestRelationRefusesBadDeclarations(t *testing.T) {
	type node struct {
		ID    string `dynamodbav:"id"`
		Count int    `dynamodbav:"count"`
		Name  string `dynamodbav:"name"`
		Rank  int    `dynamodbav:"rank"`
		Ver   int64  `dynamodbav:"ver"`
	}
	type edge struct {
		From  string `dynamodbav:"from"`
		To    string `dynamodbav:"to"`
		Other int    `dynamodbav:"other"`
		Note  string `dynamodbav:"note"`
		Ver   int64  `dynamodbav:"ver" singletable:"version"`
	}
	mk := func() (*st.Entity[node], *st.Entity[edge]) {
		tbl := st.MustTable("Bad", st.WithGSI("Inverted", st.IndexKeys("SK", "PK")), st.WithGSI("ByRank"))
		n := st.MustDefine[node](tbl, "Node", st.Key("N#{ID}", "N#{ID}"), st.Index("ByRank", "RANK#{Rank}", "N#{ID}"))
		e := st.MustDefine[edge](tbl, "Edge", st.Key("N#{From}", "E#{To}"))
		return n, e
	}
	from, to := graph.FromField("From", "ID"), graph.ToField("To", "ID")
	for _, c := range []struct {
		name string
		opts []graph.Option
		want string
	}{
		{"no way in", []graph.Option{from, to}, "InIndex"},
		{"both ways in", []graph.Option{from, to, graph.InIndex("Inverted"), graph.InMirror("M", "N#{To}", "R#{From}")}, "exactly once"},
		{"unmapped from key", []graph.Option{to, graph.InIndex("Inverted")}, "key field ID of entity Node is not mapped"},
		{"unknown edge field", []graph.Option{graph.FromField("Nope", "ID"), to, graph.InIndex("Inverted")}, "has no field Nope"},
		{"unknown end field", []graph.Option{graph.FromField("From", "Nope"), to, graph.InIndex("Inverted")}, "has no field Nope"},
		{"not a key field", []graph.Option{graph.FromField("From", "Name"), from, to, graph.InIndex("Inverted")}, "not a key field"},
		{"types differ", []graph.Option{graph.FromField("Other", "ID"), to, graph.InIndex("Inverted")}, "is a int"},
		{"mapped twice", []graph.Option{from, graph.ToField("From", "ID"), graph.InIndex("Inverted")}, "mapped twice"},
		{"index without the edge", []graph.Option{from, to, graph.InIndex("ByRank")}, "not in index ByRank"},
		{"index partition reads the from end", []graph.Option{graph.FromField("To", "ID"), graph.ToField("From", "ID"), graph.InIndex("Inverted")}, "partition template"},
		{"count not an integer", []graph.Option{from, to, graph.InIndex("Inverted"), graph.CountOut("Name")}, "a count is an integer"},
		{"count is a key", []graph.Option{from, to, graph.InIndex("Inverted"), graph.CountIn("ID")}, "key field"},
		{"count in an index key", []graph.Option{from, to, graph.InIndex("Inverted"), graph.CountIn("Rank")}, "index ByRank"},
		{"unknown count", []graph.Option{from, to, graph.InIndex("Inverted"), graph.CountIn("Nope")}, "no field Nope"},
		{"mirror of a versioned edge", []graph.Option{from, to, graph.InMirror("M", "N#{To}", "R#{From}")}, "version or unique"},
		{"nil option", []graph.Option{from, to, nil}, "nil option"},
		// Options without a name are refused, not ignored (an empty index
		// read the edges through a mirror that was never declared).
		{"empty index", []graph.Option{from, to, graph.InIndex("")}, "InIndex: the index name is empty"},
		{"empty count out", []graph.Option{from, to, graph.InIndex("Inverted"), graph.CountOut("")}, "CountOut: the field name is empty"},
		{"empty count in", []graph.Option{from, to, graph.InIndex("Inverted"), graph.CountIn("")}, "CountIn: the field name is empty"},
		// A single-valued option given twice is refused, not won by the last.
		{"count out twice", []graph.Option{from, to, graph.InIndex("Inverted"), graph.CountOut("Count"), graph.CountOut("Ver")}, "CountOut is given twice"},
		{"count in twice", []graph.Option{from, to, graph.InIndex("Inverted"), graph.CountIn("Count"), graph.CountIn("Count")}, "CountIn is given twice"},
		{"index twice", []graph.Option{from, to, graph.InIndex("Inverted"), graph.InIndex("Inverted")}, "InIndex is given twice"},
		{"mirror twice", []graph.Option{from, to, graph.InMirror("M", "N#{To}", "R#{From}"), graph.InMirror("M2", "N#{To}", "R#{From}")}, "InMirror is given twice"},
		{"end field mapped twice", []graph.Option{from, graph.FromField("Note", "ID"), to, graph.InIndex("Inverted")}, "Node's field ID is mapped twice"},
	} {
		t.Run(c.name, func(t *testing.T) {
			n, e := mk()
			_, err := graph.Relate("R", n, e, n, c.opts...)
			require.Error(t, err)
			assert.ErrorIs(t, err, st.ErrInvalidModel)
			assert.Contains(t, err.Error(), c.want)
		})
	}
	t.Run("nil entity", func(t *testing.T) {
		n, _ := mk()
		_, err := graph.Relate[node, edge, node]("R", n, nil, n)
		assert.ErrorIs(t, err, st.ErrInvalidModel)
	})
	t.Run("MustRelate panics", func(t *testing.T) {
		n, e := mk()
		assert.Panics(t, func() { graph.MustRelate("R", n, e, n) })
	})
}

// Counts over edges that expire cannot equal the edges that exist (an
// expired edge is absent at once; DynamoDB deletes it without a write that
// could decrement): Relate refuses them, and accepts the same relation
// without counts.
func TestRelateRefusesCountsOfExpiringEdges(t *testing.T) {
	type node struct {
		ID    string `dynamodbav:"id"`
		Count int    `dynamodbav:"count"`
	}
	type edge struct {
		From    string    `dynamodbav:"from"`
		To      string    `dynamodbav:"to"`
		Expires time.Time `dynamodbav:"ttl,unixtime"`
	}
	tbl := st.MustTable("Expiring", st.WithTTL("ttl"), st.WithGSI("Inverted", st.IndexKeys("SK", "PK")))
	n := st.MustDefine[node](tbl, "Node", st.Key("N#{ID}", "N#{ID}"))
	e := st.MustDefine[edge](tbl, "Edge", st.Key("N#{From}", "E#{To}"), st.Expires("Expires"))
	base := []graph.Option{graph.FromField("From", "ID"), graph.ToField("To", "ID"), graph.InIndex("Inverted")}
	for _, count := range []graph.Option{graph.CountOut("Count"), graph.CountIn("Count")} {
		_, err := graph.Relate("R", n, e, n, append(slices.Clone(base), count)...)
		assert.ErrorIs(t, err, st.ErrInvalidModel)
		assert.ErrorContains(t, err, "cannot count edges that expire")
	}
	_, err := graph.Relate("R", n, e, n, base...)
	assert.NoError(t, err)
}

func TestRelationMirrorMustReadTheEdgeKey(t *testing.T) {
	type node struct {
		ID string `dynamodbav:"id"`
	}
	type edge struct {
		From string `dynamodbav:"from"`
		To   string `dynamodbav:"to"`
		Seq  string `dynamodbav:"seq"`
	}
	for _, c := range []struct{ name, pk, sk, want string }{
		{"partition reads the from end", "N#{From}", "R#{To}", "partition template reads From"},
		{"misses a key field", "N#{To}", "R", "exactly the edge's key fields"},
		{"reads another field", "N#{To}", "R#{From}#{Seq}", "exactly the edge's key fields"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tbl := st.MustTable("Mirror")
			n := st.MustDefine[node](tbl, "Node", st.Key("N#{ID}", "N#{ID}"))
			e := st.MustDefine[edge](tbl, "Edge", st.Key("N#{From}", "E#{To}"))
			_, err := graph.Relate("R", n, e, n, graph.FromField("From", "ID"), graph.ToField("To", "ID"), graph.InMirror("M", c.pk, c.sk))
			assert.ErrorIs(t, err, st.ErrInvalidModel)
			assert.ErrorContains(t, err, c.want)
		})
	}
}

// A relation counting both ends in one field (links of either direction),
// on a self-loop: one update, adding 2.
func TestRelationSelfLoopOneCountField(t *testing.T) {
	type node struct {
		ID    string `dynamodbav:"id"`
		Links int    `dynamodbav:"links"`
	}
	type link struct {
		A string `dynamodbav:"a"`
		B string `dynamodbav:"b"`
	}
	tbl := st.MustTable("Links", st.WithGSI("Inverted", st.IndexKeys("SK", "PK")))
	nodes := st.MustDefine[node](tbl, "Node", st.Key("N#{ID}", "N#{ID}"))
	links := graph.MustRelate("Links", nodes, st.MustDefine[link](tbl, "Link", st.Key("N#{A}", "L#{B}")), nodes,
		graph.FromField("A", "ID"), graph.ToField("B", "ID"), graph.InIndex("Inverted"), graph.CountOut("Links"), graph.CountIn("Links"))
	db := st.New(&singletabletest.Client{}, tbl)
	in, err := db.TransactInput(func(tx *st.Tx) error { links.TxLink(tx, link{A: "n1", B: "n1"}); return nil })
	require.NoError(t, err)
	require.Len(t, in.TransactItems, 2)
	u := in.TransactItems[1].Update
	require.NotNil(t, u)
	assert.Equal(t, "SET #n0 = if_not_exists(#n0, :v0) + :v1", sdkaws.ToString(u.UpdateExpression))
	assert.Equal(t, &types.AttributeValueMemberN{Value: "2"}, u.ExpressionAttributeValues[":v1"])
	in, err = db.TransactInput(func(tx *st.Tx) error { links.TxUnlink(tx, link{A: "n1", B: "n2"}); return nil })
	require.NoError(t, err)
	require.Len(t, in.TransactItems, 3, "two ends, two updates")
	assert.Equal(t, &types.AttributeValueMemberN{Value: "-1"}, in.TransactItems[2].Update.ExpressionAttributeValues[":v1"])
}
