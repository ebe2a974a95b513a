// Package expr assembles DynamoDB expressions: it hands out placeholders for
// attribute names (#n0, #n1 ...) and values (:v0, :v1 ...), so that reserved
// words and special characters in names always work, and it collects the
// maps the request needs.
package expr

import (
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// MaxExpressionBytes is DynamoDB's limit on the length of any one
// expression string.
const MaxExpressionBytes = 4096

// Builder collects the placeholders of one request. The zero value is ready
// to use; one Builder serves every expression of a request, so that names
// and values are shared between the key condition, the filter and the
// projection.
type Builder struct {
	names  map[string]string // attribute name -> placeholder
	values int
	// Names and Values are the request's ExpressionAttributeNames and
	// ExpressionAttributeValues; nil while empty, as the service wants.
	Names  map[string]string
	Values map[string]types.AttributeValue
}

// Name returns the placeholder for an attribute name, reusing it when the
// name was seen before.
func (b *Builder) Name(attr string) string {
	if p, ok := b.names[attr]; ok {
		return p
	}
	if b.names == nil {
		b.names = map[string]string{}
		b.Names = map[string]string{}
	}
	p := "#n" + strconv.Itoa(len(b.names))
	b.names[attr] = p
	b.Names[p] = attr
	return p
}

// Value returns a new placeholder bound to v.
func (b *Builder) Value(v types.AttributeValue) string {
	if b.Values == nil {
		b.Values = map[string]types.AttributeValue{}
	}
	p := ":v" + strconv.Itoa(b.values)
	b.values++
	b.Values[p] = v
	return p
}

// S is shorthand for a string value.
func S(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }

// Ptr returns a pointer to s, or nil for an empty string (absent expression).
func Ptr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
