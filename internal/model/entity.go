// Package model is the entity model Define builds: the table's schema as
// the model needs it, and per entity its Go type, fields and codec plan,
// key templates and index keys, built in ordered steps (define.go), each
// returning an *Error. It never imports the root package: the root
// translates its public options into a Spec and holds an *Entity.
package model

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/singletable/singletable/internal/codec"
	"github.com/singletable/singletable/internal/keys"
)

// Entity is the type-independent model of one entity: what Define built
// from a Go struct type and its declarations.
type Entity struct {
	Schema *Schema
	Name   string
	Type   reflect.Type
	Fields *codec.Fields
	Plan   *codec.Plan // encodes and decodes the type, built once
	PK, SK *keys.Template
	// Indexes are the entity's keys in the table's GSIs: declared ones
	// (Index) first, then derived ones.
	Indexes []*EntityIndex
	// PartialIndexes are the multi-attribute indexes whose key attributes
	// the entity stores only some of: never in them, but what it stores
	// there is checked as key values are (types, empty values left out).
	PartialIndexes []*EntityIndex
	// KeyFields are the Go fields the primary key reads; KeyFieldList
	// the same fields in field order, for the loops that visit them all.
	KeyFields    map[string]bool
	KeyFieldList []*codec.Field
	// PKMayBeReserved is set when the partition template could render a
	// key in the namespace of unique-value guard items (see
	// CheckGuardNamespace).
	PKMayBeReserved bool
	// Shard is the shard field, nil when the entity is not sharded
	// (shard.go).
	Shard *Shard
	// KeyOnly are the fields that live only in the table key (tagged
	// `dynamodbav:"-"`, see keyonly.go); keyOnlyParse how reads parse
	// them back.
	KeyOnly      []KeyOnlyField
	keyOnlyParse []keyOnlyParse
	// flatKeys is how AddKeysIn renders flat keys, once worked out
	// (flatkeys.go).
	flatKeys atomic.Pointer[flatKeys]
}

// New is the model of entity name of Go type typ on schema, before
// Define's steps fill it in.
func New(schema *Schema, name string, typ reflect.Type) *Entity {
	return &Entity{Schema: schema, Name: name, Type: typ, KeyFields: map[string]bool{}}
}

// EntityIndex is an entity's resolved key templates for one GSI.
type EntityIndex struct {
	Index  *Index
	PK, SK *keys.Template
	When   func(reflect.Value) bool // nil: always; v is the struct value
	// WhenFields are the top-level fields When reads.
	WhenFields []string
	// WhenText is the When condition written for people (expr.Describe).
	WhenText string
	// PKFrom and SKFrom say where each index key attribute's value comes
	// from: written from the template (KeyOwn), or already in the item as
	// the table's own key (KeyTable) or a field's attribute (KeyField).
	// Only KeyOwn parts are written; the others are derived and read the
	// attribute as it is.
	PKFrom, SKFrom KeySource
	// Inputs is every field the index key and its condition read, listed
	// once at Define (see ListInputs).
	Inputs []string
	// Native are the fields of a multi-attribute key (Index.Native), nil
	// on any other index; PK and SK are then its first fields' own
	// attributes. Partial: the entity stores only some of them, so it is
	// never in the index (see PartialIndexes).
	Native  *NativeFields
	Partial bool
}

// KeySource is where an index key attribute's value comes from.
type KeySource uint8

const (
	KeyOwn   KeySource = iota // the index's own attribute, written from the template
	KeyTable                  // the table's partition or sort key attribute
	KeyField                  // a field's own attribute: its raw value, no copy
)

// Writes reports whether the index has an attribute of its own to write;
// an index whose keys are all derived needs nothing written or recomputed.
func (ei *EntityIndex) Writes() bool {
	return ei.PKFrom == KeyOwn || (ei.SK != nil && ei.SKFrom == KeyOwn)
}

// RawPK reports whether the index partition key is a field's own
// attribute, whose values are the field's as stored (not rendered keys).
func (ei *EntityIndex) RawPK() bool { return ei.PKFrom == KeyField }

// DependsOn reports whether the index key or its condition reads the field.
// A derived index (one that writes nothing) depends on no field: what it
// reads is kept by the writes of the table key or of the field itself.
func (ei *EntityIndex) DependsOn(goName string) bool {
	if !ei.Writes() {
		return false
	}
	if ei.PK.Uses(goName) || (ei.SK != nil && ei.SK.Uses(goName)) {
		return true
	}
	return slices.Contains(ei.WhenFields, goName)
}

// ListInputs lists every field the index key and its condition read.
func (ei *EntityIndex) ListInputs() []string {
	if ei.Native != nil {
		var out []string
		for _, f := range ei.Native.Fields() {
			out = append(out, f.GoName)
		}
		return out
	}
	out := ei.PK.Fields()
	if ei.SK != nil {
		out = append(out, ei.SK.Fields()...)
	}
	for _, f := range ei.WhenFields {
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

// FieldKey is the index's partition key, or with sort its sort key: the
// attribute, its template and DynamoDB's limit on its values.
func (ei *EntityIndex) FieldKey(sort bool) (attr string, tpl *keys.Template, limit int) {
	if sort {
		return ei.Index.SK, ei.SK, MaxSortKeyBytes
	}
	return ei.Index.PK, ei.PK, MaxPartitionKeyBytes
}

// IndexOfField finds the index keyed on the attribute of field goName (top
// level), and which of its keys that is: at most one, as an attribute is
// one index's key.
func (e *Entity) IndexOfField(goName string) (ei *EntityIndex, sort bool, ok bool) {
	for _, ei := range e.Indexes {
		if ei.Native != nil {
			if _, sort, _, ok := ei.nativeAttr(goName); ok {
				return ei, sort, true
			}
			continue
		}
		switch {
		case ei.PKFrom == KeyField && ei.PK.Uses(goName):
			return ei, false, true
		case ei.SK != nil && ei.SKFrom == KeyField && ei.SK.Uses(goName):
			return ei, true, true
		}
	}
	for _, ei := range e.PartialIndexes {
		if _, sort, _, ok := ei.nativeAttr(goName); ok {
			return ei, sort, true
		}
	}
	return nil, false, false
}

// IndexedField reports whether field goName (top level) is stored under a
// key attribute of one of the entity's indexes: an empty value of it must
// be absent from the item.
func (e *Entity) IndexedField(goName string) bool {
	_, _, ok := e.IndexOfField(goName)
	return ok
}

// Describe names the index's keys and condition, for errors.
func (ei *EntityIndex) Describe() string {
	if ei.Native != nil {
		return fmt.Sprintf("%s (%s)", strings.Join(ei.Index.KeyAttrs(), ", "), "fields' own attributes")
	}
	s := fmt.Sprintf("%s %q", ei.Index.PK, ei.PK.Raw)
	if ei.SK != nil {
		s += fmt.Sprintf(", %s %q", ei.Index.SK, ei.SK.Raw)
	}
	if ei.When != nil {
		s += fmt.Sprintf(", when %s", strings.Join(ei.WhenFields, ", "))
	}
	return s
}
