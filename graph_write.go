package singletable

import (
	"context"
	"errors"
	"reflect"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
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
// (a created timestamp) are set as Create sets them. An end with a count
// must exist: else the Link fails (ErrNotFound) and writes nothing. An
// edge that has expired (see Expires) but is still stored is replaced,
// with its mirror, and not counted again: it was counted when it was
// linked.
func (r *Relation[F, E, T]) Link(ctx context.Context, db *DB, e E) (linked bool, err error) {
	return r.write(ctx, db, e, true)
}

// Unlink deletes edge e (its key fields set), with its mirror and its
// counts in one transaction when the relation has them. unlinked is false,
// and nothing is written, when there is no such edge. An expired edge
// still stored is deleted and uncounted like a live one.
func (r *Relation[F, E, T]) Unlink(ctx context.Context, db *DB, e E) (unlinked bool, err error) {
	return r.write(ctx, db, e, false)
}

// TxLink adds Link of edge e to a transaction: the edge's Create, its
// mirror's Put and the counts' updates. Inside a transaction of the
// caller's, an edge that already exists cancels the whole transaction
// (ErrAlreadyExists), an expired one too (a transaction cannot tell
// whether to count it: Link replaces it).
func (r *Relation[F, E, T]) TxLink(tx *Tx, e E) { r.plan(tx, e, true) }

// TxUnlink adds Unlink of edge e to a transaction; an edge that does not
// exist cancels it (ErrNotFound).
func (r *Relation[F, E, T]) TxUnlink(tx *Tx, e E) { r.plan(tx, e, false) }

// Update changes the attributes of edge e (its key fields set), and of its
// mirror in the same transaction with InMirror, as Entity.Update does:
// the edge must exist unless Upsert is given.
func (r *Relation[F, E, T]) Update(ctx context.Context, db *DB, e E, ch Changes, opts ...UpdateOption) error {
	if r.mirror == nil {
		_, err := r.edge.Update(ctx, db, e, ch, opts...)
		return err
	}
	return db.Transact(ctx, func(tx *Tx) error {
		r.edge.TxUpdate(tx, e, ch, opts...)
		r.mirror.TxUpdate(tx, e, ch, opts...)
		return nil
	})
}

// write sends Link (link) or Unlink of e.
func (r *Relation[F, E, T]) write(ctx context.Context, db *DB, e E, link bool) (bool, error) {
	// What the edge's own action fails with when there is nothing to do.
	noop := ErrNotFound
	if link {
		noop = ErrAlreadyExists
	}
	if r.mirror == nil && r.countOut == nil && r.countIn == nil {
		var err error
		if link {
			err = r.edge.Create(ctx, db, e)
		} else {
			err = r.edge.Delete(ctx, db, e, MustExist())
		}
		if errors.Is(err, noop) {
			return false, nil
		}
		return err == nil, err
	}
	op := r.name + ".Unlink"
	if link {
		op = r.name + ".Link"
	}
	var expired map[string]types.AttributeValue // the expired edge a Link replaces
	for attempt := 0; ; attempt++ {
		tx := &Tx{db: db}
		tx.actions = tx.small[:0]
		if expired == nil {
			r.plan(tx, e, link)
		} else {
			r.planReplace(tx, e, expired)
		}
		if len(tx.errs) > 0 {
			return false, errors.Join(tx.errs...)
		}
		err := tx.send(ctx, op, &noOptions)
		var te *TxError
		// The edge is action 0: when its condition alone failed, it was
		// there already (Link: the Create's only condition) or not at all
		// (Unlink, unless a version it was given did not match), and
		// nothing was to be done; unless, for a Link, the edge there has
		// expired: it is replaced, and was counted already.
		if errors.As(err, &te) && len(te.Actions) == 1 {
			f := te.Actions[0]
			if f.Index == 0 && f.Code == "ConditionalCheckFailed" && (link || errors.Is(f.Err, noop)) {
				if link && attempt < maxLinkAttempts && db.expiryFor(&noOptions, r.edge.m).expired(f.Item) {
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
func (r *Relation[F, E, T]) planReplace(tx *Tx, e E, old map[string]types.AttributeValue) {
	db, m := tx.db, r.edge.m
	v := reflect.ValueOf(&e).Elem()
	now := m.managed.clock(db)
	s := &settings{cond: Eq(m.managed.expires.GoName, old[m.table.ttlAttr])}
	tx.add(m.planPut(tx.actions, db, m.ops.create, v, writeCreate, now, s))
	if r.mirror != nil {
		tx.add(r.mirror.m.planPut(tx.actions, db, r.mirror.m.ops.put, v, writeOne, now, &noOptions))
	}
}

// plan adds the actions of Link (link) or Unlink of e to tx: the edge's
// first, then its mirror's, then the counts'.
func (r *Relation[F, E, T]) plan(tx *Tx, e E, link bool) {
	db := tx.db
	v := reflect.ValueOf(&e).Elem()
	delta := -1
	if link {
		delta = 1
		// One clock reading for both items, so that the mirror's timestamps
		// are the edge's: the edge's put stamps v, and the mirror stores it.
		now := r.edge.m.managed.clock(db)
		// The edge must not exist, expired or not: an expired edge was
		// counted when it was linked, and linking it again must not count
		// it twice (Link replaces it: planReplace).
		s := &noOptions
		if r.edge.m.managed.expires != nil {
			s = &settings{cond: r.edge.m.table.notExists}
		}
		tx.add(r.edge.m.planPut(tx.actions, db, r.edge.m.ops.create, v, writeCreate, now, s))
		if r.mirror != nil {
			tx.add(r.mirror.m.planPut(tx.actions, db, r.mirror.m.ops.put, v, writeOne, now, &noOptions))
		}
	} else {
		tx.add(r.edge.m.planDelete(tx.actions, db, r.edge.m.ops.delete, v, v, writeOne, &settings{mustExist: true}))
		if r.mirror != nil {
			tx.add(r.mirror.m.planDelete(tx.actions, db, r.mirror.m.ops.delete, v, v, writeOne, &noOptions))
		}
	}
	r.planCounts(tx, e, delta)
}

// planCounts adds the count updates of an edge to tx: delta to the from
// end's CountOut and the to end's CountIn; a self-loop (both ends one item)
// is one update, as a transaction allows one action per item.
func (r *Relation[F, E, T]) planCounts(tx *Tx, e E, delta int) {
	f, t := r.From(e), r.To(e)
	if r.countOut != nil && r.countIn != nil && r.sameItem(f, t) {
		ch := Increment(r.countOut.GoName, delta).Increment(r.countIn.GoName, delta)
		if r.countOut.GoName == r.countIn.GoName {
			ch = Increment(r.countOut.GoName, 2*delta)
		}
		r.from.TxUpdate(tx, f, ch)
		return
	}
	if r.countOut != nil {
		r.from.TxUpdate(tx, f, Increment(r.countOut.GoName, delta))
	}
	if r.countIn != nil {
		r.to.TxUpdate(tx, t, Increment(r.countIn.GoName, delta))
	}
}

// sameItem reports whether ends f and t are one item (a self-loop).
func (r *Relation[F, E, T]) sameItem(f F, t T) bool {
	if r.from.m != r.to.m {
		return false
	}
	kf, err1 := r.from.m.key(reflect.ValueOf(&f).Elem())
	kt, err2 := r.to.m.key(reflect.ValueOf(&t).Elem())
	return err1 == nil && err2 == nil && r.from.m.table.idOf(kf) == r.from.m.table.idOf(kt)
}
