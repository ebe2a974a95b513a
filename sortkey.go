package singletable

import (
	"fmt"
	"reflect"

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

// sortCond renders a pattern's sort condition from params.
func (d *readDecl) sortCond(op string, mem *readMember, params reflect.Value, s *settings) (skCond, error) {
	fail := func(format string, args ...any) (skCond, error) {
		return skCond{}, &InputError{Op: op, Reason: fmt.Sprintf(format, args...)}
	}
	sk := mem.sk
	if sk == nil {
		return skCond{}, nil
	}
	attr := d.skAttr()
	prefix := func(v reflect.Value) (string, bool, error) {
		p, complete, err := sk.renderPrefix(v)
		if err != nil {
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
			p, err := partialPrefix(sk, params)
			if err != nil {
				return fail("PartialMatch: %v", err)
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
		upper := reflect.ValueOf(s.read.upTo)
		if !upper.IsValid() || upper.Type() != mem.m.typ {
			return fail("UpTo takes a %s, got %T", mem.m.typ, s.read.upTo)
		}
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

// partialPrefix renders the sort template up to the end of the last value
// params give, without the literal after it: the last value matches as a
// prefix. That value must be a string.
func partialPrefix(t *template, v reflect.Value) (string, error) {
	var b []byte
	end, last := 0, (*placeholder)(nil)
	for _, s := range t.segs {
		if s.ph == nil {
			b = append(b, s.lit...)
			continue
		}
		var ok bool
		var err error
		b, ok, err = s.ph.appendValue(b, v.FieldByIndex(s.ph.field.Index), t.delim, false)
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
	if last.kind != kindString {
		return "", fmt.Errorf("the last sort field given, %s, is a %s: only a string can match partially", last.field.GoName, last.field.Type)
	}
	return string(b[:end]), nil
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
