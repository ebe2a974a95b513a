package singletable

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/bridge"
	"github.com/singletable/singletable/internal/codec"
	"github.com/singletable/singletable/internal/model"
)

// Package stream's part of the bridge (see internal/bridge).
func init() {
	bridge.ChangedFields = func(entity any, old, nu map[string]types.AttributeValue) []string {
		out := []string{}
		for _, f := range entity.(AnyEntity).model().Fields.List {
			if !codec.Equal(old[f.Attr], nu[f.Attr]) {
				out = append(out, f.GoName)
			}
		}
		return out
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
