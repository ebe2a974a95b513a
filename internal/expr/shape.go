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

// CondValue is a value a condition binds, in the order Render binds them:
// Raw as it is, or else V as the Resolver resolves it for Path.
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

// AppendShape appends the shape of the condition rooted at n to sig, and
// the values it binds to vals, in the order Render binds them. ok is false
// for a condition whose text or checks read its values beyond one at a
// time (Between, In, Size): it must be rendered. A value the Resolver
// would resolve to a path rather than bind (a field reference) is the
// caller's to turn down. (A type switch rather than a method of Node: an
// interface method's arguments escape, and sig and vals are the caller's
// stack.)
func AppendShape(n Node, sig []byte, vals []CondValue) (_ []byte, _ []CondValue, ok bool) {
	switch n := n.(type) {
	case cmpNode:
		sig = appendStr(appendStr(append(sig, 'c'), n.path), n.op)
		vals = append(vals, CondValue{Path: n.path, V: n.v, Ordering: ordering(n.op)})
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
			return sig, vals, false // an error Render reports
		case n.attrType:
			t, _ := n.arg.(string)
			sig = appendStr(sig, t) // Render checks it; the value is fixed
			vals = append(vals, CondValue{Raw: &types.AttributeValueMemberS{Value: t}})
		default:
			if str, ok := n.arg.(string); ok && n.rawString {
				vals = append(vals, CondValue{Raw: &types.AttributeValueMemberS{Value: str}})
			} else {
				vals = append(vals, CondValue{Path: n.path, V: n.arg, Element: n.element})
			}
		}
	case attrCmpNode:
		sig = appendStr(appendStr(append(sig, 'a'), n.attr), n.op)
		vals = append(vals, CondValue{Raw: &types.AttributeValueMemberN{Value: n.number}})
	case *Junction:
		sig = binary.AppendUvarint(appendStr(append(sig, 'j'), n.op), uint64(len(n.nodes)))
		for _, c := range n.nodes {
			if sig, vals, ok = AppendShape(c, sig, vals); !ok {
				return sig, vals, false
			}
		}
	case notNode:
		return AppendShape(n.n, append(sig, 'n'), vals)
	default: // Between, In, Size
		return sig, vals, false
	}
	return sig, vals, true
}

// appendStr appends s to sig, its length first, so that no two shapes
// read alike.
func appendStr(sig []byte, s string) []byte {
	return append(binary.AppendUvarint(sig, uint64(len(s))), s...)
}
