package singletable

import (
	"reflect"
	"time"

	"github.com/singletable/singletable/internal/keys"
	"github.com/singletable/singletable/internal/model"
)

// Key templates ("USER#{ID}", "ORDER#{Date}#{ID}", their formats,
// absence and escaping) are the language of internal/keys, documented there
// and in docs/rules.md. What stays here is what the root needs of them that
// is not the language: the public default layout and the service's limits.

// DefaultTimeLayout renders time.Time placeholders: UTC, fixed width, so that
// keys sort chronologically as strings.
const DefaultTimeLayout = keys.DefaultTimeLayout

var timeType = reflect.TypeFor[time.Time]()

// Service limits on key sizes, in bytes of UTF-8.
const (
	maxPartitionKeyBytes = model.MaxPartitionKeyBytes
	maxSortKeyBytes      = model.MaxSortKeyBytes
)

// settableField returns the field at index of the addressable struct v,
// allocating embedded pointer structs on the way. It reports false when a
// nil embedded pointer cannot be set (its type is unexported).
func settableField(v reflect.Value, index []int) (reflect.Value, bool) {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				if !v.CanSet() {
					return reflect.Value{}, false
				}
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v, v.CanSet()
}
