package singletable

import (
	"context"
	"errors"
	"reflect"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/bridge"
	"github.com/singletable/singletable/internal/codec"
)

// What package graph reaches through internal/bridge: an entity's
// declaration for Relate's checks, and the planning of a Link's puts, which
// share one clock reading and conditions no public option expresses.
func init() {
	g := &bridge.Graph
	g.Model = graphModel
	g.Transact = func(ctx context.Context, db any, op string, build func(tx any), opts []any) error {
		txOpts := make([]TxOption, len(opts))
		for i, o := range opts {
			txOpts[i], _ = o.(TxOption)
		}
		s, err := collect(op, txOpts)
		if err != nil {
			return err
		}
		tx := &Tx{db: db.(*DB)}
		tx.actions = tx.small[:0]
		build(tx)
		if len(tx.errs) > 0 {
			return errors.Join(tx.errs...)
		}
		return tx.send(ctx, op, s)
	}
	g.Live = func(db, entity any) any {
		m := entity.(AnyEntity).model()
		if m.managed.expires == nil {
			return Cond{}
		}
		return Not(m.expiredBy(db.(*DB).now()))
	}
	g.DBOf = func(tx any) any { return tx.(*Tx).db }
	g.Wait = func(ctx context.Context, db any, retry int) error {
		return db.(*DB).sleep(ctx, db.(*DB).backoff(DefaultRetryPolicy, retry))
	}
	g.PlanLink = graphPlanLink
	g.Expired = func(db, entity any, item map[string]types.AttributeValue) bool {
		return db.(*DB).expiryFor(&noOptions, entity.(AnyEntity).model()).expired(item)
	}
	g.Upserts = func(opts any) bool {
		s, err := collect("", opts.([]UpdateOption))
		return err == nil && s.upsert
	}
	g.TxFail = func(tx any, err error) { tx.(*Tx).add(nil, err) }
	g.SameItem = func(entity any, a, b reflect.Value) bool {
		m := entity.(AnyEntity).model()
		ka, err1 := m.Key(a)
		kb, err2 := m.Key(b)
		return err1 == nil && err2 == nil && m.table.idOf(ka) == m.table.idOf(kb)
	}
}

func graphModel(entity any) *bridge.GraphModel {
	m := entity.(AnyEntity).model()
	if m == nil {
		return nil
	}
	mg := &m.managed
	g := &bridge.GraphModel{
		Name: m.Name, Fields: m.Fields, KeyFields: slices.Clip(m.KeyFieldList), PK: m.PK, Exists: m.table.exists,
		Versioned: mg.version != nil, Unique: len(mg.unique) > 0, Expires: mg.expires,
		Managed: func(name string) bool {
			return (mg.version != nil && mg.version.GoName == name) ||
				slices.ContainsFunc(mg.unique, func(u *codec.Field) bool { return u.GoName == name })
		},
	}
	for _, ko := range m.KeyOnly {
		g.KeyFields = append(g.KeyFields, ko.Field)
	}
	for _, ei := range m.Indexes {
		g.Indexes = append(g.Indexes, bridge.GraphIndex{Name: ei.Index.Name, PK: ei.PK, DependsOn: ei.DependsOn})
	}
	return g
}

// graphPlanLink adds a Link's puts to tx: see bridge.Graph.PlanLink.
func graphPlanLink(txa, edge, mirror any, v reflect.Value, old map[string]types.AttributeValue) {
	tx := txa.(*Tx)
	db, m := tx.db, edge.(AnyEntity).model()
	// One clock reading for both items, so that the mirror's timestamps
	// are the edge's: the edge's put stamps v, and the mirror stores it.
	now := m.managed.clock(db)
	s := &noOptions
	switch {
	case old != nil:
		// Replacing an expired edge: only if no other writer changed it.
		s = &settings{cond: Eq(m.managed.expires.GoName, old[m.table.schema.TTLAttr])}
	case m.managed.expires != nil:
		// The edge must not exist, expired or not: an expired edge was
		// counted when it was linked, and linking it again must not count
		// it twice (Link replaces it).
		s = &settings{cond: m.table.notExists}
	}
	tx.add(m.planPut(tx.actions, db, m.ops.create, v, writeCreate, now, s))
	if mirror != nil {
		mm := mirror.(AnyEntity).model()
		tx.add(mm.planPut(tx.actions, db, mm.ops.put, v, writeOne, now, &noOptions))
	}
}
