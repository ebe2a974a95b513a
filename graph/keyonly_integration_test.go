//go:build integration

package graph_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/graph"
	"github.com/singletable/singletable/singletabletest"
)

// A table adopted from other code keeps ids only in keys: ends whose key
// fields are key-only (`dynamodbav:"-"`), and edges that are nothing but
// their keys. Relate maps them, and Link (with IfTo's check of an end
// without a count), Out, In, Has and Unlink work over them.
type koUser struct {
	ID        string `dynamodbav:"-"`
	Name      string `dynamodbav:"name"`
	Followers int    `dynamodbav:"followers"`
}

type koFollow struct {
	Follower string `dynamodbav:"-"`
	Followee string `dynamodbav:"-"`
}

func TestIntegrationKeyOnlyEndsAndEdges(t *testing.T) {
	tbl := st.MustTable("GraphKeyOnly", st.WithGSI("Inverted", st.IndexKeys("SK", "PK"), st.KeysOnly()))
	users := st.MustDefine[koUser](tbl, "User", st.Key("USER#{ID}", "PROFILE"))
	edges := st.MustDefine[koFollow](tbl, "Follow", st.Key("USER#{Follower}", "FOLLOWS#{Followee}"))
	likes := st.MustDefine[koFollow](tbl, "Like", st.Key("USER#{Follower}", "LIKES#{Followee}"))
	follows, err := graph.Relate("Follows", users, edges, users, graph.FromField("Follower", "ID"), graph.ToField("Followee", "ID"),
		graph.InIndex("Inverted"), graph.CountIn("Followers"))
	require.NoError(t, err)
	liked, err := graph.Relate("Likes", users, likes, users, graph.FromField("Follower", "ID"), graph.ToField("Followee", "ID"),
		graph.InIndex("Inverted"))
	require.NoError(t, err)
	db := singletabletest.LocalDB(t, tbl)
	ctx := t.Context()
	for _, id := range []string{"a#1", "b%2", "c"} {
		require.NoError(t, users.Put(ctx, db, koUser{ID: id, Name: id}))
	}
	for _, e := range []koFollow{{"a#1", "b%2"}, {"c", "b%2"}} {
		ok, err := follows.Link(ctx, db, e)
		require.NoError(t, err)
		assert.True(t, ok)
	}
	out, err := follows.Out(ctx, db, koUser{ID: "a#1"})
	require.NoError(t, err)
	assert.Equal(t, []koFollow{{"a#1", "b%2"}}, out.Items)
	in, err := follows.In(ctx, db, koUser{ID: "b%2"})
	require.NoError(t, err)
	assert.ElementsMatch(t, []koFollow{{"a#1", "b%2"}, {"c", "b%2"}}, in.Items)
	b, err := users.Get(ctx, db, koUser{ID: "b%2"})
	require.NoError(t, err)
	assert.Equal(t, 2, b.Followers)
	has, err := follows.Has(ctx, db, koFollow{"c", "b%2"})
	require.NoError(t, err)
	assert.True(t, has)
	ok, err := follows.Unlink(ctx, db, koFollow{"c", "b%2"})
	require.NoError(t, err)
	assert.True(t, ok)

	// An end without a count: IfTo's check holds that the end exists.
	ok, err = liked.Link(ctx, db, koFollow{"a#1", "c"}, graph.IfTo(st.Eq("Name", "c")))
	require.NoError(t, err)
	assert.True(t, ok)
	ok, err = liked.Link(ctx, db, koFollow{"a#1", "ghost"}, graph.IfTo(st.Ne("Name", "x")))
	require.ErrorIs(t, err, graph.ErrEndMissing)
	assert.False(t, ok)
}
