package singletable

import (
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/singletable/singletable/internal/expr"
	"github.com/singletable/singletable/internal/keys"
	"github.com/singletable/singletable/internal/model"
)

// Sort-key conditions of patterns, rendered from typed params. See Pattern
// for the rules; the bounds are prefix-safe because renderPrefix always
// ends after a whole value (and the literal that follows it), and an
// inclusive bound over a prefix uses keys.Successor(prefix), the first string
// after every key that starts with it.

// skCond is a sort-key condition: op "" (none), "=", "<", "<=", ">", ">=",
// "begins_with" or "BETWEEN" (a .. b). A cursor binds it as a
// read.SortCond, which tells whether a key meets it.
type skCond struct {
	op   string
	a, b string
	// nat is the whole key condition of a read of a multi-attribute
	// index (nativeread.go), which op, a and b then leave empty.
	nat *nativeCond
}

// sortCond renders a pattern's sort condition from params. A value over
// DynamoDB's sort-key size is a *KeyError, as a partition value is.
func (d *readDecl) sortCond(op string, mem *readMember, params, upper reflect.Value, s *settings) (skCond, error) {
	c, err := d.sortCondOf(op, mem, params, upper, s)
	if err != nil || c.op == "" {
		return c, err
	}
	for _, v := range [...]string{c.a, c.b} {
		if len(v) > maxSortKeyBytes {
			return skCond{}, &KeyError{Entity: mem.m.Name, Attr: d.skAttr(), Template: mem.sk.Raw,
				Reason: fmt.Sprintf("the sort condition's value is %d bytes; DynamoDB allows %d in a sort key", len(v), maxSortKeyBytes)}
		}
	}
	return c, nil
}

// upper is a SortBetween pattern's upper bound.
func (d *readDecl) sortCondOf(op string, mem *readMember, params, upper reflect.Value, s *settings) (skCond, error) {
	fail := func(format string, args ...any) (skCond, error) {
		return skCond{}, &InputError{Op: op, Reason: fmt.Sprintf(format, args...)}
	}
	sk := mem.sk
	if sk == nil {
		return skCond{}, nil
	}
	attr := d.skAttr()
	through := -1
	if s.read.hasSortFields {
		through = s.read.sortFields
	}
	prefix := func(v reflect.Value) (string, bool, error) {
		p, complete, err := sk.RenderPrefix(v, through)
		if d.collection { // a bound shared by every member's keys
			p, complete, err = sk.RenderBound(v, through)
		}
		if err != nil {
			// Declared here, not above: errors.As moves gap to the heap.
			var gap *keys.GapError
			if errors.As(err, &gap) {
				return "", false, &InputError{Op: op, Reason: fmt.Sprintf("%s of %s, template %q: %v", attr, mem.m.Name, sk.Raw, gap)}
			}
			return "", false, mem.m.TemplateKeyError(sk, attr, err)
		}
		return p, complete, nil
	}
	switch d.sort {
	case sortDefault:
		if d.collection {
			return skCond{}, nil
		}
		if lit := sk.LiteralPrefix(); lit != "" {
			return skCond{op: "begins_with", a: lit}, nil
		}
		return skCond{}, nil
	case sortBeginsWith:
		return skCond{op: "begins_with", a: d.sortLit}, nil
	case sortEquals:
		v, err := sk.Render(params)
		if err != nil {
			return skCond{}, mem.m.TemplateKeyError(sk, attr, err)
		}
		return skCond{op: "=", a: v}, nil
	case sortPrefix:
		if s.read.partial {
			p, err := keys.PartialPrefix(sk, params, through, keys.Precision(s.read.timePrec))
			if err != nil {
				return fail("%s: %v", partialName(s.read.timePrec), err)
			}
			return skCond{op: "begins_with", a: p}, nil
		}
		p, complete, err := prefix(params)
		switch {
		case err != nil:
			return skCond{}, err
		case complete:
			return skCond{op: "=", a: p}, nil
		case p == "":
			return skCond{}, nil
		}
		return skCond{op: "begins_with", a: p}, nil
	case sortBetween:
		lo, _, err := prefix(params)
		if err != nil {
			return skCond{}, err
		}
		hiP, hiComplete, err := prefix(upper)
		if err != nil {
			return skCond{}, err
		}
		// A bound over a sort template without a literal prefix that gives
		// no first sort value renders "" and would open the range to other
		// entities' keys, which lint says the range cannot reach.
		if first := sk.Placeholders(); len(first) > 0 && sk.LiteralPrefix() == "" && (lo == "" || hiP == "") {
			return fail("%s needs a value for the sort field %s in both bounds", sortOpNames[d.sort], first[0].Field.GoName)
		}
		hi := hiP
		if !hiComplete {
			var ok bool
			if hi, ok = keys.Successor(hiP); !ok {
				hi = ""
			}
		}
		switch {
		case lo == "" && hi == "":
			return skCond{}, nil
		case lo == "":
			return skCond{op: "<=", a: hi}, nil
		case hi == "":
			return skCond{op: ">=", a: lo}, nil
		case lo > hi:
			return fail("the lower bound %q is above the upper bound %q", lo, hi)
		}
		return skCond{op: "BETWEEN", a: lo, b: hi}, nil
	}
	p, complete, err := prefix(params)
	if err != nil {
		return skCond{}, err
	}
	if first := sk.Placeholders(); len(first) > 0 && p == sk.LiteralPrefix() {
		return fail("%s needs a value for the sort field %s", sortOpNames[d.sort], first[0].Field.GoName)
	}
	if complete {
		return skCond{op: map[sortOp]string{sortLT: "<", sortLE: "<=", sortGT: ">", sortGE: ">="}[d.sort], a: p}, nil
	}
	succ, ok := keys.Successor(p)
	if !ok {
		return fail("the sort prefix %q has no successor", p)
	}
	switch d.sort {
	case sortLT:
		return skCond{op: "<", a: p}, nil // every key starting with p is >= p
	case sortLE:
		return skCond{op: "<", a: succ}, nil
	case sortGT:
		return skCond{op: ">=", a: succ}, nil
	}
	return skCond{op: ">=", a: p}, nil
}

// partialName names the partial option in use.
func partialName(prec TimePrecision) string {
	if prec != 0 {
		return "PartialTime(" + prec.String() + ")"
	}
	return "PartialMatch"
}

// TimePrecision is how much of a time a partial sort value keeps: see
// PartialTime.
type TimePrecision int

// Time precisions, coarsest first.
const (
	Year  = TimePrecision(keys.Year)
	Month = TimePrecision(keys.Month)
	Day   = TimePrecision(keys.Day)
	Hour  = TimePrecision(keys.Hour)
)

// String names the precision: "Year", "Month", "Day" or "Hour".
func (p TimePrecision) String() string {
	if p >= Year && p <= Hour {
		return keys.Precision(p).String()
	}
	return fmt.Sprintf("TimePrecision(%d)", int(p))
}

// renderSK writes a sort-key condition.
func (c skCond) render(b *expr.Builder, attr string) string {
	if c.op == "" {
		return ""
	}
	n := b.Name(attr)
	switch c.op {
	case "begins_with":
		return "begins_with(" + n + ", " + b.Value(expr.S(c.a)) + ")"
	case "BETWEEN":
		return n + " BETWEEN " + b.Value(expr.S(c.a)) + " AND " + b.Value(expr.S(c.b))
	}
	return n + " " + c.op + " " + b.Value(expr.S(c.a))
}

// checkRangeOrder refuses a range condition (Between, <, <=, >, >=) over a
// sort template whose rendered text does not sort like its values:
// DynamoDB compares the keys as text, so the range would silently return
// the wrong items. That is an integer without zero padding (10 comes before
// 9, -1 after -5), or a time layout whose text is not in time order
// ("02-01-2006", "Jan 2"). A field's own attribute (a number, not a
// rendered key) sorts as a number.
// A collection's bounds may come from any member: each is checked.
func (d *readDecl) checkRangeOrder() error {
	for _, mem := range d.members {
		if err := d.checkRangeOrderOf(mem); err != nil {
			return err
		}
	}
	return nil
}

func (d *readDecl) checkRangeOrderOf(mem *readMember) error {
	if mem.sk == nil || (mem.ei != nil && mem.ei.SKFrom == model.KeyField) {
		return nil
	}
	for _, ph := range mem.sk.Placeholders() {
		var why string
		switch {
		case (ph.Kind == keys.KindInt || ph.Kind == keys.KindUint) && ph.Width == 0:
			why = "is an integer without zero padding, which sorts as text (10 before 9, -1 after -5); pad it ({" + ph.Field.GoName + ":N} holds 0 to 10^N-1)"
		case ph.Kind == keys.KindTime && !chronological(ph.Layout, d.table.schema.Delim):
			why = fmt.Sprintf("has the layout %q, whose text does not sort in time order; use one that runs from the year down at a fixed width, such as %q", ph.Layout, "2006-01-02T15:04")
		default:
			continue
		}
		return d.fail("%s over %s %q: {%s} %s, or the range would return the wrong items", sortOpNames[d.sort], d.skAttr(), mem.sk.Raw, ph.Field.GoName, why)
	}
	return nil
}

// chronologySamples are times in ascending order, each next one later by
// a unit a layout may render (with one and two digits, across noon),
// within 2000-2099 so that a two-digit year passes.
var chronologySamples = []time.Time{
	time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC),
	time.Date(2000, 1, 1, 0, 0, 0, 500000000, time.UTC),
	time.Date(2000, 1, 1, 0, 0, 9, 0, time.UTC),
	time.Date(2000, 1, 1, 0, 0, 10, 0, time.UTC),
	time.Date(2000, 1, 1, 0, 9, 0, 0, time.UTC),
	time.Date(2000, 1, 1, 0, 10, 0, 0, time.UTC),
	time.Date(2000, 1, 1, 9, 0, 0, 0, time.UTC),
	time.Date(2000, 1, 1, 10, 0, 0, 0, time.UTC),
	time.Date(2000, 1, 1, 13, 0, 0, 0, time.UTC),
	time.Date(2000, 1, 9, 0, 0, 0, 0, time.UTC),
	time.Date(2000, 1, 10, 0, 0, 0, 0, time.UTC),
	time.Date(2000, 1, 31, 0, 0, 0, 0, time.UTC),
	time.Date(2000, 2, 1, 0, 0, 0, 0, time.UTC),
	time.Date(2000, 9, 1, 0, 0, 0, 0, time.UTC),
	time.Date(2000, 10, 1, 0, 0, 0, 0, time.UTC),
	time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC),
	time.Date(2010, 1, 1, 0, 0, 0, 0, time.UTC),
	time.Date(2099, 12, 31, 23, 59, 59, 999999999, time.UTC),
}

// chronological reports whether the keys layout renders (escaped, as in a
// key) never sort before those of earlier times.
func chronological(layout string, delim byte) bool {
	var prev, cur []byte
	for i, t := range chronologySamples {
		cur = keys.AppendEscaped(cur[:0], t.Format(layout), delim)
		if i > 0 && string(cur) < string(prev) {
			return false
		}
		prev, cur = cur, prev
	}
	return true
}
