package write

// Compiling an update, phase 1: what the shape of its changes decides
// (which field each names, that the operators apply there, what each index
// key needs) is worked out once per shape (Compile) and cached (Cache); the
// values are bound to it on every call (bind.go).

import (
	"encoding/binary"
	"errors"
	"slices"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/codec"
	"github.com/singletable/singletable/internal/expr"
	"github.com/singletable/singletable/internal/model"
)

// Shape is what Compile works out from the shape of an update alone,
// checked once per shape and then shared by the updates of that shape:
// which field each change names, that the changes are allowed on them, and
// what each index needs. What depends on the values (an omitempty zero, an
// empty key field, a When condition, encoding errors) is never part of it:
// binding decides that on every call.
type Shape struct {
	// Fields are the top-level fields of the changes, in order; Nested
	// tells whether a change is below its field ("Address.City").
	Fields []*codec.Field
	Nested []bool
	// Indexes are the indexes whose keys the update recomputes or removes.
	Indexes []IndexShape
}

// IndexShape is what an update does to one index, as far as its shape
// tells.
type IndexShape struct {
	EI *model.EntityIndex
	// Affected: a change is to a field the index key or its When reads
	// (else the update is an upsert giving a new item its keys).
	Affected bool
	// Missing are the fields the index reads that the update neither
	// gives nor knows, sorted; shared, never modified.
	Missing []string
	// Sources tell, for an index without a When condition on an entity
	// without shards (nil for others), where each placeholder of its key
	// (the partition key's, then the sort key's) takes its value from in
	// an update that read nothing: what the next value would hold, without
	// building it. NPK is how many are the partition key's.
	Sources []PlaceholderSource
	NPK     int
}

// PlaceholderSource is where a placeholder of an index key takes its
// value: change From (its index in the changes), the key (FromKey), or
// nowhere (FromZero: the field's zero value).
type PlaceholderSource struct {
	Field *codec.Field
	From  int
}

// Where a placeholder takes its value other than from a change.
const (
	FromKey  = -1
	FromZero = -2
)

// Guards is what compiling an update needs of the entity's managed fields
// (the root's managed features implement it).
type Guards interface {
	// IsVersion reports whether goName is the version field.
	IsVersion(goName string) bool
	// IsUnique reports whether goName is a unique field or a unique
	// field's scope, and GuardRole says which, for messages.
	IsUnique(goName string) bool
	GuardRole(goName string) string
}

// placeholderSources works out IndexShape.Sources for index ei.
func placeholderSources(m *model.Entity, ei *model.EntityIndex, changes []Change, sh *Shape) (out []PlaceholderSource, npk int) {
	if ei.When != nil || m.Shard != nil {
		return nil, 0
	}
	phs := ei.PK.Placeholders()
	npk = len(phs)
	if ei.SK != nil {
		phs = append(phs, ei.SK.Placeholders()...)
	}
	out = make([]PlaceholderSource, len(phs))
	for i, ph := range phs {
		out[i] = PlaceholderSource{ph.Field, FromZero}
		if m.KeyFields[ph.Field.GoName] && Settable(m, ph.Field) {
			out[i].From = FromKey
		}
		for j, c := range changes {
			f := sh.Fields[j]
			if _, raw := c.Value.(types.AttributeValue); sh.Nested[j] || raw || f.GoName != ph.Field.GoName ||
				(c.Op != OpSet && c.Op != OpRemove) || !Settable(m, f) {
				continue
			}
			out[i].From = j
		}
	}
	return out, npk
}

// ShapeKey is the key of an update's shape in the cache: whether it is an
// upsert and, per change, its operator, whether its value is nil or a raw
// AttributeValue, and its field path. Nothing else Compile checks once per
// shape depends on the call (a read changes what is known: such shapes are
// not cached).
func ShapeKey(buf []byte, upsert bool, changes []Change) []byte {
	var flags byte
	if upsert {
		flags = 1
	}
	buf = append(buf, flags)
	for _, c := range changes {
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

// Compile checks the changes of an update of op against entity m (g its
// managed fields) and works out what each index needs (see Shape). known
// tells whether the update knows a field's value after it; found is set
// when the update read the item first and found it.
func Compile(m *model.Entity, g Guards, op string, changes []Change, upsert bool, known func(string) bool, found bool) (*Shape, error) {
	fail := func(format string, args ...any) error { return Inputf(op, format, args...) }
	sh := &Shape{Fields: make([]*codec.Field, len(changes)), Nested: make([]bool, len(changes))}
	for i, c := range changes {
		o := &Operators[c.Op]
		top := TopField(c.Field)
		nested := top != c.Field
		f, ok := m.Fields.ByGoName(top)
		if !ok {
			if top == "" {
				return nil, fail("%s(%q): empty field name", o.Name, c.Field)
			}
			err := UnknownField(m, top)
			if why := KeyOnlyRefusal(m, top); why != "" {
				err = errors.New(why)
			}
			return nil, fail("%s(%q): no such field: %v", o.Name, c.Field, err)
		}
		if m.KeyFields[top] {
			return nil, fail("%s(%q): the field is part of the primary key (%s); delete the item and create it under the new key",
				o.Name, c.Field, m.PrimaryTemplates())
		}
		if m.ShardDerived(top) {
			return nil, fail("%s(%q): the shard field is derived from %s (Shards(...).By)", o.Name, c.Field, ShardByNames(m))
		}
		if g.IsVersion(top) {
			return nil, fail("%s(%q): the version field is managed by the library: every write stores it plus one", o.Name, c.Field)
		}
		for _, prev := range changes[:i] {
			if p := prev.Field; Overlaps(p, c.Field) {
				if p == c.Field {
					return nil, fail("field %s is changed twice in one update", c.Field)
				}
				return nil, fail("changes to %s and %s overlap; DynamoDB takes one change per document path", p, c.Field)
			}
		}
		if nested && o.TopLevel {
			return nil, fail("%s(%q): DynamoDB applies %s to top-level attributes only", o.Name, c.Field, o.Name)
		}
		sh.Fields[i], sh.Nested[i] = f, nested
	}
	for _, c := range changes {
		_, raw := c.Value.(types.AttributeValue)
		if top := TopField(c.Field); (c.Unknown() || raw) && g.IsUnique(top) {
			return nil, fail("%s(%q): field %s is %s, and its new value must be known to keep its guard item: Set the whole field to a Go value",
				Operators[c.Op].Name, c.Field, top, g.GuardRole(top))
		}
	}
	for _, ei := range m.Indexes {
		if !ei.Writes() {
			continue // its keys are the table's or fields': nothing to recompute
		}
		affected := false
		for _, c := range changes {
			top := TopField(c.Field)
			if !ei.DependsOn(top) {
				continue
			}
			if c.Unknown() {
				return nil, fail("%s(%q): index %s's key or condition reads %s, and this change leaves its new value to DynamoDB: use Set with the whole value",
					Operators[c.Op].Name, c.Field, ei.Index.Name, top)
			}
			affected = true
		}
		if !affected && !upsert {
			continue
		}
		if !affected && found {
			continue // an existing item keeps the keys its stored fields give
		}
		var missing []string
		for _, f := range ei.Inputs {
			if !known(f) {
				missing = append(missing, f)
			}
		}
		slices.Sort(missing)
		is := IndexShape{EI: ei, Affected: affected, Missing: missing}
		is.Sources, is.NPK = placeholderSources(m, ei, changes, sh)
		sh.Indexes = append(sh.Indexes, is)
	}
	return sh, nil
}

// ShardByNames names the fields m's shard is derived from, for messages.
func ShardByNames(m *model.Entity) string {
	var names []string
	for _, ph := range m.Shard.By {
		names = append(names, ph.Field.GoName)
	}
	return strings.Join(names, ", ")
}

// Cache is what an entity's updates share from one call to the next, so
// that an update of a shape seen before (the same changes to the same
// fields, the same options and condition) allocates only what depends on
// its values:
//
//   - Shared interns the update and condition expressions, keyed by their
//     whole content: a request that takes one is byte for byte the
//     request it would have built, whatever its values did to its shape
//     (an omitempty zero that becomes a REMOVE, a sparse index left, a
//     When condition), so no value-dependent shape can be served a wrong
//     plan. It is bounded (expr.MaxShared) and lock-free to read. Maps are
//     never shared: each request's are its own, for its Client to modify.
//   - Shapes holds what Compile works out from an update's shape alone
//     (see Shape), keyed by ShapeKey; bounded like Shared.
//   - Skeletons holds the requests of updates given no options, keyed
//     by SkeletonKey (see Skeleton), and NoSkeleton the shapes (by
//     ShapeKey) whose request a skeleton did not reproduce, which the
//     general planner builds every time; bounded like Shared.
//   - builders recycles the expression builders of updates (a builder
//     escapes to the heap, conditions rendering through interfaces); what
//     a request keeps of one (its maps) is handed over, not recycled.
//
// The zero value is ready to use; it is safe for concurrent use.
type Cache struct {
	Shared expr.Shared
	Shapes expr.Table[*Shape]
	// Skeletons and NoSkeleton: see above.
	Skeletons  expr.Table[*Skeleton]
	NoSkeleton expr.Table[bool]
	builders   sync.Pool // of *expr.Builder sharing Shared, reset when put back
}

// Builder returns an empty expression builder sharing the cache's
// expressions, for ReleaseBuilder once the plan is made.
func (c *Cache) Builder() *expr.Builder {
	if b, ok := c.builders.Get().(*expr.Builder); ok {
		return b
	}
	b := new(expr.Builder)
	b.ShareNames(&c.Shared)
	return b
}

// ReleaseBuilder recycles b, whose request holds what it needs of it.
func (c *Cache) ReleaseBuilder(b *expr.Builder) {
	b.Reset()
	c.builders.Put(b)
}
