package singletable

import (
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/expr"
)

// Cond is a condition on an item's attributes, written over Go field names:
// Eq("Status", "PENDING"), And(Exists("Email"), Gt("Total", 100)). It is
// used as a write condition (If), a query filter (Filter) and in
// transactions (Check). Field names are resolved against the entity when the
// request is built; an unknown field is an ErrInvalidInput before sending.
// Values are encoded with the field's own `dynamodbav` rules.
type Cond struct {
	n condNode
}

// IsZero reports whether c is the empty condition.
func (c Cond) IsZero() bool { return c.n == nil }

type condNode interface {
	render(r *resolver) (string, error)
}

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
func Eq(field string, v any) Cond { return Cond{cmpNode{field, "=", v}} }

// Ne: field <> v.
func Ne(field string, v any) Cond { return Cond{cmpNode{field, "<>", v}} }

// Lt: field < v.
func Lt(field string, v any) Cond { return Cond{cmpNode{field, "<", v}} }

// Le: field <= v.
func Le(field string, v any) Cond { return Cond{cmpNode{field, "<=", v}} }

// Gt: field > v.
func Gt(field string, v any) Cond { return Cond{cmpNode{field, ">", v}} }

// Ge: field >= v.
func Ge(field string, v any) Cond { return Cond{cmpNode{field, ">=", v}} }

// Between: lo <= field <= hi.
func Between(field string, lo, hi any) Cond { return Cond{betweenNode{field, lo, hi}} }

// In: field equals one of vs (1 to 100 values).
func In(field string, vs ...any) Cond { return Cond{inNode{field, vs}} }

// BeginsWith: the string field starts with prefix.
func BeginsWith(field string, prefix string) Cond {
	return Cond{funcNode{fn: "begins_with", field: field, arg: prefix, rawString: true}}
}

// Contains: the string field contains v as a substring, or the set or list
// field contains v as an element.
func Contains(field string, v any) Cond {
	return Cond{funcNode{fn: "contains", field: field, arg: v, element: true}}
}

// Exists: the item has the attribute.
func Exists(field string) Cond { return Cond{funcNode{fn: "attribute_exists", field: field}} }

// NotExists: the item lacks the attribute.
func NotExists(field string) Cond { return Cond{funcNode{fn: "attribute_not_exists", field: field}} }

// IsType: the attribute is of type t.
func IsType(field string, t AttrType) Cond {
	return Cond{funcNode{fn: "attribute_type", field: field, arg: t}}
}

// Size is the size of an attribute (string length, binary length, number of
// elements), for comparisons: Size("Tags").Gt(3).
func Size(field string) SizeOperand { return SizeOperand{field} }

// SizeOperand compares the size of an attribute; see Size.
type SizeOperand struct{ field string }

// Eq: size(field) = n.
func (s SizeOperand) Eq(n int) Cond { return Cond{sizeNode{s.field, "=", n}} }

// Ne: size(field) <> n.
func (s SizeOperand) Ne(n int) Cond { return Cond{sizeNode{s.field, "<>", n}} }

// Lt: size(field) < n.
func (s SizeOperand) Lt(n int) Cond { return Cond{sizeNode{s.field, "<", n}} }

// Le: size(field) <= n.
func (s SizeOperand) Le(n int) Cond { return Cond{sizeNode{s.field, "<=", n}} }

// Gt: size(field) > n.
func (s SizeOperand) Gt(n int) Cond { return Cond{sizeNode{s.field, ">", n}} }

// Ge: size(field) >= n.
func (s SizeOperand) Ge(n int) Cond { return Cond{sizeNode{s.field, ">=", n}} }

// And holds when every condition holds. Zero conditions are skipped.
func And(cs ...Cond) Cond { return junction("AND", cs) }

// Or holds when any condition holds. Zero conditions are skipped.
func Or(cs ...Cond) Cond { return junction("OR", cs) }

// Not negates c.
func Not(c Cond) Cond {
	if c.n == nil {
		return c
	}
	return Cond{notNode{c.n}}
}

func junction(op string, cs []Cond) Cond {
	var nodes []condNode
	for _, c := range cs {
		if c.n != nil {
			nodes = append(nodes, c.n)
		}
	}
	switch len(nodes) {
	case 0:
		return Cond{}
	case 1:
		return Cond{nodes[0]}
	}
	return Cond{junctionNode{op, nodes}}
}

// resolver turns field names into attribute placeholders and values into
// value placeholders, for one entity (or raw attribute names when m is nil).
type resolver struct {
	m *entityModel
	b *expr.Builder
}

// attr returns the placeholder of the attribute a Go field is stored under.
func (r *resolver) attr(field string) (string, error) {
	if field == "" {
		return "", fmt.Errorf("empty field name")
	}
	if r.m == nil {
		return r.b.Name(field), nil
	}
	if f, ok := r.m.fields.ByGoName(field); ok {
		return r.b.Name(f.Attr), nil
	}
	return "", fmt.Errorf("entity %s has no field %q", r.m.name, field)
}

// value returns the placeholder for v as the field stores it.
func (r *resolver) value(field string, v any, element bool) (string, error) {
	if ref, ok := v.(FieldRef); ok {
		return r.attr(string(ref))
	}
	var av types.AttributeValue
	var err error
	if r.m != nil {
		av, err = r.m.encodeValue(field, v, element)
	} else {
		av, err = marshalValue(v)
	}
	if err != nil {
		return "", err
	}
	return r.b.Value(av), nil
}

type cmpNode struct {
	field, op string
	v         any
}

func (n cmpNode) render(r *resolver) (string, error) {
	a, err := r.attr(n.field)
	if err != nil {
		return "", err
	}
	v, err := r.value(n.field, n.v, false)
	if err != nil {
		return "", err
	}
	return a + " " + n.op + " " + v, nil
}

type betweenNode struct {
	field  string
	lo, hi any
}

func (n betweenNode) render(r *resolver) (string, error) {
	a, err := r.attr(n.field)
	if err != nil {
		return "", err
	}
	lo, err := r.value(n.field, n.lo, false)
	if err != nil {
		return "", err
	}
	hi, err := r.value(n.field, n.hi, false)
	if err != nil {
		return "", err
	}
	return a + " BETWEEN " + lo + " AND " + hi, nil
}

type inNode struct {
	field string
	vs    []any
}

func (n inNode) render(r *resolver) (string, error) {
	if len(n.vs) == 0 || len(n.vs) > 100 {
		return "", fmt.Errorf("In(%q) takes 1 to 100 values, got %d", n.field, len(n.vs))
	}
	a, err := r.attr(n.field)
	if err != nil {
		return "", err
	}
	ps := make([]string, len(n.vs))
	for i, v := range n.vs {
		if ps[i], err = r.value(n.field, v, false); err != nil {
			return "", err
		}
	}
	return a + " IN (" + strings.Join(ps, ", ") + ")", nil
}

type funcNode struct {
	fn, field string
	arg       any
	rawString bool // the argument is a plain string, whatever the field's type
	element   bool // the argument may be an element of a set or list field
	rawAttr   bool // field is an attribute name, not a Go field (the library's own conditions)
}

// attrExists and attrNotExists test an attribute by its stored name: the
// library's own conditions on key attributes, which must not be mistaken
// for a Go field of the same name.
func attrExists(attr string) Cond {
	return Cond{funcNode{fn: "attribute_exists", field: attr, rawAttr: true}}
}

func attrNotExists(attr string) Cond {
	return Cond{funcNode{fn: "attribute_not_exists", field: attr, rawAttr: true}}
}

func (n funcNode) render(r *resolver) (string, error) {
	var a string
	var err error
	if n.rawAttr {
		a = r.b.Name(n.field)
	} else if a, err = r.attr(n.field); err != nil {
		return "", err
	}
	if n.arg == nil {
		return n.fn + "(" + a + ")", nil
	}
	var v string
	if t, ok := n.arg.(AttrType); ok {
		v = r.b.Value(&types.AttributeValueMemberS{Value: string(t)})
	} else if s, ok := n.arg.(string); ok && n.rawString {
		v = r.b.Value(&types.AttributeValueMemberS{Value: s})
	} else if v, err = r.value(n.field, n.arg, n.element); err != nil {
		return "", err
	}
	return n.fn + "(" + a + ", " + v + ")", nil
}

type sizeNode struct {
	field, op string
	n         int
}

func (n sizeNode) render(r *resolver) (string, error) {
	a, err := r.attr(n.field)
	if err != nil {
		return "", err
	}
	v := r.b.Value(&types.AttributeValueMemberN{Value: fmt.Sprint(n.n)})
	return "size(" + a + ") " + n.op + " " + v, nil
}

type junctionNode struct {
	op    string
	nodes []condNode
}

func (n junctionNode) render(r *resolver) (string, error) {
	parts := make([]string, len(n.nodes))
	for i, c := range n.nodes {
		s, err := c.render(r)
		if err != nil {
			return "", err
		}
		parts[i] = "(" + s + ")"
	}
	return strings.Join(parts, " "+n.op+" "), nil
}

type notNode struct{ n condNode }

func (n notNode) render(r *resolver) (string, error) {
	s, err := n.n.render(r)
	if err != nil {
		return "", err
	}
	return "NOT (" + s + ")", nil
}

// renderCond renders c for entity m into b. An empty condition renders "".
// Expressions longer than the service's 4 KB limit are an error.
func renderCond(c Cond, m *entityModel, b *expr.Builder) (string, error) {
	if c.n == nil {
		return "", nil
	}
	s, err := c.n.render(&resolver{m: m, b: b})
	if err != nil {
		return "", err
	}
	if len(s) > expr.MaxExpressionBytes {
		return "", fmt.Errorf("the condition expression is %d bytes; DynamoDB allows %d", len(s), expr.MaxExpressionBytes)
	}
	return s, nil
}
