package singletable

import (
	"reflect"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/bridge"
	"github.com/singletable/singletable/internal/model"
)

// Packages capacity and observe's way in (see internal/bridge/capacity.go):
// the option that collects a call's consumed capacity, the DB option that
// sets an observer, the meter (meter.go) for requests those packages send
// themselves, and the model's view of items and reads for estimates.

func init() {
	c := &bridge.Capacity
	c.Option = func(sink bridge.Sink) any { return capacityOpt{sink: sink} }
	c.Observe = func(o *bridge.Observer) any { return DBOption(func(db *DB) { db.obs = joinObservers(db.obs, o) }) }
	c.Client = func(db any, op, entity, name, index string, sink bridge.Sink) any {
		d := db.(*DB)
		return d.via(d.meter(&settings{sink: sink}, op, entity, name, index), 0)
	}
	c.Model = capacityModel
	c.Pattern = func(p any) *bridge.CapacityRead {
		d, ok := p.(interface{ capacityDecl() *readDecl })
		if !ok || d.capacityDecl() == nil {
			return nil
		}
		return capacityRead(d.capacityDecl())
	}
	c.Reads = func(table any) []*bridge.CapacityRead {
		var out []*bridge.CapacityRead
		for _, d := range table.(*Table).reads.all() {
			out = append(out, capacityRead(d))
		}
		return out
	}
	c.Entities = func(table any) []any {
		t := table.(*Table)
		t.mu.RLock()
		defer t.mu.RUnlock()
		out := make([]any, len(t.entityOrder))
		for i, m := range t.entityOrder {
			out[i] = anyEntity{m}
		}
		return out
	}
}

// joinObservers is the observer of a DB given both a and b (a nil one is
// none); a fresh one, so that the DBOptions stay reusable.
func joinObservers(a, b *bridge.Observer) *bridge.Observer {
	if a == nil {
		return b
	}
	o := &bridge.Observer{Capacity: a.Capacity || b.Capacity, Observe: a.Observe, Sink: a.Sink}
	if b.Observe != nil {
		if o.Observe == nil {
			o.Observe = b.Observe
		} else {
			fa, fb := a.Observe, b.Observe
			o.Observe = func(r bridge.Request) { fa(r); fb(r) }
		}
	}
	if b.Sink != nil {
		if o.Sink == nil {
			o.Sink = b.Sink
		} else {
			o.Sink = bothSinks{a.Sink, b.Sink}
		}
	}
	return o
}

type bothSinks struct{ a, b bridge.Sink }

func (s bothSinks) Add(write bool, cc *types.ConsumedCapacity, estimated bool) {
	s.a.Add(write, cc, estimated)
	s.b.Add(write, cc, estimated)
}

// capacityOpt is package capacity's option: it fits every operation, and
// package graph's Link and Unlink (the embedded marks, see
// bridge.GraphLinkOption).
type capacityOpt struct {
	bridge.GraphLink
	bridge.GraphUnlink
	sink bridge.Sink
}

func (o capacityOpt) apply(s *settings) { s.sink = o.sink }

func (capacityOpt) getOption()            {}
func (capacityOpt) queryOption()          {}
func (capacityOpt) patternGetOption()     {}
func (capacityOpt) entityQueryOption()    {}
func (capacityOpt) partitionQueryOption() {}
func (capacityOpt) collectionOption()     {}
func (capacityOpt) putOption()            {}
func (capacityOpt) deleteOption()         {}
func (capacityOpt) updateOption()         {}
func (capacityOpt) txOption()             {}
func (capacityOpt) batchGetOption()       {}
func (capacityOpt) batchWriteOption()     {}
func (capacityOpt) scanOption()           {}

// anyEntity is an entity model as bridge.Capacity.Entities hands it out:
// what capacityModel takes.
type anyEntity struct{ m *entityModel }

func (p *Pattern[T]) capacityDecl() *readDecl {
	if p == nil {
		return nil
	}
	return p.d
}
func (c *Collection) capacityDecl() *readDecl {
	if c == nil {
		return nil
	}
	return c.d
}

func capacityModel(entity any) *bridge.CapacityModel {
	var m *entityModel
	switch e := entity.(type) {
	case anyEntity:
		m = e.m
	case AnyEntity:
		m = e.model()
	}
	if m == nil {
		return nil
	}
	t := m.table
	cm := &bridge.CapacityModel{Entity: m.Name, Table: t.schema.Name, Unique: len(m.managed.unique),
		Item: func(v any) (map[string]types.AttributeValue, error) {
			rv := reflect.ValueOf(v)
			if rv.Kind() == reflect.Pointer {
				rv = rv.Elem()
			}
			if rv.Type() != m.Type {
				return nil, &InputError{Op: m.Name + ".Estimate", Reason: "the value is a " + rv.Type().String() + ", not a " + m.Type.String()}
			}
			cp := reflect.New(m.Type).Elem()
			cp.Set(rv)
			item, _, err := m.item(cp)
			return item, err
		}}
	for _, ei := range m.Indexes {
		cm.Indexes = append(cm.Indexes, capacityIndex(t, ei.Index))
	}
	for i, f := range m.managed.unique {
		cm.UniqueAttrs = append(cm.UniqueAttrs, f.Attr)
		scope := ""
		if s := m.managed.scopes[i]; s != nil {
			scope = s.Attr
		}
		cm.UniqueScopes = append(cm.UniqueScopes, scope)
	}
	if cm.Unique > 0 {
		// The attributes guardItem writes.
		guard := []string{t.schema.PK, t.schema.TypeAttr, guardOwnerPK}
		if t.schema.SK != "" {
			guard = append(guard, t.schema.SK, guardOwnerSK)
		}
		for _, ix := range t.schema.Indexes {
			if !slices.ContainsFunc(ix.KeyAttrs(), func(a string) bool { return !contains(guard, a) }) {
				cm.GuardIndexes = append(cm.GuardIndexes, ix.Name)
			}
		}
	}
	return cm
}

// capacityIndex is ix as estimates see it. Its key attributes are every
// one of a multi-attribute key's (KeyAttrs), not only the first of each
// part: an item lacking any is not in the index, and a change of any
// moves its entry.
func capacityIndex(t *Table, ix *model.Index) bridge.CapacityIndex {
	ixKeys := ix.KeyAttrs()
	keys := []string{t.schema.PK}
	for _, a := range append([]string{t.schema.SK}, ixKeys...) {
		if a != "" && !contains(keys, a) {
			keys = append(keys, a)
		}
	}
	return bridge.CapacityIndex{Name: ix.Name, Projection: string(ix.Projection), Include: ix.NonKeyAttrs, Keys: keys,
		In: func(item map[string]types.AttributeValue) bool {
			for _, a := range ixKeys {
				if _, ok := item[a]; !ok {
					return false
				}
			}
			return true
		}}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func capacityRead(d *readDecl) *bridge.CapacityRead {
	r := &bridge.CapacityRead{Name: d.name, Operation: d.operation(), Projection: string(types.ProjectionTypeAll)}
	if d.collection {
		r.Name += " (collection)"
	}
	for _, m := range d.entities {
		r.Entities = append(r.Entities, m.Name)
	}
	if d.index != nil {
		ci := capacityIndex(d.table, &d.index.index)
		r.Index, r.Projection, r.Include, r.Keys = ci.Name, ci.Projection, ci.Include, ci.Keys
	}
	return r
}
