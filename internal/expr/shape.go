package expr

// A condition's shape: what its text depends on (its nodes, paths,
// operators and literal arguments) apart from the values it binds. Two
// conditions of one shape render the same text and names for one entity,
// so a caller that kept the text of one (the root's update skeletons) can
// bind the other's values into a request without rendering it again.

import (
	"encoding/binary"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// CondValue is a value a condition binds (see AppendValues): Raw as it
// is, or else V as the Resolver resolves it for Path.
type CondValue struct {
	Path    string
	V       any
	Element bool
	// Ordering names the ordering comparison ("Ge") whose operand V is,
	// which DynamoDB takes on strings, numbers and binary values only:
	// Render refuses other values there, and so must a caller binding
	// them. "" for none.
	Ordering string
	Raw      types.AttributeValue
}

// AppendShape appends the shape of the condition rooted at n to sig, in
// the room sig has (it never grows it). ok is false for a condition whose
// shape does not fit there, for one whose text or checks read its values beyond
// one at a time (Between, In, Size), or that names a path with a value
// (nil for none) shapeable refuses (a field reference, which the Resolver
// resolves to a path rather than binds; a path made from data, whose
// shapes would be many): it must be rendered. (A type switch rather than
// a method of Node: an interface method's arguments escape, and sig is
// the caller's stack.)
func AppendShape(n Node, sig []byte, shapeable func(path string, v any) bool) (_ []byte, ok bool) {
	switch n := n.(type) {
	case cmpNode:
		if !fits(sig, len(n.path)+len(n.op)) {
			return sig, false
		}
		return appendStr(appendStr(append(sig, 'c'), n.path), n.op), shapeable(n.path, n.v)
	case funcNode:
		t, _ := n.arg.(string)
		if !fits(sig, len(n.fn)+len(n.path)+len(t)) {
			return sig, false
		}
		var flags byte
		for i, f := range [...]bool{n.rawString, n.attrType, n.element, n.unary, n.rawAttr} {
			if f {
				flags |= 1 << i
			}
		}
		sig = appendStr(appendStr(append(sig, 'f', flags), n.fn), n.path)
		switch {
		case n.rawAttr: // an attribute name, no value
		case n.unary:
			return sig, shapeable(n.path, nil)
		case n.arg == nil:
			return sig, false // an error Render reports
		case n.attrType:
			return appendStr(sig, t), shapeable(n.path, nil) // Render checks t; the value is fixed
		case n.rawString:
			return sig, shapeable(n.path, nil)
		default:
			return sig, shapeable(n.path, n.arg)
		}
	case attrCmpNode:
		if !fits(sig, len(n.attr)+len(n.op)) {
			return sig, false
		}
		sig = appendStr(appendStr(append(sig, 'a'), n.attr), n.op)
	case *Junction:
		if !fits(sig, len(n.op)) {
			return sig, false
		}
		sig = binary.AppendUvarint(appendStr(append(sig, 'j'), n.op), uint64(len(n.nodes)))
		for _, c := range n.nodes {
			if sig, ok = AppendShape(c, sig, shapeable); !ok {
				return sig, false
			}
		}
	case notNode:
		if !fits(sig, 0) {
			return sig, false
		}
		return AppendShape(n.n, append(sig, 'n'), shapeable)
	default: // Between, In, Size
		return sig, false
	}
	return sig, true
}

// AppendValues appends the values the condition rooted at n binds to
// vals, in the order Render binds them, for a condition that has a shape
// (AppendShape): what a request of its shape binds besides its text.
func AppendValues(n Node, vals []CondValue) []CondValue {
	switch n := n.(type) {
	case cmpNode:
		vals = append(vals, CondValue{Path: n.path, V: n.v, Ordering: ordering(n.op)})
	case funcNode:
		switch {
		case n.unary:
		case n.attrType:
			t, _ := n.arg.(string)
			vals = append(vals, CondValue{Raw: &types.AttributeValueMemberS{Value: t}})
		case n.rawString:
			s, _ := n.arg.(string)
			vals = append(vals, CondValue{Raw: &types.AttributeValueMemberS{Value: s}})
		default:
			vals = append(vals, CondValue{Path: n.path, V: n.arg, Element: n.element})
		}
	case attrCmpNode:
		vals = append(vals, CondValue{Raw: &types.AttributeValueMemberN{Value: n.number}})
	case *Junction:
		for _, c := range n.nodes {
			vals = AppendValues(c, vals)
		}
	case notNode:
		vals = AppendValues(n.n, vals)
	}
	return vals
}

// fits reports whether a node whose strings are n bytes fits in the room
// left in sig: a condition whose shape does not is rendered (a shape that
// long would cost allocations, and is likely made from data).
func fits(sig []byte, n int) bool {
	return len(sig)+3*binary.MaxVarintLen64+2+n <= cap(sig)
}

// appendStr appends s to sig, its length first, so that no two shapes
// read alike.
func appendStr(sig []byte, s string) []byte {
	return append(binary.AppendUvarint(sig, uint64(len(s))), s...)
}
