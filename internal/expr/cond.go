package expr

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/codec"
)

// Resolver resolves what a condition names, for one request: a field path
// to its placeholder expression ("#n0.#n1[2]"), and a value given for a
// path to its value placeholder (":v0"), both handed out by b. It is where
// the entity model comes in: which attribute a Go field is stored as, and
// how a value is encoded.
type Resolver interface {
	Path(b *Builder, path string) (string, error)
	Value(b *Builder, path string, v any, element bool) (string, error)
}

// Node is a node of a condition tree. It renders its expression straight
// into the one writer of the whole condition, so that nesting costs no
// intermediate strings.
type Node interface {
	render(r Resolver, b *Builder, w *writer) error
}

// writer is where a condition renders: a growing byte buffer.
type writer struct{ buf []byte }

func (w *writer) WriteString(s string) { w.buf = append(w.buf, s...) }
func (w *writer) writeByte(c byte)     { w.buf = append(w.buf, c) }

// writers recycles the writers of conditions that Render interns.
var writers = sync.Pool{New: func() any { return &writer{buf: make([]byte, 0, 128)} }}

// Render renders the condition rooted at n. An expression longer than
// DynamoDB's limit is the caller's to refuse. A Builder given ShareNames
// also shares the expression string (see Shared.Intern).
func Render(n Node, r Resolver, b *Builder) (string, error) {
	if f, ok := n.(funcNode); ok && f.rawAttr && f.unary && b.shared != nil {
		// The library's own condition of most writes (attribute_exists of
		// the key), as funcNode.render writes it, without a writer.
		var buf [96]byte
		text := append(append(append(append(buf[:0], f.fn...), '('), b.Name(f.path)...), ')')
		return b.shared.Intern(text), nil
	}
	w := b.writer()
	if err := n.render(r, b, w); err != nil {
		return "", err
	}
	return b.text(w), nil
}

// RenderJoin renders the junction of x and y with op ("AND" or "OR") as
// Render renders Join(op) of them, without building the junction: the
// library's own condition joined with the caller's, on most writes.
func RenderJoin(op string, x, y Node, r Resolver, b *Builder) (string, error) {
	pair := [2]Node{x, y}
	j := Junction{op: op, nodes: pair[:]}
	w := b.writer()
	if err := j.render(r, b, w); err != nil {
		return "", err
	}
	return b.text(w), nil
}

// writer returns a writer for one condition: a recycled one when the
// text is interned (and so copied), else one whose buffer becomes the
// string (see text).
func (b *Builder) writer() *writer {
	if b.shared != nil {
		return writers.Get().(*writer)
	}
	// Most conditions fit: one allocation rather than growing from 8 bytes.
	return &writer{buf: make([]byte, 0, 64)}
}

// text is what w holds as a string: interned, w recycled, for a Builder
// given ShareNames; else the buffer itself, never written again. What the
// recycling and the unsafe.String buy: a condition's text costs no copy
// of its bytes (one allocation fewer per condition a write renders).
func (b *Builder) text(w *writer) string {
	if b.shared != nil {
		s := b.shared.Intern(w.buf)
		if cap(w.buf) <= 2*MaxExpressionBytes { // keep no giant buffer
			w.buf = w.buf[:0]
			writers.Put(w)
		}
		return s
	}
	return unsafe.String(unsafe.SliceData(w.buf), len(w.buf))
}

// writeAll writes the strings to w in order.
func writeAll(w *writer, ss ...string) {
	for _, s := range ss {
		w.WriteString(s)
	}
}

// Compare is "path op v": op is =, <>, <, <=, > or >=.
func Compare(path, op string, v any) Node { return cmpNode{path, op, v} }

type cmpNode struct {
	path, op string
	v        any
}

func (n cmpNode) render(r Resolver, b *Builder, w *writer) error {
	a, err := r.Path(b, n.path)
	if err != nil {
		return err
	}
	v, err := r.Value(b, n.path, n.v, false)
	if err != nil {
		return err
	}
	if name := ordering(n.op); name != "" {
		if av := b.valueOf(v); av != nil && !codec.Ordered(av) {
			return fmt.Errorf("%s(%q): DynamoDB orders strings, numbers and binary values only, and refuses %s with %s", name, n.path, n.op, typeName(av))
		}
	}
	writeAll(w, a, " ", n.op, " ", v)
	return nil
}

// ordering names an ordering comparison, which DynamoDB takes on strings,
// numbers and binary values only; "" for = and <>. (A switch: conditions
// render on every write.)
func ordering(op string) string {
	switch op {
	case "<":
		return "Lt"
	case "<=":
		return "Le"
	case ">":
		return "Gt"
	case ">=":
		return "Ge"
	}
	return ""
}

// valueOf is the value behind placeholder p, nil when p is no value
// placeholder (a FieldRef's path).
func (b *Builder) valueOf(p string) types.AttributeValue {
	if len(p) == 0 || p[0] != ':' {
		return nil
	}
	return b.Values[p]
}

// typeName is a value's DynamoDB type, for messages: "BOOL", "a list" ...
func typeName(v types.AttributeValue) string {
	switch v.(type) {
	case *types.AttributeValueMemberBOOL:
		return "a boolean (BOOL)"
	case *types.AttributeValueMemberNULL:
		return "a NULL"
	case *types.AttributeValueMemberL:
		return "a list (L)"
	case *types.AttributeValueMemberM:
		return "a map (M)"
	case *types.AttributeValueMemberSS, *types.AttributeValueMemberNS, *types.AttributeValueMemberBS:
		return "a set"
	case *types.AttributeValueMemberS:
		return "a string (S)"
	case *types.AttributeValueMemberN:
		return "a number (N)"
	case *types.AttributeValueMemberB:
		return "a binary value (B)"
	}
	return fmt.Sprintf("%T", v)
}

// Between is "path BETWEEN lo AND hi".
func Between(path string, lo, hi any) Node { return betweenNode{path, lo, hi} }

type betweenNode struct {
	path   string
	lo, hi any
}

func (n betweenNode) render(r Resolver, b *Builder, w *writer) error {
	a, err := r.Path(b, n.path)
	if err != nil {
		return err
	}
	lo, err := r.Value(b, n.path, n.lo, false)
	if err != nil {
		return err
	}
	hi, err := r.Value(b, n.path, n.hi, false)
	if err != nil {
		return err
	}
	if err := checkBetween(n.path, b.valueOf(lo), b.valueOf(hi)); err != nil {
		return err
	}
	writeAll(w, a, " BETWEEN ", lo, " AND ", hi)
	return nil
}

// checkBetween refuses the bounds DynamoDB refuses: of a type it does not
// order, of two types, or the lower one above the upper one. A nil bound
// is a FieldRef, known only to the service.
func checkBetween(path string, lo, hi types.AttributeValue) error {
	for _, v := range []types.AttributeValue{lo, hi} {
		if v != nil && !codec.Ordered(v) {
			return fmt.Errorf("Between(%q): DynamoDB orders strings, numbers and binary values only, and refuses BETWEEN with %s", path, typeName(v))
		}
	}
	if lo == nil || hi == nil {
		return nil
	}
	c, ok := codec.Compare(lo, hi)
	switch {
	case !ok:
		return fmt.Errorf("Between(%q): the bounds are %s and %s; DynamoDB takes two of one type", path, typeName(lo), typeName(hi))
	case c > 0:
		return fmt.Errorf("Between(%q): the lower bound %s is above the upper bound %s, which DynamoDB refuses", path, formatBound(lo), formatBound(hi))
	}
	return nil
}

// formatBound shows a bound in a message.
func formatBound(v types.AttributeValue) string {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return fmt.Sprintf("%q", v.Value)
	case *types.AttributeValueMemberN:
		return v.Value
	case *types.AttributeValueMemberB:
		return fmt.Sprintf("%x", v.Value)
	}
	return typeName(v)
}

// In is "path IN (v1, v2, ...)", with 1 to 100 values.
func In(path string, vs []any) Node { return inNode{path, vs} }

type inNode struct {
	path string
	vs   []any
}

func (n inNode) render(r Resolver, b *Builder, w *writer) error {
	if len(n.vs) == 0 || len(n.vs) > 100 {
		return fmt.Errorf("In(%q) takes 1 to 100 values, got %d", n.path, len(n.vs))
	}
	a, err := r.Path(b, n.path)
	if err != nil {
		return err
	}
	writeAll(w, a, " IN (")
	for i, v := range n.vs {
		p, err := r.Value(b, n.path, v, false)
		if err != nil {
			return err
		}
		if i > 0 {
			w.WriteString(", ")
		}
		w.WriteString(p)
	}
	w.writeByte(')')
	return nil
}

// Call is the function call "fn(path, v)" ("contains"), v resolved for
// path; element says v may be an element of a set or list there.
func Call(fn, path string, v any, element bool) Node {
	return funcNode{fn: fn, path: path, arg: v, element: element}
}

// CallString is "fn(path, s)" ("begins_with") with s a plain string value,
// whatever the path's type.
func CallString(fn, path, s string) Node {
	return funcNode{fn: fn, path: path, arg: s, rawString: true}
}

// Unary is "fn(path)" ("attribute_exists").
func Unary(fn, path string) Node { return funcNode{fn: fn, path: path, unary: true} }

// UnaryAttr is "fn(attr)" over a stored attribute name, not a path the
// Resolver resolves: the library's own conditions on key attributes, which
// must not be mistaken for a Go field of the same name.
func UnaryAttr(fn, attr string) Node {
	return funcNode{fn: fn, path: attr, unary: true, rawAttr: true}
}

// CallType is "fn(path, t)" ("attribute_type") with t one of DynamoDB's
// attribute type names (S, SS, N, NS, B, BS, BOOL, NULL, L, M), written as
// a string value.
func CallType(fn, path, t string) Node {
	return funcNode{fn: fn, path: path, arg: t, attrType: true}
}

type funcNode struct {
	fn, path  string
	arg       any
	rawString bool // the argument is a plain string, whatever the field's type
	attrType  bool // the argument is an attribute type name
	element   bool // the argument may be an element of a set or list field
	unary     bool // the function takes no argument
	rawAttr   bool // path is an attribute name (see UnaryAttr)
}

func (n funcNode) render(r Resolver, b *Builder, w *writer) error {
	var a string
	var err error
	if n.rawAttr {
		a = b.Name(n.path)
	} else if a, err = r.Path(b, n.path); err != nil {
		return err
	}
	if n.unary {
		writeAll(w, n.fn, "(", a, ")")
		return nil
	}
	if n.arg == nil {
		return fmt.Errorf("%s(%q) needs a value, got nil", n.fn, n.path)
	}
	var v string
	if n.attrType {
		t := n.arg.(string)
		switch t {
		case "S", "SS", "N", "NS", "B", "BS", "BOOL", "NULL", "L", "M":
		default:
			return fmt.Errorf("IsType(%q): unknown attribute type %q", n.path, t)
		}
		v = b.Value(&types.AttributeValueMemberS{Value: t})
	} else if s, ok := n.arg.(string); ok && n.rawString {
		v = b.Value(&types.AttributeValueMemberS{Value: s})
	} else if v, err = r.Value(b, n.path, n.arg, n.element); err != nil {
		return err
	}
	writeAll(w, n.fn, "(", a, ", ", v, ")")
	return nil
}

// Size is "size(path) op n".
func Size(path, op string, n int) Node { return sizeNode{path, op, n} }

type sizeNode struct {
	path, op string
	n        int
}

func (n sizeNode) render(r Resolver, b *Builder, w *writer) error {
	a, err := r.Path(b, n.path)
	if err != nil {
		return err
	}
	v := b.Value(&types.AttributeValueMemberN{Value: fmt.Sprint(n.n)})
	writeAll(w, "size(", a, ") ", n.op, " ", v)
	return nil
}

// Junction joins nodes with AND or OR, each in parentheses. Most junctions
// join two (the library's condition and the caller's): they are held
// inline, so that a junction is one allocation.
type Junction struct {
	op    string
	nodes []Node
	pair  [2]Node
}

// Join starts a junction of nodes with op, "AND" or "OR"; Add adds them.
func Join(op string) *Junction {
	j := &Junction{op: op}
	j.nodes = j.pair[:0]
	return j
}

// Add adds a node to the junction.
func (j *Junction) Add(n Node) { j.nodes = append(j.nodes, n) }

func (j *Junction) render(r Resolver, b *Builder, w *writer) error {
	for i, c := range j.nodes {
		if i > 0 {
			writeAll(w, " ", j.op, " ")
		}
		w.writeByte('(')
		if err := c.render(r, b, w); err != nil {
			return err
		}
		w.writeByte(')')
	}
	return nil
}

// Not is "NOT (n)".
func Not(n Node) Node { return notNode{n} }

type notNode struct{ n Node }

func (n notNode) render(r Resolver, b *Builder, w *writer) error {
	w.WriteString("NOT (")
	if err := n.n.render(r, b, w); err != nil {
		return err
	}
	w.writeByte(')')
	return nil
}
