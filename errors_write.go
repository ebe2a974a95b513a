package singletable

import (
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Sentinel errors of the write side, for errors.Is.
var (
	// ErrVersionConflict: the item's stored version is not the one a write
	// expected: someone else wrote it in between (optimistic locking). Read
	// it again and retry. It comes with ErrConditionFailed.
	ErrVersionConflict = errors.New("singletable: version conflict")
	// ErrUniqueViolation: another item of the entity already holds a value
	// declared Unique. It comes with ErrAlreadyExists and ErrConditionFailed.
	ErrUniqueViolation = errors.New("singletable: unique value already taken")
	// ErrTransactionConflict: a transaction was cancelled because another
	// request was changing one of its items at the same time; retrying it
	// (with a fresh token) is safe.
	ErrTransactionConflict = errors.New("singletable: transaction conflict")
	// ErrTooLarge: a request is over one of the service's size or count
	// limits (100 transaction actions, 4 MB, 4 KB expressions); returned
	// before sending. It comes with ErrInvalidInput.
	ErrTooLarge = errors.New("singletable: request over the service limits")
)

// VersionConflictError is a write whose version check failed: the item is
// stored with version Actual (0 when it has none), not Expected. It matches
// ErrVersionConflict and ErrConditionFailed, and errors.As finds the
// *ConditionError inside it (whose Item is the item as stored).
type VersionConflictError struct {
	*ConditionError
	Expected int64
	Actual   int64
	// Current is the stored item decoded as the entity's Go type (a T
	// value, not a pointer), or nil if it could not be decoded. Entity.
	// CurrentItem returns it typed.
	Current any
}

func (e *VersionConflictError) Error() string {
	return fmt.Sprintf("singletable: %s %s: version conflict: expected version %d, the item is at version %d",
		e.Op, formatKey(e.Key), e.Expected, e.Actual)
}

// Unwrap gives errors.Is/As ErrVersionConflict and the *ConditionError.
func (e *VersionConflictError) Unwrap() []error {
	return []error{ErrVersionConflict, e.ConditionError}
}

// UniqueViolationError is a write that would give a unique field a value
// another item already holds. It matches ErrUniqueViolation,
// ErrAlreadyExists and ErrConditionFailed.
type UniqueViolationError struct {
	Op     string // e.g. "User.Create"
	Entity string
	Field  string // the Go field declared Unique
	Value  string // the value, as the guard item holds it
	// Owner is the primary key of the item holding the value, when known.
	Owner map[string]types.AttributeValue
	Err   error // the SDK error
}

func (e *UniqueViolationError) Error() string {
	s := fmt.Sprintf("singletable: %s: %s %q is already taken by another %s", e.Op, e.Field, e.Value, e.Entity)
	if len(e.Owner) > 0 {
		s += " " + formatKey(e.Owner)
	}
	return s
}

// Unwrap gives errors.Is/As the sentinels and the SDK error.
func (e *UniqueViolationError) Unwrap() []error {
	errs := []error{ErrUniqueViolation, ErrAlreadyExists, ErrConditionFailed}
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	return errs
}

// LimitError is a request over one of the service's limits, found before
// anything was sent. It matches ErrTooLarge and ErrInvalidInput.
type LimitError struct {
	Op     string // e.g. "Transact", "Order.Update"
	Reason string
}

func (e *LimitError) Error() string {
	if e.Op == "" {
		return "singletable: " + e.Reason
	}
	return "singletable: " + e.Op + ": " + e.Reason
}

// Is makes errors.Is(err, ErrTooLarge) and errors.Is(err, ErrInvalidInput) true.
func (e *LimitError) Is(target error) bool { return target == ErrTooLarge || target == ErrInvalidInput }
