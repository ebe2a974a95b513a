package model

import (
	"reflect"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/singletable/singletable/internal/codec"
)

// DynamoDB's limits on key values, in bytes: a partition key's and a sort
// key's (an index's keys included).
const (
	MaxPartitionKeyBytes = 2048
	MaxSortKeyBytes      = 1024
)

// Schema is a table as the model needs it: its key, type and TTL
// attributes, the key delimiter and its global secondary indexes. The
// root's Table holds one; every entity of the table points at it.
type Schema struct {
	Name     string
	PK, SK   string // the table's key attributes; SK "" for none
	TypeAttr string // the attribute holding each item's entity name
	// TypeByKeys: an item without the type attribute is of the one
	// entity whose key templates parse its keys (a table the library
	// adopts); TypeOmit: entity items are written without it.
	TypeByKeys, TypeOmit bool
	TTLAttr              string // "" when the table declares no TTL
	Delim                byte   // the byte separating key segments
	// PKLimit is the most bytes a partition key may have: 2048, or 1024
	// when an index's sort key is the table's partition key (an inverted
	// index), as DynamoDB limits a value by every key it is.
	PKLimit int
	// Indexes are the table's secondary indexes, global ones then local
	// ones, each in declaration order; each is the one the root's GSI
	// holds, so a pointer identifies an index.
	Indexes []*Index
}

// IndexKind is whether an index is global or local.
type IndexKind uint8

// The kinds of secondary index.
const (
	// Global is a global secondary index: keys of its own, eventually
	// consistent reads, added to a live table at any time.
	Global IndexKind = iota
	// Local is a local secondary index: the table's partition key and
	// another sort key, strongly consistent reads allowed, declared only
	// when the table is created, and a 10 GB limit on every item
	// collection (partition) of the table.
	Local
)

// String names the kind: "global" or "local".
func (k IndexKind) String() string {
	if k == Local {
		return "local"
	}
	return "global"
}

// Index is a secondary index as the model needs it. An entity writes its
// keys into either kind alike; a local one's partition key is the table's.
type Index struct {
	Name        string
	Kind        IndexKind
	PK, SK      string // its key attributes; SK "" for none (the first ones of a multi-attribute key)
	Projection  types.ProjectionType
	NonKeyAttrs []string // what an INCLUDE projection carries
	// PKAttrs and SKAttrs are every key attribute in order: one and at
	// most one, except on a multi-attribute key (see Native), whose
	// first ones are PK and SK.
	PKAttrs, SKAttrs []string
}

// MaxKeyAttrs is how many attributes DynamoDB allows in each of a
// multi-attribute key's partition and sort keys.
const MaxKeyAttrs = 4

// Native reports whether the index has a multi-attribute key: several
// partition or sort key attributes, each a field's own attribute, none
// written from a template.
func (ix *Index) Native() bool { return len(ix.PKAttrs) > 1 || len(ix.SKAttrs) > 1 }

// KeyAttrs lists every key attribute of the index: its partition key's,
// then its sort key's.
func (ix *Index) KeyAttrs() []string {
	if ix.PKAttrs == nil {
		out := []string{ix.PK}
		if ix.SK != "" {
			out = append(out, ix.SK)
		}
		return out
	}
	return append(append([]string(nil), ix.PKAttrs...), ix.SKAttrs...)
}

// IsLocal reports whether the index is a local secondary index.
func (ix *Index) IsLocal() bool { return ix.Kind == Local }

// IsTableKey reports whether attr is the table's partition or sort key.
func (s *Schema) IsTableKey(attr string) bool {
	return attr != "" && (attr == s.PK || attr == s.SK)
}

// KeyAttributes lists the attributes the table reserves for its keys and
// metadata, with what they are for. Index key attributes are not among
// them: a field stored under one is the index's key (see Define).
func (s *Schema) KeyAttributes() map[string]string {
	out := map[string]string{s.PK: "the table's partition key", s.TypeAttr: "the entity type attribute"}
	if s.SK != "" {
		out[s.SK] = "the table's sort key"
	}
	return out
}

var timeType = reflect.TypeFor[time.Time]()

// FieldAttrType is the scalar type field f is stored as, when it can be an
// index key: S for strings (and values tagged `,string`), N for numbers
// (and times tagged `,unixtime`), B for []byte; "" when it cannot.
// A pointer field is its element's type; nil is absent.
func FieldAttrType(f *codec.Field) types.ScalarAttributeType {
	t := f.Type
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == timeType && f.Tag.AsUnixTime:
		return types.ScalarAttributeTypeN
	case t == timeType:
		return types.ScalarAttributeTypeS
	case t.Kind() == reflect.String:
		return types.ScalarAttributeTypeS
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Float64 && f.Tag.AsString:
		return types.ScalarAttributeTypeS
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Float64:
		return types.ScalarAttributeTypeN
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8:
		return types.ScalarAttributeTypeB
	}
	return ""
}

// IsTTLField reports whether f can be stored under the TTL attribute: an
// integer, or a time.Time tagged `dynamodbav:",unixtime"` (or a pointer to
// either, nil meaning no expiry).
func IsTTLField(f codec.Field) bool {
	t := f.Type
	if t.Kind() == reflect.Pointer { // nil: no expiry
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return !f.Tag.AsString
	}
	return t == timeType && f.Tag.AsUnixTime
}
