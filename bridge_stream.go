package singletable

import (
	"reflect"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/bridge"
	"github.com/singletable/singletable/internal/codec"
	"github.com/singletable/singletable/internal/model"
)

// Package stream's part of the bridge (see internal/bridge).
func init() {
	bridge.ChangedFields = func(entity any, old, nu map[string]types.AttributeValue) []string {
		// Compared once, then the names in a slice of their number: one
		// allocation, where appending as it goes took one per doubling.
		fields := entity.(AnyEntity).model().Fields.List
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
		return m.rawMember(item).decode(m.Name+".Decode", item, reflect.ValueOf(v).Elem(), true)
	}
	bridge.IsGuardItem = func(table any, item map[string]types.AttributeValue) bool {
		t := table.(*Table)
		if pk, ok := item[t.schema.PK].(*types.AttributeValueMemberS); ok {
			return model.IsGuardKey([]byte(pk.Value), t.schema.Delim)
		}
		typ, ok := item[t.schema.TypeAttr].(*types.AttributeValueMemberS)
		return ok && typ.Value == model.GuardType
	}
}
