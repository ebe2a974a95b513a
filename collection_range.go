package singletable

import (
	"context"
	"fmt"
	"iter"
	"reflect"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// Ranged collections
//
// A collection reads its partition whole, or the sort keys that begin with
// a literal (SortBeginsWith), or a range of them: SortPrefix, SortBetween
// and the sort comparisons, as patterns have them (see Pattern for the
// rules: bounds are prefix-safe, a partial bound covers every key that
// starts with it). The bounds are typed values of a member's Go type,
// rendered through that member's sort template: the orders of January in
// a customer's collection are between Order{Date: jan1} and
// Order{Date: jan31}. The range is over the sort keys as DynamoDB compares
// them, so it holds the other members' items whose keys fall inside it.
// A ranged collection is one Query per page, like any collection; its
// cursors are bound to the bounds.
//
//	var CustomerActivity = Shop.Collection("CustomerActivity", Customers, Orders, Returns).
//		Partition("CUSTOMER#{CustomerID}").SortBetween().Must()
//	res, err := CustomerActivity.QueryBetween(ctx, db, st.Values{"CustomerID": "c1"},
//		Order{Date: jan1}, Order{Date: jan31})

// bounds are a ranged collection's sort bounds as given: lo, and hi for
// SortBetween.
type bounds struct {
	lo, hi any
	two    bool // QueryBetween and its kin: both given
}

// SortPrefix narrows the collection to the sort keys that begin with a
// bound's leading sort fields, each whole (all of them: equality); read
// with QueryBound, AllBound and QueryBoundInput.
func (c *Collection) SortPrefix() *Collection { return &Collection{d: c.d.withSort(sortPrefix, "")} }

// SortBetween narrows the collection to the sort keys between two bounds,
// both inclusive; read with QueryBetween, AllBetween and QueryBetweenInput.
func (c *Collection) SortBetween() *Collection { return &Collection{d: c.d.withSort(sortBetween, "")} }

// SortLessThan narrows the collection to the sort keys below every key
// that starts with the bound's sort fields; read with QueryBound.
func (c *Collection) SortLessThan() *Collection { return &Collection{d: c.d.withSort(sortLT, "")} }

// SortLessOrEqual narrows the collection to the sort keys up to, and
// including, every key that starts with the bound's sort fields; read with
// QueryBound.
func (c *Collection) SortLessOrEqual() *Collection { return &Collection{d: c.d.withSort(sortLE, "")} }

// SortGreaterThan narrows the collection to the sort keys above every key
// that starts with the bound's sort fields; read with QueryBound.
func (c *Collection) SortGreaterThan() *Collection { return &Collection{d: c.d.withSort(sortGT, "")} }

// SortGreaterOrEqual narrows the collection to the sort keys from the
// first key that starts with the bound's sort fields on; read with
// QueryBound.
func (c *Collection) SortGreaterOrEqual() *Collection {
	return &Collection{d: c.d.withSort(sortGE, "")}
}

// ranged reports whether the collection's sort condition takes bounds.
func (d *readDecl) ranged() bool {
	return d.sort != sortDefault && d.sort != sortBeginsWith
}

// sortCond renders the collection's sort condition from the bounds b.
func (c *Collection) sortCond(op string, b *bounds, s *settings) (skCond, error) {
	d := c.d
	fail := func(format string, args ...any) (skCond, error) {
		return skCond{}, &InputError{Op: op, Reason: fmt.Sprintf(format, args...)}
	}
	switch {
	case !d.ranged() && b != nil:
		return fail("QueryBound and QueryBetween apply to collections declared with SortPrefix, SortBetween or a sort comparison")
	case !d.ranged() && d.sort == sortBeginsWith:
		return skCond{op: "begins_with", a: d.sortLit}, nil
	case !d.ranged():
		return skCond{}, nil
	case b == nil || b.two != (d.sort == sortBetween):
		if d.sort == sortBetween {
			return fail("a SortBetween collection reads between two bounds: use QueryBetween, AllBetween or QueryBetweenInput")
		}
		return fail("a %s collection reads from a bound: use QueryBound, AllBound or QueryBoundInput", sortOpNames[d.sort])
	}
	mem, lo, err := c.boundOf(op, "bound", b.lo)
	if err != nil {
		return skCond{}, err
	}
	var hi reflect.Value
	if b.two {
		hiMem, v, err := c.boundOf(op, "upper bound", b.hi)
		if err != nil {
			return skCond{}, err
		}
		if hiMem != mem {
			return fail("the bounds are a %s and a %s: give both as values of one member's type", mem.m.Type, hiMem.m.Type)
		}
		hi = v
	}
	return d.sortCond(op, mem, lo, hi, s)
}

// boundOf finds the member whose Go type bound v is (a T or a non-nil
// *T), the first one of that type.
func (c *Collection) boundOf(op, what string, v any) (*readMember, reflect.Value, error) {
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer && !rv.IsNil() {
		rv = rv.Elem()
	}
	if rv.IsValid() && rv.Kind() == reflect.Struct {
		for _, mem := range c.d.members {
			if mem.m.Type == rv.Type() {
				return mem, rv, nil
			}
		}
	}
	var names []string
	for _, mem := range c.d.members {
		names = append(names, mem.m.Type.String())
	}
	return nil, reflect.Value{}, &InputError{Op: op, Reason: fmt.Sprintf("the %s is a %T: give a value of a member's type (%v), whose sort template renders it", what, v, names)}
}

// QueryBound reads one page of a collection declared with SortPrefix or a
// sort comparison (SortLessThan ...), from the bound: a value of a
// member's Go type whose sort fields are set as far as the read needs
// them. Otherwise it works as Query; its cursors resume only the same
// bound.
func (c *Collection) QueryBound(ctx context.Context, db *DB, values Values, bound any, opts ...CollectionOption) (*CollectionResult, error) {
	return c.query(ctx, db, values, &bounds{lo: bound}, opts)
}

// AllBound iterates over every member item of a collection read from a
// bound (see QueryBound), as All does.
func (c *Collection) AllBound(ctx context.Context, db *DB, values Values, bound any, opts ...CollectionOption) iter.Seq2[any, error] {
	return c.all(ctx, db, values, &bounds{lo: bound}, opts)
}

// QueryBoundInput is the first Query request QueryBound sends (a dry run).
func (c *Collection) QueryBoundInput(db *DB, values Values, bound any, opts ...CollectionOption) (*dynamodb.QueryInput, error) {
	return c.queryInput(db, values, &bounds{lo: bound}, opts)
}

// QueryBetween reads one page of a SortBetween collection, from the sort
// key of from to that of to, both values of one member's Go type and both
// inclusive (a bound that leaves trailing sort fields empty covers every
// key that starts with it). Otherwise it works as Query; its cursors
// resume only the same bounds.
func (c *Collection) QueryBetween(ctx context.Context, db *DB, values Values, from, to any, opts ...CollectionOption) (*CollectionResult, error) {
	return c.query(ctx, db, values, &bounds{lo: from, hi: to, two: true}, opts)
}

// AllBetween iterates over every member item of a SortBetween collection
// between from and to (see QueryBetween), as All does.
func (c *Collection) AllBetween(ctx context.Context, db *DB, values Values, from, to any, opts ...CollectionOption) iter.Seq2[any, error] {
	return c.all(ctx, db, values, &bounds{lo: from, hi: to, two: true}, opts)
}

// QueryBetweenInput is the first Query request QueryBetween sends (a dry
// run).
func (c *Collection) QueryBetweenInput(db *DB, values Values, from, to any, opts ...CollectionOption) (*dynamodb.QueryInput, error) {
	return c.queryInput(db, values, &bounds{lo: from, hi: to, two: true}, opts)
}
