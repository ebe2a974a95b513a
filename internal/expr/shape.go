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

// AppendShape appends the shape of the condition rooted at n to sig. ok
// is false for a condition whose text or checks read its values beyond
// one at a time (Between, In, Size), or that takes a value bound does not
// hold a value the Resolver binds (a field reference, which names a path):
// it must be rendered. (A type switch rather than a method of Node: an
// interface method's arguments escape, and sig is the caller's stack.)
func AppendShape(n Node, sig []byte, bound func(v any) bool) (_ []byte, ok bool) {
	switch n := n.(type) {
	case cmpNode:
		return appendStr(appendStr(append(sig, 'c'), n.path), n.op), bound(n.v)
	case funcNode:
		var flags byte
		for i, f := range [...]bool{n.rawString, n.attrType, n.element, n.unary, n.rawAttr} {
			if f {
				flags |= 1 << i
			}
		}
		sig = appendStr(appendStr(append(sig, 'f', flags), n.fn), n.path)
		switch {
		case n.unary:
		case n.arg == nil:
			return sig, false // an error Render reports
		case n.attrType:
			t, _ := n.arg.(string)
			return appendStr(sig, t), true // Render checks it; the value is fixed
		case !n.rawString:
			return sig, bound(n.arg)
		}
	case attrCmpNode:
		sig = appendStr(appendStr(append(sig, 'a'), n.attr), n.op)
	case *Junction:
		sig = binary.AppendUvarint(appendStr(append(sig, 'j'), n.op), uint64(len(n.nodes)))
		for _, c := range n.nodes {
			if sig, ok = AppendShape(c, sig, bound); !ok {
				return sig, false
			}
		}
	case notNode:
		return AppendShape(n.n, append(sig, 'n'), bound)
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

// appendStr appends s to sig, its length first, so that no two shapes
// read alike.
func appendStr(sig []byte, s string) []byte {
	return append(binary.AppendUvarint(sig, uint64(len(s))), s...)
}
