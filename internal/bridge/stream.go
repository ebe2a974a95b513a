package bridge

import "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

// What package stream needs of the model beyond the root's public API;
// filled in by the root's bridge_stream.go.
var (
	// ChangedFields lists, in field order, the Go names of the stored
	// fields of entity (a singletable.AnyEntity) whose attributes differ
	// between the items old and nu (an absent attribute counts as a
	// value); never nil.
	ChangedFields func(entity any, old, nu map[string]types.AttributeValue) []string
	// DecodeInto decodes item, a raw item of entity (a
	// singletable.AnyEntity of T), into v (a *T to a zero T) as
	// Entity.Decode does; a caller that keeps a *T spares Decode's T.
	DecodeInto func(entity any, item map[string]types.AttributeValue, v any) error
	// IsGuardItem reports whether item (a stream record's keys, or its
	// image when it has none) is a unique-value guard item of table (a
	// *singletable.Table), which the library writes beside an item with
	// unique fields.
	IsGuardItem func(table any, item map[string]types.AttributeValue) bool
)
