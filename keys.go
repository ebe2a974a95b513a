package singletable

import (
	"reflect"
	"time"

	"github.com/singletable/singletable/internal/keys"
	"github.com/singletable/singletable/internal/model"
	writes "github.com/singletable/singletable/internal/write"
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
// allocating embedded pointer structs on the way (see
// writes.SettableField).
func settableField(v reflect.Value, index []int) (reflect.Value, bool) {
	return writes.SettableField(v, index)
}
