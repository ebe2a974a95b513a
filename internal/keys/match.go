package keys

import (
	"fmt"
	"reflect"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/singletable/singletable/internal/codec"
)

// Reasoning about key templates without data: matching a pattern's
// template against what an entity writes, prefix and range bounds, and
// whether two templates can render the same key.

// Captures splits key against template t like ParseKey does, returning the raw
// (still escaped) text of each placeholder, in order. ok is false when key
// does not have the template's shape.
func (t *Template) Captures(key string) (out []string, ok bool) {
	return t.appendCaptures(nil, key)
}

// appendCaptures is Captures appending to out.
func (t *Template) appendCaptures(out []string, key string) ([]string, bool) {
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

// Placeholders lists the template's placeholders in order.
// The slice is the template's own: read it, do not change its elements.
func (t *Template) Placeholders() []*Placeholder { return t.phs }

// SameFormat reports whether two placeholders render values alike.
func (p *Placeholder) SameFormat(q *Placeholder) bool {
	return p.Kind == q.Kind && p.Width == q.Width && p.Layout == q.Layout && p.Shape == q.Shape
}

// Precision ranks how much of its value a placeholder keeps: 0 for all of
// it (strings, integers, a time to the nanosecond), more for a time layout
// that stops at a coarser unit (the finest unit it renders).
func (p *Placeholder) Precision() int {
	if p.Kind != KindTime {
		return 0
	}
	ref := time.Date(2001, 2, 3, 4, 5, 6, 7008009, time.UTC)
	base := ref.Format(p.Layout)
	steps := []time.Time{
		ref.Add(time.Nanosecond), ref.Add(time.Microsecond), ref.Add(time.Millisecond), ref.Add(time.Second),
		ref.Add(time.Minute), ref.Add(time.Hour), ref.AddDate(0, 0, 1), ref.AddDate(0, 1, 0), ref.AddDate(1, 0, 0),
	}
	for i, t := range steps {
		if t.Format(p.Layout) != base {
			return i
		}
	}
	return len(steps)
}

// ReadSegment is one segment of a declared read template: literal text, or
// a {label} or {label:format} placeholder, not yet tied to any field.
type ReadSegment struct {
	lit           string
	label, format string
	hasFormat     bool
	isLabel       bool
}

// ParseLabels splits a read template ("USER#{UserID}", "STATUS#PENDING").
func ParseLabels(raw string) ([]ReadSegment, error) {
	if raw == "" {
		return nil, fmt.Errorf("template is empty")
	}
	var segs []ReadSegment
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
			segs = append(segs, ReadSegment{lit: rest[:open]})
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
		segs = append(segs, ReadSegment{label: name, format: format, hasFormat: has, isLabel: true})
		rest = rest[end+1:]
	}
	return segs, nil
}

// Binding is how one placeholder of an entity's template is given by a read
// template: by a label, or fixed to literal text.
type Binding struct {
	Ph    *Placeholder
	Label string // set when the placeholder takes a label's value
	Fixed string // otherwise: the literal key text (escaped form)
}

// markerBase starts the private-use runes that stand for labels while
// matching; templates and key values never contain them in practice, and a
// label marker is only accepted where a whole placeholder stands.
const markerBase = 0xF0000

// Unify matches a read template against an entity's key template: every
// placeholder of the entity's template must be given whole, by a label (of
// the same format, when the read template names one) or by literal text
// that is a valid value; literal text must coincide. It returns one Binding
// per entity placeholder.
func Unify(segs []ReadSegment, t *Template, fs *codec.Fields, check func(label string, ph *Placeholder) error) ([]Binding, error) {
	var b strings.Builder
	for i, s := range segs {
		if s.isLabel {
			b.WriteRune(rune(markerBase + i))
		} else {
			b.WriteString(s.lit)
		}
	}
	caps, ok := t.Captures(b.String())
	if !ok {
		return nil, fmt.Errorf("does not have the shape of %q", t.Raw)
	}
	phs := t.Placeholders()
	out := make([]Binding, len(phs))
	for i, c := range caps {
		ph := phs[i]
		r, size := utf8.DecodeRuneInString(c)
		if int(r) >= markerBase && int(r) < markerBase+len(segs) && size == len(c) {
			s := segs[int(r)-markerBase]
			if s.hasFormat {
				q, err := parsePlaceholder(ph.Field.GoName+":"+s.format, fs, t.Delim)
				if err != nil {
					return nil, fmt.Errorf("{%s:%s}: %v", s.label, s.format, err)
				}
				if !q.SameFormat(ph) {
					return nil, fmt.Errorf("{%s:%s} has another format than {%s} in %q", s.label, s.format, ph.Field.GoName, t.Raw)
				}
			}
			if err := check(s.label, ph); err != nil {
				return nil, err
			}
			out[i] = Binding{Ph: ph, Label: s.label}
			continue
		}
		if strings.ContainsFunc(c, func(r rune) bool { return int(r) >= markerBase && int(r) < markerBase+len(segs) }) {
			return nil, fmt.Errorf("{%s} of %q must be given whole: by one placeholder or by literal text", ph.Field.GoName, t.Raw)
		}
		if strings.IndexByte(c, t.Delim) >= 0 {
			return nil, fmt.Errorf("literal %q stands for {%s} of %q but contains the delimiter %q", c, ph.Field.GoName, t.Raw, string(t.Delim))
		}
		scratch := reflect.New(ph.Field.Type).Elem()
		if err := ph.Set(scratch, c); err != nil {
			return nil, fmt.Errorf("literal %q is not a value of {%s}: %v", c, ph.Field.GoName, err)
		}
		// The literal must be the text the entity writes for that value,
		// or the read would look for keys no item has ("5" for {N:4}).
		if w, _, err := ph.AppendValue(nil, scratch, t.Delim); err != nil || string(w) != c {
			return nil, fmt.Errorf("literal %q is not a value of {%s} as written in keys (%q)", c, ph.Field.GoName, w)
		}
		out[i] = Binding{Ph: ph, Fixed: c}
	}
	return out, nil
}

// Specialise builds the template that renders t with the fixed bindings as
// literal text: what a read renders from its params.
func Specialise(t *Template, bs []Binding) *Template {
	out := &Template{Raw: t.Raw, Delim: t.Delim}
	i := 0
	for _, s := range t.segs {
		if s.ph == nil {
			out.segs = append(out.segs, segment{lit: s.lit})
			continue
		}
		if bs[i].Label == "" {
			out.segs = append(out.segs, segment{lit: bs[i].Fixed})
		} else {
			out.segs = append(out.segs, s)
		}
		i++
	}
	// Merge adjacent literals, so that LiteralPrefix sees them whole.
	merged := out.segs[:0:0]
	for _, s := range out.segs {
		if n := len(merged); n > 0 && s.ph == nil && merged[n-1].ph == nil {
			merged[n-1].lit += s.lit
			continue
		}
		merged = append(merged, s)
	}
	out.segs = merged
	return out.finish()
}

// AdmitsPrefix reports whether some key rendered by t starts with p.
func (t *Template) AdmitsPrefix(p string) bool {
	return Intersects(t.Glob(), PrefixGlob(p), t.Delim)
}

// Successor returns the smallest string greater than every string that
// starts with p (in UTF-8 byte order, which is DynamoDB's order for
// strings): p with its last character incremented. ok is false if p has no
// successor (empty, or only U+10FFFF).
func Successor(p string) (string, bool) {
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
// it can render, each placeholder standing for one or more bytes of its
// shape (see valueSets). Two templates can collide when their languages
// intersect.

// Glob is a key language: a sequence of glob tokens.
type Glob []globTok

// globTok is one byte of set, or with star zero or more of them.
type globTok struct {
	set  byteSet
	star bool
}

// Glob is the template's language as glob tokens.
func (t *Template) Glob() Glob {
	var out Glob
	for _, s := range t.segs {
		if s.ph == nil {
			for i := 0; i < len(s.lit); i++ {
				out = append(out, litTok(s.lit[i]))
			}
			continue
		}
		first, rest := s.ph.valueSets(t.Delim)
		out = append(out, globTok{set: first}, globTok{set: rest, star: true})
	}
	return out
}

func litTok(c byte) globTok {
	var s byteSet
	s.add(c)
	return globTok{set: s}
}

// PrefixGlob is the language of all strings that start with p.
func PrefixGlob(p string) Glob {
	out := make(Glob, 0, len(p)+1)
	for i := 0; i < len(p); i++ {
		out = append(out, litTok(p[i]))
	}
	var all byteSet
	all.addRange(0, 255)
	return append(out, globTok{set: all, star: true})
}

// Opening is the language of all strings that start with a first byte of
// g's strings: what begins_with a non-empty prefix of one of them can
// reach.
func (g Glob) Opening() Glob {
	var first byteSet
	for _, tok := range g {
		first = orSet(first, tok.set)
		if !tok.star {
			break
		}
	}
	var all byteSet
	all.addRange(0, 255)
	return Glob{{set: first}, {set: all, star: true}}
}

// FirstBytes reports the least and greatest byte a non-empty string of the
// language can start with; ok is false when it holds only "".
func (g Glob) FirstBytes() (lo, hi byte, ok bool) {
	var s byteSet
	for _, tok := range g {
		s = orSet(s, tok.set)
		if !tok.star {
			break
		}
	}
	if s == (byteSet{}) {
		return 0, 0, false
	}
	lo, hi = s.bounds()
	return lo, hi, true
}

// Intersects reports whether the languages of a and b share a string: a
// search of the product of their automata, state (i, j) having read the
// same bytes through a's first i tokens and b's first j.
func Intersects(a, b Glob, _ byte) bool {
	type pos struct{ i, j int }
	seen := map[pos]bool{}
	var walk func(i, j int) bool
	walk = func(i, j int) bool {
		k := pos{i, j}
		if seen[k] {
			return false
		}
		seen[k] = true
		if i == len(a) && j == len(b) {
			return true
		}
		// Leave a star behind, reading nothing.
		if i < len(a) && a[i].star && walk(i+1, j) {
			return true
		}
		if j < len(b) && b[j].star && walk(i, j+1) {
			return true
		}
		if i == len(a) || j == len(b) || !a[i].set.meets(&b[j].set) {
			return false
		}
		// Read one byte both tokens admit; a star stays.
		ni, nj := i+1, j+1
		if a[i].star {
			ni = i
		}
		if b[j].star {
			nj = j
		}
		return walk(ni, nj)
	}
	return walk(0, 0)
}
