package singletable

// Compiling an update: what the shape of its changes decides (which field
// each names, that the operators apply there, what each index key needs)
// is worked out once per shape and cached (changeShape, updateCache); the
// values are bound to it on every call (update_bind.go).

import (
	"encoding/binary"
	"slices"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/codec"
	"github.com/singletable/singletable/internal/expr"
	"github.com/singletable/singletable/internal/model"
	writes "github.com/singletable/singletable/internal/write"
)

// changeShape is what planChanges works out from the shape of an update
// alone, checked once per shape and then shared by the updates of that
// shape (see entityModel.shapeOf): which field each change names, that
// the changes are allowed on them, and what each index needs. What depends
// on the values (an omitempty zero, an empty key field, a When condition,
// encoding errors) is never part of it: planChanges decides that on every
// call.
type changeShape struct {
	// fields are the top-level fields of the changes, in order; nested
	// tells whether a change is below its field ("Address.City").
	fields []*codec.Field
	nested []bool
	// indexes are the indexes whose keys the update recomputes or removes.
	indexes []indexShape
}

// indexShape is what an update does to one index, as far as its shape
// tells.
type indexShape struct {
	ei *model.EntityIndex
	// affected: a change is to a field the index key or its When reads
	// (else the update is an upsert giving a new item its keys).
	affected bool
	// missing are the fields the index reads that the update neither
	// gives nor knows, sorted; shared, never modified.
	missing []string
	// sources tell, for an index without a When condition on an entity
	// without shards (nil for others), where each placeholder of its key
	// (the partition key's, then the sort key's) takes its value from in
	// an update that read nothing: what nextValue would hold, without
	// building it. npk is how many are the partition key's.
	sources []placeholderSource
	npk     int
}

// placeholderSource is where a placeholder of an index key takes its
// value: change from (its index in the changes), the key (fromKey), or
// nowhere (fromZero: the field's zero value).
type placeholderSource struct {
	field *codec.Field
	from  int
}

const (
	fromKey  = -1
	fromZero = -2
)

// placeholderSources works out indexShape.sources for index ei.
func (m *entityModel) placeholderSources(ei *model.EntityIndex, s *settings, sh *changeShape) (out []placeholderSource, npk int) {
	if ei.When != nil || m.Shard != nil {
		return nil, 0
	}
	phs := ei.PK.Placeholders()
	npk = len(phs)
	if ei.SK != nil {
		phs = append(phs, ei.SK.Placeholders()...)
	}
	out = make([]placeholderSource, len(phs))
	for i, ph := range phs {
		out[i] = placeholderSource{ph.Field, fromZero}
		if m.KeyFields[ph.Field.GoName] && m.settable(ph.Field) {
			out[i].from = fromKey
		}
		for j, c := range s.changes {
			f := sh.fields[j]
			if _, raw := c.Value.(types.AttributeValue); sh.nested[j] || raw || f.GoName != ph.Field.GoName ||
				(c.Op != changeSet && c.Op != changeRemove) || !m.settable(f) {
				continue
			}
			out[i].from = j
		}
	}
	return out, npk
}

// shapeKey is the key of an update's shape in the cache: whether it is an
// upsert and, per change, its operator, whether its value is nil or a raw
// AttributeValue, and its field path. Nothing else planChanges checks once
// per shape depends on the call (a read changes what is known: such plans
// are not cached).
func shapeKey(buf []byte, s *settings) []byte {
	var flags byte
	if s.upsert {
		flags = 1
	}
	buf = append(buf, flags)
	for _, c := range s.changes {
		k := byte(c.Op) << 2
		if _, raw := c.Value.(types.AttributeValue); raw {
			k |= 1
		}
		if c.Value == nil {
			k |= 2
		}
		buf = append(buf, k)
		buf = binary.AppendUvarint(buf, uint64(len(c.Field)))
		buf = append(buf, c.Field...)
	}
	return buf
}

// shapeOf returns the shape of the update plan is for: from the cache for
// an update that read nothing, else worked out (and then cached) by
// resolveShape. An update whose shape is wrong (an unknown field, a key
// field changed, ...) is an error, every time.
func (m *entityModel) shapeOf(op string, s *settings, plan *updatePlan) (*changeShape, error) {
	if plan.read != nil {
		return m.resolveShape(op, s, plan)
	}
	var buf [256]byte
	key := shapeKey(buf[:0], s)
	if sh, ok := m.updates.shapes.Load(key); ok {
		return sh, nil
	}
	sh, err := m.resolveShape(op, s, plan)
	if err != nil {
		return nil, err
	}
	m.updates.shapes.Store(string(key), sh)
	return sh, nil
}

// resolveShape checks the changes against the model and works out what
// each index needs (see changeShape).
func (m *entityModel) resolveShape(op string, s *settings, plan *updatePlan) (*changeShape, error) {
	fail := func(format string, args ...any) error { return inputError(op, format, args...) }
	sh := &changeShape{fields: make([]*codec.Field, len(s.changes)), nested: make([]bool, len(s.changes))}
	for i, c := range s.changes {
		o := &writes.Operators[c.Op]
		top := topField(c.Field)
		nested := top != c.Field
		f, ok := m.Fields.ByGoName(top)
		if !ok {
			if top == "" {
				return nil, fail("%s(%q): empty field name", o.Name, c.Field)
			}
			return nil, fail("%s(%q): no such field: %v", o.Name, c.Field, resolver{m: m}.unknownField(top))
		}
		if m.KeyFields[top] {
			return nil, fail("%s(%q): the field is part of the primary key (%s); delete the item and create it under the new key",
				o.Name, c.Field, m.PrimaryTemplates())
		}
		if m.ShardDerived(top) {
			return nil, fail("%s(%q): the shard field is derived from %s (Shards(...).By)", o.Name, c.Field, m.shardByNames())
		}
		if m.managed.version != nil && top == m.managed.version.GoName {
			return nil, fail("%s(%q): the version field is managed by the library: every write stores it plus one", o.Name, c.Field)
		}
		for _, prev := range s.changes[:i] {
			if p := prev.Field; writes.Overlaps(p, c.Field) {
				if p == c.Field {
					return nil, fail("field %s is changed twice in one update", c.Field)
				}
				return nil, fail("changes to %s and %s overlap; DynamoDB takes one change per document path", p, c.Field)
			}
		}
		if nested && o.TopLevel {
			return nil, fail("%s(%q): DynamoDB applies %s to top-level attributes only", o.Name, c.Field, o.Name)
		}
		sh.fields[i], sh.nested[i] = f, nested
	}
	for _, c := range s.changes {
		_, raw := c.Value.(types.AttributeValue)
		if top := topField(c.Field); (c.Unknown() || raw) && m.managed.isUnique(top) {
			return nil, fail("%s(%q): field %s is %s, and its new value must be known to keep its guard item: Set the whole field to a Go value",
				writes.Operators[c.Op].Name, c.Field, top, m.managed.guardRole(top))
		}
	}
	for _, ei := range m.Indexes {
		if !ei.Writes() {
			continue // its keys are the table's or fields': nothing to recompute
		}
		affected := false
		for _, c := range s.changes {
			top := topField(c.Field)
			if !ei.DependsOn(top) {
				continue
			}
			if c.Unknown() {
				return nil, fail("%s(%q): index %s's key or condition reads %s, and this change leaves its new value to DynamoDB: use Set with the whole value",
					writes.Operators[c.Op].Name, c.Field, ei.Index.Name, top)
			}
			affected = true
		}
		if !affected && !s.upsert {
			continue
		}
		if !affected && plan.read != nil && plan.read.found {
			continue // an existing item keeps the keys its stored fields give
		}
		var missing []string
		for _, f := range ei.Inputs {
			if !plan.known(f) {
				missing = append(missing, f)
			}
		}
		slices.Sort(missing)
		is := indexShape{ei: ei, affected: affected, missing: missing}
		is.sources, is.npk = m.placeholderSources(ei, s, sh)
		sh.indexes = append(sh.indexes, is)
	}
	return sh, nil
}

// updateCache is what an entity's updates share from one call to the next,
// so that an update of a shape seen before (the same changes to the same
// fields, the same options and condition) allocates only what depends on
// its values:
//
//   - shared interns the update and condition expressions, keyed by their
//     whole content: a request that takes one is byte for byte the
//     request it would have built, whatever its values did to its shape
//     (an omitempty zero that becomes a REMOVE, a sparse index left, a
//     When condition), so no value-dependent shape can be served a wrong
//     plan. It is bounded (expr.MaxShared) and lock-free to read. Maps are
//     never shared: each request's are its own, for its Client to modify.
//   - shapes holds what planChanges works out from an update's shape
//     alone (see changeShape), keyed by that shape; bounded like shared.
//   - builders recycles the expression builders of updates (a builder
//     escapes to the heap, conditions rendering through interfaces); what
//     a request keeps of one (its maps) is handed over, not recycled.
//
// The zero value is ready to use; it is safe for concurrent use.
type updateCache struct {
	shared   expr.Shared
	shapes   expr.Table[*changeShape]
	builders sync.Pool // of *expr.Builder sharing shared, reset when put back
}

// builder returns an empty expression builder sharing the cache's
// expressions, for releaseBuilder once the plan is made.
func (c *updateCache) builder() *expr.Builder {
	if b, ok := c.builders.Get().(*expr.Builder); ok {
		return b
	}
	b := new(expr.Builder)
	b.ShareNames(&c.shared)
	return b
}

// releaseBuilder recycles b, whose request holds what it needs of it.
func (c *updateCache) releaseBuilder(b *expr.Builder) {
	b.Reset()
	c.builders.Put(b)
}
