package expr

import "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

// CompareAttr is "attr op v" over a stored attribute name and a value
// already encoded: the library's own conditions on attributes no Go field
// holds (a shape revision), which must not be resolved as a field path.
func CompareAttr(attr, op string, v types.AttributeValue) Node { return attrCmpNode{attr, op, v} }

type attrCmpNode struct {
	attr, op string
	v        types.AttributeValue
}

func (n attrCmpNode) render(_ Resolver, b *Builder, w *writer) error {
	writeAll(w, b.Name(n.attr), " ", n.op, " ", b.Value(n.v))
	return nil
}
