// Package expr assembles DynamoDB expressions: it hands out placeholders for
// attribute names (#n0, #n1 ...) and values (:v0, :v1 ...), so that reserved
// words and special characters in names always work, and it collects the
// maps the request needs.
package expr

import (
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/codec"
)

// MaxExpressionBytes is DynamoDB's limit on the length of any one
// expression string.
const MaxExpressionBytes = 4096

// Builder collects the placeholders of one request. The zero value is ready
// to use; one Builder serves every expression of a request, so that names
// and values are shared between the key condition, the filter and the
// projection.
type Builder struct {
	// The attribute names seen, in placeholder order: #n<i> is the i-th.
	// Requests name a handful of attributes, so a linear search finds a
	// name again faster than a map would; the first few are kept in the
	// Builder itself (an array, so that a copied Builder shares nothing).
	// Eight cover an update that rewrites two index keys beside two fields
	// and a condition, which with four took three allocations more.
	first  [8]string
	more   []string
	names  int
	values int
	bytes  int // see Bytes
	// shared, when set, holds the names map instead of Names (ShareNames).
	shared *Shared
	// Names and Values are the request's ExpressionAttributeNames and
	// ExpressionAttributeValues; nil while empty, as the service wants.
	Names  map[string]string
	Values map[string]types.AttributeValue
}

// Placeholders up to these counts are preformatted, so that handing one
// out costs no allocation; requests rarely need more.
const (
	preNames  = 32
	preValues = 64
)

var (
	namePlaceholders  = placeholders("#n", preNames)
	valuePlaceholders = placeholders(":v", preValues)
)

func placeholders(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = prefix + strconv.Itoa(i)
	}
	return out
}

// placeholder returns prefix+i, preformatted when i is small.
func placeholder(pre []string, prefix string, i int) string {
	if i < len(pre) {
		return pre[i]
	}
	return prefix + strconv.Itoa(i)
}

// ValuePlaceholder is the placeholder of the i-th value a Builder hands
// out (":v<i>").
func ValuePlaceholder(i int) string { return placeholder(valuePlaceholders, ":v", i) }

// NamePlaceholder is the placeholder of the i-th attribute name a Builder
// hands out ("#n<i>").
func NamePlaceholder(i int) string { return placeholder(namePlaceholders, "#n", i) }

// Preset makes an empty b as if it had handed out names (in order) and the
// len(values) values of values (":v0" ... bound in it, which b takes as
// its Values), bytes being what they count (see Bytes): for a request
// whose first expression is known already, so that the next ones are
// rendered as they would have been after it.
func (b *Builder) Preset(names []string, values map[string]types.AttributeValue, bytes int) {
	for _, n := range names {
		b.add(n, NamePlaceholder(b.names), len(names))
	}
	b.Values, b.values = values, len(values)
	b.bytes += bytes
}

// Name returns the placeholder for an attribute name, reusing it when the
// name was seen before.
func (b *Builder) Name(attr string) string {
	for i := 0; i < b.names && i < len(b.first); i++ {
		if b.first[i] == attr {
			return placeholder(namePlaceholders, "#n", i)
		}
	}
	for i, a := range b.more {
		if a == attr {
			return placeholder(namePlaceholders, "#n", len(b.first)+i)
		}
	}
	p := NamePlaceholder(b.names)
	b.add(attr, p, 4)
	b.bytes += len(p) + len(attr)
	return p
}

// add hands out placeholder p for attr, the next name; hint sizes the
// Names map if b makes it.
func (b *Builder) add(attr, p string, hint int) {
	if b.names < len(b.first) {
		b.first[b.names] = attr
	} else {
		b.more = append(b.more, attr)
	}
	b.names++
	if b.shared == nil {
		if b.Names == nil {
			b.Names = make(map[string]string, hint)
		}
		b.Names[p] = attr
	}
}

// Value returns a new placeholder bound to v.
func (b *Builder) Value(v types.AttributeValue) string {
	p, _ := b.SizedValue(v)
	return p
}

// SizedValue is Value, and v's size by codec.Size, which Bytes counts
// anyway: for a caller that needs it too.
func (b *Builder) SizedValue(v types.AttributeValue) (p string, size int) {
	if b.Values == nil {
		b.Values = make(map[string]types.AttributeValue, 4)
	}
	p = placeholder(valuePlaceholders, ":v", b.values)
	b.values++
	b.Values[p] = v
	size = codec.Size(v)
	b.bytes += len(p) + size
	return p, size
}

// Bytes is the size of Names and Values as they count toward a request's
// size: every placeholder with its attribute name or its value (by
// codec.Size), added up as they are handed out.
func (b *Builder) Bytes() int { return b.bytes }

// S is shorthand for a string value.
func S(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }
