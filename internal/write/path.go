package write

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"

	"github.com/singletable/singletable/internal/codec"
	"github.com/singletable/singletable/internal/model"
)

var timeType = reflect.TypeFor[time.Time]()

// MarshalerType is attributevalue.Marshaler's type: a value that encodes
// itself, whatever it returns.
var MarshalerType = reflect.TypeFor[attributevalue.Marshaler]()

// PathTarget is what a field path leads to: the Go type of the value there
// and the `dynamodbav` tag it is encoded with; Type is nil when the path
// leads where the type is not known (below an interface, or a path over
// raw attribute names).
type PathTarget struct {
	Field  *codec.Field // the top-level field; nil over raw attribute names
	Type   reflect.Type
	Tag    codec.Tag
	Nested bool
}

// WalkPath resolves a field path over the fields of entity m, or over raw
// attribute names when m is nil: part is called with the attribute name of
// each part, or with "" and the index of a list element. A path is a Go
// field name, optionally followed by nested parts: ".Name" for a field of a
// nested struct (its Go name) or a key of a map, and "[n]" for an element
// of a list. Struct fields are followed by their Go names to their
// attribute names and tags; list elements and map values take their
// container's element tag, as the codec encodes them.
func WalkPath(m *model.Entity, path string, part func(attr string, index int)) (t PathTarget, err error) {
	head, rest := path, ""
	if i := strings.IndexAny(path, ".["); i >= 0 {
		head, rest = path[:i], path[i:]
	}
	if head == "" {
		if path == "" {
			return t, fmt.Errorf("empty field name")
		}
		return t, fmt.Errorf("field path %q does not start with a field name", path)
	}
	if m == nil {
		if part != nil {
			part(head, 0)
		}
	} else {
		f, ok := m.Fields.ByGoName(head)
		if !ok {
			return t, UnknownField(m, head)
		}
		t.Field, t.Type, t.Tag = f, f.Type, f.Tag
		if part != nil {
			part(f.Attr, 0)
		}
	}
	typ := t.Type
	for rest != "" {
		t.Nested = true
		for typ != nil && typ.Kind() == reflect.Pointer {
			typ = typ.Elem()
		}
		if why := partless(typ, t.Tag); why != "" {
			// DynamoDB would refuse an update there, and a condition or
			// filter there would silently never hold.
			whole := path[:len(path)-len(rest)]
			return t, fmt.Errorf("field path %q: %s (%s) %s, which has no parts a path can name; use %s whole", path, whole, typ, why, whole)
		}
		if rest[0] == '[' {
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return t, fmt.Errorf("field path %q: unclosed '['", path)
			}
			n, err := strconv.Atoi(rest[1:end])
			if err != nil || n < 0 || rest[1] == '+' {
				return t, fmt.Errorf("field path %q: list index %q is not a non-negative integer", path, rest[1:end])
			}
			if typ != nil {
				switch typ.Kind() {
				case reflect.Slice, reflect.Array:
					typ, t.Tag = typ.Elem(), t.Tag.Elem()
				case reflect.Interface:
					typ = nil
				default:
					return t, fmt.Errorf("field path %q: %s is not a list, so it takes no index", path, typ)
				}
			}
			if part != nil {
				part("", n)
			}
			rest = rest[end+1:]
			continue
		}
		// rest[0] == '.'
		name := rest[1:]
		if i := strings.IndexAny(name, ".["); i >= 0 {
			name, rest = name[:i], name[i:]
		} else {
			rest = ""
		}
		if name == "" {
			return t, fmt.Errorf("field path %q has an empty part", path)
		}
		attr := name
		switch {
		case typ == nil || typ.Kind() == reflect.Interface:
			typ = nil
		case typ.Kind() == reflect.Struct && typ != timeType:
			fs, err := codec.FieldsOf(typ)
			if err != nil {
				return t, fmt.Errorf("field path %q: %v", path, err)
			}
			f, ok := fs.ByGoName(name)
			if !ok {
				return t, fmt.Errorf("field path %q: %s has no field %q", path, typ, name)
			}
			attr, typ, t.Tag = f.Attr, f.Type, f.Tag
		case typ.Kind() == reflect.Map && typ.Key().Kind() == reflect.String:
			typ, t.Tag = typ.Elem(), t.Tag.Elem()
		default:
			return t, fmt.Errorf("field path %q: %s is neither a struct nor a map, so it has no part %q", path, typ, name)
		}
		if part != nil {
			part(attr, 0)
		}
	}
	t.Type = typ
	return t, nil
}

// partless says how a value of type typ, encoded with tag tg, is stored
// when that is as something other than a map or a list, the only values
// whose parts a document path can name: a value that encodes itself (an
// attributevalue.Marshaler, whatever it returns), a binary or a set. It is
// "" otherwise, and for an unknown type (nil).
func partless(typ reflect.Type, tg codec.Tag) string {
	switch {
	case typ == nil:
		return ""
	case typ.Implements(MarshalerType) || reflect.PointerTo(typ).Implements(MarshalerType):
		return "encodes itself (attributevalue.Marshaler)"
	case (typ.Kind() == reflect.Slice || typ.Kind() == reflect.Array) && typ.Elem().Kind() == reflect.Uint8:
		return "is stored as a binary"
	case StoredAsSet(typ, tg):
		return "is stored as a set"
	}
	return ""
}

// StoredAsSet reports whether a value of type typ, encoded with tag tg, is
// stored as a set: a slice or array tagged as one, or a [][]byte.
func StoredAsSet(typ reflect.Type, tg codec.Tag) bool {
	return (typ.Kind() == reflect.Slice || typ.Kind() == reflect.Array) && (tg.AsStrSet || tg.AsNumSet || tg.AsBinSet) ||
		typ == reflect.TypeFor[[][]byte]()
}

// UnknownField explains a field name entity m does not have, suggesting
// the Go field when the caller used an attribute name or another case.
func UnknownField(m *model.Entity, name string) error {
	msg := fmt.Sprintf("entity %s has no field %q", m.Name, name)
	if f, ok := m.Fields.ByAttr(name); ok {
		return fmt.Errorf("%s: %q is the attribute name of field %s; conditions and updates name Go fields", msg, name, f.GoName)
	}
	for _, f := range m.Fields.List {
		if strings.EqualFold(f.GoName, name) {
			return fmt.Errorf("%s: did you mean %s?", msg, f.GoName)
		}
	}
	return errors.New(msg)
}

// TopField is the top-level Go field a change's path starts with:
// "Address" for "Address.City" and "Tags" for "Tags[0]".
func TopField(path string) string {
	// A byte loop: strings.IndexAny costs more than the whole scan here,
	// and planning calls this for every change in several loops.
	for i := 0; i < len(path); i++ {
		if path[i] == '.' || path[i] == '[' {
			return path[:i]
		}
	}
	return path
}

// Overlaps reports whether two document paths overlap: equal, or one
// inside the other.
func Overlaps(a, b string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	return a == b || (strings.HasPrefix(b, a) && (b[len(a)] == '.' || b[len(a)] == '['))
}
