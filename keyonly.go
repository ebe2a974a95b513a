package singletable

import (
	"reflect"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	writes "github.com/singletable/singletable/internal/write"
)

// Key-only fields
//
// A field tagged `dynamodbav:"-"` that the table key's template names
// lives in the key only, as tables written by other code often have it
// ("USER#{ID}" and no id attribute): writes render it into its keys, and
// every read parses it back from the table key (internal/model's
// keyonly.go says what Define requires). It has no attribute, so a
// condition, a filter or an update cannot name it: a condition on it is a
// condition on the key, and changing it would move the item.

// decodeKeyOnly sets v's key-only fields from item's table key.
func (m *entityModel) decodeKeyOnly(op string, item map[string]types.AttributeValue, v reflect.Value) error {
	if err := m.ParseKeyOnly(item, v); err != nil {
		return &DecodeError{Op: op, Entity: m.Name, Key: m.keyOfItem(item), Reason: err.Error(), Err: err}
	}
	return nil
}

// keyOnlyRefusal explains why a condition, filter or update cannot name
// field name when it is key-only; "" when it is not.
func (m *entityModel) keyOnlyRefusal(name string) string {
	return writes.KeyOnlyRefusal(m.Entity, name)
}
