// Package revision holds what package revision and the core share of shape
// revisions: the errors of an item newer than the code reading it, of a
// failed upgrader, and of a write refused for the stored revision.
package revision

import (
	"errors"
	"fmt"
)

// ErrNewer matches a *NewerError.
var ErrNewer = errors.New("singletable: the item's shape revision is newer than the code's")

// NewerError is an item stored at a shape revision newer than the one the
// reading entity declares: old code must not silently drop what it does
// not understand.
type NewerError struct {
	Entity string
	// Stored is the item's revision, Current the entity's.
	Stored, Current int
	// Key is the item's table key, formatted.
	Key string
}

func (e *NewerError) Error() string {
	return fmt.Sprintf("singletable: %s item %s is at shape revision %d, newer than the entity's current revision %d: deploy the code that knows revision %d, or read it best-effort (revision.ReadNewer)", e.Entity, e.Key, e.Stored, e.Current, e.Stored)
}

// Is matches ErrNewer.
func (e *NewerError) Is(target error) bool { return target == ErrNewer }

// UpgradeError is an upgrader that failed on an item.
type UpgradeError struct {
	Entity string
	From   int
	Key    string
	Err    error
}

func (e *UpgradeError) Error() string {
	return fmt.Sprintf("singletable: %s item %s: upgrading it from shape revision %d to %d: %v", e.Entity, e.Key, e.From, e.From+1, e.Err)
}

func (e *UpgradeError) Unwrap() error { return e.Err }

// ErrOlder matches a *ConflictError of a write refused because the stored
// item is at an older revision than the writer's.
var ErrOlder = errors.New("singletable: the stored item's shape revision is older than the writer's")

// ConflictError is a write refused because the stored item is at another
// shape revision than the writer's current one: a Put or Update of an item
// of a newer revision (it matches ErrNewer), or an Update of an item of an
// older one (it matches ErrOlder). It wraps the write's
// *singletable.ConditionError, so it matches ErrConditionFailed too.
type ConflictError struct {
	Op, Entity string
	// Key is the item's table key, formatted.
	Key string
	// Stored is the item's revision, Writer the writing entity's current
	// one.
	Stored, Writer int
	Err            error
}

func (e *ConflictError) Error() string {
	if e.Stored > e.Writer {
		return fmt.Sprintf("singletable: %s %s: the item is at shape revision %d, newer than the writer's %d: older code must not overwrite what newer code wrote; deploy the code that knows revision %d", e.Op, e.Key, e.Stored, e.Writer, e.Stored)
	}
	return fmt.Sprintf("singletable: %s %s: the item is at shape revision %d, older than the writer's %d: an Update would mark it current without upgrading it; read it (which upgrades it) and Put it, or upgrade every item (migrate.UpgradeRevisions), then update", e.Op, e.Key, e.Stored, e.Writer)
}

// Is matches ErrNewer when the stored revision is newer than the writer's,
// ErrOlder when it is older.
func (e *ConflictError) Is(target error) bool {
	return (target == ErrNewer && e.Stored > e.Writer) || (target == ErrOlder && e.Stored < e.Writer)
}

// Unwrap is the write's *singletable.ConditionError.
func (e *ConflictError) Unwrap() error { return e.Err }
