package singletable

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// GSI is a global secondary index of a table: its name, key attributes and
// projection. In single-table design indexes are overloaded: every entity
// writes its own templates into the same generic key attributes (GSI1PK,
// GSI1SK), and an entity that writes nothing there is absent from the index.
type GSI struct {
	name        string
	pk, sk      string
	projection  types.ProjectionType
	nonKeyAttrs []string
	rcu, wcu    int64
}

// Name is the index name.
func (ix *GSI) Name() string { return ix.name }

// PartitionKey is the name of the index's partition key attribute.
func (ix *GSI) PartitionKey() string { return ix.pk }

// SortKey is the name of the index's sort key attribute; empty if it has none.
func (ix *GSI) SortKey() string { return ix.sk }

// Projection is the index's projection type (ALL, KEYS_ONLY or INCLUDE).
func (ix *GSI) Projection() types.ProjectionType { return ix.projection }

// Included lists the non-key attributes an INCLUDE projection carries.
func (ix *GSI) Included() []string { return slices.Clone(ix.nonKeyAttrs) }

// IndexOption configures a global secondary index declared with WithGSI.
type IndexOption func(*GSI)

// IndexKeys names the index's key attributes; sk "" makes a partition-only
// index. The default is <name>PK and <name>SK.
func IndexKeys(pk, sk string) IndexOption {
	return func(ix *GSI) { ix.pk, ix.sk = pk, sk }
}

// KeysOnly projects only the table and index keys into the index.
func KeysOnly() IndexOption {
	return func(ix *GSI) { ix.projection, ix.nonKeyAttrs = types.ProjectionTypeKeysOnly, nil }
}

// Include projects the keys plus the named attributes (attribute names, as
// stored) into the index.
func Include(attrs ...string) IndexOption {
	return func(ix *GSI) {
		ix.projection, ix.nonKeyAttrs = types.ProjectionTypeInclude, slices.Clone(attrs)
	}
}

// IndexThroughput sets provisioned capacity for the index; it applies only
// to tables with provisioned billing.
func IndexThroughput(readUnits, writeUnits int64) IndexOption {
	return func(ix *GSI) { ix.rcu, ix.wcu = readUnits, writeUnits }
}

// IndexKey declares the key templates an entity writes into a table's GSI.
// Build it with Index and pass it to Define.
type IndexKey struct {
	index      string
	pk, sk     string
	when       any
	whenFields []string
}

// Index declares that an entity writes partition template pk and sort
// template sk into the keys of the GSI named index. sk must be "" for an
// index without a sort key. An item whose index key fields are empty is left
// out of the index (it is sparse).
func Index(index, pk, sk string) IndexKey {
	return IndexKey{index: index, pk: pk, sk: sk}
}

// When makes the index sparse by a condition: an item is in the index only
// while pred holds. pred is a func(*T) bool or func(T) bool for the entity's
// struct T, and fields names every Go field it reads, so that an Update that
// changes any of them can re-evaluate it (the update must then give values
// for all of them). When the condition stops holding, the item's index key
// attributes are removed and it leaves the index.
func (k IndexKey) When(pred any, fields ...string) IndexKey {
	k.when, k.whenFields = pred, slices.Clone(fields)
	return k
}

// entityIndex is an entity's resolved key templates for one GSI.
type entityIndex struct {
	index      *GSI
	pk, sk     *template
	when       func(reflect.Value) bool // nil: always; v is the struct value
	whenFields []string
}

// dependsOn reports whether the index key or its condition reads the field.
func (ei *entityIndex) dependsOn(goName string) bool {
	if ei.pk.uses(goName) || (ei.sk != nil && ei.sk.uses(goName)) {
		return true
	}
	return slices.Contains(ei.whenFields, goName)
}

// inputs lists every field the index key and its condition read.
func (ei *entityIndex) inputs() []string {
	out := ei.pk.fields()
	if ei.sk != nil {
		out = append(out, ei.sk.fields()...)
	}
	for _, f := range ei.whenFields {
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

// compilePredicate turns a When predicate into a function of the struct
// value, checking its type against the entity's struct T.
func compilePredicate[T any](pred any) (func(reflect.Value) bool, error) {
	switch p := pred.(type) {
	case nil:
		return nil, nil
	case func(*T) bool:
		return func(v reflect.Value) bool {
			if v.CanAddr() {
				return p(v.Addr().Interface().(*T))
			}
			c := v.Interface().(T)
			return p(&c)
		}, nil
	case func(T) bool:
		return func(v reflect.Value) bool { return p(v.Interface().(T)) }, nil
	default:
		var zero T
		return nil, fmt.Errorf("When needs a func(*%[1]T) bool or func(%[1]T) bool, got %[2]T", zero, pred)
	}
}
