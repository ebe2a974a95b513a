package graph

import (
	"context"
	"errors"
	"reflect"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/bridge"
)

// The writes of a Relation: Link and Unlink plan the edge's own Create or
// Delete, its mirror's Put or Delete, and the counts' Updates with the
// entities' planners, and send them as one request: a single PutItem or
// DeleteItem when the relation has neither mirror nor counts, else one
// TransactWriteItems.

// Link creates edge e (its end fields set, and any attributes of its own),
// with its mirror and its counts in one transaction when the relation has
// them. linked is false, and nothing is written, when the edge already
// exists: a repeated Link does not count twice. Managed fields of the edge
// (a created timestamp) are set as [singletable.Entity.Create] sets them.
// An end with a count must exist: else the Link fails
// (singletable.ErrNotFound) and writes nothing. An edge that has expired
// (see singletable.Expires) but is still stored is replaced, with its
// mirror, and not counted again: it was counted when it was linked.
func (r *Relation[F, E, T]) Link(ctx context.Context, db *st.DB, e E) (linked bool, err error) {
	return r.write(ctx, db, e, true)
}

// Unlink deletes edge e (its key fields set), with its mirror and its
// counts in one transaction when the relation has them. unlinked is false,
// and nothing is written, when there is no such edge. An expired edge
// still stored is deleted and uncounted like a live one.
func (r *Relation[F, E, T]) Unlink(ctx context.Context, db *st.DB, e E) (unlinked bool, err error) {
	return r.write(ctx, db, e, false)
}

// TxLink adds Link of edge e to a transaction: the edge's Create, its
// mirror's Put and the counts' updates. Inside a transaction of the
// caller's, an edge that already exists cancels the whole transaction
// (singletable.ErrAlreadyExists), an expired one too (a transaction cannot tell
// whether to count it: Link replaces it).
func (r *Relation[F, E, T]) TxLink(tx *st.Tx, e E) { r.txPlan("TxLink", tx, e, true) }

// TxUnlink adds Unlink of edge e to a transaction; an edge that does not
// exist cancels it (singletable.ErrNotFound).
func (r *Relation[F, E, T]) TxUnlink(tx *st.Tx, e E) { r.txPlan("TxUnlink", tx, e, false) }

// txPlan plans TxLink (link) or TxUnlink of e into tx, or, on a Relation
// not made by Relate, adds the error that fails the transaction.
func (r *Relation[F, E, T]) txPlan(method string, tx *st.Tx, e E, link bool) {
	if r == nil || r.edge == nil {
		bridge.Graph.TxFail(tx, r.check(method, nil))
		return
	}
	r.plan(tx, e, link)
}

// Update changes the attributes of edge e (its key fields set), and of its
// mirror in the same transaction with InMirror, as
// [singletable.Entity.Update] does: the edge must exist
// (singletable.ErrNotFound otherwise). singletable.Upsert is an
// *singletable.InputError, and nothing is sent: an edge is created by Link
// alone, which writes its mirror and counts it (an upserted edge would go
// uncounted, and a later Unlink drive the counts below the edges).
func (r *Relation[F, E, T]) Update(ctx context.Context, db *st.DB, e E, ch st.Changes, opts ...st.UpdateOption) error {
	if err := r.check("Update", db); err != nil {
		return err
	}
	if bridge.Graph.Upserts(opts) {
		return &st.InputError{Op: r.name + ".Update", Reason: "Upsert: Relation.Update changes an existing edge; create one with Link, which writes its mirror and counts it"}
	}
	if r.mirror == nil {
		_, err := r.edge.Update(ctx, db, e, ch, opts...)
		return err
	}
	return db.Transact(ctx, func(tx *st.Tx) error {
		r.edge.TxUpdate(tx, e, ch, opts...)
		r.mirror.TxUpdate(tx, e, ch, opts...)
		return nil
	})
}

// write sends Link (link) or Unlink of e.
func (r *Relation[F, E, T]) write(ctx context.Context, db *st.DB, e E, link bool) (bool, error) {
	method := "Unlink"
	if link {
		method = "Link"
	}
	if err := r.check(method, db); err != nil {
		return false, err
	}
	// What the edge's own action fails with when there is nothing to do.
	noop := st.ErrNotFound
	if link {
		noop = st.ErrAlreadyExists
	}
	if r.mirror == nil && r.countOut == "" && r.countIn == "" {
		var err error
		if link {
			err = r.edge.Create(ctx, db, e)
		} else {
			err = r.edge.Delete(ctx, db, e, st.MustExist())
		}
		if errors.Is(err, noop) {
			return false, nil
		}
		return err == nil, err
	}
	op := r.name + "." + method
	var expired map[string]types.AttributeValue // the expired edge a Link replaces
	for attempt := 0; ; attempt++ {
		err := bridge.Graph.Transact(ctx, db, op, func(txa any) {
			tx := txa.(*st.Tx)
			if expired == nil {
				r.plan(tx, e, link)
			} else {
				r.planReplace(tx, e, expired)
			}
		})
		var te *st.TxError
		// The edge is action 0: when its condition alone failed, it was
		// there already (Link: the Create's only condition) or not at all
		// (Unlink, unless a version it was given did not match), and
		// nothing was to be done; unless, for a Link, the edge there has
		// expired: it is replaced, and was counted already.
		if errors.As(err, &te) && len(te.Actions) == 1 {
			f := te.Actions[0]
			if f.Index == 0 && f.Code == "ConditionalCheckFailed" && (link || errors.Is(f.Err, noop)) {
				if link && attempt < maxLinkAttempts && bridge.Graph.Expired(db, r.edge, f.Item) {
					expired = f.Item
					continue
				}
				return false, nil
			}
		}
		return err == nil, err
	}
}

// maxLinkAttempts bounds the retries of a Link that meets an expired edge
// another writer keeps changing.
const maxLinkAttempts = 3

// planReplace adds to tx the Link of e over the expired edge stored as
// old: the edge's put, conditioned on it still holding old's expiry, and
// its mirror's; no count changes, as old was counted when it was linked.
func (r *Relation[F, E, T]) planReplace(tx *st.Tx, e E, old map[string]types.AttributeValue) {
	bridge.Graph.PlanLink(tx, r.edge, r.mirrorEntity(), reflect.ValueOf(&e).Elem(), old)
}

// mirrorEntity is the mirror entity for the bridge: an untyped nil for
// none, as a nil *st.Entity[E] in an any is not nil.
func (r *Relation[F, E, T]) mirrorEntity() any {
	if r.mirror == nil {
		return nil
	}
	return r.mirror
}

// plan adds the actions of Link (link) or Unlink of e to tx: the edge's
// first, then its mirror's, then the counts'.
func (r *Relation[F, E, T]) plan(tx *st.Tx, e E, link bool) {
	delta := -1
	if link {
		delta = 1
		// The edge must not exist, expired or not: an expired edge was
		// counted when it was linked, and linking it again must not count
		// it twice (Link replaces it: planReplace).
		bridge.Graph.PlanLink(tx, r.edge, r.mirrorEntity(), reflect.ValueOf(&e).Elem(), nil)
	} else {
		r.edge.TxDelete(tx, e, st.MustExist())
		if r.mirror != nil {
			r.mirror.TxDelete(tx, e)
		}
	}
	r.planCounts(tx, e, delta)
}

// planCounts adds the count updates of an edge to tx: delta to the from
// end's CountOut and the to end's CountIn; a self-loop (both ends one item)
// is one update, as a transaction allows one action per item.
func (r *Relation[F, E, T]) planCounts(tx *st.Tx, e E, delta int) {
	f, t := r.From(e), r.To(e)
	if r.countOut != "" && r.countIn != "" && r.sameItem(f, t) {
		ch := st.Increment(r.countOut, delta).Increment(r.countIn, delta)
		if r.countOut == r.countIn {
			ch = st.Increment(r.countOut, 2*delta)
		}
		r.from.TxUpdate(tx, f, ch)
		return
	}
	if r.countOut != "" {
		r.from.TxUpdate(tx, f, st.Increment(r.countOut, delta))
	}
	if r.countIn != "" {
		r.to.TxUpdate(tx, t, st.Increment(r.countIn, delta))
	}
}

// sameItem reports whether ends f and t are one item (a self-loop).
func (r *Relation[F, E, T]) sameItem(f F, t T) bool {
	if any(r.from) != any(r.to) {
		return false
	}
	return bridge.Graph.SameItem(r.from, reflect.ValueOf(&f).Elem(), reflect.ValueOf(&t).Elem())
}
