package singletable

// Option tunes one operation: Get(ctx, db, key, ConsistentRead()),
// Update(ctx, db, key, Set("Status", "SHIPPED"), If(Eq("Status", "PENDING"))).
// Each operation accepts the options that make sense for it; any other is an
// ErrInvalidInput before a request is sent.
type Option struct {
	kind  optKind
	name  string
	apply func(*settings)
	// The two options a write takes most, If and the changes, carry their
	// argument here rather than in a closure: one allocation less each.
	cond   Cond
	change change
}

// optKind is a bit per option, so that each operation can say which it
// takes. Bits 0-7 are the core options; the read side and the write side
// declare theirs in their own files.
type optKind uint64

const (
	optConsistent optKind = 1 << iota
	optMustExist
	optCondition
	optUpsert
	optChange
	optLimit
	optDescending
)

// settings is what an operation's options add up to.
type settings struct {
	// (The flags are together: every operation given options allocates a
	// settings, so padding costs.)
	consistent bool
	mustExist  bool
	upsert     bool
	noRead     bool // NoRead: Update must not read the item first (update.go)
	descending bool
	cond       Cond
	changes    []change
	limit      int
	write      writeSettings // write-side options: options_write.go
	read       readSettings  // read-side options (options_read.go)
}

// noOptions is what collect returns for an operation given no options, so
// that the common call allocates nothing. It is shared: settings are only
// ever written by the options' apply functions, inside collect, never
// after.
var noOptions settings

// collect applies opts for operation op, rejecting options it does not take.
func collect(op string, allowed optKind, opts []Option) (*settings, error) {
	if len(opts) == 0 {
		return &noOptions, nil
	}
	s := &settings{}
	for _, o := range opts {
		if o.kind == 0 {
			return nil, &InputError{Op: op, Reason: "a zero Option was passed"}
		}
		if o.kind&allowed == 0 {
			return nil, &InputError{Op: op, Reason: "option " + o.name + " does not apply to this operation"}
		}
		switch o.kind {
		case optChange:
			s.changes = append(s.changes, o.change)
		case optCondition:
			s.cond = And(s.cond, o.cond)
		default:
			o.apply(s)
		}
	}
	return s, nil
}

// ConsistentRead asks for a strongly consistent read (Get, and queries on
// the base table; global secondary indexes cannot serve one).
func ConsistentRead() Option {
	return Option{kind: optConsistent, name: "ConsistentRead", apply: func(s *settings) { s.consistent = true }}
}

// MustExist makes Delete fail with ErrNotFound when there is no item.
func MustExist() Option {
	return Option{kind: optMustExist, name: "MustExist", apply: func(s *settings) { s.mustExist = true }}
}

// If adds a condition the item must meet for the write to happen; when it
// does not, the write fails with a *ConditionError (ErrConditionFailed).
// Several If options must all hold.
func If(c Cond) Option {
	return Option{kind: optCondition, name: "If", cond: c}
}

// Upsert lets Update create the item when it does not exist. Without it,
// Update of a missing item fails with ErrNotFound rather than leaving a
// partial item behind.
func Upsert() Option {
	return Option{kind: optUpsert, name: "Upsert", apply: func(s *settings) { s.upsert = true }}
}

// Limit caps the number of items a query returns.
func Limit(n int) Option {
	return Option{kind: optLimit, name: "Limit", apply: func(s *settings) { s.limit = n }}
}

// Descending returns query results in descending sort-key order.
func Descending() Option {
	return Option{kind: optDescending, name: "Descending", apply: func(s *settings) { s.descending = true }}
}
