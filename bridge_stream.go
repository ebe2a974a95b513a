package singletable

import (
	"reflect"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/bridge"
	"github.com/singletable/singletable/internal/codec"
)

// Package stream's part of the bridge (see internal/bridge).
func init() {
	bridge.ChangedFields = func(entity any, old, nu map[string]types.AttributeValue) []string {
		// Compared once, then the names in a slice of their number: one
		// allocation, where appending as it goes took one per doubling.
		fields := entity.(AnyEntity).model().fields.List
		var room [64]bool
		diff := room[:0]
		n := 0
		for _, f := range fields {
			d := !codec.Equal(old[f.Attr], nu[f.Attr])
			diff = append(diff, d)
			if d {
				n++
			}
		}
		out := make([]string, 0, n)
		for i, f := range fields {
			if diff[i] {
				out = append(out, f.GoName)
			}
		}
		return out
	}
	bridge.DecodeInto = func(entity any, item map[string]types.AttributeValue, v any) error {
		m := entity.(AnyEntity).model()
		return m.rawMember(item).decode(m.name+".Decode", item, reflect.ValueOf(v).Elem(), true)
	}
	bridge.IsGuardItem = func(table any, item map[string]types.AttributeValue) bool {
		t := table.(*Table)
		if pk, ok := item[t.pk].(*types.AttributeValueMemberS); ok {
			return isGuardKey([]byte(pk.Value), t.delim)
		}
		typ, ok := item[t.typeAttr].(*types.AttributeValueMemberS)
		return ok && typ.Value == guardType
	}
}
