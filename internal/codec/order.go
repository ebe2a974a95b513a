package codec

import (
	"bytes"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Ordered reports whether DynamoDB orders values of v's type: strings,
// numbers and binary, the only operands it takes for <, <=, >, >= and
// BETWEEN.
func Ordered(v types.AttributeValue) bool {
	switch v.(type) {
	case *types.AttributeValueMemberS, *types.AttributeValueMemberN, *types.AttributeValueMemberB:
		return true
	}
	return false
}

// Compare orders a and b as DynamoDB does: strings by their UTF-8 bytes,
// numbers by value, binary by bytes. ok is false when they are not both of
// one of those types, or a number does not parse.
func Compare(a, b types.AttributeValue) (c int, ok bool) {
	switch a := a.(type) {
	case *types.AttributeValueMemberS:
		if b, isS := b.(*types.AttributeValueMemberS); isS {
			return strings.Compare(a.Value, b.Value), true
		}
	case *types.AttributeValueMemberB:
		if b, isB := b.(*types.AttributeValueMemberB); isB {
			return bytes.Compare(a.Value, b.Value), true
		}
	case *types.AttributeValueMemberN:
		if b, isN := b.(*types.AttributeValueMemberN); isN {
			if _, err := parseNumber(a.Value); err != nil {
				return 0, false
			}
			if _, err := parseNumber(b.Value); err != nil {
				return 0, false
			}
			return CompareNumbers(a.Value, b.Value), true
		}
	}
	return 0, false
}
