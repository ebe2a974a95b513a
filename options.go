package singletable

// Options are typed per operation: each operation takes its own option
// interface (GetOption, QueryOption, PutOption, DeleteOption, UpdateOption,
// TxOption, BatchGetOption, BatchWriteOption), so that an option given to
// an operation that does not take it is a compile error. The interfaces are
// sealed (an unexported method), so only this package implements them; an
// option that fits several operations returns a type that implements
// several (ConsistentRead's ReadOption is a GetOption, a QueryOption and a
// BatchGetOption).

// option is what every option does: add itself to an operation's settings.
type option interface{ apply(*settings) }

// GetOption tunes Entity.Get and Entity.GetInput. ConsistentRead
// satisfies it.
type GetOption interface {
	option
	getOption()
}

// QueryOption tunes a query: Pattern.Query, Pattern.QueryBetween,
// Pattern.All, Pattern.AllBetween, Pattern.Get, Collection.Query,
// Collection.All, Entity.Query, Entity.All and their Input dry runs. Limit, After,
// Descending, Ascending, Filter, Project, FetchFull, PartialMatch,
// PartialTime, SortFields and ConsistentRead satisfy it. What a query can
// use also depends on how it was declared (an option that needs a kind of
// sort condition, an index, or a Query rather than a GetItem pattern): see
// each option, and each operation for the ones it leaves out.
type QueryOption interface {
	option
	queryOption()
}

// PutOption tunes Put, Create, TxPut, TxCreate and their Input dry runs.
// If satisfies it.
type PutOption interface {
	option
	putOption()
}

// DeleteOption tunes Delete, TxDelete and DeleteInput. If and MustExist
// satisfy it.
type DeleteOption interface {
	option
	deleteOption()
}

// UpdateOption tunes Update, TxUpdate and UpdateInput. Upsert and NoRead
// satisfy it. (An update's condition is part of its Changes: see
// Changes.If.)
type UpdateOption interface {
	option
	updateOption()
}

// TxOption tunes DB.Transact and DB.TransactInput. IdempotencyToken
// satisfies it.
type TxOption interface {
	option
	txOption()
}

// BatchGetOption tunes Entity.BatchGet and Entity.BatchGetInputs.
// ConsistentRead, Concurrency and BatchRetry satisfy it.
type BatchGetOption interface {
	option
	batchGetOption()
}

// BatchWriteOption tunes DB.BatchWrite. Concurrency and BatchRetry
// satisfy it.
type BatchWriteOption interface {
	option
	batchWriteOption()
}

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
// ever written by the options' apply methods, inside collect, never after.
var noOptions settings

// collect adds up opts for operation op.
func collect[O option](op string, opts []O) (*settings, error) {
	if len(opts) == 0 {
		return &noOptions, nil
	}
	s := &settings{}
	if err := applyAll(op, s, opts); err != nil {
		return nil, err
	}
	return s, nil
}

// given names the first option of names that s holds ("" if none), for
// the reads that take only some query options.
func (s *settings) given(names ...string) string {
	for _, n := range names {
		var set bool
		switch n {
		case "Limit":
			set = s.limit != 0
		case "After":
			set = s.read.hasCursor
		case "Descending":
			set = s.descending
		case "Ascending":
			set = s.read.ascending
		case "Filter":
			set = !s.read.filter.IsZero()
		case "Project":
			set = len(s.read.project) > 0
		case "FetchFull":
			set = s.read.fetchFull
		case "PartialMatch": // or PartialTime
			if s.read.partial {
				return partialName(s.read.timePrec)
			}
		case "SortFields":
			set = s.read.hasSortFields
		}
		if set {
			return n
		}
	}
	return ""
}

// applyAll applies opts to s.
func applyAll[O option](op string, s *settings, opts []O) error {
	for _, o := range opts {
		if option(o) == nil {
			return &InputError{Op: op, Reason: "a nil option was passed"}
		}
		o.apply(s)
	}
	return nil
}

// The options that fit one operation only are implemented by these types:
// each holds the function that applies it (a single pointer, so that
// passing one as an interface allocates nothing); a zero one does nothing.
type (
	queryOpt  struct{ set func(*settings) }
	deleteOpt struct{ set func(*settings) }
	updateOpt struct{ set func(*settings) }
	txOpt     struct{ set func(*settings) }
)

func apply(set func(*settings), s *settings) {
	if set != nil {
		set(s)
	}
}

func (o queryOpt) apply(s *settings)  { apply(o.set, s) }
func (o deleteOpt) apply(s *settings) { apply(o.set, s) }
func (o updateOpt) apply(s *settings) { apply(o.set, s) }
func (o txOpt) apply(s *settings)     { apply(o.set, s) }

func (queryOpt) queryOption()   {}
func (deleteOpt) deleteOption() {}
func (updateOpt) updateOption() {}
func (txOpt) txOption()         {}

// ReadOption is an option of every read: a GetOption, a QueryOption and a
// BatchGetOption.
type ReadOption struct{ set func(*settings) }

func (o ReadOption) apply(s *settings) { apply(o.set, s) }
func (ReadOption) getOption()          {}
func (ReadOption) queryOption()        {}
func (ReadOption) batchGetOption()     {}

// ConsistentRead asks for a strongly consistent read (Get, BatchGet, and
// queries on the base table; global secondary indexes cannot serve one).
func ConsistentRead() ReadOption { return ReadOption{setConsistent} }

func setConsistent(s *settings) { s.consistent = true }

// CondOption is a condition on a write: a PutOption and a DeleteOption.
// (An update's condition is part of its Changes: see Changes.If.)
type CondOption struct{ cond Cond }

func (o CondOption) apply(s *settings) { s.cond = And(s.cond, o.cond) }
func (CondOption) putOption()          {}
func (CondOption) deleteOption()       {}

// If adds a condition the item must meet for the write to happen; when it
// does not, the write fails with a *ConditionError (ErrConditionFailed).
// Several If options must all hold. For Update, see Changes.If.
func If(c Cond) CondOption { return CondOption{c} }

// MustExist makes Delete fail with ErrNotFound when there is no item.
func MustExist() DeleteOption { return deleteOpt{setMustExist} }

func setMustExist(s *settings) { s.mustExist = true }

// Upsert lets Update create the item when it does not exist. Without it,
// Update of a missing item fails with ErrNotFound rather than leaving a
// partial item behind.
func Upsert() UpdateOption { return updateOpt{setUpsert} }

func setUpsert(s *settings) { s.upsert = true }

// Limit caps the number of items a query returns.
func Limit(n int) QueryOption { return queryOpt{func(s *settings) { s.limit = n }} }

// Descending returns query results in descending sort-key order.
func Descending() QueryOption { return queryOpt{setDescending} }

func setDescending(s *settings) { s.descending = true }
