package model

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/codec"
	"github.com/singletable/singletable/internal/keys"
)

// Multi-attribute index keys: an index whose partition and sort keys are
// several attributes (Index.Native), each an entity field's own. Nothing
// is written for it: an entity storing every attribute is in it (derived,
// as an index over one field's attribute is), an item lacking any of them
// is not. An entity storing only some is not in it, but its values there
// are still key values DynamoDB checks: their type is claimed and an empty
// one left out (PartialIndexes).

// NativeFields are an entity's fields stored under a multi-attribute
// index's key attributes, in the index's order; an entry is nil where the
// entity stores none.
type NativeFields struct {
	PK, SK []*codec.Field
}

// complete reports whether the entity stores every key attribute.
func (nf *NativeFields) complete() bool {
	for _, fs := range [2][]*codec.Field{nf.PK, nf.SK} {
		for _, f := range fs {
			if f == nil {
				return false
			}
		}
	}
	return true
}

// nativeIndex resolves the entity's part in multi-attribute index ix: nil
// when it stores none of its attributes; else the EntityIndex (Partial
// when it stores only some).
func (e *Entity) nativeIndex(ix *Index) (*EntityIndex, *Error) {
	nf := &NativeFields{PK: make([]*codec.Field, len(ix.PKAttrs)), SK: make([]*codec.Field, len(ix.SKAttrs))}
	any := false
	for _, part := range [2]struct {
		attrs []string
		into  []*codec.Field
		what  string
	}{{ix.PKAttrs, nf.PK, "partition"}, {ix.SKAttrs, nf.SK, "sort"}} {
		for i, attr := range part.attrs {
			f, ok := e.Fields.ByAttr(attr)
			if !ok {
				continue
			}
			if FieldAttrType(f) == "" {
				return nil, e.Fail(f.GoName, "", "stored as attribute %q, a %s key attribute of index %s, which holds a string, a number or binary; the field is a %s: rename it with a dynamodbav tag, or store another type",
					attr, part.what, ix.Name, f.Type)
			}
			part.into[i], any = f, true
		}
	}
	if !any {
		return nil, nil
	}
	ei := &EntityIndex{Index: ix, Native: nf, PKFrom: KeyField, SKFrom: KeyField, Partial: !nf.complete()}
	if f := nf.PK[0]; f != nil {
		ei.PK = keys.FieldTemplate(f, e.Schema.Delim)
	}
	if len(nf.SK) > 0 && nf.SK[0] != nil {
		ei.SK = keys.FieldTemplate(nf.SK[0], e.Schema.Delim)
	}
	return ei, nil
}

// Fields lists the entity's fields in the index's key, partition then
// sort, in order (those it stores).
func (nf *NativeFields) Fields() []*codec.Field {
	var out []*codec.Field
	for _, f := range append(append([]*codec.Field(nil), nf.PK...), nf.SK...) {
		if f != nil {
			out = append(out, f)
		}
	}
	return out
}

// nativeAttr is the key attribute field goName is stored under in
// multi-attribute index ei, whether it is a sort key's, and DynamoDB's
// limit on its values.
func (ei *EntityIndex) nativeAttr(goName string) (attr string, sort bool, limit int, ok bool) {
	for i, f := range ei.Native.PK {
		if f != nil && f.GoName == goName {
			return ei.Index.PKAttrs[i], false, MaxPartitionKeyBytes, true
		}
	}
	for i, f := range ei.Native.SK {
		if f != nil && f.GoName == goName {
			return ei.Index.SKAttrs[i], true, MaxSortKeyBytes, true
		}
	}
	return "", false, 0, false
}

// nativeFieldKeys is IndexFieldKeys of a multi-attribute index: each key
// attribute the item holds is checked as a field's own key attribute.
// On every Put: it walks the fields in place and leaves the error's
// template to CheckFieldKey, so that it allocates nothing.
func (e *Entity) nativeFieldKeys(ei *EntityIndex, item map[string]types.AttributeValue) (removed int, err error) {
	for part, fs := range [2][]*codec.Field{ei.Native.PK, ei.Native.SK} {
		attrs, limit := ei.Index.PKAttrs, MaxPartitionKeyBytes
		if part == 1 {
			attrs, limit = ei.Index.SKAttrs, MaxSortKeyBytes
		}
		for i, f := range fs {
			if f == nil {
				continue
			}
			n, err := e.fieldKeyValue(ei.Index, item, f.GoName, attrs[i], "", limit)
			if err != nil {
				return 0, err
			}
			removed += n
		}
	}
	return removed, nil
}
