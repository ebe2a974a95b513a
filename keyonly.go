package singletable

import (
	"fmt"
	"reflect"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
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

// noSuchField is why the struct has no stored field name, which a
// declaration (as what: "the version field") needs: a key-only field has
// no attribute to store it in or condition on; other names are not fields.
func (m *entityModel) noSuchField(name, what string) string {
	if ko, ok := m.KeyOnlyOf(name); ok {
		return fmt.Sprintf("declared as %s, but field %s is key-only (tagged `dynamodbav:\"-\"`, held only by key %s %q): it has no attribute of its own to be stored in and conditioned on; store the field (drop the tag)",
			what, name, ko.Attr, ko.Tpl.Raw)
	}
	return fmt.Sprintf("declared as %s, but the struct has no such field", what)
}

// isKeyOnly reports whether field goName is key-only.
func (m *entityModel) isKeyOnly(goName string) bool {
	_, ok := m.KeyOnlyOf(goName)
	return ok
}
