package singletable

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/singletable/singletable/internal/expr"
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
	// ErrTokenReused: the IdempotencyToken of a transaction was used in the
	// last 10 minutes for a different request, and nothing was written. A
	// retry must send the very same request: an entity with timestamps
	// stamps the time of each build, so build the request once
	// (DB.TransactInput) and send that again, or give the DB a clock
	// (WithClock) that returns the time of the first attempt.
	ErrTokenReused = errors.New("singletable: idempotency token reused for a different request")
	// ErrTooLarge: a request is over one of the service's size or count
	// limits (400 KB items, 100 transaction actions, 4 MB, 4 KB expressions); returned
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

// checkExpression refuses an expression over DynamoDB's 4 KB limit: the
// one rule, and the one error, for every expression of every request
// (conditions, filters, key conditions, projections, updates).
func checkExpression(op, kind, s string) error {
	if len(s) > expr.MaxExpressionBytes {
		return &LimitError{Op: op, Reason: fmt.Sprintf("the %s expression is %d bytes; DynamoDB allows %d", kind, len(s), expr.MaxExpressionBytes)}
	}
	return nil
}

// filterError is a Filter that cannot be rendered: over the expression
// limit (a *LimitError like any other expression's), or wrong input.
func filterError(op string, err error) error {
	var le *LimitError
	if errors.As(err, &le) {
		return &LimitError{Op: op, Reason: "Filter: " + le.Reason}
	}
	return &InputError{Op: op, Reason: "Filter: " + err.Error()}
}

// inOp puts an *InputError or *LimitError about one item (entityModel.item)
// under operation op, its reason after prefix (which item of a batch);
// other errors pass as they are.
func inOp(op, prefix string, err error) error {
	var le *LimitError
	if errors.As(err, &le) {
		return &LimitError{Op: op, Reason: prefix + le.Reason}
	}
	var ie *InputError
	if errors.As(err, &ie) {
		return &InputError{Op: op, Reason: prefix + ie.Reason}
	}
	return err
}

// failure explains a failed condition of the action, given the item as it
// was (nil when it did not exist) and the SDK error.
func (a *action) failure(item map[string]types.AttributeValue, err error) error {
	existed := len(item) > 0
	if a.guard != nil {
		// A guard's Put fails only when another item holds the value, even
		// if the service did not return the guard item.
		if a.kind == actPut {
			return &UniqueViolationError{Op: a.op, Entity: a.m.name, Field: a.guard.field.GoName, Value: a.guard.value,
				Owner: a.m.guardOwner(item), Err: err}
		}
		return &ConditionError{Op: a.op, Entity: a.m.name, Key: a.keyAttrs(), Item: item, Kind: ErrConditionFailed, Err: err,
			Reason: fmt.Sprintf("the guard item of unique %s %q belongs to another item %s", a.guard.field.GoName, a.guard.value, formatKey(a.m.guardOwner(item)))}
	}
	ce := &ConditionError{Op: a.op, Entity: a.m.name, Key: a.keyAttrs(), Item: item, Kind: a.whenMissing.err(), Err: err}
	if existed {
		ce.Kind = a.whenExists.err()
	}
	if a.versioned && (existed || a.whenMissing != failNotFound) {
		if actual := a.m.managed.storedVersion(item); actual != a.expected {
			vc := &VersionConflictError{ConditionError: ce, Expected: a.expected, Actual: actual}
			if existed {
				vc.Current, _ = a.m.decodeAny(item)
			}
			ce.Reason = fmt.Sprintf("expected version %d, the item is at version %d", a.expected, actual)
			return vc
		}
	}
	if existed {
		ce.Reason = a.uniqueReason(item)
	}
	if ce.Reason == "" && !a.userCond.IsZero() && (existed || a.kind == actCheck) {
		ce.Reason = "the condition " + describeCond(a.m, a.userCond) + " does not hold"
		if !existed {
			ce.Reason += " (there is no such item)"
		}
	}
	return ce
}

var placeholderRE = regexp.MustCompile(`#n\d+|:v\d+`)

// describeCond renders a condition for messages, with attribute names and
// values in place of the placeholders: "inventory >= 101".
func describeCond(m *entityModel, c Cond) string {
	var b expr.Builder
	s, err := renderCond(c, m, &b)
	if err != nil {
		return "(unrenderable)"
	}
	return placeholderRE.ReplaceAllStringFunc(s, func(p string) string {
		if n, ok := b.Names[p]; ok {
			return n
		}
		if v, ok := b.Values[p]; ok {
			return formatValue(v)
		}
		return p
	})
}

// uniqueReason says which unique value a failed condition was about, when
// the stored item's values differ from those the action relied on.
func (a *action) uniqueReason(item map[string]types.AttributeValue) string {
	if a.uniqueRel == uniqueNone {
		return ""
	}
	v := a.value
	verb := "would change"
	if a.uniqueRel == uniqueHeld {
		verb = "holds"
	}
	for _, f := range a.m.managed.unique {
		want, err := a.m.encodeValue(f.GoName, fieldValue(f, v).Interface(), false)
		if err != nil {
			continue
		}
		got := item[f.Attr]
		if sameValue(got, want) || (got == nil && uniqueValue(f, v) == "") {
			continue
		}
		if verb == "holds" {
			return fmt.Sprintf("the item holds unique %s %s, not %s as expected", f.GoName, formatValue(got), formatValue(want))
		}
		return fmt.Sprintf("Put would change unique %s from %s to %s; change it with Update, which moves its guard", f.GoName, formatValue(got), formatValue(want))
	}
	return ""
}

func sameValue(a, b types.AttributeValue) bool {
	switch a := a.(type) {
	case *types.AttributeValueMemberS:
		b, ok := b.(*types.AttributeValueMemberS)
		return ok && a.Value == b.Value
	case *types.AttributeValueMemberN:
		b, ok := b.(*types.AttributeValueMemberN)
		return ok && a.Value == b.Value
	}
	return false
}

func formatValue(v types.AttributeValue) string {
	switch v := v.(type) {
	case nil:
		return "nothing"
	case *types.AttributeValueMemberS:
		return fmt.Sprintf("%q", v.Value)
	case *types.AttributeValueMemberN:
		return v.Value
	case *types.AttributeValueMemberBOOL:
		return fmt.Sprint(v.Value)
	case *types.AttributeValueMemberNULL:
		return "NULL"
	}
	return strings.TrimPrefix(fmt.Sprintf("%T", v), "*types.AttributeValueMember")
}

// decodeAny decodes a stored item as the entity's Go type, returning a T
// value (not a pointer) as an any.
func (m *entityModel) decodeAny(item map[string]types.AttributeValue) (any, error) {
	v := reflect.New(m.typ).Elem()
	if err := m.decode(item, v); err != nil {
		return nil, err
	}
	return v.Interface(), nil
}

// sendError turns the error of a single-item request into the library's:
// a failed condition explained by failure, anything else wrapped.
func (a *action) sendError(err error) error {
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return a.failure(ccf.Item, err)
	}
	return opError(a.op, err)
}
