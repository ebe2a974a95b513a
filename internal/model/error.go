package model

import (
	"errors"
	"fmt"
	"strings"
)

// ErrInvalid is the sentinel every *Error matches. The root re-exports it
// as ErrInvalidModel, so that the model's errors match it without this
// package importing the root.
var ErrInvalid = errors.New("singletable: invalid model")

// ErrInvalidKey is the sentinel every *KeyError matches; the root
// re-exports it under the same name.
var ErrInvalidKey = errors.New("singletable: invalid key")

// Error describes a wrong declaration: which table, entity, field and
// template, and why. The root names it ModelError.
type Error struct {
	Table    string
	Entity   string // empty for table-level errors
	Field    string // the Go field, when one is at fault
	Template string // the key template, when one is at fault
	Reason   string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("singletable: ")
	switch {
	case e.Entity != "":
		fmt.Fprintf(&b, "entity %s", e.Entity)
	default:
		fmt.Fprintf(&b, "table %s", e.Table)
	}
	if e.Template != "" {
		fmt.Fprintf(&b, ", template %q", e.Template)
	}
	if e.Field != "" {
		fmt.Fprintf(&b, ", field %s", e.Field)
	}
	b.WriteString(": ")
	b.WriteString(e.Reason)
	return b.String()
}

// Is makes errors.Is(err, ErrInvalid) true (the root's ErrInvalidModel).
func (e *Error) Is(target error) bool { return target == ErrInvalid }

// KeyError says why a key could not be built from a value. It matches
// ErrInvalidKey (the root re-exports it). The root names it KeyError.
type KeyError struct {
	Entity   string
	Attr     string // the key attribute: PK, SK, GSI1PK ...
	Template string
	Field    string // the field at fault, if one is
	Reason   string
}

func (e *KeyError) Error() string {
	s := fmt.Sprintf("singletable: entity %s, key %s (template %q)", e.Entity, e.Attr, e.Template)
	if e.Field != "" {
		s += ", field " + e.Field
	}
	return s + ": " + e.Reason
}

// Is makes errors.Is(err, ErrInvalidKey) true.
func (e *KeyError) Is(target error) bool { return target == ErrInvalidKey }
