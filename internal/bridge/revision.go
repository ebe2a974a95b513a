package bridge

import (
	"reflect"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// What package revision needs of the root: entity options, which cannot be
// built outside it. Filled in by the root's bridge_revision.go.
var (
	// RevisionCurrent returns a singletable.EntityOption (as any): the
	// entity's current shape revision, its base (the revision of items
	// stored without one) and the attribute that stores it ("" the
	// default).
	RevisionCurrent func(current, base int, attr string) any
	// RevisionUpgrade returns a singletable.EntityOption (as any): the
	// upgrader from revision from to from+1, over the decoded value (typed:
	// a func(any) error given a pointer to a value of typ) or over the raw
	// item (raw).
	RevisionUpgrade func(from int, typ reflect.Type, typed func(any) error, raw func(map[string]types.AttributeValue) error) any
	// RevisionReadNewer returns a singletable.EntityOption (as any): reads
	// decode an item of a newer revision best-effort instead of failing.
	RevisionReadNewer func() any
	// RevisionWriteBack returns a singletable.EntityOption (as any): Get
	// and the entity's queries write an upgraded item back.
	RevisionWriteBack func() any
)
