package singletable

import (
	"context"
	"fmt"
	"iter"
	"reflect"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// Named access patterns
//
// A pattern is one way the application reads an entity, declared once with
// a name: the index it reads (the table or a GSI), the partition template
// and the sort-key condition. It is checked against the model as it is
// declared: the index must exist and the entity must write a key into it,
// the partition template must be what the entity writes there (with
// placeholders given by the query's params, or fixed to literal text:
// "STATUS#PENDING" for an entity writing "STATUS#{Status}"), and the sort
// condition must fit the entity's sort template. Every pattern reads one
// partition, except one declared ScanIndex, which scans a (sparse) index
// whole: no pattern ever scans the table.
//
//	var ListUserOrders = Orders.Pattern("ListUserOrders").
//		Partition("USER#{UserID}").SortBeginsWith("ORDER#").Descending().Must()
//
// The builder methods each return a new pattern, validated as a whole, so
// their order does not matter; Err reports the first problem (a *ModelError
// matching ErrInvalidModel), Must panics with it, and a query on a pattern
// with an error returns that error without sending anything. A pattern is
// registered on its table under its name, for the access-pattern sheet and
// lint (see Table.Sheet and Table.Lint); names are unique per table,
// collections included. Declare each pattern in one expression, at package
// level: deriving two patterns from one unfinished builder gives two
// patterns with the same name, of which the table keeps the last.
//
// Sort-key conditions take their values from the query's params, a T
// whose sort fields are set as far as the query needs them, and are
// prefix-safe: a sort prefix always ends after a whole value, so that with
// "ORDER#{ID}#{Line}" the ID 1 never matches ID 10 (PartialMatch asks for
// a partial last value explicitly, PartialTime a year, month, day or hour
// of a time). A prefix stops at the first absent value (a nil pointer, an
// empty string, a zero time); integers are always values, 0 included, so
// the SortFields option says when a prefix stops before one; a value given
// after the prefix's end is an ErrInvalidInput, never dropped. A value over
// the 1024-byte sort-key limit is an ErrInvalidKey. The rules per condition:
//
//	SortEquals          = the full sort key (every sort field given)
//	SortPrefix          begins_with the leading sort fields given; = when all are
//	SortBeginsWith(p)   begins_with the literal prefix p
//	SortBetween         from .. to (QueryBetween), both inclusive; a bound that
//	                    stops before the last sort field covers every key that
//	                    starts with it (to Date 31 includes every ID of the 31st)
//	SortLessThan        < the keys starting with params (all of them excluded)
//	SortLessOrEqual     <= the keys starting with params (all of them included)
//	SortGreaterThan     > the keys starting with params (all of them excluded)
//	SortGreaterOrEqual  >= the keys starting with params (all of them included)
//
// Without a sort condition a pattern reads the keys that begin with the
// literal text of the entity's sort template before its first placeholder
// ("ORDER#" for "ORDER#{Date}#{ID}"), so that it never reads other
// entities' items that it could not return. A pattern on the table whose
// sort key is given whole (SortEquals, or a table without a sort key) runs
// as GetItem; every other pattern runs as Query.
type Pattern[T any] struct {
	d *readDecl
}

const (
	sortDefault sortOp = iota
	sortEquals
	sortPrefix
	sortBeginsWith
	sortBetween
	sortLT
	sortLE
	sortGT
	sortGE
)

// Pattern starts the declaration of a named access pattern of the entity.
// See Pattern for the rules.
func (e *Entity[T]) Pattern(name string) *Pattern[T] {
	return &Pattern[T]{d: patternDecl(e.model(), name)}
}

// On makes the pattern read the named secondary index, global (WithGSI)
// or local (WithLSI: ConsistentRead applies there). Without On, a
// pattern reads the table, or, if the partition template is not what the
// entity writes into the table's partition key, the one index whose
// partition key it is.
func (p *Pattern[T]) On(index string) *Pattern[T] { return &Pattern[T]{d: p.d.withIndex(index)} }

// Partition sets the partition template: the entity's template on the
// index, with {Field} placeholders that the query's params give, or with
// some placeholders fixed to literal values ("STATUS#PENDING"). Without it,
// the pattern uses the entity's template on the index as is.
func (p *Pattern[T]) Partition(template string) *Pattern[T] {
	return &Pattern[T]{d: p.d.withPartition(template)}
}

// SortEquals matches the sort key rendered from every sort field of the
// params. On the table, the pattern runs as GetItem.
func (p *Pattern[T]) SortEquals() *Pattern[T] { return &Pattern[T]{d: p.d.withSort(sortEquals, "")} }

// SortPrefix matches the sort keys that begin with the leading sort fields
// the params give, each whole (see PartialMatch); all of them: equality.
func (p *Pattern[T]) SortPrefix() *Pattern[T] { return &Pattern[T]{d: p.d.withSort(sortPrefix, "")} }

// SortBeginsWith matches the sort keys that begin with the literal prefix,
// which must be the start of some key the entity writes. A literal prefix
// may stop inside a value ("ORDER#2024-01" for every order of January): it
// is taken as written.
func (p *Pattern[T]) SortBeginsWith(prefix string) *Pattern[T] {
	return &Pattern[T]{d: p.d.withSort(sortBeginsWith, prefix)}
}

// SortBetween matches the sort keys between two bounds, both inclusive: the
// pattern is read with QueryBetween, AllBetween and QueryBetweenInput,
// which take both as typed values. See Pattern for how partial bounds
// extend.
func (p *Pattern[T]) SortBetween() *Pattern[T] { return &Pattern[T]{d: p.d.withSort(sortBetween, "")} }

// SortLessThan matches the sort keys below every key that starts with the
// params' sort fields.
func (p *Pattern[T]) SortLessThan() *Pattern[T] { return &Pattern[T]{d: p.d.withSort(sortLT, "")} }

// SortLessOrEqual matches the sort keys up to, and including, every key
// that starts with the params' sort fields.
func (p *Pattern[T]) SortLessOrEqual() *Pattern[T] { return &Pattern[T]{d: p.d.withSort(sortLE, "")} }

// SortGreaterThan matches the sort keys above every key that starts with
// the params' sort fields.
func (p *Pattern[T]) SortGreaterThan() *Pattern[T] { return &Pattern[T]{d: p.d.withSort(sortGT, "")} }

// SortGreaterOrEqual matches the sort keys from the first key that starts
// with the params' sort fields on.
func (p *Pattern[T]) SortGreaterOrEqual() *Pattern[T] {
	return &Pattern[T]{d: p.d.withSort(sortGE, "")}
}

// Descending makes the pattern return items in descending sort-key order
// by default (the Ascending option overrides it for one query).
func (p *Pattern[T]) Descending() *Pattern[T] { return &Pattern[T]{d: p.d.withDescending()} }

// Err is the pattern's declaration error, a *ModelError (ErrInvalidModel),
// or nil.
func (p *Pattern[T]) Err() error { return p.decl().err }

// nilPattern is the declaration of a nil *Pattern: its reads fail with
// this error before sending anything, as a nil DB's do.
var nilPattern = &readDecl{err: &InputError{Op: "Pattern", Reason: "the pattern is nil: declare it with Entity.Pattern or Collection"}}

// decl is the pattern's declaration, nilPattern for a nil pattern.
func (p *Pattern[T]) decl() *readDecl {
	if p == nil {
		return nilPattern
	}
	return p.d
}

// Must returns the pattern, or panics with its declaration error: for
// package-level declarations, which then fail when the program starts.
func (p *Pattern[T]) Must() *Pattern[T] {
	mustDeclare(p.d)
	return p
}

// Name is the pattern's name.
func (p *Pattern[T]) Name() string { return p.d.name }

// Index is the name of the index the pattern reads; "" for the table.
func (p *Pattern[T]) Index() string { return p.d.indexOf() }

// Operation is the request the pattern sends: "GetItem" or "Query".
func (p *Pattern[T]) Operation() string { return p.d.operation() }

// KeyCondition describes the pattern's key condition over its templates,
// as the access-pattern sheet prints it.
func (p *Pattern[T]) KeyCondition() string { return p.d.describeKeys() }

// request resolves the pattern for one call.
func (d *readDecl) request(db *DB, params, upper reflect.Value, opts []QueryOption) (*readReq, error) {
	s, err := d.settingsFor(d.name, opts)
	if err != nil {
		return nil, err
	}
	return d.requestWith(db, params, upper, s)
}

// requestWith is request with the options collected: s.
func (d *readDecl) requestWith(db *DB, v, hi reflect.Value, s *settings) (*readReq, error) {
	op := d.name
	switch {
	case d.sort == sortBetween && !hi.IsValid():
		return nil, &InputError{Op: op, Reason: "a SortBetween pattern reads between two bounds: use QueryBetween, AllBetween or QueryBetweenInput"}
	case d.sort != sortBetween && hi.IsValid():
		return nil, &InputError{Op: op, Reason: "QueryBetween, AllBetween and QueryBetweenInput apply to SortBetween patterns only"}
	}
	if err := d.checkDB(op, db); err != nil {
		return nil, err
	}
	mem := d.members[0]
	if d.native() {
		pk, sk, err := d.nativeCond(op, mem, v, hi, s)
		if err != nil {
			return nil, err
		}
		return d.buildQuery(db, op, mem, s, pk, sk)
	}
	for _, b := range mem.part {
		if b.Label != "" {
			continue
		}
		fv := v.FieldByIndex(b.Ph.Field.Index)
		// A field the pattern fixes needs no value: its zero (0 included)
		// is "not given"; any other value must be the fixed one.
		given, ok, err := b.Ph.AppendValue(nil, fv, d.table.schema.Delim)
		ok = ok && !fv.IsZero()
		switch {
		case err == nil && ok && string(given) != b.Fixed:
			return nil, &InputError{Op: op, Reason: fmt.Sprintf("params give %s %q, but the pattern reads only %q", b.Ph.Field.GoName, given, b.Fixed)}
		case err == nil && !ok:
			// The pattern fixes the field: the other templates (the sort
			// key of a GetItem) render with it too.
			if err := b.Ph.Set(fv, b.Fixed); err != nil {
				return nil, &InputError{Op: op, Reason: err.Error()}
			}
		}
	}
	if sm := mem.m.Shard; sm != nil && sm.By != nil && d.fanShard() == nil && mem.partBinds(sm.Field.GoName) {
		// Every read of the pattern gives By's fields: it reads their
		// shard (see shardAlwaysGiven).
		var err error
		if v, err = mem.m.PlaceShard(v); err != nil {
			return nil, err
		}
	}
	pk, err := mem.renderPartition(d.pkAttr(), v)
	if err != nil {
		return nil, err
	}
	if d.isGet() {
		return d.getRequest(db, op, mem, s, v)
	}
	sk, err := d.sortCond(op, mem, v, hi, s)
	if err != nil {
		return nil, err
	}
	return d.buildQuery(db, op, mem, s, pk, sk)
}

// QueryInput is the first request Query sends for params (a dry run). It
// is an error for a GetItem pattern (see GetInput), and for a read that
// spans several shards or time buckets (see QueryInputs).
func (p *Pattern[T]) QueryInput(db *DB, params T, opts ...QueryOption) (*dynamodb.QueryInput, error) {
	return p.decl().queryInput(db, reflect.ValueOf(&params).Elem(), reflect.Value{}, opts)
}

// QueryBetweenInput is the first request QueryBetween sends for the bounds
// from and to (a dry run); see QueryInput.
func (p *Pattern[T]) QueryBetweenInput(db *DB, from, to T, opts ...QueryOption) (*dynamodb.QueryInput, error) {
	return p.decl().queryInput(db, reflect.ValueOf(&from).Elem(), reflect.ValueOf(&to).Elem(), opts)
}

// queryInput is QueryInput and QueryBetweenInput.
func (d *readDecl) queryInput(db *DB, params, upper reflect.Value, opts []QueryOption) (*dynamodb.QueryInput, error) {
	if d.fans() {
		return d.fanInput(db, params, upper, opts)
	}
	r, err := d.request(db, params, upper, opts)
	if err != nil {
		return nil, err
	}
	if r.get != nil {
		return nil, &InputError{Op: d.name, Reason: "the pattern runs as GetItem: use GetInput"}
	}
	return &r.Query, nil
}

// Query reads one page of the pattern's items for params: the partition
// and sort fields the pattern's templates need. A GetItem pattern returns
// a page of zero or one item, and of the query options takes only
// ConsistentRead and Project. A SortBetween pattern is read with
// QueryBetween.
func (p *Pattern[T]) Query(ctx context.Context, db *DB, params T, opts ...QueryOption) (*Page[T], error) {
	page := new(Page[T])
	if err := p.decl().query(ctx, db, reflect.ValueOf(&params).Elem(), reflect.Value{}, opts, reflect.ValueOf(page).Elem()); err != nil {
		return nil, err
	}
	return page, nil
}

// QueryBetween reads one page of a SortBetween pattern's items, from the
// sort key of from to that of to: from gives the partition too. Both
// bounds are inclusive, and a bound that leaves trailing sort fields empty
// covers every key that starts with it: between Order{Date: "2024-01-01"}
// and Order{Date: "2024-01-31"} includes every order of January 31st,
// whatever its ID.
func (p *Pattern[T]) QueryBetween(ctx context.Context, db *DB, from, to T, opts ...QueryOption) (*Page[T], error) {
	page := new(Page[T])
	if err := p.decl().query(ctx, db, reflect.ValueOf(&from).Elem(), reflect.ValueOf(&to).Elem(), opts, reflect.ValueOf(page).Elem()); err != nil {
		return nil, err
	}
	return page, nil
}

// query reads into page (a Page[T]) the page of Query and QueryBetween.
func (d *readDecl) query(ctx context.Context, db *DB, params, upper reflect.Value, opts []QueryOption, page reflect.Value) error {
	if d.fans() {
		f, err := d.fanRequest(db, params, upper, opts)
		if err != nil {
			return err
		}
		return fanPage(ctx, db, f, f.s.limit, page)
	}
	r, err := d.request(db, params, upper, opts)
	if err != nil {
		return err
	}
	return r.page(ctx, db, page)
}

// All iterates over every item of the pattern for params, across pages,
// reading the next page only when the loop gets there; breaking out of the
// loop stops the reads. A pattern that fans out over shards or time
// buckets reads ahead of the loop instead: without a Limit, every leg at
// once, at most FanOutConcurrency requests in flight, cancelled when the
// loop stops; with one, a growing window of buckets (see Shards and
// FanOutConcurrency). Options are Query's; Limit caps the total and
// After starts from a cursor. An item that does not decode is yielded as
// its error (with the zero value), and the iteration goes on if the loop
// does, as a scan's; any other error is yielded once, last.
func (p *Pattern[T]) All(ctx context.Context, db *DB, params T, opts ...QueryOption) iter.Seq2[T, error] {
	return seqOf[T](p.decl().all(ctx, db, reflect.ValueOf(&params).Elem(), reflect.Value{}, opts, false))
}

// AllBetween iterates over every item of a SortBetween pattern from the
// sort key of from to that of to, as All does (see QueryBetween).
func (p *Pattern[T]) AllBetween(ctx context.Context, db *DB, from, to T, opts ...QueryOption) iter.Seq2[T, error] {
	return seqOf[T](p.decl().all(ctx, db, reflect.ValueOf(&from).Elem(), reflect.ValueOf(&to).Elem(), opts, false))
}

// all is the read of All and AllBetween. eager: the caller reads every
// item before it returns (Sum), bound by the fan-out ceiling.
func (d *readDecl) all(ctx context.Context, db *DB, params, upper reflect.Value, opts []QueryOption, eager bool) readIter {
	return readIter{run: runAll, ctx: ctx, db: db, d: d, params: params, upper: upper, opts: opts, eager: eager}
}

// runAll runs the read of All (see readIter). Each run reads for a copy
// of params, which the request may change.
func runAll(it readIter, dst reflect.Value, y itemYield) {
	d := it.d
	if d.fans() {
		f, err := d.fanRequest(it.db, it.params, it.upper, it.opts)
		if err != nil {
			y.item(err)
			return
		}
		fanAll(it.ctx, it.db, f, it.eager, dst, y)
		return
	}
	r, err := d.request(it.db, copyOf(it.params), it.upper, it.opts)
	if err != nil {
		y.item(err)
		return
	}
	queryAll(it.ctx, it.db, r, decodeMember, nil, dst, y)
}

// copyOf is a settable copy of struct value v.
func copyOf(v reflect.Value) reflect.Value {
	c := reflect.New(v.Type()).Elem()
	c.Set(v)
	return c
}
