package singletable

import (
	"context"
	"errors"
	"iter"
	"reflect"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/read"
)

// Queries, pages and iterators
//
// Every query runs through one engine: a pattern (Pattern.Query), an
// entity's partition (Entity.Query, which runs as a pattern of its own) and
// a collection (Collection.Query) all read pages the same way and return a
// Page (a collection's CollectionResult embeds a Page[any]).
//
// Query returns one page: with Limit(n), up to n matching items, reading
// as many DynamoDB pages as it takes (a filter, or items of other entities
// in the range read, make DynamoDB return fewer items than it reads); with
// no Limit, the items of the first DynamoDB page (up to 1 MB read) that has
// any. The page's Cursor, passed back with After, resumes right after the
// last item returned; it is empty at the end. As DynamoDB does, a page that
// happens to end exactly at the end of the results may still have a cursor,
// whose page is then empty. All iterates over every matching item across
// pages, reading a page only when the loop needs it, and stops reading when
// the loop stops.

// Page is one page of a query's results.
type Page[T any] struct {
	// Items are the matching items, in the read's order.
	Items []T
	// Cursor resumes the query after Items (pass it to After); empty when
	// there is nothing more.
	Cursor string
	// Scanned is how many items DynamoDB read for the page, those that the
	// filters then dropped included: what the page cost.
	Scanned int
	// Requests is how many requests the page took.
	Requests int
}

// QueryInput is the first Query request Query sends: the partition given by
// the partition-key fields of params, and the sort keys that begin with the
// entity's sort template rendered as far as params give its fields. With
// "ORDER#{Date}#{ID}", params with no Date query begins_with "ORDER#", and
// params with Date "2024-01-15" query begins_with "ORDER#2024-01-15#" (which
// cannot match 2024-01-150). A filter on the entity type keeps other
// entities of the partition out. It is the read of a SortPrefix pattern on
// the table (see Pattern), and takes the same query options but FetchFull
// (EntityQueryOption); declare a Pattern for any other read.
func (e *Entity[T]) QueryInput(db *DB, params T, opts ...EntityQueryOption) (*dynamodb.QueryInput, error) {
	return e.query.queryInput(db, reflect.ValueOf(&params).Elem(), reflect.Value{}, asQueryOptions(opts))
}

// QueryInputs are the first requests Query sends for params (a dry run):
// one per shard of a sharded entity whose partition Query fans out over
// (see Shards), or per time bucket a PartialTime covers; the one request
// of any other entity.
func (e *Entity[T]) QueryInputs(db *DB, params T, opts ...EntityQueryOption) ([]*dynamodb.QueryInput, error) {
	return e.query.queryInputs(db, reflect.ValueOf(&params).Elem(), reflect.Value{}, asQueryOptions(opts))
}

// Query reads one page of the entity's items in the partition given by
// params (see QueryInput); paging works as for Pattern.Query: Limit, After
// and the page's Cursor.
func (e *Entity[T]) Query(ctx context.Context, db *DB, params T, opts ...EntityQueryOption) (*Page[T], error) {
	page := new(Page[T])
	if err := e.query.query(ctx, db, reflect.ValueOf(&params).Elem(), reflect.Value{}, asQueryOptions(opts), reflect.ValueOf(page).Elem()); err != nil {
		return nil, err
	}
	return page, nil
}

// All iterates over every item of the entity in the partition given by
// params (see QueryInput), across pages, as Pattern.All does.
func (e *Entity[T]) All(ctx context.Context, db *DB, params T, opts ...EntityQueryOption) iter.Seq2[T, error] {
	return seqOf[T](e.query.all(ctx, db, reflect.ValueOf(&params).Elem(), reflect.Value{}, asQueryOptions(opts), false))
}

// entityQuery declares the pattern Entity.Query runs: the entity's own
// partition on the table, with the sort prefix params give (SortPrefix).
// It is not registered on the table: the sheet and lint list only the
// reads the application declares.
func entityQuery(m *entityModel) *readDecl {
	d := &readDecl{id: readIDs.Add(1), table: m.table, name: m.ops.query, entities: []*entityModel{m}, entityQuery: true}
	if m.table.schema.SK != "" {
		d.sort = sortPrefix
	}
	d.resolve()
	return d
}

// readIter is the read of an iterator (All, Scan, ...), as its method
// makes it, run each time a loop starts. It stays within 128 bytes, so
// that seqOf's closure holds a copy (a bigger one would be an allocation
// of its own): what only scans and collections need is in more.
type readIter struct {
	// run reads, decoding each item into dst, an addressable value of the
	// item type, and handing it to y (nil); an error it hands over with
	// dst zero. It stops when y returns false.
	run           func(it readIter, dst reflect.Value, y itemYield)
	ctx           context.Context
	db            *DB
	d             *readDecl
	params, upper reflect.Value // as readDecl.request takes them
	opts          []QueryOption
	more          *iterArgs
	eager         bool // see readDecl.all
}

// iterArgs are the arguments of a scan's or a collection's iterator.
type iterArgs struct {
	scanOpts []ScanOption
	c        *Collection
	values   Values
	b        *bounds
	collOpts []CollectionOption
}

// itemYield is the loop of an iterator, as the engine calls it: item
// hands it the item just decoded, or an error.
type itemYield interface {
	item(err error) bool
}

// seqOf is it as the iterator of a T. Not inlined, so that its closure
// is compiled once per entity type, not once per method.
//
//go:noinline
func seqOf[T any](it readIter) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		y := &typedYield[T]{yield: yield}
		it.run(it, reflect.ValueOf(&y.v).Elem(), y)
	}
}

// typedYield is a loop over T values and the one T each item is decoded
// into, in place, and yielded by value: one allocation for both, and not
// one per item.
type typedYield[T any] struct {
	v     T
	yield func(T, error) bool
}

func (y *typedYield[T]) item(err error) bool { return y.yield(y.v, err) }

// readReq is a named read resolved for one call: the engine's request
// (the first Query, its cursor binding), and what decoding needs.
type readReq struct {
	read.Req
	d         *readDecl
	db        *DB
	mem       *readMember // the member whose params gave the keys (patterns)
	s         *settings
	get       *dynamodb.GetItemInput // the GetItem of a GetItem pattern (Query unused)
	parseKeys bool                   // recover fields from keys: the read may not carry them all
	fetch     *fetchSpec             // FetchFull
	expiry    expiryCheck
	m         *meter // nil: not metered (meter.go)
	// pk and sk are the partition and sort condition the request was built
	// for: Renew builds it again from them.
	pk string
	sk skCond
	// fill is where queryPage decodes the page's items.
	fill sliceFill
}

// Expired tells the engine the read's expired items.
func (r *readReq) Expired(item map[string]types.AttributeValue) bool { return r.expiry.expired(item) }

// FetchFull gives the engine the whole items of a FetchFull read.
func (r *readReq) FetchFull(ctx context.Context, items []map[string]types.AttributeValue) ([]map[string]types.AttributeValue, int, error) {
	return r.fetchItems(ctx, r.db, items)
}

// Renew gives the engine the read's first request built again, for the
// maps of a later page: a Client may have modified those it was given.
// Where the request starts is the engine's: the cursor is not opened again.
func (r *readReq) Renew() (dynamodb.QueryInput, error) {
	s := *r.s
	s.read.hasCursor, s.read.cursor = false, ""
	again, err := r.d.buildQuery(r.db, r.Op, r.mem, &s, r.pk, r.sk)
	if err != nil {
		return dynamodb.QueryInput{}, err
	}
	return again.Query, nil
}

// decodeFunc decodes one item of a read into dst. ok is false for an item
// that is none of the read's (a collection's item of an entity type it
// does not declare): it is not a page item and does not count toward Limit.
type decodeFunc func(r *readReq, item map[string]types.AttributeValue, dst reflect.Value) (ok bool, err error)

// decodeMember decodes an item of a pattern: its one member's. A function
// rather than a closure over r, so that naming it allocates nothing.
func decodeMember(r *readReq, item map[string]types.AttributeValue, dst reflect.Value) (bool, error) {
	if r.d.table.schema.TypeByKeys {
		if other, err := r.mem.m.otherByKeys(r.Op, item); other || err != nil {
			return false, err
		}
	}
	err := r.mem.decode(r.Op, item, dst, r.parseKeys)
	if err != nil && !r.d.carriesType() && errors.Is(err, ErrWrongEntity) {
		// An index that carries no type, read without a type filter: an
		// entry whose keys are not the entity's is another's, left out as
		// ScanIndex leaves it out (a typed table's filter would have).
		dst.SetZero()
		return false, nil
	}
	return true, err
}

// pageInfo is what a page holds besides its items, and how many it holds.
type pageInfo struct {
	cursor                   string
	scanned, requests, items int
}

// Page[T]'s fields, as setPage fills them through reflect.
const (
	pageItems = iota
	pageCursor
	pageScanned
	pageRequests
)

// setPage fills in page, a Page[T] (its Items are decoded in place).
func setPage(page reflect.Value, info pageInfo) {
	page.Field(pageCursor).SetString(info.cursor)
	page.Field(pageScanned).SetInt(int64(info.scanned))
	page.Field(pageRequests).SetInt(int64(info.requests))
}

// page reads the page of r into page, a Page[T] (or Page[any]).
func (r *readReq) page(ctx context.Context, db *DB, page reflect.Value) error {
	info, next, err := queryPage(ctx, db, r, r.s.limit, sliceFill{items: page.Field(pageItems)}, decodeMember, nil)
	if err != nil {
		return err
	}
	if info.cursor, err = r.cursor(next); err != nil {
		return err
	}
	setPage(page, info)
	return nil
}

// queryPage reads one page of r into fill: up to want items, or with no
// want the items of the first DynamoDB page that has any; the item, if
// any, of a GetItem. An item that is none of the read's
// goes to unknown. next is the key to resume from (nil at the end), which
// a Query seals into the page's Cursor (r.cursor).
func queryPage(ctx context.Context, db *DB, r *readReq, want int, fill sliceFill, decode decodeFunc, unknown func(map[string]types.AttributeValue)) (info pageInfo, next map[string]types.AttributeValue, err error) {
	r.fill = fill
	s := &r.fill // in r: captured by add, a variable of its own would be an allocation
	add := func(item map[string]types.AttributeValue, left int) (bool, bool, error) {
		dst := s.next(left)
		ok, err := decode(r, item, dst)
		if !ok || err != nil {
			dst.SetZero() // the slot is the next item's
		} else {
			s.n++
			if r.mem != nil && r.mem.m.managed.revision != nil {
				r.writeBack(ctx, item, dst) // revision.WriteBack
			}
		}
		if !ok && err == nil && unknown != nil {
			unknown(item)
		}
		return ok, false, err
	}
	if r.get != nil {
		item, err := r.getItem(ctx, db)
		info.requests = 1
		if err == nil && item != nil {
			info.scanned = 1
			_, _, err = add(item, 1)
		}
		info.items = s.done()
		if err != nil {
			return pageInfo{}, nil, err
		}
		return info, nil, nil
	}
	next, err = r.Run(ctx, db.via(r.m, 0), want, true, &info.scanned, &info.requests, add)
	info.items = s.done()
	if err != nil {
		return pageInfo{}, nil, err
	}
	return info, next, nil
}

// sliceFill decodes a page's items in place, into the slots of items, a
// settable slice: a value of its own per item would be an allocation
// each, and reflect.Append a copy. While it fills, items is as long as it
// has room for (grown memory is zero), n items long when done. A Get's
// fills one instead: its result, and a scratch value after it (a second
// item only makes the Get fail).
type sliceFill struct {
	items reflect.Value
	one   reflect.Value
	n     int // the items decoded
	room  int // items' length: its capacity once grown
}

// next is the slot of the next item: zero, in room for at least left
// items (those the response holds) when it had to grow.
func (s *sliceFill) next(left int) reflect.Value {
	if s.one.IsValid() {
		if s.n == 0 {
			return s.one
		}
		return reflect.New(s.one.Type()).Elem()
	}
	if s.n == s.room {
		s.items.SetLen(s.n)
		s.items.Grow(max(left, 1))
		s.room = s.items.Cap()
		s.items.SetLen(s.room)
	}
	return s.items.Index(s.n)
}

// done sets the slice's length to the items decoded, and returns it.
func (s *sliceFill) done() int {
	if s.room > 0 {
		s.items.SetLen(s.n)
	}
	return s.n
}

// queryAll iterates over every item of r, decoding each into dst for y.
// An item that is none of the read's is yielded as the error unknown
// makes of it, and one that does not decode as its decoding error; either
// way the iteration goes on if the loop does, as a scan's does, so that
// one bad item does not hide the rest of a partition.
func queryAll(ctx context.Context, db *DB, r *readReq, decode decodeFunc, unknown func(map[string]types.AttributeValue) error, dst reflect.Value, y itemYield) {
	stopped := false
	emit := func(item map[string]types.AttributeValue, _ int) (bool, bool, error) {
		dst.SetZero()
		ok, err := decode(r, item, dst)
		switch {
		case err != nil:
			dst.SetZero()
			stopped = !y.item(err)
			return false, stopped, nil
		case !ok && unknown == nil:
			// Another entity's item a single-entity read skips (a table
			// read by its keys filters on no type), as queryPage does.
			return false, false, nil
		case !ok:
			dst.SetZero()
			stopped = !y.item(unknown(item))
			return false, stopped, nil
		}
		if r.mem != nil && r.mem.m.managed.revision != nil {
			r.writeBack(ctx, item, dst) // revision.WriteBack
		}
		stopped = !y.item(nil)
		return true, stopped, nil
	}
	var err error
	if r.get != nil {
		var item map[string]types.AttributeValue
		if item, err = r.getItem(ctx, db); err == nil && item != nil {
			_, _, err = emit(item, 1)
		}
	} else {
		var scanned, requests int
		_, err = r.Run(ctx, db.via(r.m, 0), r.s.limit, false, &scanned, &requests, emit)
	}
	if err != nil && !stopped {
		dst.SetZero()
		y.item(err)
	}
}
