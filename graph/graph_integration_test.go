//go:build integration

package graph_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/graph"
	"github.com/singletable/singletable/internal/ddblocal"
	"github.com/singletable/singletable/singletabletest"
)

// The graph on DynamoDB Local: both directions, Has, counts exact under
// repeated and concurrent Link / Unlink, ids with delimiters, pages and
// cursors, many-to-many with attributes through mirrors. The model is
// graph_test.go's.

// followGraph is what the test expects: the edges, and the counts they imply.
type followGraph map[[2]string]bool

func (g followGraph) following(id string) (n int) {
	for e := range g {
		if e[0] == id {
			n++
		}
	}
	return n
}

func (g followGraph) followers(id string) (n int) {
	for e := range g {
		if e[1] == id {
			n++
		}
	}
	return n
}

func (g followGraph) out(id string) (ids []string) {
	for e := range g {
		if e[0] == id {
			ids = append(ids, e[1])
		}
	}
	slices.Sort(ids)
	return ids
}

func (g followGraph) in(id string) (ids []string) {
	for e := range g {
		if e[1] == id {
			ids = append(ids, e[0])
		}
	}
	slices.Sort(ids)
	return ids
}

func TestIntegrationGraphFollows(t *testing.T) {
	ctx := context.Background()
	db := singletabletest.LocalDB(t, graphTable, st.WithClock(func() time.Time { return graphClock }))
	// Ids with the delimiter, the escape byte, and one that is another's prefix.
	ids := []string{"alice", "bob", "carol", "d#ve%", "bo", "USER#bob"}
	for _, id := range ids {
		require.NoError(t, gUsers.Create(ctx, db, gUser{ID: id, Name: id}))
	}
	want := followGraph{}
	link := func(a, b string) {
		t.Helper()
		ok, err := gFollows.Link(ctx, db, gFollow{Follower: a, Followee: b})
		require.NoError(t, err)
		assert.Equal(t, !want[[2]string{a, b}], ok, "Link %s -> %s reports whether it made the edge", a, b)
		want[[2]string{a, b}] = true
	}
	unlink := func(a, b string) {
		t.Helper()
		ok, err := gFollows.Unlink(ctx, db, gFollow{Follower: a, Followee: b})
		require.NoError(t, err)
		assert.Equal(t, want[[2]string{a, b}], ok, "Unlink %s -> %s reports whether there was an edge", a, b)
		delete(want, [2]string{a, b})
	}
	check := func(stage string) {
		t.Helper()
		for _, id := range ids {
			u, err := gUsers.Get(ctx, db, gUser{ID: id}, st.ConsistentRead())
			require.NoError(t, err)
			assert.Equal(t, want.following(id), u.Following, "%s: %s's following count", stage, id)
			assert.Equal(t, want.followers(id), u.Followers, "%s: %s's followers count", stage, id)
			var out, in []string
			for e, err := range gFollows.OutAll(ctx, db, gUser{ID: id}) {
				require.NoError(t, err)
				assert.Equal(t, id, e.Follower)
				assert.Equal(t, graphClock, e.Since.UTC(), "the table holds the whole edge")
				out = append(out, e.Followee)
			}
			for e, err := range gFollows.InAll(ctx, db, gUser{ID: id}) {
				require.NoError(t, err)
				assert.Equal(t, id, e.Followee, "keys-only index: the ends come back from the keys")
				in = append(in, e.Follower)
			}
			slices.Sort(in)
			assert.Equal(t, want.out(id), out, "%s: who %s follows", stage, id)
			assert.Equal(t, want.in(id), in, "%s: who follows %s", stage, id)
		}
	}
	for _, e := range [][2]string{{"alice", "bob"}, {"alice", "carol"}, {"bob", "alice"}, {"carol", "bob"},
		{"d#ve%", "bob"}, {"alice", "d#ve%"}, {"bo", "USER#bob"}, {"USER#bob", "bo"}} {
		link(e[0], e[1])
	}
	check("after the first links")

	// Repeated Links and Unlinks change nothing twice.
	link("alice", "bob")
	link("alice", "bob")
	unlink("carol", "bob")
	unlink("carol", "bob")
	unlink("carol", "alice") // never linked
	check("after repeats")

	// A self-loop: one user, both counts, one update.
	link("alice", "alice")
	link("alice", "alice")
	check("after a self-loop")
	unlink("alice", "alice")
	check("after removing the self-loop")

	// Has, both ways round, and for ids that are prefixes of each other.
	for _, c := range []struct {
		a, b string
		want bool
	}{{"alice", "bob", true}, {"bob", "alice", true}, {"carol", "bob", false}, {"bo", "USER#bob", true}, {"bob", "bo", false}, {"USER#bob", "bo", true}} {
		has, err := gFollows.Has(ctx, db, gFollow{Follower: c.a, Followee: c.b}, st.ConsistentRead())
		require.NoError(t, err)
		assert.Equal(t, c.want, has, "%s follows %s", c.a, c.b)
	}

	// A Link to a user that does not exist writes nothing.
	ok, err := gFollows.Link(ctx, db, gFollow{Follower: "alice", Followee: "nobody"})
	assert.ErrorIs(t, err, st.ErrNotFound)
	assert.False(t, ok)
	has, err := gFollows.Has(ctx, db, gFollow{Follower: "alice", Followee: "nobody"}, st.ConsistentRead())
	require.NoError(t, err)
	assert.False(t, has, "no edge without its counts")
	check("after a refused link")

	// Concurrent Links of one edge: exactly one makes it, the count is 1.
	var wg sync.WaitGroup
	results := make([]bool, 6)
	errs := make([]error, 6)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = gFollows.Link(ctx, db, gFollow{Follower: "carol", Followee: "d#ve%"})
		}()
	}
	wg.Wait()
	made := 0
	for i, ok := range results {
		if errs[i] != nil {
			assert.ErrorIs(t, errs[i], st.ErrTransactionConflict, "a concurrent Link fails only by conflict")
		}
		if ok {
			made++
		}
	}
	assert.Equal(t, 1, made, "exactly one concurrent Link made the edge")
	want[[2]string{"carol", "d#ve%"}] = true
	check("after concurrent links")
}

func TestIntegrationGraphPages(t *testing.T) {
	ctx := context.Background()
	db := singletabletest.LocalDB(t, graphTable)
	require.NoError(t, gUsers.Create(ctx, db, gUser{ID: "star"}))
	var fans []string
	for i := range 11 {
		id := fmt.Sprintf("fan#%02d", i)
		fans = append(fans, id)
		require.NoError(t, gUsers.Create(ctx, db, gUser{ID: id}))
		ok, err := gFollows.Link(ctx, db, gFollow{Follower: id, Followee: "star"})
		require.NoError(t, err)
		require.True(t, ok)
		ok, err = gFollows.Link(ctx, db, gFollow{Follower: "star", Followee: id})
		require.NoError(t, err)
		require.True(t, ok)
	}
	for _, dir := range []struct {
		name string
		page func(opts ...graph.OutOption) (*st.Page[gFollow], error)
		id   func(gFollow) string
	}{
		{"in", func(opts ...graph.OutOption) (*st.Page[gFollow], error) {
			in := make([]st.PartitionQueryOption, len(opts)) // Out's options are In's too
			for i, o := range opts {
				in[i] = o
			}
			return gFollows.In(ctx, db, gUser{ID: "star"}, in...)
		}, func(e gFollow) string { return e.Follower }},
		{"out", func(opts ...graph.OutOption) (*st.Page[gFollow], error) {
			return gFollows.Out(ctx, db, gUser{ID: "star"}, opts...)
		}, func(e gFollow) string { return e.Followee }},
	} {
		for _, limit := range []int{1, 4, 11, 12} {
			t.Run(fmt.Sprintf("%s/limit %d", dir.name, limit), func(t *testing.T) {
				var got []string
				cursor, pages := "", 0
				for {
					p, err := dir.page(st.Limit(limit), st.After(cursor))
					require.NoError(t, err)
					assert.LessOrEqual(t, len(p.Items), limit)
					for _, e := range p.Items {
						got = append(got, dir.id(e))
					}
					pages++
					require.Less(t, pages, 20, "paging ends")
					if cursor = p.Cursor; cursor == "" {
						break
					}
				}
				assert.Equal(t, fans, got, "every edge once, in key order")
			})
		}
		t.Run(dir.name+"/descending", func(t *testing.T) {
			p, err := dir.page(st.Limit(3), st.Descending())
			require.NoError(t, err)
			require.Len(t, p.Items, 3)
			assert.Equal(t, []string{"fan#10", "fan#09", "fan#08"}, []string{dir.id(p.Items[0]), dir.id(p.Items[1]), dir.id(p.Items[2])})
		})
	}
	// The counts after 22 links.
	u, err := gUsers.Get(ctx, db, gUser{ID: "star"}, st.ConsistentRead())
	require.NoError(t, err)
	assert.Equal(t, []int{11, 11}, []int{u.Following, u.Followers})
	// A cursor of Out is not one of In.
	p, err := gFollows.Out(ctx, db, gUser{ID: "star"}, st.Limit(2))
	require.NoError(t, err)
	_, err = gFollows.In(ctx, db, gUser{ID: "star"}, st.After(p.Cursor))
	assert.ErrorIs(t, err, st.ErrInvalidCursor)
}

func TestIntegrationGraphTeams(t *testing.T) {
	ctx := context.Background()
	db := singletabletest.LocalDB(t, graphTable, st.WithClock(func() time.Time { return graphClock }))
	for _, u := range []string{"u1", "u#2", "u3"} {
		require.NoError(t, gUsers.Create(ctx, db, gUser{ID: u}))
	}
	for _, tm := range []string{"t1", "t#2"} {
		require.NoError(t, gTeams.Create(ctx, db, gTeam{ID: tm}))
	}
	for _, m := range []gMembership{{UserID: "u1", TeamID: "t1", Role: "admin"}, {UserID: "u#2", TeamID: "t1", Role: "member"},
		{UserID: "u1", TeamID: "t#2", Role: "member"}, {UserID: "u3", TeamID: "t#2", Role: "owner"}} {
		ok, err := gMembers.Link(ctx, db, m)
		require.NoError(t, err)
		require.True(t, ok)
	}
	// A repeated Link with another role changes nothing: Update does.
	ok, err := gMembers.Link(ctx, db, gMembership{UserID: "u1", TeamID: "t1", Role: "guest"})
	require.NoError(t, err)
	assert.False(t, ok)

	teamOf := func(id string) (members []gMembership, count int64) {
		t.Helper()
		p, err := gMembers.In(ctx, db, gTeam{ID: id}, st.ConsistentRead())
		require.NoError(t, err)
		tm, err := gTeams.Get(ctx, db, gTeam{ID: id}, st.ConsistentRead())
		require.NoError(t, err)
		return p.Items, tm.Members
	}
	members, n := teamOf("t1")
	assert.Equal(t, int64(2), n)
	assert.Equal(t, []gMembership{
		{UserID: "u#2", TeamID: "t1", Role: "member", Joined: graphClock},
		{UserID: "u1", TeamID: "t1", Role: "admin", Joined: graphClock},
	}, utcJoined(members), "the mirrors carry the edge's attributes")

	p, err := gMembers.Out(ctx, db, gUser{ID: "u1"})
	require.NoError(t, err)
	assert.Equal(t, []gMembership{
		{UserID: "u1", TeamID: "t#2", Role: "member", Joined: graphClock},
		{UserID: "u1", TeamID: "t1", Role: "admin", Joined: graphClock},
	}, utcJoined(p.Items))

	// A role change reaches the edge and its mirror.
	require.NoError(t, gMembers.Update(ctx, db, gMembership{UserID: "u#2", TeamID: "t1"}, st.Set("Role", "admin")))
	members, _ = teamOf("t1")
	assert.Equal(t, "admin", members[0].Role)
	e, err := gMemberEdges.Get(ctx, db, gMembership{UserID: "u#2", TeamID: "t1"})
	require.NoError(t, err)
	assert.Equal(t, "admin", e.Role)
	// Update of a missing edge writes no mirror.
	err = gMembers.Update(ctx, db, gMembership{UserID: "u3", TeamID: "t1"}, st.Set("Role", "admin"))
	assert.ErrorIs(t, err, st.ErrNotFound)
	members, _ = teamOf("t1")
	assert.Len(t, members, 2)

	// Unlink removes both items and counts down, once.
	for i, want := range []bool{true, false} {
		ok, err := gMembers.Unlink(ctx, db, gMembership{UserID: "u1", TeamID: "t1"})
		require.NoError(t, err)
		assert.Equal(t, want, ok, "unlink %d", i)
	}
	members, n = teamOf("t1")
	assert.Equal(t, int64(1), n)
	require.Len(t, members, 1)
	assert.Equal(t, "u#2", members[0].UserID)
	has, err := gMembers.Has(ctx, db, gMembership{UserID: "u1", TeamID: "t1"})
	require.NoError(t, err)
	assert.False(t, has)
	members, n = teamOf("t#2")
	assert.Equal(t, int64(2), n)
	assert.Len(t, members, 2)

	// A team that does not exist: nothing written.
	_, err = gMembers.Link(ctx, db, gMembership{UserID: "u1", TeamID: "t9"})
	assert.ErrorIs(t, err, st.ErrNotFound)
	members, _ = teamOf("t1")
	assert.Len(t, members, 1)
}

func utcJoined(ms []gMembership) []gMembership {
	out := slices.Clone(ms)
	for i := range out {
		out[i].Joined = out[i].Joined.UTC()
	}
	return out
}

func TestIntegrationGraphBlocksThroughGSI(t *testing.T) {
	ctx := context.Background()
	db := singletabletest.LocalDB(t, graphTable)
	// No counts: the ends need not exist, and each write is one request.
	for _, b := range []gBlock{{Blocker: "a", Blocked: "m#1", Reason: "spam"}, {Blocker: "b", Blocked: "m#1"}, {Blocker: "a", Blocked: "m2"}} {
		ok, err := gBlocks.Link(ctx, db, b)
		require.NoError(t, err)
		require.True(t, ok)
	}
	ok, err := gBlocks.Link(ctx, db, gBlock{Blocker: "a", Blocked: "m#1"})
	require.NoError(t, err)
	assert.False(t, ok)
	var got []gBlock
	for b, err := range gBlocks.InAll(ctx, db, gUser{ID: "m#1"}) {
		require.NoError(t, err)
		got = append(got, b)
	}
	assert.Equal(t, []gBlock{{Blocker: "a", Blocked: "m#1", Reason: "spam"}, {Blocker: "b", Blocked: "m#1"}}, got, "an ALL index carries the attributes")
	for i, want := range []bool{true, false} {
		ok, err := gBlocks.Unlink(ctx, db, gBlock{Blocker: "a", Blocked: "m#1"})
		require.NoError(t, err)
		assert.Equal(t, want, ok, "unlink %d", i)
	}
	p, err := gBlocks.In(ctx, db, gUser{ID: "m#1"})
	require.NoError(t, err)
	assert.Equal(t, []gBlock{{Blocker: "b", Blocked: "m#1"}}, p.Items)
}

// The expiring-edge model: likes that expire (not counted on the post:
// Relate refuses counts of expiring edges).
type xPost struct {
	ID string `dynamodbav:"postId"`
}

type xLike struct {
	User    string    `dynamodbav:"user"`
	Post    string    `dynamodbav:"post"`
	Expires time.Time `dynamodbav:"ttl,unixtime"`
}

var (
	xTable = st.MustTable("ExpiringGraph", st.WithTTL("ttl"),
		st.WithGSI("Inverted", st.IndexKeys("SK", "PK"), st.KeysOnly()))
	xPosts     = st.MustDefine[xPost](xTable, "Post", st.Key("POST#{ID}", "POST#{ID}"))
	xUsers     = st.MustDefine[gUser](xTable, "User", st.Key("USER#{ID}", "USER#{ID}"))
	xLikeEdges = st.MustDefine[xLike](xTable, "Like", st.Key("USER#{User}", "POST#{Post}"), st.Expires("Expires"))
	xLikes     = graph.MustRelate("Likes", xUsers, xLikeEdges, xPosts,
		graph.FromField("User", "ID"), graph.ToField("Post", "ID"), graph.InIndex("Inverted"))
	// Saves: expiring edges with mirrors, so that Unlink is a transaction.
	xSaveEdges = st.MustDefine[xLike](xTable, "Save", st.Key("USER#{User}", "SAVE#{Post}"), st.Expires("Expires"))
	xSaves     = graph.MustRelate("Saves", xUsers, xSaveEdges, xPosts,
		graph.FromField("User", "ID"), graph.ToField("Post", "ID"), graph.InMirror("SavedBy", "POST#{Post}", "SAVER#{User}"))
)

// ttlNow is when the expiry tests start: in 2100, so that DynamoDB Local,
// which deletes items expired by the real clock, leaves every expired edge
// in the table for the reads to skip.
var ttlNow = time.Unix(4_102_444_800, 0)

// ttlClock is a clock the test moves.
type ttlClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *ttlClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *ttlClock) Set(t time.Time) { c.mu.Lock(); c.now = t; c.mu.Unlock() }

// clockedLocalDB binds table to a fresh DynamoDB Local table read by clock.
func clockedLocalDB(t *testing.T, table *st.Table, clock *ttlClock) *st.DB {
	t.Helper()
	ctx := context.Background()
	client, err := ddblocal.Client(ctx)
	require.NoError(t, err)
	db := st.New(client, table, st.WithTableName(ddblocal.UniqueName("graph")), st.WithClock(clock.Now))
	require.NoError(t, db.EnsureTable(ctx))
	t.Cleanup(func() { _ = db.DeleteTable(ctx) })
	return db
}

// rawItem reads an item as stored, bypassing the library.
func rawItem(t *testing.T, db *st.DB, pk, sk string) map[string]types.AttributeValue {
	t.Helper()
	out, err := db.Client().GetItem(context.Background(), &dynamodb.GetItemInput{
		TableName: &[]string{db.TableName()}[0],
		Key:       map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: pk}, "SK": &types.AttributeValueMemberS{Value: sk}},
	})
	require.NoError(t, err)
	return out.Item
}

// TestIntegrationGraphLinksOverExpiredEdges: linking again an edge that
// has expired (still stored) replaces it, reads never count an expired
// edge, and Unlink finds it absent (unlinked false, nothing written).
func TestIntegrationGraphLinksOverExpiredEdges(t *testing.T) {
	ctx := context.Background()
	clock := &ttlClock{now: ttlNow}
	db := clockedLocalDB(t, xTable, clock)
	require.NoError(t, xUsers.Put(ctx, db, gUser{ID: "u1"}))
	require.NoError(t, xPosts.Put(ctx, db, xPost{ID: "p1"}))
	likes := func() int { // the edges a read finds: expired ones are absent
		n := 0
		for _, err := range xLikes.InAll(ctx, db, xPost{ID: "p1"}, st.FetchFull()) {
			require.NoError(t, err)
			n++
		}
		return n
	}
	edge := func(exp time.Time) xLike { return xLike{User: "u1", Post: "p1", Expires: exp} }

	ok, err := xLikes.Link(ctx, db, edge(ttlNow.Add(10*time.Second)))
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, 1, likes())
	ok, err = xLikes.Link(ctx, db, edge(ttlNow.Add(time.Hour)))
	require.NoError(t, err)
	assert.False(t, ok, "a live edge is not linked again")
	assert.Equal(t, 1, likes())

	clock.Set(ttlNow.Add(10 * time.Second)) // expiry == clock: expired
	_, err = xLikeEdges.Get(ctx, db, edge(time.Time{}))
	require.ErrorIs(t, err, st.ErrNotFound)
	assert.Equal(t, 0, likes(), "an expired edge is absent")
	ok, err = xLikes.Link(ctx, db, edge(ttlNow.Add(time.Hour)))
	require.NoError(t, err)
	assert.True(t, ok, "the expired edge is replaced")
	assert.Equal(t, 1, likes(), "one edge")
	got, err := xLikeEdges.Get(ctx, db, edge(time.Time{}))
	require.NoError(t, err)
	assert.True(t, got.Expires.Equal(ttlNow.Add(time.Hour)))

	ok, err = xLikes.Unlink(ctx, db, edge(time.Time{}))
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, 0, likes(), "no edge, no count")
	ok, err = xLikes.Unlink(ctx, db, edge(time.Time{}))
	require.NoError(t, err)
	assert.False(t, ok)
	assert.Equal(t, 0, likes())

	// Expired, then unlinked: absent, as to every read; nothing is
	// written (DynamoDB deletes it). With a mirror (a transaction) too.
	for _, r := range []*graph.Relation[gUser, xLike, xPost]{xLikes, xSaves} {
		ok, err = r.Link(ctx, db, edge(clock.Now().Add(5*time.Second)))
		require.NoError(t, err)
		require.True(t, ok)
		has, err := r.Has(ctx, db, edge(time.Time{}))
		require.NoError(t, err)
		require.True(t, has)
		clock.Set(clock.Now().Add(5 * time.Second))
		ok, err = r.Unlink(ctx, db, edge(time.Time{}))
		require.NoError(t, err, r.Name())
		assert.False(t, ok, "%s: an expired edge is absent to Unlink", r.Name())
		has, err = r.Has(ctx, db, edge(time.Time{}))
		require.NoError(t, err)
		assert.False(t, has)
	}
	assert.Equal(t, 0, likes())
	assert.NotEmpty(t, rawItem(t, db, "USER#u1", "POST#p1"), "left for DynamoDB to delete")
	assert.NotEmpty(t, rawItem(t, db, "USER#u1", "SAVE#p1"))
	assert.NotEmpty(t, rawItem(t, db, "POST#p1", "SAVER#u1"), "the mirror too")
	// A live mirrored edge still unlinks, with its mirror.
	ok, err = xSaves.Link(ctx, db, edge(clock.Now().Add(time.Hour)))
	require.NoError(t, err)
	require.True(t, ok, "the expired edge is replaced")
	ok, err = xSaves.Unlink(ctx, db, edge(time.Time{}))
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Empty(t, rawItem(t, db, "USER#u1", "SAVE#p1"))
	assert.Empty(t, rawItem(t, db, "POST#p1", "SAVER#u1"))
}
