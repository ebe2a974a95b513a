package singletable

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/codec"
	"github.com/singletable/singletable/internal/expr"
)

// Cond is a condition on an item's attributes, written over Go field names:
// Eq("Status", "PENDING"), And(Exists("Email"), Gt("Total", 100)). It is
// used as a write condition (If), a query filter (Filter) and in
// transactions (TxCheck). Field names are resolved against the entity when the
// request is built; an unknown field is an ErrInvalidInput before sending.
// Values are encoded with the field's own `dynamodbav` rules.
type Cond struct {
	n expr.Node
}

// IsZero reports whether c is the empty condition.
func (c Cond) IsZero() bool { return c.n == nil }

// AttrType is an attribute type for IsType: S, SS, N, NS, B, BS, BOOL, NULL, L, M.
type AttrType string

// The attribute types IsType can test.
const (
	TypeString    AttrType = "S"
	TypeStringSet AttrType = "SS"
	TypeNumber    AttrType = "N"
	TypeNumberSet AttrType = "NS"
	TypeBinary    AttrType = "B"
	TypeBinarySet AttrType = "BS"
	TypeBool      AttrType = "BOOL"
	TypeNull      AttrType = "NULL"
	TypeList      AttrType = "L"
	TypeMap       AttrType = "M"
)

// FieldRef refers to another field where a condition takes a value:
// Gt("Balance", FieldRef("Limit")).
type FieldRef string

// Eq: field = v.
func Eq(field string, v any) Cond { return Cond{expr.Compare(field, "=", v)} }

// Ne: field <> v.
func Ne(field string, v any) Cond { return Cond{expr.Compare(field, "<>", v)} }

// Lt: field < v.
func Lt(field string, v any) Cond { return Cond{expr.Compare(field, "<", v)} }

// Le: field <= v.
func Le(field string, v any) Cond { return Cond{expr.Compare(field, "<=", v)} }

// Gt: field > v.
func Gt(field string, v any) Cond { return Cond{expr.Compare(field, ">", v)} }

// Ge: field >= v.
func Ge(field string, v any) Cond { return Cond{expr.Compare(field, ">=", v)} }

// Between: lo <= field <= hi.
func Between(field string, lo, hi any) Cond { return Cond{expr.Between(field, lo, hi)} }

// In: field equals one of vs (1 to 100 values).
func In(field string, vs ...any) Cond { return Cond{expr.In(field, vs)} }

// BeginsWith: the string field starts with prefix.
func BeginsWith(field string, prefix string) Cond {
	return Cond{expr.CallString("begins_with", field, prefix)}
}

// Contains: the string field contains v as a substring, or the set or list
// field contains v as an element.
func Contains(field string, v any) Cond {
	if t, ok := v.(AttrType); ok { // a type name is written as IsType writes it
		return Cond{expr.CallType("contains", field, string(t))}
	}
	return Cond{expr.Call("contains", field, v, true)}
}

// Exists: the item has the attribute.
func Exists(field string) Cond {
	return Cond{expr.Unary("attribute_exists", field)}
}

// NotExists: the item lacks the attribute.
func NotExists(field string) Cond {
	return Cond{expr.Unary("attribute_not_exists", field)}
}

// IsType: the attribute is of type t.
func IsType(field string, t AttrType) Cond {
	return Cond{expr.CallType("attribute_type", field, string(t))}
}

// Size is the size of an attribute (string length, binary length, number of
// elements), for comparisons: Size("Tags").Gt(3).
func Size(field string) SizeOperand { return SizeOperand{field} }

// SizeOperand compares the size of an attribute; see Size.
type SizeOperand struct{ field string }

// Eq: size(field) = n.
func (s SizeOperand) Eq(n int) Cond { return Cond{expr.Size(s.field, "=", n)} }

// Ne: size(field) <> n.
func (s SizeOperand) Ne(n int) Cond { return Cond{expr.Size(s.field, "<>", n)} }

// Lt: size(field) < n.
func (s SizeOperand) Lt(n int) Cond { return Cond{expr.Size(s.field, "<", n)} }

// Le: size(field) <= n.
func (s SizeOperand) Le(n int) Cond { return Cond{expr.Size(s.field, "<=", n)} }

// Gt: size(field) > n.
func (s SizeOperand) Gt(n int) Cond { return Cond{expr.Size(s.field, ">", n)} }

// Ge: size(field) >= n.
func (s SizeOperand) Ge(n int) Cond { return Cond{expr.Size(s.field, ">=", n)} }

// And holds when every condition holds. Zero conditions are skipped.
func And(cs ...Cond) Cond { return junction("AND", cs) }

// Or holds when any condition holds. Zero conditions are skipped.
func Or(cs ...Cond) Cond { return junction("OR", cs) }

// Not negates c.
func Not(c Cond) Cond {
	if c.n == nil {
		return c
	}
	return Cond{expr.Not(c.n)}
}

func junction(op string, cs []Cond) Cond {
	// The library joins its own conditions with the caller's, which are
	// often absent: with one condition left there is no node to build.
	n, only := 0, Cond{}
	for _, c := range cs {
		if c.n != nil {
			n, only = n+1, c
		}
	}
	if n <= 1 {
		return only
	}
	j := expr.Join(op)
	for _, c := range cs {
		if c.n != nil {
			j.Add(c.n)
		}
	}
	return Cond{j}
}

// resolver turns field names into attribute placeholders and values into
// value placeholders, for one entity (or raw attribute names when m is nil).
// It is two pointers, passed by value.
type resolver struct {
	m *entityModel
	b *expr.Builder
}

// attr returns the placeholder path of a field; see path.
func (r resolver) attr(field string) (string, error) {
	p, _, err := r.path(field)
	return p, err
}

// path resolves a field path to its placeholder expression. A path is a Go
// field name, optionally followed by nested parts: ".Name" for a field of a
// nested struct (its Go name) or a key of a map, and "[n]" for an element of
// a list: "Address.City", "Tags[0]", "Meta.Labels[2].Name". Every part gets
// its own name placeholder, so reserved words and special characters in
// attribute names always work. The library's own conditions on key
// attributes use attrExists and attrNotExists instead. nested reports
// whether the path goes below a top-level field.
func (r resolver) path(path string) (p string, nested bool, err error) {
	if !strings.ContainsAny(path, ".[") {
		// A top-level field: its placeholder alone.
		if path == "" {
			return "", false, fmt.Errorf("empty field name")
		}
		attr := path
		if r.m != nil {
			f, ok := r.m.Fields.ByGoName(path)
			if !ok {
				return "", false, r.unknownField(path)
			}
			attr = f.Attr
		}
		return r.b.Name(attr), false, nil
	}
	var b strings.Builder
	_, err = walkPath(r.m, path, func(attr string, index int) {
		switch {
		case attr == "":
			b.WriteString("[" + strconv.Itoa(index) + "]")
		case b.Len() > 0:
			b.WriteByte('.')
			fallthrough
		default:
			b.WriteString(r.b.Name(attr))
		}
	})
	if err != nil {
		return "", false, err
	}
	return b.String(), true, nil
}

// pathTarget is what a field path leads to: the Go type of the value there
// and the `dynamodbav` tag it is encoded with; typ is nil when the path
// leads where the type is not known (below an interface, or a path over
// raw attribute names).
type pathTarget struct {
	field  *codec.Field // the top-level field; nil over raw attribute names
	typ    reflect.Type
	tag    codec.Tag
	nested bool
}

// walkPath resolves a field path (see resolver.path) over the fields of
// entity m, or over raw attribute names when m is nil: part is called with
// the attribute name of each part, or with "" and the index of a list
// element. Struct fields are followed by their Go names to their attribute
// names and tags; list elements and map values take their container's
// element tag, as the codec encodes them.
func walkPath(m *entityModel, path string, part func(attr string, index int)) (t pathTarget, err error) {
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
			return t, resolver{m: m}.unknownField(head)
		}
		t.field, t.typ, t.tag = f, f.Type, f.Tag
		if part != nil {
			part(f.Attr, 0)
		}
	}
	typ := t.typ
	for rest != "" {
		t.nested = true
		for typ != nil && typ.Kind() == reflect.Pointer {
			typ = typ.Elem()
		}
		if why := partless(typ, t.tag); why != "" {
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
					typ, t.tag = typ.Elem(), t.tag.Elem()
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
			attr, typ, t.tag = f.Attr, f.Type, f.Tag
		case typ.Kind() == reflect.Map && typ.Key().Kind() == reflect.String:
			typ, t.tag = typ.Elem(), t.tag.Elem()
		default:
			return t, fmt.Errorf("field path %q: %s is neither a struct nor a map, so it has no part %q", path, typ, name)
		}
		if part != nil {
			part(attr, 0)
		}
	}
	t.typ = typ
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
	case typ.Implements(marshalerType) || reflect.PointerTo(typ).Implements(marshalerType):
		return "encodes itself (attributevalue.Marshaler)"
	case (typ.Kind() == reflect.Slice || typ.Kind() == reflect.Array) && typ.Elem().Kind() == reflect.Uint8:
		return "is stored as a binary"
	case storedAsSet(typ, tg):
		return "is stored as a set"
	}
	return ""
}

// storedAsSet reports whether a value of type typ, encoded with tag tg, is
// stored as a set: a slice or array tagged as one, or a [][]byte.
func storedAsSet(typ reflect.Type, tg codec.Tag) bool {
	return (typ.Kind() == reflect.Slice || typ.Kind() == reflect.Array) && (tg.AsStrSet || tg.AsNumSet || tg.AsBinSet) ||
		typ == reflect.TypeFor[[][]byte]()
}

// unknownField explains a field name the entity does not have, suggesting
// the Go field when the caller used an attribute name or another case.
func (r resolver) unknownField(name string) error {
	if why := r.m.keyOnlyRefusal(name); why != "" {
		return errors.New(why)
	}
	msg := fmt.Sprintf("entity %s has no field %q", r.m.Name, name)
	if f, ok := r.m.Fields.ByAttr(name); ok {
		return fmt.Errorf("%s: %q is the attribute name of field %s; conditions and updates name Go fields", msg, name, f.GoName)
	}
	for _, f := range r.m.Fields.List {
		if strings.EqualFold(f.GoName, name) {
			return fmt.Errorf("%s: did you mean %s?", msg, f.GoName)
		}
	}
	return errors.New(msg)
}

// value returns the placeholder for v as the field stores it.
func (r resolver) value(field string, v any, element bool) (string, error) {
	if ref, ok := v.(FieldRef); ok {
		return r.attr(string(ref))
	}
	av, err := r.encode(field, v, element)
	if err != nil {
		return "", err
	}
	return r.b.Value(av), nil
}

// encode encodes v for the field path by the field's own dynamodbav rules
// (at any depth), plainly over raw attribute names.
func (r resolver) encode(field string, v any, element bool) (types.AttributeValue, error) {
	if r.m == nil {
		return marshalValue(field, v)
	}
	if topField(field) == field {
		// A top-level field, the usual case: no path to walk.
		if f, ok := r.m.Fields.ByGoName(field); ok {
			return r.m.encodeField(f, v, element)
		}
	}
	return r.m.encodeValue(field, v, element)
}

// attrExists and attrNotExists test an attribute by its stored name: the
// library's own conditions on key attributes, which must not be mistaken
// for a Go field of the same name.
func attrExists(attr string) Cond { return Cond{expr.UnaryAttr("attribute_exists", attr)} }

func attrNotExists(attr string) Cond { return Cond{expr.UnaryAttr("attribute_not_exists", attr)} }

// condFields is expr.Resolver for the conditions of entity m: Go field
// paths and values resolved as resolver does (raw attribute names when m is
// nil).
type condFields entityModel

// Path implements expr.Resolver.
func (m *condFields) Path(b *expr.Builder, path string) (string, error) {
	if err := (*entityModel)(m).refuseCompressed(path); err != nil {
		return "", err
	}
	return resolver{m: (*entityModel)(m), b: b}.attr(path)
}

// Value implements expr.Resolver.
func (m *condFields) Value(b *expr.Builder, path string, v any, element bool) (string, error) {
	return resolver{m: (*entityModel)(m), b: b}.value(path, v, element)
}

// renderCond renders c for entity m into b. An empty condition renders "".
// Expressions longer than the service's 4 KB limit are an error.
func renderCond(c Cond, m *entityModel, b *expr.Builder) (string, error) {
	return renderAnd(c, Cond{}, m, b)
}

// renderAnd renders And(c, and) as renderCond would, without building the
// junction when both are given.
func renderAnd(c, and Cond, m *entityModel, b *expr.Builder) (string, error) {
	var s string
	var err error
	switch {
	case c.n == nil && and.n == nil:
		return "", nil
	case and.n == nil:
		s, err = expr.Render(c.n, (*condFields)(m), b)
	case c.n == nil:
		s, err = expr.Render(and.n, (*condFields)(m), b)
	default:
		s, err = expr.RenderJoin("AND", c.n, and.n, (*condFields)(m), b)
	}
	if err != nil {
		return "", err
	}
	if err := checkExpression("", "condition", s); err != nil {
		return "", err
	}
	return s, nil
}
