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
// Delete, its mirror's Put or Delete, and the ends' actions (the counts'
// Updates, the ends' conditions, an end's creation) with the entities'
// planners, and send them as one request: a single PutItem or DeleteItem
// when the relation has neither mirror nor counts and the call no end
// option, else one TransactWriteItems.

// Link creates edge e (its end fields set, and any attributes of its own),
// with its mirror and its counts in one transaction when the relation has
// them. linked is false, and nothing is written, when the edge already
// exists: a repeated Link does not count twice (FailIfLinked makes that a
// *LinkError), and is not refused by a cap or condition of an end that
// the edge is in already. Managed fields of the edge (a created timestamp) are set
// as [singletable.Entity.Create] sets them. An end with a count must
// exist, or be created (CreateFrom, CreateTo): else the Link fails with a
// *LinkError matching ErrEndMissing (and singletable.ErrNotFound) and
// writes nothing. CapOut and CapIn link only below a count, IfFrom and
// IfTo only while an end meets a condition, in the same transaction; a
// refusal is a *LinkError saying which. The transaction's options
// (capacity.Into) apply to every request sent. Link retries a transaction
// that another one conflicted with (ErrTransactionConflict), with backoff,
// a few times. An edge that has expired (see singletable.Expires) but is
// still stored is replaced, with its mirror, and not counted again: it was
// counted when it was linked.
func (r *Relation[F, E, T]) Link(ctx context.Context, db *st.DB, e E, opts ...LinkOption) (linked bool, err error) {
	return r.write(ctx, db, e, true, linkOptions(opts))
}

// Unlink deletes edge e (its key fields set), with its mirror and its
// counts in one transaction when the relation has them. unlinked is false,
// and nothing is written, when there is no such edge, or it has expired
// (it is absent to every read; DynamoDB deletes it), whatever IfFrom and
// IfTo say. IfFrom and IfTo condition it as they do Link.
func (r *Relation[F, E, T]) Unlink(ctx context.Context, db *st.DB, e E, opts ...UnlinkOption) (unlinked bool, err error) {
	return r.write(ctx, db, e, false, linkOptions(opts))
}

// TxLink adds Link of edge e to a transaction: the edge's Create, its
// mirror's Put and the ends' actions, with CapOut, CapIn, IfFrom and IfTo
// (CreateFrom and CreateTo are Link's alone, and the transaction's
// options DB.Transact's). Inside a transaction of the caller's, an edge
// that already exists cancels the whole transaction
// (singletable.ErrAlreadyExists), an expired one too (a transaction cannot
// tell whether to count it: Link replaces it), and so does a refusing end
// (singletable.ErrConditionFailed; a missing counted end
// singletable.ErrNotFound).
func (r *Relation[F, E, T]) TxLink(tx *st.Tx, e E, opts ...LinkOption) {
	r.txPlan("TxLink", tx, e, true, linkOptions(opts))
}

// TxUnlink adds Unlink of edge e to a transaction; an edge that does not
// exist, or has expired, cancels it (singletable.ErrNotFound,
// singletable.ErrConditionFailed).
func (r *Relation[F, E, T]) TxUnlink(tx *st.Tx, e E, opts ...UnlinkOption) {
	r.txPlan("TxUnlink", tx, e, false, linkOptions(opts))
}

// txPlan plans TxLink (link) or TxUnlink of e into tx, or adds the error
// that fails the transaction: on a Relation not made by Relate, or
// options that do not fit.
func (r *Relation[F, E, T]) txPlan(method string, tx *st.Tx, e E, link bool, opts []any) {
	if r == nil || r.edge == nil {
		bridge.Graph.TxFail(tx, r.check(method, nil))
		return
	}
	s, err := r.options(method, opts)
	if err == nil && len(s.tx) > 0 {
		err = &st.InputError{Op: r.name + "." + method, Reason: "capacity.Into is the transaction's option: give it to DB.Transact"}
	}
	if err == nil {
		err = r.checkEnds(r.name+"."+method, e, s)
	}
	if err != nil {
		bridge.Graph.TxFail(tx, err)
		return
	}
	r.plan(tx, e, link, s, [2]bool{})
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

// maxLinkAttempts bounds the retries of a Link that meets an expired edge
// another writer keeps changing, or an end that others keep creating.
const maxLinkAttempts = 4

// maxConflictRetries bounds the retries of a transaction cancelled by a
// conflict with another (concurrent links to one end).
const maxConflictRetries = 10

// write sends Link (link) or Unlink of e.
func (r *Relation[F, E, T]) write(ctx context.Context, db *st.DB, e E, link bool, opts []any) (bool, error) {
	method := "Unlink"
	if link {
		method = "Link"
	}
	if err := r.check(method, db); err != nil {
		return false, err
	}
	s, err := r.options(method, opts)
	if err != nil {
		return false, err
	}
	op := r.name + "." + method
	if err := r.checkEnds(op, e, s); err != nil {
		return false, err
	}
	if ok, err, sent := r.writeOne(ctx, db, e, link, s); sent {
		return ok, err
	}
	var (
		expired   map[string]types.AttributeValue // the expired edge a Link replaces
		create    [2]bool                         // the ends this attempt creates
		attempts  int                             // of the forms: replace, create
		conflicts int
	)
	for {
		var p placed
		err := bridge.Graph.Transact(ctx, db, op, func(txa any) {
			tx := txa.(*st.Tx)
			if expired == nil {
				p = r.plan(tx, e, link, s, create)
			} else {
				r.planReplace(tx, e, expired)
			}
		}, s.tx)
		var te *st.TxError
		if !errors.As(err, &te) {
			return err == nil, err
		}
		if conflicted(te) && conflicts < maxConflictRetries {
			conflicts++
			if err := bridge.Graph.Wait(ctx, db, conflicts); err != nil {
				return false, err
			}
			continue
		}
		if expired != nil {
			return false, err // the replacement's own failure: as it is
		}
		// The edge is action 0, and its outcome comes before the ends'
		// caps and conditions: a Link of an edge that is there, or an
		// Unlink of one that is not, has nothing to do (a member's
		// repeated join of a game full or started since is "already
		// linked", not a refusal); an end that is missing is still said.
		// The edge's Create's only condition is that it does not exist;
		// unless, for a Link, the edge there has expired: it is replaced
		// (when no end refused), and was counted already.
		if f, ok := edgeFailed(te); ok && r.missing(te, p) == [2]bool{} {
			alone := len(te.Actions) == 1
			if link {
				expiredEdge := bridge.Graph.Expired(db, r.edge, f.Item)
				if expiredEdge && alone && attempts < maxLinkAttempts {
					attempts++
					expired = f.Item
					continue
				}
				if !expiredEdge || alone {
					if s.strict {
						return false, &LinkError{Op: op, Reason: ErrEdgeExists, Err: err}
					}
					return false, nil
				}
			} else {
				if errors.Is(f.Err, st.ErrNotFound) || bridge.Graph.Expired(db, r.edge, f.Item) {
					return false, nil
				}
				if alone {
					return false, err // a version it was given did not match
				}
			}
		}
		le := r.refusal(op, te, p, s, create)
		if le == nil {
			return false, err
		}
		end := endIndex(le.End)
		switch {
		case errors.Is(le.Reason, ErrEndMissing) && s.create[end] != nil && !create[end] && attempts < maxLinkAttempts:
			attempts++
			// Missing: create it, and the other end too when the
			// same cancellation says it is missing (one more
			// request for both, not one each).
			for x, gone := range r.missing(te, p) {
				create[x] = create[x] || (gone && s.create[x] != nil)
			}
			continue
		case create[end] && le.Reason == errCreatedMeanwhile && attempts < maxLinkAttempts:
			attempts++
			create[end] = false // created by another link: count it
			continue
		case le.Reason == errCreatedMeanwhile:
			return false, err
		}
		return false, le
	}
}

// writeOne sends Link or Unlink as a single PutItem or DeleteItem when
// it needs no transaction (no mirror, no counts, no end options; the
// one transaction option Link and Unlink take, capacity.Into, is every
// write's), and says whether it did (sent).
func (r *Relation[F, E, T]) writeOne(ctx context.Context, db *st.DB, e E, link bool, s *linkSpec) (ok bool, err error, sent bool) {
	if r.mirror != nil || r.countOut != "" || r.countIn != "" || s.create != [2]any{} || !s.cond[0].IsZero() || !s.cond[1].IsZero() {
		return false, nil, false
	}
	if link {
		put := make([]st.PutOption, 0, len(s.tx))
		for _, o := range s.tx {
			put = append(put, o.(st.PutOption)) // capacity.Into: every write's
		}
		err := r.edge.Create(ctx, db, e, put...)
		if errors.Is(err, st.ErrAlreadyExists) {
			if s.strict {
				return false, &LinkError{Op: r.name + ".Link", Reason: ErrEdgeExists, Err: err}, true
			}
			return false, nil, true
		}
		return err == nil, err, true
	}
	del := []st.DeleteOption{st.MustExist()}
	if live := bridge.Graph.Live(db, r.edge).(st.Cond); !live.IsZero() {
		del = append(del, st.If(live))
	}
	for _, o := range s.tx {
		del = append(del, o.(st.DeleteOption))
	}
	err = r.edge.Delete(ctx, db, e, del...)
	var ce *st.ConditionError
	if errors.Is(err, st.ErrNotFound) || (errors.As(err, &ce) && bridge.Graph.Expired(db, r.edge, ce.Item)) {
		return false, nil, true // absent, or expired: absent to every read
	}
	return err == nil, err, true
}

// edgeFailed is the edge's own action (index 0) among te's failed
// conditions, if its condition failed.
func edgeFailed(te *st.TxError) (st.TxFailure, bool) {
	for _, f := range te.Actions {
		if f.Index == 0 && f.Code == "ConditionalCheckFailed" {
			return f, true
		}
	}
	return st.TxFailure{}, false
}

// conflicted reports whether another transaction's conflict cancelled
// te, and nothing else did: a condition that failed beside the conflict
// (a cap reached, an edge there) is the answer, which a retry would only
// send again.
func conflicted(te *st.TxError) bool {
	c := false
	for _, f := range te.Actions {
		switch f.Code {
		case "TransactionConflict":
			c = true
		case "ConditionalCheckFailed":
			return false
		}
	}
	return c
}

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

// placed is where a write's actions are in its transaction: the ends'
// (by end index; -1 for none, one index twice for a self-loop).
type placed struct{ end [2]int }

// plan adds the actions of Link (link) or Unlink of e to tx: the edge's
// first, then its mirror's, then the ends' (the ends create marks are
// created rather than counted).
func (r *Relation[F, E, T]) plan(tx *st.Tx, e E, link bool, s *linkSpec, create [2]bool) placed {
	delta := -1
	if link {
		delta = 1
		// The edge must not exist, expired or not: an expired edge was
		// counted when it was linked, and linking it again must not count
		// it twice (Link replaces it: planReplace).
		bridge.Graph.PlanLink(tx, r.edge, r.mirrorEntity(), reflect.ValueOf(&e).Elem(), nil)
	} else {
		// An expired edge is absent: its Unlink deletes nothing.
		del := []st.DeleteOption{st.MustExist()}
		if live := bridge.Graph.Live(bridge.Graph.DBOf(tx), r.edge).(st.Cond); !live.IsZero() {
			del = append(del, st.If(live))
		}
		r.edge.TxDelete(tx, e, del...)
		if r.mirror != nil {
			r.mirror.TxDelete(tx, e)
		}
	}
	return r.planEnds(tx, e, delta, s, create)
}
