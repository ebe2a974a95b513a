package graph_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/graph"
)

// relationCalls calls every method of r that sends or plans a request,
// with db, each returning its error.
func relationCalls(r *graph.Relation[gUser, gFollow, gUser], db *st.DB) map[string]func() error {
	ctx := context.Background()
	e, u := gFollow{Follower: "a", Followee: "b"}, gUser{ID: "a"}
	first := func(seq func(func(gFollow, error) bool)) error {
		var err error
		seq(func(_ gFollow, e error) bool { err = e; return false })
		return err
	}
	return map[string]func() error{
		"Link":     func() error { _, err := r.Link(ctx, db, e); return err },
		"Unlink":   func() error { _, err := r.Unlink(ctx, db, e); return err },
		"Has":      func() error { _, err := r.Has(ctx, db, e); return err },
		"Out":      func() error { _, err := r.Out(ctx, db, u); return err },
		"In":       func() error { _, err := r.In(ctx, db, u); return err },
		"OutAll":   func() error { return first(r.OutAll(ctx, db, u)) },
		"InAll":    func() error { return first(r.InAll(ctx, db, u)) },
		"OutInput": func() error { _, err := r.OutInput(db, u); return err },
		"InInput":  func() error { _, err := r.InInput(db, u); return err },
		"Update":   func() error { return r.Update(ctx, db, e, st.Set("Since", graphClock)) },
	}
}

// A nil DB, or a Relation not made by Relate: an *InputError naming it,
// no panic, nothing sent.
func TestRelationRefusesNilDBAndZeroRelation(t *testing.T) {
	db, mock := graphDB()
	for name, call := range relationCalls(gFollows, nil) {
		err := call()
		assert.ErrorIs(t, err, st.ErrInvalidInput, name)
		assert.ErrorContains(t, err, "Follows."+name+": the DB is nil", name)
	}
	var zero graph.Relation[gUser, gFollow, gUser]
	for name, call := range relationCalls(&zero, db) {
		err := call()
		assert.ErrorIs(t, err, st.ErrInvalidInput, name)
		assert.ErrorContains(t, err, "graph.Relation."+name+": the relation was not made by Relate", name)
	}
	for name, call := range relationCalls(nil, db) {
		assert.ErrorIs(t, call(), st.ErrInvalidInput, "nil relation: "+name)
	}
	err := db.Transact(context.Background(), func(tx *st.Tx) error {
		zero.TxLink(tx, gFollow{Follower: "a", Followee: "b"})
		zero.TxUnlink(tx, gFollow{Follower: "a", Followee: "b"})
		return nil
	})
	assert.ErrorIs(t, err, st.ErrInvalidInput)
	assert.ErrorContains(t, err, "graph.Relation.TxLink: the relation was not made by Relate")
	assert.Empty(t, mock.Calls(), "nothing is sent")
}

// An edge is created by Link alone: Relation.Update refuses Upsert (an
// upserted edge would go uncounted, and a later Unlink drive the counts
// below the edges), with counts, a mirror, or neither.
func TestRelationUpdateRefusesUpsert(t *testing.T) {
	ctx := context.Background()
	db, mock := graphDB()
	for name, update := range map[string]func(...st.UpdateOption) error{
		"counts": func(o ...st.UpdateOption) error {
			return gFollows.Update(ctx, db, gFollow{Follower: "a", Followee: "b"}, st.Set("Since", graphClock), o...)
		},
		"mirror": func(o ...st.UpdateOption) error {
			return gMembers.Update(ctx, db, gMembership{UserID: "a", TeamID: "t"}, st.Set("Role", "x"), o...)
		},
		"plain": func(o ...st.UpdateOption) error {
			return gBlocks.Update(ctx, db, gBlock{Blocker: "a", Blocked: "b"}, st.Set("Reason", "x"), o...)
		},
	} {
		mock.Reset()
		err := update(st.NoRead(), st.Upsert())
		assert.ErrorIs(t, err, st.ErrInvalidInput, name)
		assert.ErrorContains(t, err, ".Update: Upsert", name)
		assert.Empty(t, mock.Calls(), name+": nothing is sent")
		// Without Upsert the update is sent (the mock answers no item,
		// which is beside the point here).
		_ = update()
		assert.Len(t, mock.Calls(), 1, name+": without Upsert, one request")
	}
}
