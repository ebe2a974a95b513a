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
