// Package revision holds what package revision and the core share of shape
// revisions: the error of an item newer than the code reading it.
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
