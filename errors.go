package singletable

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Sentinel errors, for errors.Is. Errors returned by the library wrap one of
// these, and the SDK error where there is one (errors.As reaches it too).
var (
	// ErrNotFound: the item does not exist (Get, Delete with MustExist, Update).
	ErrNotFound = errors.New("singletable: item not found")
	// ErrAlreadyExists: Create found an item with the same key.
	ErrAlreadyExists = errors.New("singletable: item already exists")
	// ErrConditionFailed: a condition on a write did not hold.
	ErrConditionFailed = errors.New("singletable: condition failed")
	// ErrInvalidKey: a key value is empty, too long or otherwise unusable;
	// returned before any request is sent.
	ErrInvalidKey = errors.New("singletable: invalid key")
	// ErrInvalidModel: a table, entity or pattern declaration is wrong.
	ErrInvalidModel = errors.New("singletable: invalid model")
	// ErrInvalidInput: an operation's arguments are wrong (an unknown field,
	// an option the operation does not take, a value of the wrong type);
	// returned before any request is sent.
	ErrInvalidInput = errors.New("singletable: invalid input")
	// ErrWrongEntity: an item read back is not of the expected entity type.
	ErrWrongEntity = errors.New("singletable: item is of another entity type")
)

// ModelError describes a wrong declaration: which entity, field and
// template, and why. It matches ErrInvalidModel.
type ModelError struct {
	Table    string
	Entity   string // empty for table-level errors
	Field    string // the Go field, when one is at fault
	Template string // the key template, when one is at fault
	Reason   string
}

func (e *ModelError) Error() string {
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

// Is makes errors.Is(err, ErrInvalidModel) true.
func (e *ModelError) Is(target error) bool { return target == ErrInvalidModel }

// KeyError says why a key could not be built from a value. It matches
// ErrInvalidKey.
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

// InputError says what is wrong with an operation's arguments. It matches
// ErrInvalidInput.
type InputError struct {
	Op     string // e.g. "Order.Update"
	Reason string
}

func (e *InputError) Error() string { return "singletable: " + e.Op + ": " + e.Reason }

// Is makes errors.Is(err, ErrInvalidInput) true.
func (e *InputError) Is(target error) bool { return target == ErrInvalidInput }

// EntityMismatchError reports an item of another entity type than the one
// asked for. It matches ErrWrongEntity.
type EntityMismatchError struct {
	Want string // the entity expected
	Got  string // the item's type attribute; empty if it has none
	Key  map[string]types.AttributeValue
}

func (e *EntityMismatchError) Error() string {
	if e.Got == "" {
		return fmt.Sprintf("singletable: expected a %s item, got an item with no entity type attribute", e.Want)
	}
	return fmt.Sprintf("singletable: expected a %s item, got a %s item", e.Want, e.Got)
}

// Is makes errors.Is(err, ErrWrongEntity) true.
func (e *EntityMismatchError) Is(target error) bool { return target == ErrWrongEntity }

// ConditionError is a write whose condition did not hold. It matches
// ErrConditionFailed and, where the condition was the library's own,
// ErrAlreadyExists or ErrNotFound; it unwraps to the SDK's
// *types.ConditionalCheckFailedException.
type ConditionError struct {
	Op     string // e.g. "Order.Create"
	Entity string
	Key    map[string]types.AttributeValue
	// Item is the item as it was when the condition failed, when the service
	// returned it (nil if the item does not exist).
	Item map[string]types.AttributeValue
	// Kind is the specific sentinel: ErrAlreadyExists, ErrNotFound or
	// ErrConditionFailed.
	Kind error
	Err  error // the SDK error
	// Reason says what failed when the library can tell more than Kind.
	Reason string
}

func (e *ConditionError) Error() string {
	msg := "condition failed"
	switch e.Kind {
	case ErrAlreadyExists:
		msg = "an item with this key already exists"
	case ErrNotFound:
		msg = "the item does not exist"
	}
	if e.Reason != "" {
		msg += ": " + e.Reason
	}
	return fmt.Sprintf("singletable: %s %s: %s", e.Op, formatKey(e.Key), msg)
}

// Unwrap gives errors.Is/As the sentinels and the SDK error.
func (e *ConditionError) Unwrap() []error {
	errs := []error{ErrConditionFailed}
	if e.Kind != nil && e.Kind != ErrConditionFailed {
		errs = append(errs, e.Kind)
	}
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	return errs
}

// opError wraps an SDK error with the operation that failed.
func opError(op string, err error) error {
	return fmt.Errorf("singletable: %s: %w", op, err)
}

// formatKey renders a key map for messages: {PK=USER#1 SK=PROFILE}.
func formatKey(key map[string]types.AttributeValue) string {
	if len(key) == 0 {
		return "{}"
	}
	names := make([]string, 0, len(key))
	for k := range key {
		names = append(names, k)
	}
	slices.Sort(names)
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range names {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(k)
		b.WriteByte('=')
		switch v := key[k].(type) {
		case *types.AttributeValueMemberS:
			b.WriteString(v.Value)
		case *types.AttributeValueMemberN:
			b.WriteString(v.Value)
		default:
			fmt.Fprintf(&b, "%T", v)
		}
	}
	b.WriteByte('}')
	return b.String()
}
