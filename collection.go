package singletable

import (
	"context"
	"fmt"
	"iter"
	"reflect"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Collection is an item collection: entities of several types that share a
// partition, read back in one Query and decoded each into its own Go type
// (a user's profile with its orders; an order with its line items). It is
// a named read like a Pattern, declared once, checked against the model,
// listed in the access-pattern sheet, paginated with sealed cursors.
//
//	var UserProfile = Shop.Collection("UserProfile", Users, Orders, Memberships).
//		Partition("USER#{UserID}").Must()
//
// The partition template's placeholders are labels, given by name at query
// time (Values{"UserID": "u1"}); every member must write that template into
// the index's partition key, with any field in each label's place (User's
// "USER#{ID}" and Order's "USER#{UserID}" both fit "USER#{UserID}").
// Items whose entity type is not a member come back in
// CollectionResult.Unknown: never decoded as something else, never dropped
// silently. Like Pattern's, the builder methods return a new, validated
// collection each.
type Collection struct {
	d *readDecl
}

// Values gives the placeholders of a collection's partition template by
// name: Values{"UserID": "u123"}.
type Values map[string]any

// Collection starts the declaration of an item collection of the members
// on the table. See Collection.
func (t *Table) Collection(name string, members ...AnyEntity) *Collection {
	d := &readDecl{id: readIDs.Add(1), table: t, name: name, collection: true}
	if t == nil {
		d.err = &ModelError{Entity: "collection " + name, Reason: "the table is nil: declare it with NewTable or MustTable first"}
		return &Collection{d: d}
	}
	for i, me := range members {
		m := me.model()
		if m == nil {
			d.nameErr = d.fail("member %d is a nil entity (did its Define fail?)", i)
			d.err = d.nameErr
			return &Collection{d: d}
		}
		d.entities = append(d.entities, m)
	}
	d.declaredName(name)
	d.resolve()
	t.reads.put(d)
	return &Collection{d: d}
}

// Partition sets the partition template; see Collection.
func (c *Collection) Partition(template string) *Collection {
	return &Collection{d: c.d.withPartition(template)}
}

// On makes the collection read the named secondary index (a GSI, or an
// LSI: ConsistentRead applies there), into which every member must write
// its keys (an overloaded index).
func (c *Collection) On(index string) *Collection {
	return &Collection{d: c.d.withIndex(index)}
}

// SortBeginsWith narrows the collection to the sort keys that begin with
// the literal prefix; some member must write such keys. SortPrefix,
// SortBetween and the sort comparisons take typed bounds instead.
func (c *Collection) SortBeginsWith(prefix string) *Collection {
	return &Collection{d: c.d.withSort(sortBeginsWith, prefix)}
}

// Descending makes the collection read in descending sort-key order by
// default.
func (c *Collection) Descending() *Collection {
	return &Collection{d: c.d.withDescending()}
}

// Err is the collection's declaration error (a *ModelError), or nil.
func (c *Collection) Err() error { return c.d.err }

// Must returns the collection, or panics with its declaration error.
func (c *Collection) Must() *Collection {
	mustDeclare(c.d)
	return c
}

// Name is the collection's name.
func (c *Collection) Name() string { return c.d.name }

// partitionKey renders the partition from values through the first member.
func (c *Collection) partitionKey(op string, values Values) (string, error) {
	d := c.d
	for k := range values {
		if !slices.Contains(d.labels, k) {
			return "", &InputError{Op: op, Reason: fmt.Sprintf("%q is not a placeholder of %q", k, d.partRaw)}
		}
	}
	mem := d.members[0]
	v := reflect.New(mem.m.Type).Elem()
	for _, b := range mem.part {
		if b.Label == "" {
			continue
		}
		val, ok := values[b.Label]
		if !ok {
			return "", &InputError{Op: op, Reason: fmt.Sprintf("no value for {%s} of %q", b.Label, d.partRaw)}
		}
		f := b.Ph.Field
		ft := f.Type
		if b.Ph.Ptr {
			ft = ft.Elem() // a *T field takes a T (or a *T: below)
		}
		rv := reflect.ValueOf(val)
		if rv.IsValid() && b.Ph.Ptr && rv.Type() == f.Type && !rv.IsNil() {
			rv = rv.Elem()
		}
		switch {
		case !rv.IsValid() || (rv.Kind() == reflect.Pointer && rv.IsNil()):
			return "", &InputError{Op: op, Reason: fmt.Sprintf("nil value for {%s}", b.Label)}
		case rv.Type().AssignableTo(ft):
		case convertible(rv, ft):
			rv = rv.Convert(ft)
		default:
			return "", &InputError{Op: op, Reason: fmt.Sprintf("{%s} takes a %s, got a %T", b.Label, ft, val)}
		}
		fv := v.FieldByIndex(f.Index)
		if b.Ph.Ptr {
			fv.Set(reflect.New(ft))
			fv = fv.Elem()
		}
		fv.Set(rv)
	}
	return mem.renderPartition(d.pkAttr(), v)
}

// request resolves a read of the collection; b holds the sort bounds of
// a ranged collection (collection_range.go), nil for the others.
func (c *Collection) request(db *DB, values Values, b *bounds, opts []CollectionOption) (*readReq, error) {
	d := c.d
	op := d.name
	s, err := checkedSettings(d, op, opts)
	if err != nil {
		return nil, err
	}
	if err := d.checkDB(op, db); err != nil {
		return nil, err
	}
	pk, err := c.partitionKey(op, values)
	if err != nil {
		return nil, err
	}
	sk, err := c.sortCond(op, b, s)
	if err != nil {
		return nil, err
	}
	return d.buildQuery(db, op, nil, s, pk, sk)
}

// QueryInput is the first Query request Query sends (a dry run).
func (c *Collection) QueryInput(db *DB, values Values, opts ...CollectionOption) (*dynamodb.QueryInput, error) {
	return c.queryInput(db, values, nil, opts)
}

func (c *Collection) queryInput(db *DB, values Values, b *bounds, opts []CollectionOption) (*dynamodb.QueryInput, error) {
	r, err := c.request(db, values, b, opts)
	if err != nil {
		return nil, err
	}
	return &r.Query, nil
}

// CollectionResult is a page of a collection query: a Page whose Items
// are the member items in query order, each decoded into its entity's Go
// type (User, Order ...). Read one member's items with Entity.From. Items
// whose type is not a member of the collection are kept in Unknown, never
// dropped silently.
type CollectionResult struct {
	Page[any]
	// Unknown holds the raw items of entity types the collection does not
	// declare (or with no type attribute). They do not count toward Limit.
	Unknown []map[string]types.AttributeValue
	of      []*entityModel // the entity of each of Items
}

// From returns the items of entity e in a collection result, in query order.
func (e *Entity[T]) From(r *CollectionResult) []T {
	var out []T
	e.m.from(r, reflect.ValueOf(&out).Elem())
	return out
}

// from is Entity.From: it sets out (a settable nil slice of m's type) to
// m's items of r.
func (m *entityModel) from(r *CollectionResult, out reflect.Value) {
	n := 0
	for _, of := range r.of {
		if of == m {
			n++
		}
	}
	makeLen(out, n)
	j := 0
	for i, of := range r.of {
		if of == m {
			out.Index(j).Set(reflect.ValueOf(r.Items[i]))
			j++
		}
	}
}

// decodeAny decodes an item of any member; unknown is true for an item of
// no member.
func (r *readReq) decodeAny(item map[string]types.AttributeValue) (v any, m *entityModel, unknown bool, err error) {
	d := r.d
	mem := memberOf(r.Op, d.members, d.table.schema.TypeAttr, item, !d.carriesType())
	if mem == nil {
		if d.table.untyped(item) {
			// Two entities' templates parse it: ambiguous, not unknown.
			if found := d.table.byKeys(r.Op, item); len(found) > 1 {
				return nil, nil, false, d.table.unknownByKeys(item, found)
			}
		}
		return nil, nil, true, nil
	}
	rv := reflect.New(mem.m.Type).Elem()
	if err := mem.decode(r.Op, item, rv, r.parseKeys); err != nil {
		return nil, nil, false, err
	}
	return rv.Interface(), mem.m, false, nil
}

// Query reads one page of the collection's partition given by values, and
// decodes every item into its entity's type. Limit counts member items.
// It takes CollectionOptions: the sort-key options (PartialMatch,
// PartialTime, SortFields) and the fan-out ones do not compile here.
// Paging works as for Pattern.Query.
func (c *Collection) Query(ctx context.Context, db *DB, values Values, opts ...CollectionOption) (*CollectionResult, error) {
	return c.query(ctx, db, values, nil, opts)
}

// query is Query with the bounds of a ranged collection (nil: none).
func (c *Collection) query(ctx context.Context, db *DB, values Values, b *bounds, opts []CollectionOption) (*CollectionResult, error) {
	r, err := c.request(db, values, b, opts)
	if err != nil {
		return nil, err
	}
	res := &CollectionResult{}
	info, next, err := queryPage(ctx, db, r, r.s.limit, sliceFill{items: reflect.ValueOf(&res.Items).Elem()}, func(r *readReq, item map[string]types.AttributeValue, dst reflect.Value) (bool, error) {
		val, m, unknown, err := r.decodeAny(item)
		if err != nil || unknown {
			return false, err
		}
		*dst.Addr().Interface().(*any) = val
		res.of = append(res.of, m)
		return true, nil
	}, func(item map[string]types.AttributeValue) { res.Unknown = append(res.Unknown, item) })
	if err != nil {
		return nil, err
	}
	if info.cursor, err = r.cursor(next); err != nil {
		return nil, err
	}
	setPage(reflect.ValueOf(&res.Page).Elem(), info)
	return res, nil
}

// All iterates over every member item of the collection across pages,
// each a value of its entity's Go type, reading a page only when the loop
// gets there; breaking out of the loop stops the reads. Options are
// Query's; Limit caps the total and After starts from a cursor. An item of
// an unknown type is yielded as an error wrapping ErrWrongEntity (with a
// nil value), and so is an item that does not decode; either way the
// iteration goes on if the loop does.
func (c *Collection) All(ctx context.Context, db *DB, values Values, opts ...CollectionOption) iter.Seq2[any, error] {
	return c.all(ctx, db, values, nil, opts)
}

// all is All with the bounds of a ranged collection (nil: none).
func (c *Collection) all(ctx context.Context, db *DB, values Values, b *bounds, opts []CollectionOption) iter.Seq2[any, error] {
	return seqOf[any](readIter{run: runCollection, ctx: ctx, db: db, d: c.d, more: &iterArgs{c: c, values: values, b: b, collOpts: opts}})
}

// runCollection runs the read of a collection's All (see readIter).
func runCollection(it readIter, dst reflect.Value, y itemYield) {
	c, a := it.more.c, it.more
	r, err := c.request(it.db, a.values, a.b, a.collOpts)
	if err != nil {
		y.item(err)
		return
	}
	queryAll(it.ctx, it.db, r, decodeMembers, c.notMember, dst, y)
}

// decodeMembers decodes an item of a collection into dst, an any; ok is
// false for an item of no member.
func decodeMembers(r *readReq, item map[string]types.AttributeValue, dst reflect.Value) (bool, error) {
	val, _, unknown, err := r.decodeAny(item)
	if err != nil || unknown {
		return false, err
	}
	*dst.Addr().Interface().(*any) = val
	return true, nil
}

// notMember is the error of an item of no member type.
func (c *Collection) notMember(item map[string]types.AttributeValue) error {
	got := "no entity type"
	if s, ok := item[c.d.table.schema.TypeAttr].(*types.AttributeValueMemberS); ok {
		got = "entity type " + s.Value
	}
	return fmt.Errorf("singletable: %s: item %s has %s, not a member of the collection: %w",
		c.d.name, formatKey(c.d.members[0].m.keyOfItem(item)), got, ErrWrongEntity)
}
