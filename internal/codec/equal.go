package codec

import (
	"bytes"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Equal reports whether two attribute values are the same stored value:
// sets compare as sets (DynamoDB keeps no order), lists and maps element
// by element, and nil (an absent attribute) equals only nil.
func Equal(a, b types.AttributeValue) bool {
	switch a := a.(type) {
	case nil:
		return b == nil
	case *types.AttributeValueMemberS:
		b, ok := b.(*types.AttributeValueMemberS)
		return ok && a.Value == b.Value
	case *types.AttributeValueMemberN:
		b, ok := b.(*types.AttributeValueMemberN)
		return ok && a.Value == b.Value
	case *types.AttributeValueMemberB:
		b, ok := b.(*types.AttributeValueMemberB)
		return ok && bytes.Equal(a.Value, b.Value)
	case *types.AttributeValueMemberBOOL:
		b, ok := b.(*types.AttributeValueMemberBOOL)
		return ok && a.Value == b.Value
	case *types.AttributeValueMemberNULL:
		b, ok := b.(*types.AttributeValueMemberNULL)
		return ok && a.Value == b.Value
	case *types.AttributeValueMemberSS:
		b, ok := b.(*types.AttributeValueMemberSS)
		return ok && sameSet(a.Value, b.Value)
	case *types.AttributeValueMemberNS:
		b, ok := b.(*types.AttributeValueMemberNS)
		return ok && sameSet(a.Value, b.Value)
	case *types.AttributeValueMemberBS:
		b, ok := b.(*types.AttributeValueMemberBS)
		if !ok || len(a.Value) != len(b.Value) {
			return false
		}
		as, bs := make([]string, len(a.Value)), make([]string, len(b.Value))
		for i := range a.Value {
			as[i], bs[i] = string(a.Value[i]), string(b.Value[i])
		}
		return sameSet(as, bs)
	case *types.AttributeValueMemberL:
		b, ok := b.(*types.AttributeValueMemberL)
		return ok && slices.EqualFunc(a.Value, b.Value, Equal)
	case *types.AttributeValueMemberM:
		b, ok := b.(*types.AttributeValueMemberM)
		return ok && EqualItems(a.Value, b.Value)
	}
	return false
}

// EqualItems reports whether two items (or maps) hold the same attributes
// with Equal values.
func EqualItems(a, b map[string]types.AttributeValue) bool {
	if len(a) != len(b) {
		return false
	}
	for k, av := range a {
		if bv, ok := b[k]; !ok || !Equal(av, bv) {
			return false
		}
	}
	return true
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
