// Package revision lets an entity's item shape evolve: the entity declares
// its current shape revision (Current), which every write stores in a
// reserved attribute, and upgraders from each revision to the next
// (Upgrade over the decoded value, UpgradeItem over the raw item, for a
// field that changed type or name). Every read path (Get, queries,
// collections, batches, transactions, scans, stream images, Table.Decode)
// upgrades an older item before the caller sees it; an item of a newer
// revision than the code knows is a *NewerError (ErrNewer), unless
// ReadNewer.
//
// A revision is not the optimistic-lock version (singletable.Version): it
// says which shape an item has, not how many times it was written, and is
// stored in an attribute of its own that Define refuses to share with any
// field.
//
//	var Tickets = st.MustDefine[Ticket](Table, "Ticket",
//		revision.Current(3),
//		revision.UpgradeItem(1, renameCustomer),            // 1 → 2: raw
//		revision.Upgrade(2, func(t *Ticket) error { ... }), // 2 → 3: typed
//	)
//
// Writes keep older code from corrupting what a newer revision derives
// (index keys, unique guards) during a rolling deploy: a Put needs the
// stored revision not newer than the writer's, an Update needs it equal;
// a write refused for the stored revision is a *ConflictError naming both
// (see docs/migrations.md, "Shape revisions").
//
// Stored items reach the current shape through migrate.UpgradeRevisions,
// a full pass with per-revision counts, or as they are read, under
// WriteBack.
package revision

import (
	"reflect"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/bridge"
	"github.com/singletable/singletable/internal/revision"
)

// DefaultAttribute is the attribute revisions are stored in unless
// Attribute names another.
const DefaultAttribute = "_rev"

// ErrNewer matches a *NewerError.
var ErrNewer = revision.ErrNewer

// NewerError is an item stored at a revision newer than the reading
// entity's current one.
type NewerError = revision.NewerError

// UpgradeError is an upgrader that failed on an item; it wraps the
// upgrader's error.
type UpgradeError = revision.UpgradeError

// ErrOlder matches a *ConflictError of an Update refused because the
// stored item is at an older revision than the writer's.
var ErrOlder = revision.ErrOlder

// ConflictError is a write refused because of the stored item's revision,
// naming both (Stored, Writer): a Put or Update (also in a transaction) of
// an item of a newer revision matches ErrNewer; an Update of an item of an
// older revision matches ErrOlder (read it, which upgrades it, and Put it,
// or run migrate.UpgradeRevisions; then update). It wraps the write's
// *singletable.ConditionError, so it matches singletable.ErrConditionFailed
// as well. The library tells it from the item the failed write returns,
// without another request.
type ConflictError = revision.ConflictError

// Current declares the entity's current shape revision (1 or more, or 0):
// every write stores it, and items stored without one are revision 0.
func Current(n int) st.EntityOption { return bridge.RevisionCurrent(n, 0, "").(st.EntityOption) }

// CurrentFrom is Current for an entity whose items stored without a
// revision (written before revisions existed, or by other code on an
// adopted table) have shape base, stored in attribute attr ("" the
// default, DefaultAttribute).
func CurrentFrom(n, base int, attr string) st.EntityOption {
	return bridge.RevisionCurrent(n, base, attr).(st.EntityOption)
}

// Upgrade registers the upgrader of the entity's items from revision from
// to from+1, over the decoded value. It must be pure: it may run on every
// read of an older item.
func Upgrade[T any](from int, fn func(*T) error) st.EntityOption {
	var typed func(any) error
	if fn != nil {
		typed = func(v any) error { return fn(v.(*T)) }
	}
	return bridge.RevisionUpgrade(from, reflect.TypeFor[T](), typed, nil).(st.EntityOption)
}

// UpgradeItem registers the upgrader of the entity's items from revision
// from to from+1, over the raw item (a copy the upgrader may change): for
// a field that changed name or type, which the decoded value cannot hold.
func UpgradeItem(from int, fn func(item map[string]types.AttributeValue) error) st.EntityOption {
	return bridge.RevisionUpgrade(from, nil, nil, fn).(st.EntityOption)
}

// ReadNewer makes reads decode an item of a newer revision best-effort
// (attributes the code does not know are dropped) instead of returning a
// *NewerError. Writes still refuse to overwrite it, migrations (migrate.Run,
// migrate.BackfillIndex) included.
func ReadNewer() st.EntityOption { return bridge.RevisionReadNewer().(st.EntityOption) }

// WriteBack makes reads write an older item back upgraded: a Get, or a
// query of the entity's own patterns (Pattern.Get, Query, All) that reads
// whole items (the table, or an index projecting every attribute, without
// Project), writes the item in the current shape after upgrading it, with
// the write migrate.UpgradeRevisions makes (a PutItem conditioned on the
// item being unchanged since it was read: its version and revision, or
// every attribute; the version is kept). A current item costs nothing
// more; an older one one PutItem, at most once per read item.
//
// Other reads never write back: patterns that fan out (shards, time
// buckets), collections, batches, transactions (a write outside the
// transaction would break what it read), scans (the pass is
// migrate.UpgradeRevisions), stream images, reads through an index that
// does not project every attribute, with Project or fetching full items
// (FetchFull), an item whose upgrade would move its key or change a
// unique value (read it and Put it: the Put moves the guard), and one
// whose unchanged condition passes DynamoDB's expression limit (a wide
// entity without a version field).
//
// Without a version field, the unchanged condition cannot see an attribute
// the read item lacked and the current model does not name: older code that
// sets one of its fields between the read and the write-back loses that
// write. Declare a version field while older code still writes.
//
// The write-back never fails the read: the reader gets its upgraded value
// whatever happens. A lost condition (another writer changed the item
// first) is skipped silently; any other error surfaces only through the
// DB's observer (package observe), which sees the PutItem with operation
// "<Entity>.WriteBack" and its error.
func WriteBack() st.EntityOption { return bridge.RevisionWriteBack().(st.EntityOption) }
