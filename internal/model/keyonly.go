package model

import (
	"fmt"
	"reflect"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/codec"
	"github.com/singletable/singletable/internal/keys"
)

// Key-only fields
//
// A field tagged `dynamodbav:"-"` that a key template names has no
// attribute of its own: writes render it into its keys, and every read
// parses it back from the table key, which every item and every index
// entry (KEYS_ONLY included) and every stream record carries. So the table
// key must hold it, whole: a field only an index key holds would be lost
// when an item is not in the index, or is read through another one; a
// time whose layout stops short of the nanosecond would come back rounded.

// KeyOnlyField is a key-only field and the table key template it is read
// back from.
type KeyOnlyField struct {
	Field *codec.Field
	Attr  string // the table key attribute that holds it
	Tpl   *keys.Template
}

// keyOnlyParse is how the key-only fields are read back: per table key
// template that holds some, which of its placeholders to skip (every
// other one, and a key-only field the partition key gave already).
type keyOnlyParse struct {
	attr  string
	tpl   *keys.Template
	skips []bool
}

// KeyOnlyFields checks the key-only fields the entity's templates name and
// lists them (e.KeyOnly); a Define step after the indexes are resolved.
func KeyOnlyFields(_ *Spec, e *Entity) *Error {
	type use struct {
		ph    *keys.Placeholder
		where string
		tpl   *keys.Template
	}
	var names []string
	uses := map[string][]use{}
	add := func(tpl *keys.Template, where string) {
		if tpl == nil {
			return
		}
		for _, ph := range tpl.Placeholders() {
			if !ph.KeyOnly {
				continue
			}
			name := ph.Field.GoName
			if _, ok := uses[name]; !ok {
				names = append(names, name)
			}
			uses[name] = append(uses[name], use{ph, where, tpl})
		}
	}
	s := e.Schema
	add(e.PK, "table")
	add(e.SK, "table")
	for _, ei := range e.Indexes {
		add(ei.PK, "index "+ei.Index.Name)
		add(ei.SK, "index "+ei.Index.Name)
	}
	e.KeyOnly, e.keyOnlyParse = nil, nil
	tag := "(tagged `dynamodbav:\"-\"`, it has no attribute of its own)"
	for _, name := range names {
		var held *use
		for i, u := range uses[name] {
			if u.where == "table" {
				held = &uses[name][i]
				break
			}
		}
		if held == nil {
			u := uses[name][0]
			why := "an item whose other key fields are empty is not in it"
			for _, ei := range e.Indexes {
				if "index "+ei.Index.Name == u.where && ei.When != nil {
					why = "it is sparse (When): an item that does not meet its condition is not in it"
				}
			}
			return e.Fail(name, u.tpl.Raw, "the field is key-only %s, but only %s's key holds it: %s, and a read of the table or of another index does not return that key, so the value would be lost; write {%s} into the table's key too, or store the field (drop the tag)", tag, u.where, why, name)
		}
		if held.ph.Precision() != 0 {
			return e.Fail(name, held.tpl.Raw, "the field is key-only %s, but the table key writes it with layout %q, which keeps only part of the time, so it would not read back as written; use the default layout ({%s}) or store the field", tag, held.ph.Layout, name)
		}
		attr := s.PK
		if held.tpl == e.SK {
			attr = s.SK
		}
		e.KeyOnly = append(e.KeyOnly, KeyOnlyField{Field: held.ph.Field, Attr: attr, Tpl: held.tpl})
	}
	for _, k := range []struct {
		attr string
		tpl  *keys.Template
	}{{s.PK, e.PK}, {s.SK, e.SK}} {
		if k.tpl == nil {
			continue
		}
		phs := k.tpl.Placeholders()
		p := keyOnlyParse{attr: k.attr, tpl: k.tpl, skips: make([]bool, len(phs))}
		any := false
		for i, ph := range phs {
			p.skips[i] = true
			for _, ko := range e.KeyOnly {
				if ko.Tpl == k.tpl && ko.Field.GoName == ph.Field.GoName {
					p.skips[i], any = false, true
				}
			}
		}
		if any {
			e.keyOnlyParse = append(e.keyOnlyParse, p)
		}
	}
	return nil
}

// KeyOnlyOf finds key-only field goName.
func (e *Entity) KeyOnlyOf(goName string) (KeyOnlyField, bool) {
	for _, ko := range e.KeyOnly {
		if ko.Field.GoName == goName {
			return ko, true
		}
	}
	return KeyOnlyField{}, false
}

// ParseKeyOnly sets the key-only fields of struct value v (addressable)
// from the table key attributes of item. Every item of the table has them;
// one without them, or with a key the template does not parse, is an
// error naming the attribute.
func (e *Entity) ParseKeyOnly(item map[string]types.AttributeValue, v reflect.Value) error {
	for _, p := range e.keyOnlyParse {
		s, ok := item[p.attr].(*types.AttributeValueMemberS)
		if !ok {
			return fmt.Errorf("key attribute %s, which holds key-only fields, is missing or not a string", p.attr)
		}
		if err := p.tpl.ParseKey(s.Value, v, p.skips); err != nil {
			return fmt.Errorf("key attribute %s: %w", p.attr, err)
		}
	}
	return nil
}
