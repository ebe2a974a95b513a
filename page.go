package singletable

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"reflect"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/expr"
)

// Pages and iterators
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

// ErrNotUnique: Get on a Query pattern found more than one item.
var ErrNotUnique = errors.New("singletable: more than one item matches")

// Page is one page of a pattern's results.
type Page[T any] struct {
	// Items are the matching items, in the pattern's order.
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

// runStats counts what a read cost.
type runStats struct{ scanned, requests int }

// emitFunc takes one item of a read. counted says whether it counts toward
// the read's Limit; stop ends the read after it.
type emitFunc func(item map[string]types.AttributeValue) (counted, stop bool, err error)

// run sends the read's Query and the pages after it, handing each item to
// emit, until want items were counted (0: no limit), emit stops, or the
// results end; with onePage and no want, it also ends after the first
// DynamoDB page that had a counted item. It returns the key to resume from:
// nil at the end.
func (r *readReq) run(ctx context.Context, db *DB, want int, onePage bool, st *runStats, emit emitFunc) (map[string]types.AttributeValue, error) {
	start := r.query.ExclusiveStartKey
	n := 0
	read, matched := 0, 0
	for {
		// Each page is a request of its own (one allocation, as a copy
		// reused for every page would be): a client may keep the requests
		// it is given, as a recorder or a logging wrapper does.
		in := *r.query
		in.ExclusiveStartKey = start
		if want > 0 {
			rem := want - n
			lim := rem
			if matched < read && read > 0 {
				// Items are being filtered: read ahead in proportion, at
				// most 1000 at a time; a page that ends early resumes from
				// its last item, so nothing is skipped.
				ratio := (read + max(matched, 1) - 1) / max(matched, 1)
				lim = max(rem, min(rem*ratio, 1000))
			}
			in.Limit = aws.Int32(int32(min(lim, 1<<30)))
		}
		res, err := db.client.Query(ctx, &in)
		st.requests++
		if err != nil {
			return nil, opError(r.op, err)
		}
		st.scanned += int(res.ScannedCount)
		read += int(res.ScannedCount)
		matched += len(res.Items)
		items := res.Items
		pageCounted := 0
		for i := 0; i < len(items); {
			end := len(items)
			var full []map[string]types.AttributeValue
			if r.fetch != nil {
				end = min(end, i+maxBatchGet)
				if want > 0 {
					end = min(end, i+want-n)
				}
				var reqs int
				full, reqs, err = r.fetchItems(ctx, db, items[i:end])
				st.requests += reqs
				if err != nil {
					return nil, err
				}
			}
			for j := i; j < end; j++ {
				item := items[j]
				if full != nil {
					if item = full[j-i]; item == nil {
						continue // deleted since the index was read
					}
				}
				counted, stop, err := emit(item)
				if err != nil {
					return nil, err
				}
				if counted {
					n++
					pageCounted++
				}
				if stop || (want > 0 && n >= want) {
					if j == len(items)-1 {
						return res.LastEvaluatedKey, nil
					}
					return r.keyOf(items[j]), nil
				}
			}
			i = end
		}
		if len(res.LastEvaluatedKey) == 0 {
			return nil, nil
		}
		if onePage && want == 0 && pageCounted > 0 {
			return res.LastEvaluatedKey, nil
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		start = res.LastEvaluatedKey
	}
}

// keyOf picks the key to resume after item from it.
func (r *readReq) keyOf(item map[string]types.AttributeValue) map[string]types.AttributeValue {
	k := make(map[string]types.AttributeValue, len(r.binding.keyAttrs))
	for _, a := range r.binding.keyAttrs {
		k[a] = item[a]
	}
	return k
}

// cursor seals the key to resume from; "" at the end.
func (r *readReq) cursor(next map[string]types.AttributeValue) (string, error) {
	if len(next) == 0 {
		return "", nil
	}
	c, err := sealCursor(r.secret, r.binding, next)
	if err != nil {
		return "", &InputError{Op: r.op, Reason: err.Error()}
	}
	return c, nil
}

// request resolves the pattern for one call. upper is a SortBetween
// pattern's upper bound, nil for the others.
func (p *Pattern[T]) request(db *DB, params T, upper *T, opts []QueryOption) (*readReq, error) {
	d := p.d
	op := d.name
	s, err := d.settingsFor(op, opts)
	if err != nil {
		return nil, err
	}
	var hi reflect.Value
	switch {
	case d.sort == sortBetween && upper == nil:
		return nil, &InputError{Op: op, Reason: "a SortBetween pattern reads between two bounds: use QueryBetween, AllBetween or QueryBetweenInput"}
	case d.sort != sortBetween && upper != nil:
		return nil, &InputError{Op: op, Reason: "QueryBetween, AllBetween and QueryBetweenInput apply to SortBetween patterns only"}
	case upper != nil:
		hi = reflect.ValueOf(upper).Elem()
	}
	if err := d.checkDB(op, db); err != nil {
		return nil, err
	}
	mem := d.members[0]
	v := reflect.ValueOf(&params).Elem()
	for _, b := range mem.part {
		if b.label != "" {
			continue
		}
		fv := v.FieldByIndex(b.ph.field.Index)
		// A field the pattern fixes needs no value: its zero (0 included)
		// is "not given"; any other value must be the fixed one.
		given, ok, err := b.ph.appendValue(nil, fv, d.table.delim)
		ok = ok && !fv.IsZero()
		switch {
		case err == nil && ok && string(given) != b.fixed:
			return nil, &InputError{Op: op, Reason: fmt.Sprintf("params give %s %q, but the pattern reads only %q", b.ph.field.GoName, given, b.fixed)}
		case err == nil && !ok:
			// The pattern fixes the field: the other templates (the sort
			// key of a GetItem) render with it too.
			if err := b.ph.set(fv, b.fixed); err != nil {
				return nil, &InputError{Op: op, Reason: err.Error()}
			}
		}
	}
	pk, err := mem.renderPartition(d.pkAttr(), v)
	if err != nil {
		return nil, err
	}
	if d.isGet() {
		return p.getRequest(db, op, mem, s, v)
	}
	sk, err := d.sortCond(op, mem, v, hi, s)
	if err != nil {
		return nil, err
	}
	return d.buildQuery(db, op, mem, s, pk, sk)
}

func (p *Pattern[T]) getRequest(db *DB, op string, mem *readMember, s *settings, v reflect.Value) (*readReq, error) {
	d := p.d
	key, err := mem.m.key(v)
	if err != nil {
		return nil, err
	}
	in := &dynamodb.GetItemInput{TableName: aws.String(db.name), Key: key}
	r := &readReq{d: d, op: op, mem: mem, s: s, get: in}
	if s.consistent {
		in.ConsistentRead = aws.Bool(true)
	}
	if len(s.read.project) > 0 {
		attrs, err := d.projection(op, s.read.project, false)
		if err != nil {
			return nil, err
		}
		var b expr.Builder
		names := make([]string, len(attrs))
		for i, a := range attrs {
			names[i] = b.Name(a)
		}
		in.ProjectionExpression = aws.String(strings.Join(names, ", "))
		if err := checkExpression(op, "projection", *in.ProjectionExpression); err != nil {
			return nil, err
		}
		in.ExpressionAttributeNames = b.Names
		r.parseKeys = true
	}
	return r, nil
}

// QueryInput is the first request Query sends for params (a dry run). It
// is an error for a GetItem pattern: see GetInput.
func (p *Pattern[T]) QueryInput(db *DB, params T, opts ...QueryOption) (*dynamodb.QueryInput, error) {
	return p.queryInput(p.request(db, params, nil, opts))
}

// QueryBetweenInput is the first request QueryBetween sends for the bounds
// from and to (a dry run).
func (p *Pattern[T]) QueryBetweenInput(db *DB, from, to T, opts ...QueryOption) (*dynamodb.QueryInput, error) {
	return p.queryInput(p.request(db, from, &to, opts))
}

func (p *Pattern[T]) queryInput(r *readReq, err error) (*dynamodb.QueryInput, error) {
	if err != nil {
		return nil, err
	}
	if r.query == nil {
		return nil, &InputError{Op: p.d.name, Reason: "the pattern runs as GetItem: use GetInput"}
	}
	return r.query, nil
}

// GetInput is the GetItem request of a GetItem pattern for params (a dry
// run). It is an error for a Query pattern: see QueryInput.
func (p *Pattern[T]) GetInput(db *DB, params T, opts ...QueryOption) (*dynamodb.GetItemInput, error) {
	r, err := p.request(db, params, nil, opts)
	if err != nil {
		return nil, err
	}
	if r.get == nil {
		return nil, &InputError{Op: p.d.name, Reason: "the pattern runs as Query: use QueryInput"}
	}
	return r.get, nil
}

// Query reads one page of the pattern's items for params: the partition
// and sort fields the pattern's templates need. A GetItem pattern returns
// a page of zero or one item, and of the query options takes only
// ConsistentRead and Project. A SortBetween pattern is read with
// QueryBetween.
func (p *Pattern[T]) Query(ctx context.Context, db *DB, params T, opts ...QueryOption) (*Page[T], error) {
	r, err := p.request(db, params, nil, opts)
	if err != nil {
		return nil, err
	}
	return p.query(ctx, db, r)
}

// QueryBetween reads one page of a SortBetween pattern's items, from the
// sort key of from to that of to: from gives the partition too. Both
// bounds are inclusive, and a bound that leaves trailing sort fields empty
// covers every key that starts with it: between Order{Date: "2024-01-01"}
// and Order{Date: "2024-01-31"} includes every order of January 31st,
// whatever its ID.
func (p *Pattern[T]) QueryBetween(ctx context.Context, db *DB, from, to T, opts ...QueryOption) (*Page[T], error) {
	r, err := p.request(db, from, &to, opts)
	if err != nil {
		return nil, err
	}
	return p.query(ctx, db, r)
}

// query reads the page of request r.
func (p *Pattern[T]) query(ctx context.Context, db *DB, r *readReq) (*Page[T], error) {
	page := &Page[T]{}
	if r.get != nil {
		v, found, err := p.get(ctx, db, r)
		page.Requests = 1
		if err != nil {
			return nil, err
		}
		if found {
			page.Items = []T{v}
			page.Scanned = 1
		}
		return page, nil
	}
	var st runStats
	next, err := r.run(ctx, db, r.s.limit, true, &st, func(item map[string]types.AttributeValue) (bool, bool, error) {
		// Decoded in place: a T decoded through reflect.ValueOf(&v) would
		// escape to the heap, one allocation per item.
		page.Items = append(page.Items, *new(T))
		if err := r.mem.decode(r.op, item, reflect.ValueOf(&page.Items[len(page.Items)-1]).Elem(), r.parseKeys); err != nil {
			page.Items = page.Items[:len(page.Items)-1]
			return false, false, err
		}
		return true, false, nil
	})
	page.Scanned, page.Requests = st.scanned, st.requests
	if err != nil {
		return nil, err
	}
	if page.Cursor, err = r.cursor(next); err != nil {
		return nil, err
	}
	return page, nil
}

// get sends a GetItem pattern's request.
func (p *Pattern[T]) get(ctx context.Context, db *DB, r *readReq) (T, bool, error) {
	var v T
	res, err := db.client.GetItem(ctx, r.get)
	if err != nil {
		return v, false, opError(r.op, err)
	}
	if len(res.Item) == 0 {
		return v, false, nil
	}
	if err := r.mem.decode(r.op, res.Item, reflect.ValueOf(&v).Elem(), r.parseKeys); err != nil {
		return v, false, err
	}
	return v, true, nil
}

// All iterates over every item of the pattern for params, across pages,
// reading the next page only when the loop gets there; breaking out of the
// loop stops the reads. Options are Query's; Limit caps the total and
// After starts from a cursor. An error is yielded once, last.
func (p *Pattern[T]) All(ctx context.Context, db *DB, params T, opts ...QueryOption) iter.Seq2[T, error] {
	return p.all(ctx, db, params, nil, opts)
}

// AllBetween iterates over every item of a SortBetween pattern from the
// sort key of from to that of to, as All does (see QueryBetween).
func (p *Pattern[T]) AllBetween(ctx context.Context, db *DB, from, to T, opts ...QueryOption) iter.Seq2[T, error] {
	return p.all(ctx, db, from, &to, opts)
}

// all is All and AllBetween (upper: see request).
func (p *Pattern[T]) all(ctx context.Context, db *DB, params T, upper *T, opts []QueryOption) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		r, err := p.request(db, params, upper, opts)
		if err != nil {
			yield(zero, err)
			return
		}
		if r.get != nil {
			v, found, err := p.get(ctx, db, r)
			switch {
			case err != nil:
				yield(zero, err)
			case found:
				yield(v, nil)
			}
			return
		}
		stopped := false
		// One T, reset before each item and yielded by value: decoded
		// through reflect.ValueOf(&v), a fresh one per item would be an
		// allocation each.
		var v T
		_, err = r.run(ctx, db, r.s.limit, false, &runStats{}, func(item map[string]types.AttributeValue) (bool, bool, error) {
			v = zero
			if err := r.mem.decode(r.op, item, reflect.ValueOf(&v).Elem(), r.parseKeys); err != nil {
				return false, false, err
			}
			stopped = !yield(v, nil)
			return true, stopped, nil
		})
		if err != nil && !stopped {
			yield(zero, err)
		}
	}
}

// Get returns the one item of the pattern for params. A GetItem pattern
// sends GetItem; a Query pattern reads until it has found two matching
// items, and fails with ErrNotUnique if it has. No item is ErrNotFound.
// It takes the query options but Limit and After (a GetItem pattern: only
// ConsistentRead and Project).
func (p *Pattern[T]) Get(ctx context.Context, db *DB, params T, opts ...QueryOption) (T, error) {
	var zero T
	r, err := p.request(db, params, nil, opts)
	if err != nil {
		return zero, err
	}
	if r.get != nil {
		v, found, err := p.get(ctx, db, r)
		if err == nil && !found {
			err = &notFoundError{op: r.op, key: r.get.Key}
		}
		return v, err
	}
	if r.s.limit != 0 || r.s.read.hasCursor {
		return zero, &InputError{Op: r.op, Reason: "Get takes no Limit or After"}
	}
	found := make([]T, 0, 2)
	_, err = r.run(ctx, db, 2, false, &runStats{}, func(item map[string]types.AttributeValue) (bool, bool, error) {
		found = append(found, zero) // decoded in place, as in Query
		if err := r.mem.decode(r.op, item, reflect.ValueOf(&found[len(found)-1]).Elem(), r.parseKeys); err != nil {
			found = found[:len(found)-1]
			return false, false, err
		}
		return true, false, nil
	})
	switch {
	case err != nil:
		return zero, err
	case len(found) == 0:
		return zero, &notFoundError{op: r.op, key: map[string]types.AttributeValue{p.d.pkAttr(): expr.S(r.binding.partition)}}
	case len(found) > 1:
		return zero, fmt.Errorf("singletable: %s: %w", r.op, ErrNotUnique)
	}
	return found[0], nil
}
