package singletable

import (
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/singletable/singletable/internal/codec"
)

// Reasoning about key templates without data: matching a pattern's
// template against what an entity writes, prefix and range bounds, and
// whether two templates can render the same key.

// captures splits key against template t like parse does, returning the raw
// (still escaped) text of each placeholder, in order. ok is false when key
// does not have the template's shape.
func (t *template) captures(key string) (out []string, ok bool) {
	rest := key
	for i, s := range t.segs {
		if s.ph == nil {
			if !strings.HasPrefix(rest, s.lit) {
				return nil, false
			}
			rest = rest[len(s.lit):]
			continue
		}
		// A value runs to the next literal (which, between placeholders,
		// contains the delimiter that values never contain), or to the end.
		var raw string
		switch {
		case i+1 == len(t.segs):
			raw, rest = rest, ""
		case i+2 == len(t.segs):
			next := t.segs[i+1].lit
			if !strings.HasSuffix(rest, next) || len(rest) < len(next) {
				return nil, false
			}
			raw, rest = rest[:len(rest)-len(next)], rest[len(rest)-len(next):]
		default:
			next := t.segs[i+1].lit
			end := strings.Index(rest, next)
			if end < 0 {
				return nil, false
			}
			raw, rest = rest[:end], rest[end:]
		}
		if raw == "" {
			return nil, false
		}
		out = append(out, raw)
	}
	if rest != "" {
		return nil, false
	}
	return out, true
}

// placeholders lists the template's placeholders in order.
func (t *template) placeholders() []*placeholder {
	var out []*placeholder
	for _, s := range t.segs {
		if s.ph != nil {
			out = append(out, s.ph)
		}
	}
	return out
}

// sameFormat reports whether two placeholders render values alike.
func (p *placeholder) sameFormat(q *placeholder) bool {
	return p.kind == q.kind && p.width == q.width && p.layout == q.layout
}

// labelSeg is one segment of a declared read template: literal text, or a
// {label} or {label:format} placeholder, not yet tied to any field.
type labelSeg struct {
	lit           string
	label, format string
	hasFormat     bool
	isLabel       bool
}

// parseLabels splits a read template ("USER#{UserID}", "STATUS#PENDING").
func parseLabels(raw string) ([]labelSeg, error) {
	if raw == "" {
		return nil, fmt.Errorf("template is empty")
	}
	var segs []labelSeg
	rest := raw
	for rest != "" {
		open := strings.IndexByte(rest, '{')
		if open < 0 {
			open = len(rest)
		}
		if c := strings.IndexByte(rest[:open], '}'); c >= 0 {
			return nil, fmt.Errorf("unmatched '}'")
		}
		if open > 0 {
			segs = append(segs, labelSeg{lit: rest[:open]})
			rest = rest[open:]
			continue
		}
		end := strings.IndexByte(rest, '}')
		if end < 0 {
			return nil, fmt.Errorf("unclosed '{'")
		}
		name, format, has := strings.Cut(rest[1:end], ":")
		if name == "" {
			return nil, fmt.Errorf("empty placeholder {%s}", rest[1:end])
		}
		segs = append(segs, labelSeg{label: name, format: format, hasFormat: has, isLabel: true})
		rest = rest[end+1:]
	}
	return segs, nil
}

// binding is how one placeholder of an entity's template is given by a read
// template: by a label, or fixed to literal text.
type binding struct {
	ph    *placeholder
	label string // set when the placeholder takes a label's value
	fixed string // otherwise: the literal key text (escaped form)
}

// markerBase starts the private-use runes that stand for labels while
// matching; templates and key values never contain them in practice, and a
// label marker is only accepted where a whole placeholder stands.
const markerBase = 0xF0000

// unify matches a read template against an entity's key template: every
// placeholder of the entity's template must be given whole, by a label (of
// the same format, when the read template names one) or by literal text
// that is a valid value; literal text must coincide. It returns one binding
// per entity placeholder.
func unify(segs []labelSeg, t *template, fs *codec.Fields, check func(label string, ph *placeholder) error) ([]binding, error) {
	var b strings.Builder
	for i, s := range segs {
		if s.isLabel {
			b.WriteRune(rune(markerBase + i))
		} else {
			b.WriteString(s.lit)
		}
	}
	caps, ok := t.captures(b.String())
	if !ok {
		return nil, fmt.Errorf("does not have the shape of %q", t.raw)
	}
	phs := t.placeholders()
	out := make([]binding, len(phs))
	for i, c := range caps {
		ph := phs[i]
		r, size := utf8.DecodeRuneInString(c)
		if int(r) >= markerBase && int(r) < markerBase+len(segs) && size == len(c) {
			s := segs[int(r)-markerBase]
			if s.hasFormat {
				q, err := parsePlaceholder(ph.field.GoName+":"+s.format, fs, t.delim)
				if err != nil {
					return nil, fmt.Errorf("{%s:%s}: %v", s.label, s.format, err)
				}
				if !q.sameFormat(ph) {
					return nil, fmt.Errorf("{%s:%s} has another format than {%s} in %q", s.label, s.format, ph.field.GoName, t.raw)
				}
			}
			if err := check(s.label, ph); err != nil {
				return nil, err
			}
			out[i] = binding{ph: ph, label: s.label}
			continue
		}
		if strings.ContainsFunc(c, func(r rune) bool { return int(r) >= markerBase && int(r) < markerBase+len(segs) }) {
			return nil, fmt.Errorf("{%s} of %q must be given whole: by one placeholder or by literal text", ph.field.GoName, t.raw)
		}
		if strings.IndexByte(c, t.delim) >= 0 {
			return nil, fmt.Errorf("literal %q stands for {%s} of %q but contains the delimiter %q", c, ph.field.GoName, t.raw, string(t.delim))
		}
		scratch := reflect.New(ph.field.Type).Elem()
		if err := ph.set(scratch, c); err != nil {
			return nil, fmt.Errorf("literal %q is not a value of {%s}: %v", c, ph.field.GoName, err)
		}
		// The literal must be the text the entity writes for that value,
		// or the read would look for keys no item has ("5" for {N:4}).
		if w, _, err := ph.appendValue(nil, scratch, t.delim); err != nil || string(w) != c {
			return nil, fmt.Errorf("literal %q is not a value of {%s} as written in keys (%q)", c, ph.field.GoName, w)
		}
		out[i] = binding{ph: ph, fixed: c}
	}
	return out, nil
}

// specialise builds the template that renders t with the fixed bindings as
// literal text: what a read renders from its params.
func specialise(t *template, bs []binding) *template {
	out := &template{raw: t.raw, delim: t.delim}
	i := 0
	for _, s := range t.segs {
		if s.ph == nil {
			out.segs = append(out.segs, segment{lit: s.lit})
			continue
		}
		if bs[i].label == "" {
			out.segs = append(out.segs, segment{lit: bs[i].fixed})
		} else {
			out.segs = append(out.segs, s)
		}
		i++
	}
	// Merge adjacent literals, so that literalPrefix sees them whole.
	merged := out.segs[:0:0]
	for _, s := range out.segs {
		if n := len(merged); n > 0 && s.ph == nil && merged[n-1].ph == nil {
			merged[n-1].lit += s.lit
			continue
		}
		merged = append(merged, s)
	}
	out.segs = merged
	return out
}

// admitsPrefix reports whether some key rendered by t starts with p.
func (t *template) admitsPrefix(p string) bool {
	return admits(t.segs, p, t.delim)
}

func admits(segs []segment, p string, delim byte) bool {
	if p == "" {
		return true
	}
	if len(segs) == 0 {
		return false
	}
	s := segs[0]
	if s.ph == nil {
		if len(p) <= len(s.lit) {
			return strings.HasPrefix(s.lit, p)
		}
		return strings.HasPrefix(p, s.lit) && admits(segs[1:], p[len(s.lit):], delim)
	}
	// A value: one or more characters valid for the placeholder.
	for n := 1; n <= len(p); n++ {
		if !valueByte(s.ph, p[n-1], delim) {
			return false
		}
		if n == len(p) || admits(segs[1:], p[n:], delim) {
			return true
		}
	}
	return false
}

// valueByte reports whether byte c can appear in a rendered value.
func valueByte(ph *placeholder, c byte, delim byte) bool {
	switch ph.kind {
	case kindInt:
		return intByte(c, delim)
	case kindUint:
		return c >= '0' && c <= '9'
	}
	return c != delim
}

// intByte reports whether byte c can appear in a rendered signed integer:
// a digit or the sign, which is written %2D when it is the delimiter.
func intByte(c, delim byte) bool {
	if c >= '0' && c <= '9' {
		return true
	}
	if delim == '-' {
		return c == escapeByte || c == 'D'
	}
	return c == '-'
}

// successor returns the smallest string greater than every string that
// starts with p (in UTF-8 byte order, which is DynamoDB's order for
// strings): p with its last character incremented. ok is false if p has no
// successor (empty, or only U+10FFFF).
func successor(p string) (string, bool) {
	for p != "" {
		r, size := utf8.DecodeLastRuneInString(p)
		p = p[:len(p)-size]
		if r == utf8.RuneError && size <= 1 {
			continue
		}
		if r == utf8.MaxRune {
			continue
		}
		r++
		if r >= 0xD800 && r <= 0xDFFF {
			r = 0xE000
		}
		return p + string(r), true
	}
	return "", false
}

// Key languages, for lint: a template is approximated by the set of strings
// it can render, each placeholder standing for one or more characters of
// its class. Two templates can collide when their languages intersect.

type globTok struct {
	lit   byte // a literal byte, when class == 0
	class int  // 0: literal; classAny: any byte but the delimiter; classDigit: digits and the sign; classAll, classUint
	star  bool // zero or more of class (after at least one: see tokens)
}

const (
	classAny = 1 + iota
	classDigit
)

// tokens turns a template into glob tokens.
func (t *template) tokens() []globTok {
	var out []globTok
	for _, s := range t.segs {
		if s.ph == nil {
			for i := 0; i < len(s.lit); i++ {
				out = append(out, globTok{lit: s.lit[i]})
			}
			continue
		}
		c := classAny
		switch s.ph.kind {
		case kindInt:
			c = classDigit
		case kindUint:
			c = classUint
		}
		out = append(out, globTok{class: c}, globTok{class: c, star: true})
	}
	return out
}

// prefixTokens is the language of all strings that start with p.
func prefixTokens(p string) []globTok {
	out := make([]globTok, 0, len(p)+1)
	for i := 0; i < len(p); i++ {
		out = append(out, globTok{lit: p[i]})
	}
	return append(out, globTok{class: classAll, star: true})
}

// classAll matches any byte, the delimiter included (for open prefixes);
// classUint matches digits.
const (
	classAll = 3 + iota
	classUint
)

func (g globTok) accepts(c byte, delim byte) bool {
	switch g.class {
	case 0:
		return g.lit == c
	case classDigit:
		return intByte(c, delim)
	case classUint:
		return c >= '0' && c <= '9'
	case classAll:
		return true
	}
	return c != delim
}

// compatible reports whether two single tokens can match the same byte.
func compatible(a, b globTok, delim byte) bool {
	switch {
	case a.class == 0:
		return b.accepts(a.lit, delim)
	case b.class == 0:
		return a.accepts(b.lit, delim)
	case a.class == classAll || b.class == classAll:
		return true
	case a.class == classDigit || b.class == classDigit || a.class == classUint || b.class == classUint:
		return true // digits are never the delimiter
	}
	return true
}

// intersects reports whether the languages of a and b share a string.
func intersects(a, b []globTok, delim byte) bool {
	type pos struct{ i, j int }
	memo := map[pos]bool{}
	var walk func(i, j int) bool
	walk = func(i, j int) bool {
		if i == len(a) && j == len(b) {
			return true
		}
		k := pos{i, j}
		if v, ok := memo[k]; ok {
			return v
		}
		memo[k] = false
		ok := false
		switch {
		case i < len(a) && a[i].star:
			ok = walk(i+1, j) || (j < len(b) && compatible(a[i], b[j], delim) && walk(i, j+1)) ||
				(j < len(b) && b[j].star && walk(i, j+1))
		case j < len(b) && b[j].star:
			ok = walk(i, j+1) || (i < len(a) && compatible(a[i], b[j], delim) && walk(i+1, j))
		case i < len(a) && j < len(b):
			ok = compatible(a[i], b[j], delim) && walk(i+1, j+1)
		}
		memo[k] = ok
		return ok
	}
	return walk(0, 0)
}
