package singletable

import (
	"encoding/base64"
	"errors"
	"fmt"
	"reflect"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/keys"
	"github.com/singletable/singletable/internal/model"
)

// GSI is a global secondary index of a table: its name, key attributes and
// projection. In single-table design indexes are overloaded: every entity
// writes its own templates into the same generic key attributes (GSI1PK,
// GSI1SK), and an entity that writes nothing there is absent from the index.
type GSI struct {
	// index is the index as the entity model needs it (internal/model);
	// the table's schema lists a pointer to it.
	index    model.Index
	rcu, wcu int64
}

// Name is the index name.
func (ix *GSI) Name() string { return ix.index.Name }

// PartitionKey is the name of the index's partition key attribute; of a
// multi-attribute key, its attributes in order, separated by commas, as
// IndexKeys takes them.
func (ix *GSI) PartitionKey() string {
	if ix.index.Native() {
		return nativeKeyText(ix.index.PKAttrs)
	}
	return ix.index.PK
}

// SortKey is the name of the index's sort key attribute, empty if it has
// none; of a multi-attribute key, its attributes as PartitionKey gives them.
func (ix *GSI) SortKey() string {
	if ix.index.Native() {
		return nativeKeyText(ix.index.SKAttrs)
	}
	return ix.index.SK
}

// Projection is the index's projection type (ALL, KEYS_ONLY or INCLUDE).
func (ix *GSI) Projection() types.ProjectionType { return ix.index.Projection }

// Included lists the non-key attributes an INCLUDE projection carries.
func (ix *GSI) Included() []string { return slices.Clone(ix.index.NonKeyAttrs) }

// IndexOption configures a global secondary index declared with WithGSI:
// IndexKeys, KeysOnly, Include, IndexThroughput. A nil one is a
// *ModelError from NewTable.
type IndexOption func(*GSI)

// IndexKeys names the index's key attributes; sk "" makes a partition-only
// index. The default is <name>PK and <name>SK.
//
// Several attributes separated by commas make a GSI's multi-attribute key
// (IndexKeys("TenantID,Zone", "Status,Priority"): up to four each, in
// order): each is an entity field's own attribute, a string, number or
// binary, so nothing is written for the index and an item lacking any of
// them is not in it. A pattern over it (On) takes every partition
// attribute's value from its params, and its sort condition applies to the
// sort attributes the params give, left to right: equality on each, the
// condition on the last (docs/access-patterns.md).
func IndexKeys(pk, sk string) IndexOption {
	return func(ix *GSI) { ix.index.PK, ix.index.SK = pk, sk }
}

// KeysOnly projects only the table and index keys into the index.
func KeysOnly() IndexOption {
	return func(ix *GSI) { ix.index.Projection, ix.index.NonKeyAttrs = types.ProjectionTypeKeysOnly, nil }
}

// Include projects the keys plus the named attributes (attribute names, as
// stored) into the index.
func Include(attrs ...string) IndexOption {
	return func(ix *GSI) {
		ix.index.Projection, ix.index.NonKeyAttrs = types.ProjectionTypeInclude, slices.Clone(attrs)
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
	index  string
	pk, sk string
	when   Cond
}

// Index declares that an entity writes partition template pk and sort
// template sk into the keys of the GSI named index. sk must be "" for an
// index without a sort key. An item whose index key fields are empty is left
// out of the index (it is sparse).
func Index(index, pk, sk string) IndexKey {
	return IndexKey{index: index, pk: pk, sk: sk}
}

// When makes the index sparse by a condition: an item is in the index only
// while c holds. c is built with the library's condition builders over
// top-level fields: Eq, Ne, Lt, Le, Gt, Ge, Between, In, BeginsWith, Exists,
// NotExists, And, Or and Not (When(st.Exists("Email")),
// When(st.Eq("Status", "PENDING"))). It holds or not as DynamoDB would
// evaluate it on the item Put stores: a field is absent when Put leaves it
// out (a nil pointer, an omitempty zero). The fields it reads follow from
// it, so an Update that changes any of them re-evaluates it (reading what
// it needs, see Update). Define refuses other operators (Contains, IsType,
// Size, FieldRef values), unknown fields, paths below a field and values of
// the wrong type with a *ModelError. When the condition stops holding, the
// item's index key attributes are removed and it leaves the index.
func (k IndexKey) When(c Cond) IndexKey {
	k.when = c
	return k
}

// renderPartition renders the partition value a read of mem sends, from
// params v: the rendered key, or on an index keyed on a field's own
// attribute the field's value as stored (base64 for binary, so that it
// travels in a string; see partitionValue).
func (mem *readMember) renderPartition(attr string, v reflect.Value) (string, error) {
	if mem.ei == nil || !mem.ei.RawPK() || mem.partTpl.Constant() {
		s, err := mem.m.RenderTableKey(mem.partTpl, attr, maxPartitionKeyBytes, v)
		if err == nil || mem.ei == nil {
			return s, err
		}
		var missing keys.MissingError
		if _, rerr := mem.partTpl.Render(v); errors.As(rerr, &missing) {
			// An index key may be absent on an item (it is then not in
			// the index), but a read of the index needs its value: not
			// the table key's "every field needs one".
			return "", &KeyError{Entity: mem.m.Name, Attr: attr, Template: mem.partTpl.Raw, Field: missing.Field,
				Reason: "the value is empty; the read needs one (an item with an empty value is not in the index)"}
		}
		return s, err
	}
	m, f := mem.m, mem.ei.PK.Lead().Field
	av, ok, err := m.Plan.EncodeFieldValue(f, v.FieldByIndex(f.Index))
	if err != nil {
		return "", &KeyError{Entity: m.Name, Attr: attr, Template: mem.ei.PK.Raw, Field: f.GoName, Reason: err.Error()}
	}
	if !ok || model.AbsentKeyValue(av) {
		return "", &KeyError{Entity: m.Name, Attr: attr, Template: mem.ei.PK.Raw, Field: f.GoName,
			Reason: "the value is empty; the read needs one (an item with an empty value is not in the index)"}
	}
	var s string
	switch av := av.(type) {
	case *types.AttributeValueMemberS:
		s = av.Value
	case *types.AttributeValueMemberN:
		s = av.Value
	case *types.AttributeValueMemberB:
		s = base64.StdEncoding.EncodeToString(av.Value)
	}
	if len(s) > maxPartitionKeyBytes {
		return "", &KeyError{Entity: m.Name, Attr: attr, Template: mem.ei.PK.Raw, Field: f.GoName,
			Reason: fmt.Sprintf("the value is %d bytes; DynamoDB allows %d in a partition key", len(s), maxPartitionKeyBytes)}
	}
	return s, nil
}

// partitionValue is the attribute value of partition pk (as renderPartition
// gives it) for the read's key condition: a string, unless the index is
// keyed on a number or binary field's own attribute.
func (d *readDecl) partitionValue(pk string) types.AttributeValue {
	if d.index != nil && d.rawPK() {
		switch d.table.attrTypeOf(d.index.index.PK) {
		case types.ScalarAttributeTypeN:
			return &types.AttributeValueMemberN{Value: pk}
		case types.ScalarAttributeTypeB:
			if b, err := base64.StdEncoding.DecodeString(pk); err == nil {
				return &types.AttributeValueMemberB{Value: b}
			}
		}
	}
	return &types.AttributeValueMemberS{Value: pk}
}

// rawPK reports whether the read's index is keyed on a field's own
// attribute for one of its members.
func (d *readDecl) rawPK() bool {
	for _, mem := range d.members {
		if mem.ei != nil && mem.ei.RawPK() {
			return true
		}
	}
	return false
}

// sourceNote says, in the sheet, where a derived index key comes from.
func sourceNote(s model.KeySource) string {
	switch s {
	case model.KeyTable:
		return " (table key)"
	case model.KeyField:
		return " (field's attribute)"
	}
	return ""
}
