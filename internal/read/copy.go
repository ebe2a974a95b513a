package read

import (
	"bytes"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// A Client may modify the requests it is given, and keep them: a request
// shares no map, slice or attribute value with the library's own record
// of a read (its first request's maps, where a page or a segment starts),
// nor with any other request. The engine hands a Client copies of what it
// keeps (CopyItem), and builds the maps of a query's later pages afresh
// (Source.Renew).

// CopyItem is a copy of item (a key, an item, a request's values) sharing
// nothing with it, down to the attribute values; nil for nil.
func CopyItem(item map[string]types.AttributeValue) map[string]types.AttributeValue {
	if item == nil {
		return nil
	}
	out := make(map[string]types.AttributeValue, len(item))
	for k, v := range item {
		out[k] = CopyValue(v)
	}
	return out
}

// CopyValue is a copy of v sharing nothing with it. A value of a type the
// SDK does not know (types.UnknownUnionMember) is returned as it is.
func CopyValue(v types.AttributeValue) types.AttributeValue {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return &types.AttributeValueMemberS{Value: v.Value}
	case *types.AttributeValueMemberN:
		return &types.AttributeValueMemberN{Value: v.Value}
	case *types.AttributeValueMemberB:
		return &types.AttributeValueMemberB{Value: bytes.Clone(v.Value)}
	case *types.AttributeValueMemberBOOL:
		return &types.AttributeValueMemberBOOL{Value: v.Value}
	case *types.AttributeValueMemberNULL:
		return &types.AttributeValueMemberNULL{Value: v.Value}
	case *types.AttributeValueMemberSS:
		return &types.AttributeValueMemberSS{Value: slices.Clone(v.Value)}
	case *types.AttributeValueMemberNS:
		return &types.AttributeValueMemberNS{Value: slices.Clone(v.Value)}
	case *types.AttributeValueMemberBS:
		var bs [][]byte
		if v.Value != nil {
			bs = make([][]byte, len(v.Value))
			for i, b := range v.Value {
				bs[i] = bytes.Clone(b)
			}
		}
		return &types.AttributeValueMemberBS{Value: bs}
	case *types.AttributeValueMemberL:
		var l []types.AttributeValue
		if v.Value != nil {
			l = make([]types.AttributeValue, len(v.Value))
			for i, e := range v.Value {
				l[i] = CopyValue(e)
			}
		}
		return &types.AttributeValueMemberL{Value: l}
	case *types.AttributeValueMemberM:
		return &types.AttributeValueMemberM{Value: CopyItem(v.Value)}
	}
	return v
}
