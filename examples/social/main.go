// Command social runs the follows graph of the seed article
// dynamodb-single-table-adjacency.txt ("Adjacency List Pattern: Graph
// Relationships") against DynamoDB Local: users follow users, each follow
// is one item (PK USER#alice, SK FOLLOWS#bob) that the seed's GSI1 reads
// backwards (FOLLOWED_BY#bob, USER#alice), and every user's following and
// follower counts are kept in step in the same transaction as the edge.
// It answers the seed's three questions (who does Alice follow, who
// follows Bob, does Alice follow Bob), shows that a repeated follow counts
// once and that a follow of a missing user writes nothing, and exits
// non-zero if any result is not what the graph implies.
//
//	scripts/dynamodb-local.sh run -- go run ./examples/social
//	make examples   # runs every example, this one included
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/graph"
	"github.com/singletable/singletable/internal/examplekit"
	"github.com/singletable/singletable/singletabletest/local"
)

// User is a profile, with the counts the relation keeps.
type User struct {
	ID        string `dynamodbav:"userId"`
	Name      string `dynamodbav:"name"`
	Following int    `dynamodbav:"following"`
	Followers int    `dynamodbav:"followers"`
}

// Follow is one edge: Follower follows Followee since Since.
type Follow struct {
	Follower string    `dynamodbav:"follower"`
	Followee string    `dynamodbav:"followee"`
	Since    time.Time `dynamodbav:"since" singletable:"created"`
}

var (
	Social = st.MustTable("Social", st.WithGSI("GSI1"))
	Users  = st.MustDefine[User](Social, "User", st.Key("USER#{ID}", "USER#{ID}"))
	// The seed's rows exactly: the edge under the follower, and in GSI1
	// under the followee.
	FollowEdges = st.MustDefine[Follow](Social, "Follow",
		st.Key("USER#{Follower}", "FOLLOWS#{Followee}"),
		st.Index("GSI1", "FOLLOWED_BY#{Followee}", "USER#{Follower}"))
	// The relationship, declared once: both directions and both counts.
	Follows = graph.MustRelate("Follows", Users, FollowEdges, Users,
		graph.FromField("Follower", "ID"), graph.ToField("Followee", "ID"),
		graph.InIndex("GSI1"),
		graph.CountOut("Following"), graph.CountIn("Followers"))
)

func main() {
	if err := run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		os.Exit(1)
	}
	fmt.Println("\nBoth directions, every count and every refusal are what the graph implies.")
}

func run(ctx context.Context) error {
	client, err := local.Client(ctx)
	if err != nil {
		return err
	}
	db := st.New(client, Social)
	fmt.Print(Social.Sheet())
	if err := examplekit.FreshTable(ctx, db); err != nil {
		return err
	}
	fmt.Printf("\nCreated table %s.\n", db.TableName())
	for _, u := range []User{{ID: "alice", Name: "Alice"}, {ID: "bob", Name: "Bob"}, {ID: "carol", Name: "Carol"}, {ID: "dave#1", Name: "Dave"}} {
		if err := Users.Create(ctx, db, u); err != nil {
			return err
		}
	}
	var c examplekit.Checker
	// The graph the example builds, as plain data: every check compares
	// the table with it.
	graph := map[[2]string]bool{}
	follow := func(a, b string) {
		made, err := Follows.Link(ctx, db, Follow{Follower: a, Followee: b})
		c.Equal(fmt.Sprintf("%s follows %s (new: %v)", a, b, !graph[[2]string{a, b}]), []any{nil, !graph[[2]string{a, b}]}, []any{err, made})
		graph[[2]string{a, b}] = true
	}
	unfollow := func(a, b string) {
		done, err := Follows.Unlink(ctx, db, Follow{Follower: a, Followee: b})
		c.Equal(fmt.Sprintf("%s unfollows %s (was following: %v)", a, b, graph[[2]string{a, b}]), []any{nil, graph[[2]string{a, b}]}, []any{err, done})
		delete(graph, [2]string{a, b})
	}

	fmt.Println("\n1. The seed's follows: alice -> bob, alice -> carol, bob -> alice (and dave#1 -> bob)")
	follow("alice", "bob")
	follow("alice", "carol")
	follow("bob", "alice")
	follow("dave#1", "bob")
	check(ctx, db, &c, graph)

	fmt.Println("\n2. Does Alice follow Bob? (GetItem PK=USER#alice, SK=FOLLOWS#bob)")
	for _, q := range [][2]string{{"alice", "bob"}, {"bob", "carol"}, {"bob", "alice"}} {
		has, err := Follows.Has(ctx, db, Follow{Follower: q[0], Followee: q[1]})
		fmt.Printf("  %s follows %s: %v\n", q[0], q[1], has)
		c.Equal(fmt.Sprintf("%s follows %s", q[0], q[1]), []any{nil, graph[q]}, []any{err, has})
	}

	fmt.Println("\n3. Following twice counts once; unfollowing twice counts once")
	follow("alice", "bob")
	unfollow("alice", "carol")
	unfollow("alice", "carol")
	check(ctx, db, &c, graph)

	fmt.Println("\n4. Following a user who does not exist writes nothing")
	made, err := Follows.Link(ctx, db, Follow{Follower: "alice", Followee: "mallory"})
	fmt.Printf("  refused: %v\n", err)
	c.Equal("refused with ErrNotFound", []any{true, false}, []any{errors.Is(err, st.ErrNotFound), made})
	check(ctx, db, &c, graph)

	fmt.Println("\n5. The profiles of the users Alice follows (one BatchGet)")
	var keys []User
	for e, err := range Follows.OutAll(ctx, db, User{ID: "alice"}) {
		if err != nil {
			return err
		}
		keys = append(keys, Follows.To(e))
	}
	profiles, err := Users.BatchGet(ctx, db, keys)
	var names []string
	for _, p := range profiles {
		if p != nil {
			names = append(names, p.Name)
		}
	}
	fmt.Printf("  %s\n", strings.Join(names, ", "))
	c.Equal("alice follows Bob", []any{nil, []string{"Bob"}}, []any{err, names})
	return c.Err()
}

// check compares both directions and both counts of every user with graph.
func check(ctx context.Context, db *st.DB, c *examplekit.Checker, graph map[[2]string]bool) {
	for _, id := range []string{"alice", "bob", "carol", "dave#1"} {
		var wantOut, wantIn []string
		for e := range graph {
			if e[0] == id {
				wantOut = append(wantOut, e[1])
			}
			if e[1] == id {
				wantIn = append(wantIn, e[0])
			}
		}
		slices.Sort(wantOut)
		slices.Sort(wantIn)
		outPage, err1 := Follows.Out(ctx, db, User{ID: id})
		inPage, err2 := Follows.In(ctx, db, User{ID: id})
		out := ends(outPage, func(f Follow) string { return f.Followee })
		in := ends(inPage, func(f Follow) string { return f.Follower })
		u, err3 := Users.Get(ctx, db, User{ID: id}, st.ConsistentRead())
		fmt.Printf("  %-7s follows %-14s followed by %-14s following %d, followers %d\n", id,
			"["+strings.Join(out, " ")+"]", "["+strings.Join(in, " ")+"]", u.Following, u.Followers)
		c.Equal("reads of "+id, []error{nil, nil, nil}, []error{err1, err2, err3})
		c.Equal("who "+id+" follows", wantOut, out)
		c.Equal("who follows "+id, wantIn, in)
		c.Equal(id+"'s counts", []int{len(wantOut), len(wantIn)}, []int{u.Following, u.Followers})
	}
}

// ends lists one end of each edge of a page (nil for none), sorted.
func ends(p *st.Page[Follow], end func(Follow) string) []string {
	var out []string
	if p == nil {
		return nil
	}
	for _, e := range p.Items {
		out = append(out, end(e))
	}
	slices.Sort(out)
	return out
}
