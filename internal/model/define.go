package model

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/singletable/singletable/internal/codec"
	"github.com/singletable/singletable/internal/expr"
	"github.com/singletable/singletable/internal/keys"
)

// Spec is an entity's declaration as plain values: what the root's public
// options given to Define (Key, Index ...) translate into.
type Spec struct {
	PK, SK  string // the primary key templates
	Indexes []IndexSpec
	// CompileWhen compiles an index's When condition for evaluation in
	// process over the struct value, and lists the top-level fields it
	// reads. The root gives it: the condition's values are encoded by
	// the rules of its writes.
	CompileWhen func(e *Entity, c expr.Node) (func(reflect.Value) bool, []string, error)
	// Shard is the Shards declaration (nil: none), ShardCalls how many
	// were given.
	Shard      *ShardSpec
	ShardCalls int
}

// IndexSpec is one Index declaration: the templates an entity writes into
// the keys of the GSI named Index, and the condition (nil: none) that
// makes it sparse.
type IndexSpec struct {
	Index  string
	PK, SK string
	When   expr.Node
}

// A Step is one step of Define: it checks part of the declaration and
// fills in its part of the model.
type Step func(*Spec, *Entity) *Error

// Fail is the *Error of entity e.
func (e *Entity) Fail(field, tpl, reason string, args ...any) *Error {
	return &Error{Table: e.Schema.Name, Entity: e.Name, Field: field, Template: tpl, Reason: fmt.Sprintf(reason, args...)}
}

// CheckName refuses an empty entity name, or one with a NUL byte.
func CheckName(_ *Spec, e *Entity) *Error {
	if e.Name == "" {
		return e.Fail("", "", "the entity name is empty")
	}
	if strings.ContainsAny(e.Name, "\x00") {
		return e.Fail("", "", "the entity name contains a NUL byte")
	}
	return nil
}

// ResolveFields plans the codec of the struct type: its stored fields.
func ResolveFields(_ *Spec, e *Entity) *Error {
	if e.Type.Kind() != reflect.Struct {
		return e.Fail("", "", "%s is not a struct type", e.Type)
	}
	plan, err := codec.PlanOf(e.Type)
	if err != nil {
		return e.Fail("", "", "%v", err)
	}
	e.Plan, e.Fields = plan, plan.Fields()
	if len(e.Fields.Hidden) > 0 {
		return e.Fail("", "", "%s, so neither is stored: rename one with a dynamodbav tag, or tag one `dynamodbav:\"-\"`", e.Fields.Hidden[0])
	}
	return nil
}

// CheckAttributes refuses a field stored under an attribute the table
// reserves, or under the TTL attribute with a type it cannot hold.
func CheckAttributes(_ *Spec, e *Entity) *Error {
	s := e.Schema
	reserved := s.KeyAttributes()
	for _, f := range e.Fields.List {
		if what, clash := reserved[f.Attr]; clash {
			return e.Fail(f.GoName, "", "stored as attribute %q, which is %s; rename it with a dynamodbav tag", f.Attr, what)
		}
		if f.Attr == s.TTLAttr && !IsTTLField(f) {
			return e.Fail(f.GoName, "", "stored as the TTL attribute %q, so it must be an integer or a time.Time tagged `dynamodbav:\",unixtime\"` (or a pointer to either)", f.Attr)
		}
	}
	return nil
}

// ParseTemplate parses key template tpl over the entity's fields.
func (e *Entity) ParseTemplate(tpl string) (*keys.Template, *Error) {
	pt, err := keys.Parse(tpl, e.Fields, e.Schema.Delim)
	if err != nil {
		var fe *keys.FieldError
		if errors.As(err, &fe) {
			return nil, &Error{Table: e.Schema.Name, Entity: e.Name, Field: fe.Field, Template: tpl, Reason: fe.Reason}
		}
		return nil, &Error{Table: e.Schema.Name, Entity: e.Name, Template: tpl, Reason: err.Error()}
	}
	return pt, nil
}

// ParseKeys parses the primary key templates, and lists the fields they
// read.
func ParseKeys(spec *Spec, e *Entity) *Error {
	s := e.Schema
	var err *Error
	if e.PK, err = e.ParseTemplate(spec.PK); err != nil {
		return err
	}
	switch {
	case s.SK == "" && spec.SK != "":
		return e.Fail("", spec.SK, "table %s has no sort key, so the entity cannot declare a sort template", s.Name)
	case s.SK != "" && spec.SK == "":
		return e.Fail("", "", "table %s has sort key %s: Key needs a sort template (a constant such as \"PROFILE\" is fine)", s.Name, s.SK)
	case s.SK != "":
		if e.SK, err = e.ParseTemplate(spec.SK); err != nil {
			return err
		}
	}
	for _, f := range e.PK.Fields() {
		e.KeyFields[f] = true
	}
	if e.SK != nil {
		for _, f := range e.SK.Fields() {
			e.KeyFields[f] = true
		}
	}
	for i := range e.Fields.List {
		if e.KeyFields[e.Fields.List[i].GoName] {
			e.KeyFieldList = append(e.KeyFieldList, &e.Fields.List[i])
		}
	}
	return nil
}

// keySource is where an index key attribute's value comes from, for this
// entity: the table's own key, a field stored under it, or else the
// template the entity declares for it (KeyOwn, with no template).
func (e *Entity) keySource(attr string) (KeySource, *keys.Template, *Error) {
	s := e.Schema
	switch {
	case attr == "":
		return KeyOwn, nil, nil
	case attr == s.PK:
		return KeyTable, e.PK, nil
	case attr == s.SK:
		return KeyTable, e.SK, nil
	}
	f, ok := e.Fields.ByAttr(attr)
	if !ok {
		return KeyOwn, nil, nil
	}
	if FieldAttrType(f) == "" {
		return KeyOwn, nil, e.Fail(f.GoName, "", "stored as attribute %q, an index key attribute, which holds a string, a number or binary; the field is a %s: rename it with a dynamodbav tag", attr, f.Type)
	}
	return KeyField, keys.FieldTemplate(f, s.Delim), nil
}

// indexPart resolves one key attribute of index ix declared with template
// raw: a derived one must be declared as what it is, or left out with the
// whole Index.
func (e *Entity) indexPart(ix *Index, attr, raw, what string) (KeySource, *keys.Template, *Error) {
	from, derived, err := e.keySource(attr)
	switch {
	case err != nil:
		return from, nil, err
	case from == KeyOwn:
		tpl, err := e.ParseTemplate(raw)
		return from, tpl, err
	case raw != derived.Raw:
		where := "the table's partition key, so it is the entity's own partition template"
		if attr == e.Schema.SK {
			where = "the table's sort key, so it is the entity's own sort template"
		} else if from == KeyField {
			where = "the attribute field " + derived.Lead().Field.GoName + " is stored as, so it is the field's value itself (no literal text, no format)"
		}
		return from, nil, e.Fail("", raw, "index %s's %s %s is %s: declare it as %q, or leave Index(%q, ...) out (it is derived)", ix.Name, what, attr, where, derived.Raw, ix.Name)
	}
	return from, derived, nil
}

// DeclaredIndexes resolves the indexes the entity declares (Index).
func DeclaredIndexes(spec *Spec, e *Entity) *Error {
	s := e.Schema
	declared := map[*Index]bool{}
	for _, ik := range spec.Indexes {
		ix := s.index(ik.Index)
		if ix == nil {
			return e.Fail("", ik.PK, "index %s is not declared on table %s (declare it with WithGSI or WithLSI)", ik.Index, s.Name)
		}
		if declared[ix] {
			return e.Fail("", ik.PK, "index %s is given twice: an item has one value per index key", ix.Name)
		}
		declared[ix] = true
		if ix.Native() {
			return e.Fail("", ik.PK, "index %s has a multi-attribute key (%s), whose attributes are the entity's own fields: nothing is declared or written for it; leave Index(%q, ...) out",
				ix.Name, strings.Join(ix.KeyAttrs(), ", "), ix.Name)
		}
		ei := &EntityIndex{Index: ix}
		var err *Error
		if ei.PKFrom, ei.PK, err = e.indexPart(ix, ix.PK, ik.PK, "partition key"); err != nil {
			return err
		}
		switch {
		case ix.SK == "" && ik.SK != "":
			return e.Fail("", ik.SK, "index %s has no sort key", ix.Name)
		case ix.SK != "" && ik.SK == "":
			return e.Fail("", ik.PK, "index %s has sort key %s: give a sort template", ix.Name, ix.SK)
		case ix.SK != "":
			if ei.SKFrom, ei.SK, err = e.indexPart(ix, ix.SK, ik.SK, "sort key"); err != nil {
				return err
			}
		}
		if err := checkSources(ei); err != nil {
			return e.Fail("", ik.PK, "%v", err)
		}
		if ik.When != nil {
			var werr error
			if ei.When, ei.WhenFields, werr = spec.CompileWhen(e, ik.When); werr != nil {
				return e.Fail("", ik.PK, "index %s: %v", ix.Name, werr)
			}
			ei.WhenText = expr.Describe(ik.When)
		}
		if ei.When != nil && !ei.Writes() {
			return e.Fail("", ik.PK, "index %s: When cannot apply, as the index writes no key of its own (its keys are attributes the item has anyway)", ix.Name)
		}
		e.Indexes = append(e.Indexes, ei)
	}
	return nil
}

// index finds the table's index of that name.
func (s *Schema) index(name string) *Index {
	for _, ix := range s.Indexes {
		if ix.Name == name {
			return ix
		}
	}
	return nil
}

// DerivedIndexes adds the indexes whose keys are all attributes the item
// has anyway (the table's keys, fields), which hold the entity without a
// declaration; then lists every index's inputs.
func DerivedIndexes(_ *Spec, e *Entity) *Error {
	declared := map[*Index]bool{}
	for _, ei := range e.Indexes {
		declared[ei.Index] = true
	}
	for _, ix := range e.Schema.Indexes {
		if declared[ix] {
			continue
		}
		if ix.Native() {
			ei, err := e.nativeIndex(ix)
			switch {
			case err != nil:
				return err
			case ei == nil:
			case ei.Partial:
				e.PartialIndexes = append(e.PartialIndexes, ei)
			default:
				e.Indexes = append(e.Indexes, ei)
			}
			continue
		}
		ei := &EntityIndex{Index: ix}
		var err *Error
		if ei.PKFrom, ei.PK, err = e.keySource(ix.PK); err != nil {
			return err
		}
		if ei.SKFrom, ei.SK, err = e.keySource(ix.SK); err != nil {
			return err
		}
		if ei.PK == nil || (ix.SK != "" && ei.SK == nil) {
			continue // a key of its own to write: the entity is in it only if it declares Index
		}
		if err := checkSources(ei); err != nil {
			return e.Fail("", "", "%v", err)
		}
		e.Indexes = append(e.Indexes, ei)
	}
	for _, ei := range e.Indexes {
		ei.Inputs = ei.ListInputs()
	}
	return nil
}

// checkSources refuses an index that would write a key of its own beside
// a field's own attribute: an update of the field would then have to keep
// the other key in step, which only a rendered key can do.
func checkSources(ei *EntityIndex) error {
	if ei.SK == nil || ei.PKFrom == ei.SKFrom {
		return nil
	}
	if (ei.PKFrom == KeyField && ei.SKFrom == KeyOwn) || (ei.PKFrom == KeyOwn && ei.SKFrom == KeyField) {
		return fmt.Errorf("index %s has one key attribute that is a field's own (%s or %s) and one written from a template: make both the attributes of fields, or both templates",
			ei.Index.Name, ei.Index.PK, ei.Index.SK)
	}
	return nil
}
