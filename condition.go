package singletable

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/expr"
	"github.com/singletable/singletable/internal/model"
	writes "github.com/singletable/singletable/internal/write"
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
// Gt("Balance", FieldRef("Limit")). The write engine (internal/write),
// which renders and compiles conditions, defines the type.
type FieldRef = writes.FieldRef

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

// path resolves a field path to its placeholder expression (see
// writes.PathExpr). The library's own conditions on key attributes use
// attrExists and attrNotExists instead. nested reports whether the path
// goes below a top-level field.
func (r resolver) path(path string) (p string, nested bool, err error) {
	return writes.FieldPath(r.entity(), r.b, path)
}

// keyOnly refuses a path through a key-only field: its value is in the
// table key alone, which a condition cannot name (see keyonly.go).
func (r resolver) keyOnly(path string) error {
	return writes.KeyOnlyPath(r.entity(), path)
}

// unknownField explains a field name the entity does not have (see
// writes.UnknownField).
func (r resolver) unknownField(name string) error {
	if err := r.keyOnly(name); err != nil {
		return err
	}
	return writes.UnknownField(r.m.Entity, name)
}

// entity is the model of r's entity, nil over raw attribute names.
func (r resolver) entity() *model.Entity {
	if r.m == nil {
		return nil
	}
	return r.m.Entity
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
// (at any depth), plainly over raw attribute names (see writes.EncodeCond).
func (r resolver) encode(field string, v any, element bool) (types.AttributeValue, error) {
	return writes.EncodeCond(r.entity(), field, v, element)
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
