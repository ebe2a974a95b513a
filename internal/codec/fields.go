// Package codec maps Go structs to DynamoDB items. It follows the rules of
// attributevalue's `dynamodbav` struct tags so that a struct stored by the
// library reads back identically with attributevalue.UnmarshalMap.
//
// FieldsOf resolves the stored fields of a struct type. PlanOf compiles, once
// per type, an encoder and a decoder whose results are identical to
// attributevalue.MarshalMap and attributevalue.UnmarshalMap with default
// options (items, decoded values and whether an error is returned), at a
// fraction of their cost. Kinds the plan does not compile (interfaces, maps
// with non-string keys, complex numbers, ...) are handed to attributevalue
// value by value.
//
// The codec differs from attributevalue only where attributevalue panics:
// unexported embedded non-struct fields are not stored (attributevalue cannot
// read them), byte slices of named uint8 types encode as B, and decoding a
// binary value of the wrong length into a byte array, or setting a nil
// unexported embedded pointer, returns an error. Reflect panics raised inside
// attributevalue on the fallback path are returned as errors too. And where
// attributevalue's result depends on map iteration order the codec picks one
// of its outcomes: when an item holds a field's exact attribute name and
// another one matching it case-insensitively, the exact one wins.
package codec

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
)

// TagKey is the struct tag read for attribute names and options.
const TagKey = "dynamodbav"

// Tag holds the options of one `dynamodbav` tag.
type Tag struct {
	Name          string
	Ignore        bool
	OmitEmpty     bool
	OmitEmptyElem bool
	NullEmpty     bool
	NullEmptyElem bool
	AsString      bool
	AsBinSet      bool
	AsNumSet      bool
	AsStrSet      bool
	AsUnixTime    bool
}

// ParseTag parses a `dynamodbav` tag value.
func ParseTag(s string) Tag {
	var t Tag
	if s == "" {
		return t
	}
	parts := strings.Split(s, ",")
	if parts[0] == "-" {
		t.Ignore = true
	} else {
		t.Name = parts[0]
	}
	for _, opt := range parts[1:] {
		switch opt {
		case "omitempty":
			t.OmitEmpty = true
		case "omitemptyelem":
			t.OmitEmptyElem = true
		case "nullempty":
			t.NullEmpty = true
		case "nullemptyelem":
			t.NullEmptyElem = true
		case "string":
			t.AsString = true
		case "binaryset":
			t.AsBinSet = true
		case "numberset":
			t.AsNumSet = true
		case "stringset":
			t.AsStrSet = true
		case "unixtime":
			t.AsUnixTime = true
		}
	}
	return t
}

// Field is one struct field stored as an item attribute.
type Field struct {
	GoName string       // the Go field name, as written in key templates
	Attr   string       // the attribute name in the item
	Index  []int        // the reflect index path, through embedded structs
	Type   reflect.Type // the field's type (unnamed pointers of embedded structs resolved)
	Tag    Tag
	Extra  reflect.StructTag // the full struct tag, for the library's own `singletable` tag
}

// Fields lists the stored fields of struct type t in declaration order,
// applying Go's visibility rules for embedded structs as attributevalue does.
type Fields struct {
	List []Field
	// Hidden names the attributes that several equally dominant fields
	// claim ("A and B both store X"): attributevalue (like encoding/json)
	// stores none of them, and so does the codec; Define refuses them.
	Hidden []string
	typ    reflect.Type
	byGo   map[string]int
	byAttr map[string]int
	// unstored are the exported fields tagged `dynamodbav:"-"`, by Go
	// name: no attribute of their own, but a key template may hold them
	// (key-only fields, see Unstored).
	unstored map[string]Field
}

// Type is the struct type the fields belong to.
func (fs *Fields) Type() reflect.Type { return fs.typ }

// ByGoName finds a field by its Go name.
func (fs *Fields) ByGoName(name string) (*Field, bool) {
	i, ok := fs.byGo[name]
	if !ok {
		return nil, false
	}
	return &fs.List[i], true
}

// Unstored finds an exported field tagged `dynamodbav:"-"` by its Go
// name: the codec never encodes or decodes it, but a key template may
// write it and parse it back (a key-only field). A stored field of that
// name is found by ByGoName instead.
func (fs *Fields) Unstored(name string) (*Field, bool) {
	f, ok := fs.unstored[name]
	if !ok {
		return nil, false
	}
	return &f, true
}

// ByAttr finds a field by its attribute name.
func (fs *Fields) ByAttr(attr string) (*Field, bool) {
	i, ok := fs.byAttr[attr]
	if !ok {
		return nil, false
	}
	return &fs.List[i], true
}

var fieldCache sync.Map // reflect.Type -> *Fields

// FieldsOf returns the stored fields of struct type t (cached per type).
func FieldsOf(t reflect.Type) (*Fields, error) {
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("codec: %s is not a struct", t)
	}
	if c, ok := fieldCache.Load(t); ok {
		return c.(*Fields), nil
	}
	all, unstored := enumerate(t)
	list, hidden := visible(all)
	fs := &Fields{List: list, Hidden: hidden, typ: t, byGo: map[string]int{}, byAttr: map[string]int{}, unstored: unstored}
	for i, f := range list {
		fs.byAttr[f.Attr] = i
		if _, dup := fs.byGo[f.GoName]; !dup {
			fs.byGo[f.GoName] = i
		}
	}
	c, _ := fieldCache.LoadOrStore(t, fs)
	return c.(*Fields), nil
}

type candidate struct {
	Field
	tagged bool
}

// enumerate walks t and its embedded structs breadth first, like
// encoding/json; unstored are the exported non-embedded fields tagged
// `dynamodbav:"-"`, the shallowest of each Go name.
func enumerate(t reflect.Type) (out []candidate, unstored map[string]Field) {
	type level struct {
		typ   reflect.Type
		index []int
	}
	next := []level{{typ: t}}
	visited := map[reflect.Type]bool{}
	nextCount := map[reflect.Type]int{}
	for len(next) > 0 {
		current := next
		next = nil
		count := nextCount // how often each type of this level was embedded
		nextCount = map[reflect.Type]int{}
		for _, l := range current {
			if visited[l.typ] {
				continue
			}
			visited[l.typ] = true
			for i := 0; i < l.typ.NumField(); i++ {
				sf := l.typ.Field(i)
				if sf.PkgPath != "" && !sf.Anonymous {
					continue
				}
				tag := ParseTag(sf.Tag.Get(TagKey))
				if tag.Ignore {
					if _, seen := unstored[sf.Name]; !seen && !sf.Anonymous && sf.PkgPath == "" {
						if unstored == nil {
							unstored = map[string]Field{}
						}
						index := append(append([]int(nil), l.index...), i)
						unstored[sf.Name] = Field{GoName: sf.Name, Index: index, Type: sf.Type, Tag: tag, Extra: sf.Tag}
					}
					continue
				}
				ft := sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				index := append(append([]int(nil), l.index...), i)
				if !sf.Anonymous || tag.Name != "" || ft.Kind() != reflect.Struct {
					if sf.PkgPath != "" && ft.Kind() != reflect.Struct {
						// An unexported embedded non-struct: attributevalue
						// lists it but panics on reading or setting it
						// (reflect refuses values of unexported fields), so
						// it is not stored. An unexported embedded struct
						// with a tag name works there (its exported fields
						// are reachable) and is kept.
						continue
					}
					attr := sf.Name
					if tag.Name != "" {
						attr = tag.Name
					}
					typ := sf.Type
					if sf.Anonymous {
						typ = ft
					}
					c := candidate{Field: Field{GoName: sf.Name, Attr: attr, Index: index, Type: typ, Tag: tag, Extra: sf.Tag}, tagged: tag.Name != ""}
					out = append(out, c)
					if count[l.typ] > 1 {
						out = append(out, c) // ambiguous: annihilated below
					}
					continue
				}
				nextCount[ft]++
				if nextCount[ft] == 1 {
					next = append(next, level{typ: ft, index: index})
				}
			}
		}
	}
	return out, unstored
}

// visible keeps, for each attribute name, the one dominant field; hidden
// describes the attributes no field wins.
func visible(all []candidate) (out []Field, hidden []string) {
	sort.SliceStable(all, func(i, j int) bool {
		a, b := all[i], all[j]
		if a.Attr != b.Attr {
			return a.Attr < b.Attr
		}
		if len(a.Index) != len(b.Index) {
			return len(a.Index) < len(b.Index)
		}
		return a.tagged && !b.tagged
	})
	for i := 0; i < len(all); {
		j := i + 1
		for j < len(all) && all[j].Attr == all[i].Attr {
			j++
		}
		group := all[i:j]
		i = j
		if len(group) == 1 {
			out = append(out, group[0].Field)
			continue
		}
		// The shallowest fields compete; a single tagged one wins.
		depth := len(group[0].Index)
		var top []candidate
		for _, c := range group {
			if len(c.Index) == depth {
				top = append(top, c)
			}
		}
		if len(top) == 1 {
			out = append(out, top[0].Field)
			continue
		}
		if top[0].tagged && !top[1].tagged {
			out = append(out, top[0].Field)
			continue
		}
		hidden = append(hidden, fmt.Sprintf("fields %s and %s both store attribute %q", top[0].GoName, top[1].GoName, top[0].Attr))
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].Index, out[j].Index
		for k := 0; k < len(a) && k < len(b); k++ {
			if a[k] != b[k] {
				return a[k] < b[k]
			}
		}
		return len(a) < len(b)
	})
	return out, hidden
}
