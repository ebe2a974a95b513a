package singletable

import (
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/singletable/singletable/internal/expr"
)

// Sort-key conditions of patterns, rendered from typed params. See Pattern
// for the rules; the bounds are prefix-safe because renderPrefix always
// ends after a whole value (and the literal that follows it), and an
// inclusive bound over a prefix uses successor(prefix), the first string
// after every key that starts with it.

// skCond is a sort-key condition: op "" (none), "=", "<", "<=", ">", ">=",
// "begins_with" or "BETWEEN" (a .. b).
type skCond struct {
	op   string
	a, b string
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
			return skCond{}, &KeyError{Entity: mem.m.name, Attr: d.skAttr(), Template: mem.sk.raw,
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
		p, complete, err := sk.renderPrefix(v, through)
		if err != nil {
			// Declared here, not above: errors.As moves gap to the heap.
			var gap *errGap
			if errors.As(err, &gap) {
				return "", false, &InputError{Op: op, Reason: fmt.Sprintf("%s of %s, template %q: %v", attr, mem.m.name, sk.raw, gap)}
			}
			return "", false, mem.m.keyError(sk, attr, err)
		}
		return p, complete, nil
	}
	switch d.sort {
	case sortDefault:
		if d.collection {
			return skCond{}, nil
		}
		if lit := sk.literalPrefix(); lit != "" {
			return skCond{op: "begins_with", a: lit}, nil
		}
		return skCond{}, nil
	case sortBeginsWith:
		return skCond{op: "begins_with", a: d.sortLit}, nil
	case sortEquals:
		v, err := sk.render(params)
		if err != nil {
			return skCond{}, mem.m.keyError(sk, attr, err)
		}
		return skCond{op: "=", a: v}, nil
	case sortPrefix:
		if s.read.partial {
			p, err := partialPrefix(sk, params, s.read.timePrec)
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
		hi := hiP
		if !hiComplete {
			var ok bool
			if hi, ok = successor(hiP); !ok {
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
	if first := sk.placeholders(); len(first) > 0 && p == sk.literalPrefix() {
		return fail("%s needs a value for the sort field %s", sortOpNames[d.sort], first[0].field.GoName)
	}
	if complete {
		return skCond{op: map[sortOp]string{sortLT: "<", sortLE: "<=", sortGT: ">", sortGE: ">="}[d.sort], a: p}, nil
	}
	succ, ok := successor(p)
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

// partialPrefix renders the sort template up to the end of the last value
// params give, without the literal after it: the last value matches as a
// prefix. That value must be a string; or, with a precision, a time,
// rendered down to that precision only. Values are taken as renderPrefix
// takes them: a value after an absent one is an error.
func partialPrefix(t *template, v reflect.Value, prec TimePrecision) (string, error) {
	if _, _, err := t.renderPrefix(v, -1); err != nil {
		var gap *errGap
		if errors.As(err, &gap) {
			return "", gap
		}
	}
	var b []byte
	end, last := 0, (*placeholder)(nil)
	for _, s := range t.segs {
		if s.ph == nil {
			b = append(b, s.lit...)
			continue
		}
		var ok bool
		var err error
		b, ok, err = s.ph.appendValue(b, v.FieldByIndex(s.ph.field.Index), t.delim)
		if err != nil {
			return "", err
		}
		if !ok {
			break
		}
		end, last = len(b), s.ph
	}
	if last == nil {
		return "", fmt.Errorf("no sort field is given")
	}
	b = b[:end]
	if prec != 0 {
		if last.kind != kindTime {
			return "", fmt.Errorf("the last sort field given, %s, is a %s: a time precision applies to a time.Time", last.field.GoName, last.field.Type)
		}
		fv := v.FieldByIndex(last.field.Index)
		if last.ptr {
			fv = fv.Elem()
		}
		p, err := timePrefix(fv.Interface().(time.Time), last.layout, prec)
		if err != nil {
			return "", fmt.Errorf("sort field %s: %v", last.field.GoName, err)
		}
		// The value is the last thing rendered: replace it by its prefix
		// (escaping is per byte, so it keeps prefixes).
		b = appendEscaped(b[:len(b)-len(escapeValue(last.format(fv), t.delim))], p, t.delim)
		return string(b), nil
	}
	if last.kind != kindString {
		return "", fmt.Errorf("the last sort field given, %s, is a %s: only a string can match partially (a time.Time takes PartialTime)", last.field.GoName, last.field.Type)
	}
	return string(b), nil
}

// format renders a time placeholder's value, unescaped.
func (p *placeholder) format(fv reflect.Value) string {
	return fv.Interface().(time.Time).UTC().Format(p.layout)
}

// TimePrecision is how much of a time a partial sort value keeps: see
// PartialTime.
type TimePrecision int

// Time precisions, coarsest first.
const (
	Year TimePrecision = 1 + iota
	Month
	Day
	Hour
)

// String names the precision: "Year", "Month", "Day" or "Hour".
func (p TimePrecision) String() string {
	switch p {
	case Year:
		return "Year"
	case Month:
		return "Month"
	case Day:
		return "Day"
	case Hour:
		return "Hour"
	}
	return fmt.Sprintf("TimePrecision(%d)", int(p))
}

// periodOf returns the start of the period of t at precision p, and the
// start of the next one.
func (p TimePrecision) periodOf(t time.Time) (start, next time.Time) {
	t = t.UTC()
	y, mo, d := t.Date()
	switch p {
	case Year:
		start = time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC)
		return start, start.AddDate(1, 0, 0)
	case Month:
		start = time.Date(y, mo, 1, 0, 0, 0, 0, time.UTC)
		return start, start.AddDate(0, 1, 0)
	case Day:
		start = time.Date(y, mo, d, 0, 0, 0, 0, time.UTC)
		return start, start.AddDate(0, 0, 1)
	}
	start = time.Date(y, mo, d, t.Hour(), 0, 0, 0, time.UTC)
	return start, start.Add(time.Hour)
}

// timePrefix is the text that layout renders for every time of t's period
// at precision prec, and for no other time: the common prefix of the
// period's first and last instants, checked against the neighbouring
// periods of every coarser unit (a layout that puts the day first, or that
// stops at the day when asked for the hour, has no such prefix).
func timePrefix(t time.Time, layout string, prec TimePrecision) (string, error) {
	if prec < Year || prec > Hour {
		return "", fmt.Errorf("unknown time precision %d", int(prec))
	}
	if t.IsZero() {
		return "", fmt.Errorf("the time is zero")
	}
	start, next := prec.periodOf(t)
	first, lastS := start.Format(layout), next.Add(-time.Nanosecond).Format(layout)
	n := 0
	for n < len(first) && n < len(lastS) && first[n] == lastS[n] {
		n++
	}
	p := first[:n]
	fail := fmt.Errorf("layout %q does not begin with the %s (every time of a %s must share leading text no other time has)", layout, prec, prec)
	if p == "" {
		return "", fail
	}
	// Probe the periods around: the one before and the next ones of every
	// coarser unit, far enough to catch an unpadded layout ("2006-1-2":
	// day 1 of a month would match days 10 to 19).
	for q := Year; q <= prec; q++ {
		for k := -1; k <= [...]int{Year: 1, Month: 11, Day: 30, Hour: 23}[q]; k++ {
			if k == 0 {
				continue
			}
			if o := neighbour(start, q, k).Format(layout); len(o) >= len(p) && o[:len(p)] == p {
				return "", fail
			}
		}
	}
	return p, nil
}

// neighbour shifts t by dir units of precision q.
func neighbour(t time.Time, q TimePrecision, dir int) time.Time {
	switch q {
	case Year:
		return t.AddDate(dir, 0, 0)
	case Month:
		return t.AddDate(0, dir, 0)
	case Day:
		return t.AddDate(0, 0, dir)
	}
	return t.Add(time.Duration(dir) * time.Hour)
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
