package bridge

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// What package migrate needs of the root: the full-table walk of one
// entity's items (the engine of Entity.Scan) and the entity model's
// rendering of a migrated item, which depends on the model's keys,
// indexes and managed fields. Filled in by the root's bridge_migrate.go.

// MigrateWalk is the walk package migrate's options ask for: the same
// settings as the root's Segments, ScanConcurrency, PageSize and
// OnProgress scan options, which the root checks as it checks those.
type MigrateWalk struct {
	// Segments, when HasSegments, is the number of segments.
	Segments    int
	HasSegments bool
	// Concurrency and PageSize are positive, or 0 for the defaults.
	Concurrency, PageSize int
	// Progress is a func(singletable.ScanProgress), or nil.
	Progress any
}

// MigrateWrite is the write of one migrated item: a PutItem, or the
// transaction that moves it to a new key (Tx, when NewKey is set).
type MigrateWrite struct {
	Put *dynamodb.PutItemInput
	Tx  *dynamodb.TransactWriteItemsInput
	// Key is the item's stored key; NewKey its new one when the key
	// changes (nil otherwise); Attributes the attributes added, changed
	// or removed, sorted.
	Key, NewKey map[string]types.AttributeValue
	Attributes  []string
}

// Migration is the root's side of one migration of an entity.
type Migration interface {
	// KeyOf is the primary key of a stored item of the entity.
	KeyOf(item map[string]types.AttributeValue) map[string]types.AttributeValue
	// Decode decodes a stored item into v, a *T of the entity's type.
	Decode(item map[string]types.AttributeValue, v any) error
	// Plan plans the write of v (a *T), the transformed value of the item
	// stored as raw: nil when v renders as raw already. touch sets the
	// updated timestamp; upgrade plans a shape-revision upgrade, which
	// keeps the version. An item of a newer shape revision is a
	// *revision.NewerError. Nothing is sent.
	Plan(raw map[string]types.AttributeValue, v any, touch, upgrade bool) (*MigrateWrite, error)
	// Revision is the shape revision item is stored at and the entity's
	// current one; ok is false when the entity declares no revisions or
	// the item's revision attribute is not a revision.
	Revision(item map[string]types.AttributeValue) (rev, current int, ok bool)
	// Sleep waits d (the DB's sleep), or until ctx is done.
	Sleep(ctx context.Context, d time.Duration) error
	// Resume makes the walk start from a position an earlier one
	// reported (a *singletable.CursorError if it is not one of this
	// walk's).
	Resume(position string) error
	// Walk reads every page left, its Scan requests asking for the
	// consumed capacity, and hands each to page; after each page a
	// segment finished, it calls done with the position after every page
	// handled so far. An error of page or done stops the walk. A page
	// for which page reports again (some of its items failed) is read
	// again by a walk resumed from a later position: its segment's
	// position stays before it.
	Walk(ctx context.Context, page func(context.Context, *dynamodb.ScanOutput) (again bool, err error), done func(position string) error) error
	// Position is the position after every page handled so far.
	Position() (string, error)
	// Rescope resolves the move of unique field's guards to their scoped
	// form: an *singletable.InputError if the field is not unique within
	// a scope.
	Rescope(field string) (Rescope, error)
}

// Migrate resolves a migration, named op in errors, of entity (a
// *singletable.Entity[T]) in db (a *singletable.DB): an
// *singletable.InputError if the entity is not of db's table or walk is
// out of range, and nothing is sent.
var Migrate func(op string, db, entity any, walk MigrateWalk) (Migration, error)

// Backfills reports, as an *singletable.InputError, why entity (a
// *singletable.Entity[T]) cannot backfill index: it is not declared on
// the entity's table, or the entity writes no key of its own into it.
var Backfills func(op string, entity any, index string) error

// Throttled reports whether err is DynamoDB refusing a request for
// capacity or rate, which a later retry can pass (as BatchWrite retries
// it).
var Throttled func(err error) bool

// Rescope is the root's side of migrate.ScopeUnique: moving the guard
// items of one unique field, declared within a scope, from the table-wide
// form they were written in to the scoped form.
type Rescope interface {
	// Move is the transaction that moves the guard of the item stored as
	// raw: 0, a ConditionCheck that the item holds its value and scope;
	// 1, the Put of the scoped guard (absent or the item's already); 2,
	// the Delete of the table-wide guard (the item's: an absent one fails
	// its condition). Both guards' conditions return the item as it was.
	// nil when the item holds the zero value, which has no guard.
	Move(raw map[string]types.AttributeValue) (*dynamodb.TransactWriteItemsInput, error)
	// Guards are the keys of raw's table-wide and scoped guard items (nil
	// when it has none), for a dry run's reads.
	Guards(raw map[string]types.AttributeValue) (old, scoped map[string]types.AttributeValue, err error)
	// Owner is the key of the item a guard item names.
	Owner(guard map[string]types.AttributeValue) map[string]types.AttributeValue
	// Violation is the *singletable.UniqueViolationError of raw's scoped
	// value held by owner.
	Violation(op string, raw, owner map[string]types.AttributeValue, err error) error
	// Sweep is the first Scan of the table's guard items that may be the
	// field's table-wide ones; Old says which of the items it reads are.
	Sweep() *dynamodb.ScanInput
	Old(item map[string]types.AttributeValue) bool
	// Holds reports whether item, stored, is one of the entity's and
	// holds the value the table-wide guard item guard guards.
	Holds(item, guard map[string]types.AttributeValue) bool
	// Key is the primary key of a stored item.
	Key(item map[string]types.AttributeValue) map[string]types.AttributeValue
}
