package singletable

// The error model. Every error the library returns can be tested two ways:
// errors.Is against a sentinel (ErrNotFound, ErrConditionFailed,
// ErrInvalidInput ...) for what happened, and errors.As into a typed error
// (*ConditionError, *TxError, *BatchError ...) for the details: which
// operation, key, field or action. A typed error matches its sentinels
// through its Is or Unwrap method, and where the service refused a request
// it keeps the SDK error, so errors.As still reaches it (for example a
// *types.ConditionalCheckFailedException). Errors found before sending
// (ErrInvalidInput, ErrInvalidKey, ErrTooLarge, ErrInvalidCursor) mean no
// request was sent.

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/singletable/singletable/internal/expr"
	"github.com/singletable/singletable/internal/model"
	writes "github.com/singletable/singletable/internal/write"
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
	// It is the model's own sentinel (internal/model), which every
	// *KeyError matches.
	ErrInvalidKey = model.ErrInvalidKey
	// ErrInvalidModel: a table, entity or pattern declaration is wrong.
	// It is the model's own sentinel (internal/model), which every
	// *ModelError matches.
	ErrInvalidModel = model.ErrInvalid
	// ErrInvalidInput: an operation's arguments are wrong (an unknown field,
	// an option the operation does not take, a value of the wrong type);
	// returned before any request is sent.
	// It is the write engine's own sentinel (internal/write), which every
	// *InputError matches.
	ErrInvalidInput = writes.ErrInvalidInput
	// ErrWrongEntity: an item read back is not of the expected entity type.
	ErrWrongEntity = errors.New("singletable: item is of another entity type")
	// ErrDecode: an item read back, or given to Decode or Change, cannot be
	// decoded as its entity: a table key attribute is missing or is not a
	// string, or a value does not fit its field (a string in a number
	// field, 300 in an int8). A *DecodeError names the attribute.
	ErrDecode = errors.New("singletable: item cannot be decoded")

	// The write side.

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

	// Single operations.

	// ErrNotUnique: Get on a Query pattern found more than one item.
	ErrNotUnique = errors.New("singletable: more than one item matches")
	// ErrInvalidCursor: a cursor passed to After was tampered with, is
	// malformed, was sealed with a cursor key the DB does not have, or was
	// issued for another pattern, partition, sort bounds or sort direction.
	ErrInvalidCursor = errors.New("singletable: invalid cursor")
	// ErrReadNeeded matches a *ReadNeededError.
	ErrReadNeeded = writes.ErrReadNeeded
	// ErrReadChanged matches a *ReadChangedError.
	ErrReadChanged = errors.New("singletable: the fields an update read kept changing")
	// ErrUnprocessed: a batch left items unwritten or unread after its retry
	// budget (or was stopped by an error); the *BatchError lists them.
	ErrUnprocessed = errors.New("singletable: batch items left unprocessed")
	// ErrSchemaMismatch: an existing table's key schema or indexes differ from
	// the model. EnsureTable returns it wrapped in a *SchemaMismatchError.
	ErrSchemaMismatch = errors.New("singletable: table schema differs from the model")
)

// ModelError describes a wrong declaration, found by NewTable, Define or
// a pattern's or collection's declaration, before any request is sent. It
// carries the Table, the Entity (empty for a table-level error), the Go
// Field and the key Template at fault when one is, and the Reason. It
// matches ErrInvalidModel (errors.Is) and is reached with errors.As. The
// entity model is built in internal/model, where the type is defined.
type ModelError = model.Error

// KeyError says why a key could not be built from a value: the Entity,
// the key attribute (Attr: PK, SK, GSI1PK ...), its Template, the Field at
// fault when one is, and the Reason. It matches ErrInvalidKey, and means no
// request was sent. Keys are built by the entity model (internal/model),
// where the type is defined.
type KeyError = model.KeyError

// InputError says what is wrong with an operation's arguments: Op (e.g.
// "Order.Update") and Reason. It matches ErrInvalidInput. The write engine
// (internal/write), which finds most of them, defines the type.
type InputError = writes.InputError

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

// DecodeError is an item that cannot be decoded as entity Entity: Attr is
// the attribute at fault (for a nested struct's field, the path to it:
// "in.when") and Field its Go field, if it has one. It matches ErrDecode
// and unwraps to the codec's error (an *attributevalue.UnmarshalTypeError
// where attributevalue would give one).
type DecodeError struct {
	Op     string // e.g. "Order.Get", "Order.Decode"; empty when unknown
	Entity string
	Attr   string
	Field  string
	Key    map[string]types.AttributeValue // the item's table key, as far as it has one
	Reason string
	Err    error
}

func (e *DecodeError) Error() string {
	var b strings.Builder
	b.WriteString("singletable: ")
	if e.Op != "" {
		b.WriteString(e.Op + ": ")
	}
	b.WriteString("decoding ")
	if e.Entity != "" {
		b.WriteString("a " + e.Entity + " ")
	}
	b.WriteString("item " + formatKey(e.Key))
	if e.Attr != "" {
		b.WriteString(": attribute " + e.Attr)
	}
	if e.Field != "" {
		b.WriteString(" (field " + e.Field + ")")
	}
	b.WriteString(": " + e.Reason)
	return b.String()
}

// Is makes errors.Is(err, ErrDecode) true.
func (e *DecodeError) Is(target error) bool { return target == ErrDecode }

// Unwrap returns the codec's error, if there is one.
func (e *DecodeError) Unwrap() error { return e.Err }

// notFoundError is a read that found no item. It matches ErrNotFound.
type notFoundError struct {
	op  string
	key map[string]types.AttributeValue
}

func (e *notFoundError) Error() string {
	return "singletable: " + e.op + " " + formatKey(e.key) + ": item not found"
}

func (e *notFoundError) Is(target error) bool { return target == ErrNotFound }

// notUniqueError is a Get of a Query pattern that found more than one
// item. It matches ErrNotUnique; its message names the read once (wrapping
// the sentinel with %w repeated its "singletable:" prefix).
type notUniqueError struct{ op string }

func (e *notUniqueError) Error() string {
	return "singletable: " + e.op + ": more than one item matches"
}

func (e *notUniqueError) Is(target error) bool { return target == ErrNotUnique }

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
	// Scope is the Go field the value is unique within ("" for a value
	// unique table-wide), and ScopeValue its value, as the guard key
	// holds it.
	Scope, ScopeValue string
	// Owner is the primary key of the item holding the value, when known.
	Owner map[string]types.AttributeValue
	Err   error // the SDK error
}

func (e *UniqueViolationError) Error() string {
	s := fmt.Sprintf("singletable: %s: %s %q", e.Op, e.Field, e.Value)
	if e.Scope != "" {
		s += fmt.Sprintf(" within %s %q", e.Scope, e.ScopeValue)
	}
	s += " is already taken by another " + e.Entity
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

// ReadNeededError reports an update that must recompute an index key from
// fields it neither changes nor gives. Update reads them (see Update); the
// ways that cannot read fail with this error before sending anything:
// Update with NoRead, TxUpdate (a transaction cannot read mid-way), and
// UpdateInput (the dry run of a single request, which the read and its
// condition would change). It matches ErrReadNeeded and ErrInvalidInput.
//
// An upsert of an entity with ExpiresAfter, which gives only a new item
// its expiry, needs to know whether the item exists: Index and Fields are
// then empty. (The write engine's, internal/write's, under the same name.)
type ReadNeededError = writes.ReadNeededError

// ReadChangedError reports an Update that read fields an index key needs
// and, each of Attempts times, found them changed by another writer before
// its write (whose condition then failed); or a Delete of an entity with
// unique fields whose values (Fields) changed so. Nothing was written. It
// matches ErrReadChanged and wraps the last write's error
// (ErrConditionFailed).
type ReadChangedError struct {
	Op       string
	Key      map[string]types.AttributeValue
	Fields   []string // the fields read
	Attempts int      // the writes sent
	Err      error    // the last write's error
}

func (e *ReadChangedError) Error() string {
	what := strings.Join(e.Fields, ", ")
	if what == "" { // an upsert's: whether the item exists (see upsertTwice)
		what = "whether the item exists"
	}
	verb := "update"
	if strings.HasSuffix(e.Op, ".Delete") {
		verb = "delete"
	}
	return fmt.Sprintf("singletable: %s: %s changed under each of %d attempts to %s the item (%s): %v",
		e.Op, what, e.Attempts, verb, formatKey(e.Key), e.Err)
}

// Is makes errors.Is(err, ErrReadChanged) true.
func (e *ReadChangedError) Is(target error) bool { return target == ErrReadChanged }

func (e *ReadChangedError) Unwrap() error { return e.Err }

// TxError is a cancelled or failed transaction. Actions lists each action
// that failed, in request order.
type TxError struct {
	Op      string // "Transact", or the operation that sent it ("User.Create")
	Token   string // the idempotency token it was sent with
	Actions []TxFailure
	Err     error // the SDK error
}

// TxFailure is one failed action of a transaction.
type TxFailure struct {
	Index  int    // position in the transaction, from 0
	Entity string // the entity of the item (for a guard item, the entity it guards)
	Guard  string // for a unique-value guard item: the unique field; else ""
	Op     string // Put, Update, Delete or ConditionCheck
	Key    map[string]types.AttributeValue
	// Code is the service's reason: ConditionalCheckFailed,
	// TransactionConflict, ItemCollectionSizeLimitExceeded,
	// ProvisionedThroughputExceeded, ThrottlingError, ValidationError ...
	Code    string
	Message string
	// Item is the item as it was, when a condition failed and it existed.
	Item map[string]types.AttributeValue
	// Err is the failure as the single operation would report it (a
	// *ConditionError, *VersionConflictError or *UniqueViolationError) for
	// a failed condition; nil otherwise.
	Err error
}

func (e *TxError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "singletable: %s: transaction cancelled", e.Op)
	if len(e.Actions) == 0 {
		fmt.Fprintf(&b, ": %v", e.Err)
		return b.String()
	}
	for i, f := range e.Actions {
		if i > 0 {
			b.WriteByte(';')
		} else {
			b.WriteByte(':')
		}
		if f.Index < 0 { // the whole transaction, not one action
			fmt.Fprintf(&b, " %s (%s)", f.Code, f.Message)
			continue
		}
		what := f.Entity
		if f.Guard != "" {
			what += " unique " + f.Guard + " guard"
		}
		fmt.Fprintf(&b, " action %d (%s %s %s): %s", f.Index, f.Op, what, formatKey(f.Key), f.Code)
		if f.Err != nil {
			fmt.Fprintf(&b, " (%s)", strings.TrimPrefix(f.Err.Error(), "singletable: "))
		} else if f.Message != "" {
			fmt.Fprintf(&b, " (%s)", f.Message)
		}
	}
	return b.String()
}

// Unwrap gives errors.Is/As the failures' errors, ErrConditionFailed and
// ErrTransactionConflict where they apply, and the SDK error.
func (e *TxError) Unwrap() []error {
	var errs []error
	conflict := false
	for _, f := range e.Actions {
		if f.Err != nil {
			errs = append(errs, f.Err)
		}
		if f.Code == "ConditionalCheckFailed" && f.Err == nil {
			errs = append(errs, ErrConditionFailed)
		}
		if f.Code == "TransactionConflict" && !conflict {
			errs = append(errs, ErrTransactionConflict)
			conflict = true
		}
	}
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	return errs
}

// cause is the error of the first action whose condition failed, if the
// transaction failed only by conditions.
func (e *TxError) cause() error {
	for _, f := range e.Actions {
		if f.Code != "ConditionalCheckFailed" {
			return nil
		}
	}
	for _, f := range e.Actions {
		if f.Err != nil {
			return f.Err
		}
	}
	return nil
}

// BatchItem is one item a batch left unprocessed.
type BatchItem struct {
	Entity string
	Op     string // "Put", "Delete" or "Get"
	Key    map[string]types.AttributeValue
	// Item is the encoded item of a put.
	Item map[string]types.AttributeValue
	// Value is the value given: a put's item or the key of a delete or a
	// get, as a T value of the entity's Go type.
	Value any
}

// BatchError reports what a BatchWrite or BatchGet could not do: every
// item still unprocessed when its retry budget ran out or an error stopped
// the batch. Nothing else was lost: every item given is either done or
// listed here. It matches ErrUnprocessed, and Err (when set) through
// errors.Is/As. Entity.UnprocessedPuts, UnprocessedDeletes and
// UnprocessedKeys return the items typed; Ops resubmits them.
type BatchError struct {
	Op          string // "BatchWrite", or "User.BatchGet"
	Unprocessed []BatchItem
	// Requests is the number of requests sent.
	Requests int
	// Err is what stopped the batch early (a non-retryable error, a
	// cancelled context), or the last throttling error when the budget ran
	// out; nil when DynamoDB only kept returning items unprocessed.
	Err error

	items []*action
}

func (e *BatchError) Error() string {
	var counts []string
	byOp := map[string]int{}
	for _, it := range e.Unprocessed {
		byOp[it.Entity+" "+it.Op]++
	}
	for k, n := range byOp {
		counts = append(counts, fmt.Sprintf("%d %s", n, k))
	}
	s := fmt.Sprintf("singletable: %s: %d items unprocessed after %d requests (%s)", e.Op, len(e.Unprocessed), e.Requests, strings.Join(sorted(counts), ", "))
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap gives errors.Is/As ErrUnprocessed and Err.
func (e *BatchError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrUnprocessed, e.Err}
	}
	return []error{ErrUnprocessed}
}

// Ops returns the unprocessed puts and deletes as BatchOps, to send again
// with BatchWrite.
func (e *BatchError) Ops() []BatchOp {
	var items []batchEntry
	for _, it := range e.items {
		items = append(items, batchEntry{kind: it.Kind, m: it.m, value: it.value})
	}
	if len(items) == 0 {
		return nil
	}
	return []BatchOp{{items: items}}
}

// CursorError says why a cursor was refused. It matches ErrInvalidCursor.
type CursorError struct {
	Pattern string // the pattern or collection the cursor was given to
	Reason  string
}

// Error says which pattern refused the cursor and why.
func (e *CursorError) Error() string {
	return "singletable: " + e.Pattern + ": invalid cursor: " + e.Reason
}

// Is makes errors.Is(err, ErrInvalidCursor) true.
func (e *CursorError) Is(target error) bool { return target == ErrInvalidCursor }

// SchemaMismatchError lists how an existing table differs from the model,
// and what to do about each difference.
type SchemaMismatchError struct {
	Table       string
	Differences []string
}

func (e *SchemaMismatchError) Error() string {
	return fmt.Sprintf("singletable: table %s differs from the model:\n  - %s", e.Table, strings.Join(e.Differences, "\n  - "))
}

// Is makes errors.Is(err, ErrSchemaMismatch) true.
func (e *SchemaMismatchError) Is(target error) bool { return target == ErrSchemaMismatch }

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
// another error (a *KeyError) is wrapped with op and prefix when there is
// a prefix, and passes as it is when not.
func inOp(op, prefix string, err error) error {
	var le *LimitError
	if errors.As(err, &le) {
		return &LimitError{Op: op, Reason: prefix + le.Reason}
	}
	var ie *InputError
	if errors.As(err, &ie) {
		return &InputError{Op: op, Reason: prefix + ie.Reason}
	}
	if prefix != "" {
		return &inOpError{op: op, prefix: prefix, err: err}
	}
	return err
}

// inOpError is an error of one item of a batch that has no Op of its own:
// its operation and position before its text. Unwrap gives it, typed.
type inOpError struct {
	op, prefix string
	err        error
}

func (e *inOpError) Error() string {
	return "singletable: " + e.op + ": " + e.prefix + strings.TrimPrefix(e.err.Error(), "singletable: ")
}

func (e *inOpError) Unwrap() error { return e.err }
