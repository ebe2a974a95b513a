package keys

import (
	"fmt"
	"time"
)

// Shapes of key values: which bytes a placeholder's rendered value can
// hold, and which its first byte can be. Lint compares templates through
// them (see Glob), so a shape must be a promise: a declared string shape
// is checked on every value rendered into a key (AppendValue), and a time
// is kept to the years its layout renders alike (0 to 9999).
//
// A string field declares its shape after a colon, as other kinds declare
// their format:
//
//	{ID:digits}        0-9
//	{ID:hex}           0-9, a-f, A-F
//	{ID:alnum}         0-9, a-z, A-Z
//	{ID:[a-z0-9_-]}    a class of ASCII characters and ranges; '-' first or last is itself
//
// Other kinds have theirs from their type: integers are digits (and the
// sign), bools "true" or "false", times whatever their layout renders
// (the default layout and "2006-01-02" start with a digit; "Jan 2" with a
// month's initial).

// byteSet is a set of bytes.
type byteSet [4]uint64

func (s *byteSet) add(c byte)      { s[c>>6] |= 1 << (c & 63) }
func (s *byteSet) has(c byte) bool { return s[c>>6]&(1<<(c&63)) != 0 }
func (s *byteSet) addRange(lo, hi byte) {
	for c := int(lo); c <= int(hi); c++ {
		s.add(byte(c))
	}
}

func (s *byteSet) meets(o *byteSet) bool {
	for i := range s {
		if s[i]&o[i] != 0 {
			return true
		}
	}
	return false
}

// bounds are the least and greatest bytes of a non-empty set.
func (s *byteSet) bounds() (lo, hi byte) {
	first := true
	for c := 0; c < 256; c++ {
		if s.has(byte(c)) {
			if first {
				lo, first = byte(c), false
			}
			hi = byte(c)
		}
	}
	return lo, hi
}

// holds reports whether every byte of v is in the set.
func (s *byteSet) holds(v string) bool {
	for i := 0; i < len(v); i++ {
		if !s.has(v[i]) {
			return false
		}
	}
	return true
}

func setOf(chars string) byteSet {
	var s byteSet
	for i := 0; i < len(chars); i++ {
		s.add(chars[i])
	}
	return s
}

var digitSet = setOf("0123456789")

// namedShapes are the shapes a string field can declare by name.
var namedShapes = map[string]func(*byteSet){
	"digits": func(s *byteSet) { s.addRange('0', '9') },
	"hex":    func(s *byteSet) { s.addRange('0', '9'); s.addRange('a', 'f'); s.addRange('A', 'F') },
	"alnum":  func(s *byteSet) { s.addRange('0', '9'); s.addRange('a', 'z'); s.addRange('A', 'Z') },
}

// parseShape parses a string field's declared shape.
func parseShape(spec string, delim byte) (*byteSet, error) {
	var s byteSet
	if f, ok := namedShapes[spec]; ok {
		f(&s)
		return &s, nil
	}
	if len(spec) < 3 || spec[0] != '[' || spec[len(spec)-1] != ']' {
		return nil, fmt.Errorf("string fields take a shape: digits, hex, alnum or a class such as [a-z0-9_-], got %q", spec)
	}
	body := spec[1 : len(spec)-1]
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c < 0x21 || c > 0x7e || c == '[' || c == ']' {
			return nil, fmt.Errorf("shape %s: a class holds printable ASCII other than '[' and ']', got %q", spec, string(c))
		}
		if i+2 < len(body) && body[i+1] == '-' {
			hi := body[i+2]
			if hi < c || hi > 0x7e {
				return nil, fmt.Errorf("shape %s: range %c-%c runs backwards", spec, c, hi)
			}
			s.addRange(c, hi)
			i += 2
			continue
		}
		s.add(c)
	}
	if s.has(delim) || s.has(EscapeByte) {
		return nil, fmt.Errorf("shape %s holds the delimiter %q or the escape %%: values are written with them escaped, so no shape can promise them", spec, string(delim))
	}
	return &s, nil
}

// valueSets are the bytes a placeholder's rendered value can start with
// and hold after its first byte: its shape.
func (p *Placeholder) valueSets(delim byte) (first, rest byteSet) {
	switch p.Kind {
	case KindString:
		if p.class != nil {
			return *p.class, *p.class
		}
		var any byteSet
		any.addRange(0, 255)
		any[delim>>6] &^= 1 << (delim & 63)
		return any, any
	case KindInt:
		s := digitSet
		if delim == '-' {
			s.add(EscapeByte) // the sign is written %2D
			s.add('D')
		} else {
			s.add('-')
		}
		return s, s
	case KindUint:
		return digitSet, digitSet
	case KindBool:
		return setOf("tf"), setOf("truefals")
	}
	return timeSets(p.Layout, delim)
}

// timeSets samples what a layout renders, varying one part of the time at
// a time (every month and weekday, hours before and after noon, years 0
// to 9999), with any digit standing for all of them: each layout element
// depends on its own part only, so the samples cover every byte it writes.
func timeSets(layout string, delim byte) (first, rest byteSet) {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	samples := []time.Time{base,
		time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(999, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC), base.Add(123456789), base.Add(13 * time.Hour)}
	for i := range 12 {
		samples = append(samples, base.AddDate(0, i, 0))
	}
	for i := range 7 {
		samples = append(samples, base.AddDate(0, 0, i))
	}
	for _, t := range samples {
		s := t.Format(layout)
		if s == "" {
			continue
		}
		// Escaping keeps every byte but the delimiter and '%', written %XX.
		s = Escape(s, delim)
		for i := 0; i < len(s); i++ {
			c := s[i]
			if digitSet.has(c) {
				rest = orSet(rest, digitSet)
				if i == 0 {
					first = orSet(first, digitSet)
				}
				continue
			}
			rest.add(c)
			if i == 0 {
				first.add(c)
			}
		}
	}
	return first, rest
}

func orSet(a, b byteSet) byteSet {
	for i := range a {
		a[i] |= b[i]
	}
	return a
}

// checkShape refuses a string value outside its declared shape.
func (p *Placeholder) checkShape(s string) error {
	if p.class == nil || p.class.holds(s) {
		return nil
	}
	return &FieldError{Field: p.Field.GoName, Reason: fmt.Sprintf("value %q does not have the shape %s declared in its key template", s, p.Shape)}
}
