package write

import (
	"errors"
	"fmt"
)

// ErrInvalidInput is the sentinel every *InputError matches. The root
// re-exports it under the same name, so that the engine's errors match it
// without this package importing the root.
var ErrInvalidInput = errors.New("singletable: invalid input")

// InputError says what is wrong with an operation's arguments. The root
// names it InputError too.
type InputError struct {
	Op     string // e.g. "Order.Update"
	Reason string
}

func (e *InputError) Error() string { return "singletable: " + e.Op + ": " + e.Reason }

// Is makes errors.Is(err, ErrInvalidInput) true.
func (e *InputError) Is(target error) bool { return target == ErrInvalidInput }

// Inputf is an *InputError of op, its reason formatted.
func Inputf(op, format string, args ...any) error {
	return &InputError{Op: op, Reason: fmt.Sprintf(format, args...)}
}

// ErrReadNeeded is the sentinel every *ReadNeededError matches (the
// root's, re-exported under the same name).
var ErrReadNeeded = errors.New("singletable: the update needs fields it does not give")

// ReadNeededError reports an update that must recompute an index key from
// fields it neither changes nor gives. Update reads them (see Update); the
// ways that cannot read fail with this error before sending anything:
// Update with NoRead, TxUpdate (a transaction cannot read mid-way), and
// UpdateInput (the dry run of a single request, which the read and its
// condition would change). It matches ErrReadNeeded and ErrInvalidInput.
// The root names it ReadNeededError too.
//
// An upsert of an entity with ExpiresAfter, which gives only a new item
// its expiry, needs to know whether the item exists: Index and Fields are
// then empty.
type ReadNeededError struct {
	Op     string   // e.g. "Order.Update"
	Index  string   // the first index whose key needs them
	Fields []string // every field Update would read, sorted
	Reason string
}

func (e *ReadNeededError) Error() string { return "singletable: " + e.Op + ": " + e.Reason }

// Is makes errors.Is(err, ErrReadNeeded) and errors.Is(err,
// ErrInvalidInput) true.
func (e *ReadNeededError) Is(target error) bool {
	return target == ErrReadNeeded || target == ErrInvalidInput
}
