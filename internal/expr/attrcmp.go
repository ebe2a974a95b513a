package expr

import "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

// CompareAttr is "attr op number" over a stored attribute name and a
// number's text: the library's own conditions on attributes no Go field
// holds (a shape revision), which must not be resolved as a field path.
// The node is built once and rendered into many requests, each of which a
// Client may modify: every rendering gets a value of its own.
func CompareAttr(attr, op, number string) Node { return attrCmpNode{attr, op, number} }

type attrCmpNode struct {
	attr, op, number string
}

func (n attrCmpNode) render(_ Resolver, b *Builder, w *writer) error {
	writeAll(w, b.Name(n.attr), " ", n.op, " ", b.Value(&types.AttributeValueMemberN{Value: n.number}))
	return nil
}

// EqAttrString is "attr = s" over a stored attribute name and a string:
// the library's own condition on the entity type attribute, which no Go
// field holds. As CompareAttr, every rendering gets a value of its own
// (a Client may modify a request).
func EqAttrString(attr, s string) Node { return attrEqSNode{attr, s} }

type attrEqSNode struct{ attr, s string }

func (n attrEqSNode) render(_ Resolver, b *Builder, w *writer) error {
	writeAll(w, b.Name(n.attr), " = ", b.Value(&types.AttributeValueMemberS{Value: n.s}))
	return nil
}
