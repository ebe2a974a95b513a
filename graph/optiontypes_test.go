package graph_test

import (
	"context"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/capacity"
	"github.com/singletable/singletable/graph"
)

// The combinations of options and writes that compile: each option's
// type against the writes that take it. The others (CapIn or CreateTo to
// Unlink, IdempotencyToken to Link, a graph option to DB.Transact) are
// compile errors, which a test that compiles cannot hold; CHANGELOG's
// "Issue 20: graph options typed by operation" shows them.
var (
	_ graph.LinkOption   = graph.CreateFrom(hPlayer{})
	_ graph.LinkOption   = graph.CreateTo(hGame{})
	_ graph.LinkOption   = graph.CapOut(1)
	_ graph.LinkOption   = graph.CapIn(1)
	_ graph.LinkOption   = graph.FailIfLinked()
	_ graph.EndOption    = graph.IfFrom(st.Exists("ID"))
	_ graph.EndOption    = graph.IfTo(st.Exists("ID"))
	_ graph.LinkOption   = capacity.Into(&capacity.Consumed{})
	_ graph.UnlinkOption = capacity.Into(&capacity.Consumed{})
	_ graph.UnlinkOption = graph.EndOption(nil)
	_ graph.LinkOption   = graph.EndOption(nil)

	// Each write, with every option its type allows.
	_ = func(db *st.DB, tx *st.Tx, c *capacity.Consumed) {
		_, _ = hJoins.Link(context.TODO(), db, hJoin{}, graph.CreateTo(hGame{}), graph.CapIn(2), graph.IfFrom(st.Exists("ID")),
			graph.IfTo(st.Exists("ID")), graph.FailIfLinked(), capacity.Into(c))
		_, _ = hJoins.Unlink(context.TODO(), db, hJoin{}, graph.IfFrom(st.Exists("ID")), graph.IfTo(st.Exists("ID")), capacity.Into(c))
		hJoins.TxLink(tx, hJoin{}, graph.CapIn(2), graph.IfTo(st.Exists("ID")))
		hJoins.TxUnlink(tx, hJoin{}, graph.IfTo(st.Exists("ID")))
	}
)
