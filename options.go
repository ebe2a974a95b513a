package singletable

import (
	"fmt"
	"time"

	"github.com/singletable/singletable/internal/bridge"
)

// Options are typed per operation: each operation takes its own option
// interface (GetOption, QueryOption, PutOption, DeleteOption, UpdateOption,
// TxOption, BatchGetOption, BatchWriteOption, ScanOption ...), so that an
// option given to an operation it cannot apply to is a compile error. The
// interfaces are sealed (an unexported method), so only this package
// implements them, and by unexported types: a caller cannot make a zero
// option, and a nil one is an *InputError (ErrInvalidInput). An option that
// fits several operations returns an interface that lists them:
// ConsistentRead() is a GetOption, a PatternGetOption, an
// EntityQueryOption, a CollectionOption, a BatchGetOption and a ScanOption.
//
// The query options form a small hierarchy: QueryOption is every one of
// them (a pattern's query takes them all), and each narrower interface
// embeds it and leaves out what its reads can never use: PatternGetOption
// (Pattern.Get) the options that page or order a list, EntityQueryOption
// (Entity.Query) FetchFull, PartitionQueryOption (the graph package's
// relation reads) the sort-key options, and CollectionOption, which embeds
// PartitionQueryOption, the fan-out ones too. What a read can use may also
// depend on how it was declared (a GetItem pattern, a SortPrefix pattern,
// an index, shards): those checks are made when it runs, before anything
// is sent, and name the option. The DB's own options (DBOption) are in
// db.go, beside New.

// option is what every option does: add itself to an operation's settings.
type option interface{ apply(*settings) }

// GetOption tunes Entity.Get, Entity.GetInput and Entity.TxGet.
// ConsistentRead and IncludeExpired satisfy it (to TxGet, ConsistentRead
// changes nothing: a transactional read is always strongly consistent).
type GetOption interface {
	option
	getOption()
}

// QueryOption tunes a pattern's query: Pattern.Query, Pattern.QueryBetween,
// Pattern.All, Pattern.AllBetween, Sum, SumBetween and their Input dry
// runs. Every query option satisfies it: Limit, After, Descending,
// Ascending, Filter, Project, FetchFull, PartialMatch, PartialTime,
// SortFields, ConsistentRead, IncludeExpired, FanOutConcurrency and
// MaxFanOutRequests. What a query can use also depends on how the pattern
// was declared (an option that needs a kind of sort condition, an index, a
// pattern that fans out, or a Query rather than a GetItem pattern): see
// each option.
type QueryOption interface {
	option
	queryOption()
}

// PatternGetOption tunes Pattern.Get and Pattern.GetInput: the query
// options that can change which one item a pattern finds, or how it is
// read. Every QueryOption but Limit, After, Descending and Ascending, which
// page or order a list, satisfies it. A GetItem pattern takes only
// ConsistentRead, Project and IncludeExpired (the others are an
// ErrInvalidInput naming the option), as its declaration decides.
type PatternGetOption interface {
	QueryOption
	patternGetOption()
}

// EntityQueryOption tunes Entity.Query, Entity.All and their Input dry
// runs: every QueryOption but FetchFull (they read the table, which holds
// whole items).
type EntityQueryOption interface {
	QueryOption
	entityQueryOption()
}

// PartitionQueryOption tunes a query of whole partitions, whose sort
// condition the declaration fixes rather than the params (the graph
// package's Relation.In and Relation.Out): every QueryOption but the
// sort-key ones, PartialMatch, PartialTime and SortFields.
type PartitionQueryOption interface {
	QueryOption
	partitionQueryOption()
}

// CollectionOption tunes Collection.Query, Collection.All and
// Collection.QueryInput: every PartitionQueryOption but FanOutConcurrency
// and MaxFanOutRequests (a collection reads one partition).
type CollectionOption interface {
	PartitionQueryOption
	collectionOption()
}

// PutOption tunes Put, Create, TxPut, TxCreate and their Input dry runs.
// If and RandomShard satisfy it.
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

// UpdateOption tunes Update, TxUpdate and UpdateInput. Upsert, NoRead,
// Current and RandomShard satisfy it. (An update's condition is part of its Changes: see
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
// ConsistentRead, IncludeExpired, Concurrency and BatchRetry satisfy it.
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

// ScanOption tunes Entity.Scan, DB.Scan, a ScanIndex pattern's Scan and
// their ScanInput dry runs.
// Segments, ScanConcurrency, PageSize, OnProgress, ResumeScan, Filter,
// ConsistentRead and IncludeExpired satisfy it (see scan.go).
type ScanOption interface {
	option
	scanOption()
}

// EnsureOption tunes DB.EnsureTable. AddMissingIndexes satisfies it.
type EnsureOption interface {
	option
	ensureOption()
}

// settings is what an operation's options add up to.
type settings struct {
	// (The flags are together: every operation given options allocates a
	// settings, so padding costs.)
	consistent bool
	mustExist  bool
	upsert     bool
	noRead     bool // NoRead: Update must not read the item first (update.go)
	addIndexes bool // AddMissingIndexes: EnsureTable creates missing indexes (admin_gsi.go)
	descending bool
	cond       Cond
	changes    []change
	// current is Current's value: the item as the caller holds it, which
	// gives an update the fields it would read (update_read.go).
	current *givenValue
	limit   int
	write   writeSettings // write-side options (IdempotencyToken, batch options)
	read    readSettings  // read-side options (After, Filter, Project ...)
	walk    *walkSettings // scan and migration options (scan.go), when given
	sink    bridge.Sink   // package capacity's option: collects consumed capacity (meter.go)
	// refused is why an option given cannot apply with its argument
	// (Project(), Concurrency(0) ...): applyAll fails with it.
	refused string
}

// readSettings is what the read-side options add up to; settings holds one.
type readSettings struct {
	cursor    string
	filter    Cond
	project   []string
	hasCursor bool
	fetchFull bool
	ascending bool
	partial   bool
	// includeExpired is IncludeExpired (ttl.go).
	includeExpired bool
	// sortFields is SortFields' n, when hasSortFields; timePrec is
	// PartialTime's precision (0: PartialMatch).
	hasSortFields bool
	sortFields    int
	timePrec      TimePrecision
	// fanConcurrency is FanOutConcurrency's n, when hasFanConcurrency (fanout.go).
	hasFanConcurrency bool
	fanConcurrency    int
	// fanCeiling is MaxFanOutRequests' n, when hasFanCeiling (fanout.go).
	hasFanCeiling bool
	fanCeiling    int
}

// writeSettings is what the write-side options add up to.
type writeSettings struct {
	token       string // user idempotency token; "" for a fresh random one
	hasToken    bool   // IdempotencyToken was given (an empty one is an error)
	concurrency int    // batch requests in flight; 0 for the default
	retry       *RetryPolicy
	randomShard bool // RandomShard (shard.go)
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

// asQueryOptions passes a narrower interface's options on to a pattern's
// read (Entity.Query runs a pattern of its own): Go converts no slice of
// one interface type to another. Without options it allocates nothing.
func asQueryOptions[O QueryOption](opts []O) []QueryOption {
	if len(opts) == 0 {
		return nil
	}
	qs := make([]QueryOption, len(opts))
	for i, o := range opts {
		qs[i] = o
	}
	return qs
}

// applyAll applies opts to s. A nil option is an *InputError: the
// options are sealed interfaces, so nil is the only zero a caller can
// pass. So is Filter or If of the zero Cond, which And would drop: a
// condition the caller meant to give must not vanish.
func applyAll[O option](op string, s *settings, opts []O) error {
	for i, o := range opts {
		if option(o) == nil {
			return &InputError{Op: op, Reason: fmt.Sprintf("option %d of %d is nil", i+1, len(opts))}
		}
		if name := zeroCond(o); name != "" {
			return &InputError{Op: op, Reason: name + "(Cond{}): the condition is empty"}
		}
		o.apply(s)
		if s.refused != "" {
			return &InputError{Op: op, Reason: s.refused}
		}
	}
	return nil
}

// zeroCond names the option, Filter or If, when o is one of the zero
// Cond; else "".
func zeroCond(o option) string {
	switch c := o.(type) {
	case filterOpt:
		if c.c.IsZero() {
			return "Filter"
		}
	case condOpt:
		if c.c.IsZero() {
			return "If"
		}
	}
	return ""
}

// The options are implemented by these unexported types, one for each set
// of operations an option fits: an option's value satisfies exactly the
// interfaces its constructor's signature lists (no more, even to a type
// assertion), and a caller cannot make a zero one. Each holds the function
// that applies it, or the condition it adds: a single pointer or a Cond,
// so that passing one as an interface allocates no more than the option
// itself.
type (
	readOpt   struct{ set func(*settings) } // every read: gets, queries, BatchGet, scans
	listOpt   struct{ set func(*settings) } // Pattern.Get and every query: Project
	fetchOpt  struct{ set func(*settings) } // Pattern.Get, queries that may read an index: FetchFull
	sortOpt   struct{ set func(*settings) } // Pattern.Get, Pattern and Entity queries: the sort-key options
	fanOpt    struct{ set func(*settings) } // Pattern.Get, queries that may fan out
	queryOpt  struct{ set func(*settings) } // every query, not Pattern.Get: paging and order
	filterOpt struct{ c Cond }              // Pattern.Get, queries and scans
	condOpt   struct{ c Cond }              // Put and Delete
	deleteOpt struct{ set func(*settings) }
	updateOpt struct{ set func(*settings) }
	shardOpt  struct{} // Put and Update: RandomShard (shard.go)
	txOpt     struct{ set func(*settings) }
	batchOpt  struct{ set func(*settings) } // BatchGet and BatchWrite
)

// apply runs an option's function on s.
func apply(set func(*settings), s *settings) { set(s) }

func (o readOpt) apply(s *settings)   { apply(o.set, s) }
func (o listOpt) apply(s *settings)   { apply(o.set, s) }
func (o fetchOpt) apply(s *settings)  { apply(o.set, s) }
func (o sortOpt) apply(s *settings)   { apply(o.set, s) }
func (o fanOpt) apply(s *settings)    { apply(o.set, s) }
func (o queryOpt) apply(s *settings)  { apply(o.set, s) }
func (o filterOpt) apply(s *settings) { s.read.filter = And(s.read.filter, o.c) }
func (o condOpt) apply(s *settings)   { s.cond = And(s.cond, o.c) }
func (o deleteOpt) apply(s *settings) { apply(o.set, s) }
func (o updateOpt) apply(s *settings) { apply(o.set, s) }
func (shardOpt) apply(s *settings)    { s.write.randomShard = true }
func (o txOpt) apply(s *settings)     { apply(o.set, s) }
func (o batchOpt) apply(s *settings)  { apply(o.set, s) }

func (readOpt) getOption()              {}
func (readOpt) queryOption()            {}
func (readOpt) patternGetOption()       {}
func (readOpt) entityQueryOption()      {}
func (readOpt) partitionQueryOption()   {}
func (readOpt) collectionOption()       {}
func (readOpt) batchGetOption()         {}
func (readOpt) scanOption()             {}
func (listOpt) queryOption()            {}
func (listOpt) patternGetOption()       {}
func (listOpt) entityQueryOption()      {}
func (listOpt) partitionQueryOption()   {}
func (listOpt) collectionOption()       {}
func (fetchOpt) queryOption()           {}
func (fetchOpt) patternGetOption()      {}
func (fetchOpt) partitionQueryOption()  {}
func (fetchOpt) collectionOption()      {}
func (sortOpt) queryOption()            {}
func (sortOpt) patternGetOption()       {}
func (sortOpt) entityQueryOption()      {}
func (fanOpt) queryOption()             {}
func (fanOpt) patternGetOption()        {}
func (fanOpt) entityQueryOption()       {}
func (fanOpt) partitionQueryOption()    {}
func (queryOpt) queryOption()           {}
func (queryOpt) entityQueryOption()     {}
func (queryOpt) partitionQueryOption()  {}
func (queryOpt) collectionOption()      {}
func (filterOpt) queryOption()          {}
func (filterOpt) patternGetOption()     {}
func (filterOpt) entityQueryOption()    {}
func (filterOpt) partitionQueryOption() {}
func (filterOpt) collectionOption()     {}
func (filterOpt) scanOption()           {}
func (condOpt) putOption()              {}
func (condOpt) deleteOption()           {}
func (deleteOpt) deleteOption()         {}
func (updateOpt) updateOption()         {}
func (shardOpt) putOption()             {}
func (shardOpt) updateOption()          {}
func (txOpt) txOption()                 {}
func (batchOpt) batchGetOption()        {}
func (batchOpt) batchWriteOption()      {}

// The query options' return types list the narrowest interfaces they
// satisfy (each embeds QueryOption; CollectionOption embeds
// PartitionQueryOption).

// ConsistentRead asks for a strongly consistent read (Get, BatchGet, and
// queries on the base table or a local secondary index; global secondary
// indexes cannot serve one).
func ConsistentRead() interface {
	GetOption
	PatternGetOption
	EntityQueryOption
	CollectionOption
	BatchGetOption
	ScanOption
} {
	return readOpt{setConsistent}
}

func setConsistent(s *settings) { s.consistent = true }

// Limit caps the number of items a query returns (All: in all). Limit(0)
// is no cap, as if Limit were not given; a negative n is an
// ErrInvalidInput.
func Limit(n int) interface {
	EntityQueryOption
	CollectionOption
} {
	return queryOpt{func(s *settings) { s.limit = n }}
}

// Descending returns query results in descending sort-key order.
func Descending() interface {
	EntityQueryOption
	CollectionOption
} {
	return queryOpt{setDescending}
}

func setDescending(s *settings) { s.descending = true }

// After resumes a query after the page that returned cursor (Page.Cursor).
// The cursor must come from the same pattern, partition, sort bounds and
// sort direction, read through a DB that has its cursor key (see
// WithCursorKeys); any other, or a tampered one, is a *CursorError
// (ErrInvalidCursor) and no request is sent. An empty cursor starts from
// the beginning.
func After(cursor string) interface {
	EntityQueryOption
	CollectionOption
} {
	return queryOpt{func(s *settings) { s.read.cursor, s.read.hasCursor = cursor, true }}
}

// Filter keeps only the items for which c holds, on fields that are not
// keys of the index read. DynamoDB applies filters after reading: filtered
// items still cost read capacity (and count toward the 1 MB page), so a
// pattern that filters most of what it reads is a sign that it needs its own
// key or index. Limit still counts matching items: the query reads further
// pages until it has them. Several Filter options must all hold; the
// zero Cond is an *InputError (ErrInvalidInput), not a filter that
// vanishes. Given to a scan, it filters the items scanned (see
// Entity.Scan and DB.Scan).
//
// On a collection, each member that has the fields c names applies it to
// its own attributes (a field Name stored as "name" by one member and
// "title" by another matches either); the items of members without those
// fields are filtered out.
func Filter(c Cond) interface {
	PatternGetOption
	EntityQueryOption
	CollectionOption
	ScanOption
} {
	return filterOpt{c}
}

// Project asks only for the named fields (Go names), to save bandwidth.
// DynamoDB still charges for the whole item read. The keys and the entity
// type are always fetched too, so results decode and paginate as usual;
// fields written in the item's key templates are recovered from the keys;
// the other fields are left at their zero values. Project() without a
// field is an *InputError (ErrInvalidInput), not a read of every field.
func Project(fields ...string) interface {
	PatternGetOption
	EntityQueryOption
	CollectionOption
} {
	if len(fields) == 0 {
		// Project() would read every field: refused, not ignored.
		return listOpt{func(s *settings) { s.refused = "Project(): no fields are named" }}
	}
	fs := append([]string(nil), fields...)
	return listOpt{func(s *settings) { s.read.project = append(s.read.project, fs...) }}
}

// FetchFull makes a query on a KEYS_ONLY or INCLUDE index return complete
// items: after each page, one BatchGetItem (per 100 items) reads them from
// the table. Without it, such a query returns what the index holds: the
// fields recoverable from the keys, plus the included attributes. An item
// deleted between the query and the batch read is left out.
func FetchFull() interface {
	PatternGetOption
	CollectionOption
} {
	return fetchOpt{setFetchFull}
}

func setFetchFull(s *settings) {
	s.read.fetchFull = true
}

// Ascending returns query results in ascending sort-key order, overriding a
// pattern declared Descending.
func Ascending() interface {
	EntityQueryOption
	CollectionOption
} {
	return queryOpt{setAscending}
}

func setAscending(s *settings) {
	s.read.ascending = true
}

// PartialMatch lets the last sort field given in params match as a prefix
// of the stored value, for SortPrefix patterns: Date "2024-01" matches every
// date of January 2024. Without it, a sort prefix always ends after a whole
// value ("ORDER#1#"), so that ID 1 never matches ID 10. The last given field
// must be a string; for a time.Time, see PartialTime. With SortFields(n),
// the last given field is the n-th: an integer after it (always a value
// otherwise) is not given.
func PartialMatch() interface {
	PatternGetOption
	EntityQueryOption
} {
	return sortOpt{setPartialMatch}
}

func setPartialMatch(s *settings) {
	s.read.partial, s.read.timePrec = true, 0
}

// PartialTime lets the last sort field given in params, a time.Time, match
// every time of the same year, month, day or hour, for SortPrefix
// patterns: with precision Month, At 2026-02-14 (any day of it) matches
// every key whose At is in February 2026: begins_with "TRANSACTION#2026-02"
// for "TRANSACTION#{At}". The field's layout must render that precision as
// its leading characters (DefaultTimeLayout and "2006-01-02" do, down to
// the hour and the day); a layout that does not is an ErrInvalidInput, and
// so is a precision other than Year, Month, Day and Hour.
func PartialTime(precision TimePrecision) interface {
	PatternGetOption
	EntityQueryOption
} {
	if precision < Year || precision > Hour {
		// PartialTime(0) would read as PartialMatch: refused, not reread.
		return sortOpt{func(s *settings) {
			s.refused = "PartialTime(" + precision.String() + "): the precision is Year, Month, Day or Hour"
		}}
	}
	return sortOpt{func(s *settings) { s.read.partial, s.read.timePrec = true, precision }}
}

// SortFields says how far the sort prefix of the params goes: the first n
// fields of the sort template are given, the others are not (0: none).
// Sort conditions otherwise stop at the first absent value (a nil pointer,
// an empty string, a zero time), and an integer is never absent: 0 is a
// value. So with "DOC#{ID}#{Seq:3}", Doc{ID: "d1"} asks for Seq 0 ("DOC#d1#000"),
// and Doc{ID: "d1"} with SortFields(1) for every Seq of d1 ("DOC#d1#"). A
// field within the first n without a value, or one after them with a
// value other than its zero, is an ErrInvalidInput. It applies to the sort
// conditions taken from params (SortPrefix, SortBetween's bounds, the
// comparisons). On an index with a multi-attribute key the params give
// the sort fields up to the last one set, so a trailing zero number is
// not given there unless SortFields counts it (docs/rules.md).
func SortFields(n int) interface {
	PatternGetOption
	EntityQueryOption
} {
	return sortOpt{func(s *settings) { s.read.sortFields, s.read.hasSortFields = n, true }}
}

// If adds a condition the item must meet for the write to happen; when it
// does not, the write fails with a *ConditionError (ErrConditionFailed).
// Several If options must all hold; the zero Cond is an *InputError
// (ErrInvalidInput), not a condition that vanishes. For Update, see
// Changes.If.
func If(c Cond) interface {
	PutOption
	DeleteOption
} {
	return condOpt{c}
}

// MustExist makes Delete fail with ErrNotFound when there is no item.
func MustExist() DeleteOption { return deleteOpt{setMustExist} }

func setMustExist(s *settings) { s.mustExist = true }

// Upsert lets Update create the item when it does not exist. Without it,
// Update of a missing item fails with ErrNotFound rather than leaving a
// partial item behind.
func Upsert() UpdateOption { return updateOpt{setUpsert} }

func setUpsert(s *settings) { s.upsert = true }

// NoRead forbids Update the read it makes when an index key needs fields
// the update neither changes nor gives (see Update): such an update fails
// with a *ReadNeededError naming them, before anything is sent, so that the
// caller can Set them too.
func NoRead() UpdateOption { return updateOpt{setNoRead} }

func setNoRead(s *settings) { s.noRead = true }

// Current gives an update the item as the caller holds it (a value of the
// entity's type, or a pointer to one), so that an update whose index key
// (or When condition) needs fields it neither changes nor gives takes them
// from v instead of reading the item: TxUpdate and UpdateInput, which
// cannot read, then build the request, and Update sends it without a read.
// The write is conditioned on each field taken from v being stored as v
// has it (absent where v leaves it out, as Put would), so a stale v fails
// with a *StaleError naming the field, and writes nothing, rather than
// writing a stale index key; Update does not read and retry then. v's key
// must be the key updated, and an update that needs no field of v sends
// no condition on it. See docs/rules.md.
func Current[T any](v T) UpdateOption { return &givenValue{v} }

// givenValue is Current's value, as given (even a nil interface, which
// is then refused). It is the option itself: a closure, as other options
// are, would be compiled into Current[T], again for every entity type.
type givenValue struct{ v any }

func (g *givenValue) apply(s *settings) { s.current = g }
func (*givenValue) updateOption()       {}

// IdempotencyToken makes a transaction idempotent under the caller's token
// instead of a fresh random one: sending the same transaction again with the
// same token within 10 minutes does not apply it twice (DynamoDB's
// ClientRequestToken). Use it when the caller itself retries a logical
// operation, for example after a timeout whose outcome is unknown. The
// retry must be the same request, or it fails with ErrTokenReused: entities
// with timestamps stamp each build anew, so for them build the request once
// with DB.TransactInput and resend that input, or use a DB clock (WithClock)
// that repeats the first attempt's time. The token is 1 to 36 characters.
// Without it every Transact call gets a fresh token.
func IdempotencyToken(token string) TxOption {
	return txOpt{func(s *settings) { s.write.token, s.write.hasToken = token, true }}
}

// Concurrency bounds how many batch requests are in flight at once
// (default 4); n must be at least 1 (Concurrency(0) is an *InputError:
// leave the option out for the default).
func Concurrency(n int) interface {
	BatchGetOption
	BatchWriteOption
} {
	if n < 1 {
		return batchOpt{func(s *settings) { s.refused = fmt.Sprintf("Concurrency(%d) must be at least 1", n) }}
	}
	return batchOpt{func(s *settings) { s.write.concurrency = n }}
}

// RetryPolicy is how a batch retries what DynamoDB leaves unprocessed and
// the throttling errors it answers with: up to MaxAttempts requests per item
// (the first send included), waiting before the n-th retry a random time
// from zero to min(MaxDelay, BaseDelay × 2^(n-1)) ("full jitter"
// exponential backoff).
type RetryPolicy struct {
	MaxAttempts int
	BaseDelay   time.Duration
	MaxDelay    time.Duration
}

// DefaultRetryPolicy is the batch retry policy without a BatchRetry option:
// 10 attempts, 25 ms base, 2 s cap (at most about 7 s of waiting for one
// item: 25 ms + 50 ms + ... + 1.6 s + 2 s + 2 s).
var DefaultRetryPolicy = RetryPolicy{MaxAttempts: 10, BaseDelay: 25 * time.Millisecond, MaxDelay: 2 * time.Second}

// BatchRetry sets the retry budget of BatchWrite and BatchGet.
func BatchRetry(p RetryPolicy) interface {
	BatchGetOption
	BatchWriteOption
} {
	return batchOpt{func(s *settings) { p := p; s.write.retry = &p }}
}

func (p RetryPolicy) check() error {
	switch {
	case p.MaxAttempts < 1:
		return fmt.Errorf("BatchRetry: MaxAttempts must be at least 1, got %d", p.MaxAttempts)
	case p.BaseDelay < 0 || p.MaxDelay < 0:
		return fmt.Errorf("BatchRetry: delays must not be negative")
	case p.MaxDelay < p.BaseDelay:
		return fmt.Errorf("BatchRetry: MaxDelay %s is less than BaseDelay %s", p.MaxDelay, p.BaseDelay)
	}
	return nil
}
