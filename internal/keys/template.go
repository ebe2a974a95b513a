// Package keys is the key-template language of singletable: templates such
// as "ORDER#{Date}#{ID}" parsed against a struct's fields, rendered into
// keys (whole, as a prefix, or partially), escaped so that values cannot
// forge keys, parsed back into fields, and reasoned about without data
// (captures, unification of a read's template with an entity's, prefix
// admission and successors, and the languages lint compares).
//
// It knows nothing of entities, tables or errors users see: the root
// package decides which template applies and wraps these errors.
package keys

import (
	"encoding/binary"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/singletable/singletable/internal/codec"
)

// Key templates
//
// A template is literal text with {Field} placeholders naming Go struct
// fields: "USER#{ID}", "ORDER#{Date}#{ID}". A placeholder may carry a format
// after a colon:
//
//	{Seq:8}                 integers zero-padded to 8 digits, so they sort as strings (a wider or negative value is an error)
//	{At:2006-01-02}         time.Time with a custom layout (a time bucket)
//	{At}                    time.Time, default layout DefaultTimeLayout (UTC, fixed width)
//	{ID:hex}                a string's shape: the characters its values hold (shape.go); a value outside it is an error
//
// A key field is a string, an integer, a bool or a time.Time, or a pointer
// to one. A value is absent only when it is a nil pointer, an empty string
// or a zero time; integers and bools are always values (0 renders "0", or
// "000" padded; a bool "true" or "false").
// An absent value is an error in a table key and leaves the item out of an
// index whose key needs it (the index is sparse by absence).
//
// Keys are data, and data cannot forge keys: in a field value, the table's
// delimiter (default '#') and the escape character '%' are written as %XX
// (hex of the byte), so a value never contains the delimiter and every key
// splits into the segments its template declares. "u1#ORDER#x" is stored as
// "u1%23ORDER%23x". Escaping is per byte, so it keeps prefixes: the escaped
// form of a prefix is a prefix of the escaped form.

// DefaultTimeLayout renders time.Time placeholders: UTC, fixed width, so that
// keys sort chronologically as strings.
const DefaultTimeLayout = "2006-01-02T15:04:05.000000000Z07:00"

// EscapeByte introduces an escaped byte in a key value.
const EscapeByte = '%'

// Kind is the Go kind of a placeholder's field, which decides how its value
// is written.
type Kind int

// The kinds of key fields.
const (
	KindString Kind = iota
	KindInt
	KindUint
	KindTime
	KindBool
)

// Placeholder is one {Field} of a template, resolved against the struct.
type Placeholder struct {
	Field  *codec.Field
	Kind   Kind
	Ptr    bool   // the field is a pointer to the kind: nil is absent
	Width  int    // zero-padding width for integers
	Layout string // time layout
	// KeyOnly is set for a field tagged `dynamodbav:"-"`: it has no
	// attribute of its own, and the key is where its value lives.
	KeyOnly bool
	// Shape is a string field's declared shape ("hex", "[a-z0-9]"), ""
	// for none; class is the bytes it admits (see shape.go).
	Shape string
	class *byteSet
}

// segment is a literal run of a template, or a placeholder.
type segment struct {
	lit string
	ph  *Placeholder
	// plain is 1 + the index of ph's field in its struct when ph is the
	// usual placeholder, a top-level string field with no shape (set by
	// finish), else 0: AppendKey writes its value with no
	// reflect.FieldByIndex and no call (bench/'s Put: see CHANGELOG).
	plain int
}

// Template is a parsed key template. Raw is the text it was parsed from;
// Delim the table's delimiter, which values are written without.
type Template struct {
	Raw   string
	Delim byte
	segs  []segment
	// phs are the placeholders of segs, in order (see finish): decoding
	// lists them for every key it parses.
	phs []*Placeholder
}

// finish sets what a template derives from its segments, once they are
// final.
func (t *Template) finish() *Template {
	t.phs = nil
	for i, s := range t.segs {
		t.segs[i].plain = 0
		if s.ph != nil {
			t.phs = append(t.phs, s.ph)
			if f := s.ph.Field; s.ph.Kind == KindString && !s.ph.Ptr && s.ph.class == nil &&
				len(f.Index) == 1 && f.Type.Kind() == reflect.String {
				t.segs[i].plain = 1 + f.Index[0]
			}
		}
	}
	// Clipped: a caller that appends to Placeholders() gets a copy.
	t.phs = t.phs[:len(t.phs):len(t.phs)]
	return t
}

// Segment is one segment of a template as Segments lists it: literal
// text, or a placeholder (Placeholder not nil), Plain when it is the
// usual one, a top-level string field with no shape.
type Segment struct {
	Literal     string
	Placeholder *Placeholder
	Plain       bool
}

// Segments lists the template's segments, for a caller that compiles
// its own rendering of plain templates (internal/model's flat keys).
func (t *Template) Segments() []Segment {
	out := make([]Segment, len(t.segs))
	for i, s := range t.segs {
		out[i] = Segment{Literal: s.lit, Placeholder: s.ph, Plain: s.plain > 0}
	}
	return out
}

var timeType = reflect.TypeOf(time.Time{})

// Parse parses raw against the fields of an entity's struct.
func Parse(raw string, fields *codec.Fields, delim byte) (*Template, error) {
	if raw == "" {
		return nil, fmt.Errorf("template is empty")
	}
	t := &Template{Raw: raw, Delim: delim}
	rest := raw
	for rest != "" {
		open := strings.IndexByte(rest, '{')
		if open < 0 {
			open = len(rest)
		}
		if close := strings.IndexByte(rest[:open], '}'); close >= 0 {
			return nil, fmt.Errorf("unmatched '}' at offset %d", len(raw)-len(rest)+close)
		}
		if open > 0 {
			lit := rest[:open]
			if strings.IndexByte(lit, EscapeByte) >= 0 {
				return nil, fmt.Errorf("literal text %q contains the escape character %%", lit)
			}
			if !utf8.ValidString(lit) {
				return nil, fmt.Errorf("literal text %q is not valid UTF-8", lit)
			}
			t.segs = append(t.segs, segment{lit: lit})
			rest = rest[open:]
			continue
		}
		end := strings.IndexByte(rest, '}')
		if end < 0 {
			return nil, fmt.Errorf("unclosed '{'")
		}
		ph, err := parsePlaceholder(rest[1:end], fields, delim)
		if err != nil {
			return nil, err
		}
		if n := len(t.segs); n > 0 && t.segs[n-1].ph != nil {
			return nil, fmt.Errorf("placeholders {%s} and {%s} must be separated by literal text containing the delimiter %q",
				t.segs[n-1].ph.Field.GoName, ph.Field.GoName, string(delim))
		}
		if n := len(t.segs); n > 1 && t.segs[n-2].ph != nil && strings.IndexByte(t.segs[n-1].lit, delim) < 0 {
			return nil, fmt.Errorf("literal %q between {%s} and {%s} must contain the delimiter %q, or the key cannot be split back into fields",
				t.segs[n-1].lit, t.segs[n-2].ph.Field.GoName, ph.Field.GoName, string(delim))
		}
		t.segs = append(t.segs, segment{ph: ph})
		rest = rest[end+1:]
	}
	return t.finish(), nil
}

func parsePlaceholder(spec string, fields *codec.Fields, delim byte) (*Placeholder, error) {
	name, format, hasFormat := strings.Cut(spec, ":")
	if name == "" {
		return nil, fmt.Errorf("empty placeholder {%s}", spec)
	}
	f, ok := fields.ByGoName(name)
	if !ok {
		// A field tagged `dynamodbav:"-"` lives in keys only: the caller
		// decides where that is allowed (see Placeholder.KeyOnly).
		f, ok = fields.Unstored(name)
	}
	if !ok {
		return nil, &FieldError{Field: name, Reason: "no such field (placeholders name Go struct fields, not attribute names)"}
	}
	if throughPointer(fields.Type(), f.Index) {
		return nil, &FieldError{Field: name, Reason: "the field is promoted through an embedded pointer, which may be nil; key fields must be reachable without one"}
	}
	ph := &Placeholder{Field: f, KeyOnly: f.Tag.Ignore}
	t := f.Type
	if t.Kind() == reflect.Pointer {
		ph.Ptr, t = true, t.Elem()
	}
	switch {
	case t == timeType:
		ph.Kind, ph.Layout = KindTime, DefaultTimeLayout
		if hasFormat {
			if format == "" {
				return nil, &FieldError{Field: name, Reason: "empty time layout"}
			}
			ph.Layout = format
		}
		return ph, nil
	case t.Kind() == reflect.String:
		ph.Kind = KindString
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Int64:
		ph.Kind = KindInt
	case t.Kind() >= reflect.Uint && t.Kind() <= reflect.Uint64:
		ph.Kind = KindUint
	case t.Kind() == reflect.Bool:
		ph.Kind = KindBool
	default:
		return nil, &FieldError{Field: name, Reason: fmt.Sprintf("unsupported kind %s for a key (use a string, an integer, a bool or time.Time, or a pointer to one)", f.Type)}
	}
	if hasFormat && ph.Kind == KindString {
		class, err := parseShape(format, delim)
		if err != nil {
			return nil, &FieldError{Field: name, Reason: err.Error()}
		}
		ph.Shape, ph.class = format, class
		return ph, nil
	}
	if hasFormat {
		if ph.Kind == KindBool {
			return nil, &FieldError{Field: name, Reason: fmt.Sprintf("%s fields take no format, got %q", t.Kind(), format)}
		}
		w, err := strconv.Atoi(format)
		if err != nil || w < 1 || w > 40 {
			return nil, &FieldError{Field: name, Reason: fmt.Sprintf("integer format must be a padding width from 1 to 40, got %q", format)}
		}
		ph.Width = w
	}
	return ph, nil
}

// FieldTemplate is the template of an index key that is field f's own
// attribute: the field's value itself, "{Field}". Its value is never
// rendered as a key (no escaping, no format): writes store the field as
// the entity's codec does, and reads send and decode the value as stored.
func FieldTemplate(f *codec.Field, delim byte) *Template {
	ph := &Placeholder{Field: f, Kind: KindString}
	switch k := f.Type.Kind(); {
	case k >= reflect.Int && k <= reflect.Int64:
		ph.Kind = KindInt
	case k >= reflect.Uint && k <= reflect.Uint64:
		ph.Kind = KindUint
	case f.Type == timeType:
		ph.Kind, ph.Layout = KindTime, DefaultTimeLayout
	}
	return (&Template{Raw: "{" + f.GoName + "}", segs: []segment{{ph: ph}}, Delim: delim}).finish()
}

// Lead is the placeholder the template starts with, or nil when it starts
// with literal text: a FieldTemplate's field.
func (t *Template) Lead() *Placeholder {
	if len(t.segs) == 0 {
		return nil
	}
	return t.segs[0].ph
}

// FieldError is an error about one field of a template; the caller adds the
// entity and the template.
type FieldError struct {
	Field  string // the Go field name
	Reason string
}

// Error reports the field and the reason.
func (e *FieldError) Error() string { return fmt.Sprintf("field %s: %s", e.Field, e.Reason) }

// Fields lists the Go names of the template's placeholders, in order.
func (t *Template) Fields() []string {
	var out []string
	for _, s := range t.segs {
		if s.ph != nil {
			out = append(out, s.ph.Field.GoName)
		}
	}
	return out
}

// Uses reports whether the template has a placeholder for the Go field.
func (t *Template) Uses(goName string) bool {
	for _, s := range t.segs {
		if s.ph != nil && s.ph.Field.GoName == goName {
			return true
		}
	}
	return false
}

// Constant reports whether the template has no placeholder.
func (t *Template) Constant() bool {
	for _, s := range t.segs {
		if s.ph != nil {
			return false
		}
	}
	return true
}

// LiteralPrefix is the literal text before the first placeholder.
func (t *Template) LiteralPrefix() string {
	if len(t.segs) > 0 && t.segs[0].ph == nil {
		return t.segs[0].lit
	}
	return ""
}

// MissingError reports an empty value for a placeholder.
type MissingError struct{ Field string }

// Error names the field.
func (e MissingError) Error() string { return "field " + e.Field + " is empty" }

// Render renders the full key from struct value v. An absent value (nil
// pointer, empty string, zero time) is an MissingError; other bad values are
// errors too.
func (t *Template) Render(v reflect.Value) (string, error) {
	if len(t.segs) == 1 && t.segs[0].ph == nil {
		return t.segs[0].lit, nil // literal text only (never escaped): nothing to build
	}
	var buf [128]byte // on the stack: the string below is the one allocation
	b, err := t.AppendKey(buf[:0], v)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// AppendKey appends the full key rendered from struct value v to dst, as
// Render returns it. On error, what it appended is undefined: callers cut
// dst back.
func (t *Template) AppendKey(dst []byte, v reflect.Value) ([]byte, error) {
	for _, s := range t.segs {
		if s.ph == nil {
			dst = append(dst, s.lit...)
			continue
		}
		if s.plain > 0 {
			// What AppendValue does for a plain string value, inline.
			if val := v.Field(s.plain - 1).String(); val != "" && plainASCII(val, t.Delim) {
				dst = append(dst, val...)
				continue
			}
		}
		var ok bool
		var err error
		dst, ok, err = s.ph.AppendValue(dst, v.FieldByIndex(s.ph.Field.Index), t.Delim)
		if err != nil {
			return dst, err
		}
		if !ok {
			return dst, MissingError{Field: s.ph.Field.GoName}
		}
	}
	return dst, nil
}

// RenderPrefix renders as much of the key as v gives: it stops at the
// first placeholder whose value is absent (see Render), after writing the
// literal text before it; with through >= 0, it stops after the first
// through placeholders instead, each of which must have a value. complete
// reports whether every placeholder was rendered. Because the literal after
// a value is written whenever the next field is not, a prefix never ends
// inside a value: "ORDER#{Date}#{ID}" with only Date gives
// "ORDER#2024-01-15#", which cannot match the date "2024-01-150".
//
// A field after the prefix's end that still has a value other than its
// type's zero is an GapError: the caller gave it, and dropping it would read
// more than asked for. (A zero integer there is taken as not given: nothing
// else can express "no value" for an int.)
func (t *Template) RenderPrefix(v reflect.Value, through int) (prefix string, complete bool, err error) {
	return t.renderPrefix(v, through, false)
}

// RenderBound is RenderPrefix for a bound that several templates share (a
// collection's range over its members' sort keys): when it stops, the
// literal after the last value is kept only up to its first byte if that
// is the delimiter, which ends the value whole, so that the bound does not
// name what the template writes next ("ACT#{Date}#ORDER#{ID}" with only
// Date gives "ACT#2024-01-15#", which another member's
// "ACT#2024-01-15#RETURN#..." starts with too).
func (t *Template) RenderBound(v reflect.Value, through int) (prefix string, complete bool, err error) {
	return t.renderPrefix(v, through, true)
}

func (t *Template) renderPrefix(v reflect.Value, through int, bound bool) (prefix string, complete bool, err error) {
	var buf [128]byte
	b := buf[:0]
	n, stop := 0, (*Placeholder)(nil)
	lastLit := -1 // where the literal after the last value starts, if any
	for _, s := range t.segs {
		if s.ph == nil {
			if stop == nil {
				if n > 0 {
					lastLit = len(b)
				}
				b = append(b, s.lit...)
			}
			continue
		}
		fv := v.FieldByIndex(s.ph.Field.Index)
		if stop != nil {
			if !fv.IsZero() {
				return "", false, &GapError{missing: stop, given: s.ph, through: through}
			}
			continue
		}
		if through >= 0 && n == through {
			stop = s.ph
			if !fv.IsZero() {
				return "", false, &GapError{missing: stop, given: s.ph, through: through}
			}
			continue
		}
		var ok bool
		b, ok, err = s.ph.AppendValue(b, fv, t.Delim)
		if err != nil {
			return "", false, err
		}
		if !ok {
			if through >= 0 {
				return "", false, &GapError{missing: s.ph, through: through}
			}
			stop = s.ph
			continue
		}
		n++
		lastLit = -1 // a literal after this value comes next, if any
	}
	if through > n {
		return "", false, &GapError{through: through, count: n}
	}
	if bound && stop != nil && lastLit >= 0 && lastLit < len(b) && b[lastLit] == t.Delim {
		b = b[:lastLit+1]
	}
	return string(b), stop == nil, nil
}

// GapError is a partial key whose given fields do not form a prefix of the
// template: a value after an absent field, or fields at odds with
// SortFields.
type GapError struct {
	missing, given *Placeholder
	through        int // SortFields' n, or -1
	count          int // with neither placeholder: the template has only count
}

// Error says which fields are at odds.
func (e *GapError) Error() string {
	switch {
	case e.missing == nil:
		return fmt.Sprintf("SortFields(%d): the sort template has only %d fields", e.through, e.count)
	case e.given == nil:
		return fmt.Sprintf("SortFields(%d) includes sort field %s, which has no value", e.through, e.missing.Field.GoName)
	case e.given == e.missing:
		return fmt.Sprintf("sort field %s has a value, but SortFields(%d) ends the prefix before it", e.given.Field.GoName, e.through)
	case e.through >= 0:
		return fmt.Sprintf("sort field %s has a value, but SortFields(%d) ends the prefix before %s", e.given.Field.GoName, e.through, e.missing.Field.GoName)
	}
	return fmt.Sprintf("sort field %s is given but %s before it is not: a key prefix cannot skip a field (give %s, or leave %s out)",
		e.given.Field.GoName, e.missing.Field.GoName, e.missing.Field.GoName, e.given.Field.GoName)
}

// AppendValue appends the field's rendered value to dst. It reports false,
// appending nothing, for an absent value: a nil pointer, an empty string or
// a zero time. Integers and bools are always values.
func (p *Placeholder) AppendValue(dst []byte, fv reflect.Value, delim byte) ([]byte, bool, error) {
	if p.Ptr {
		if fv.IsNil() {
			return dst, false, nil
		}
		fv = fv.Elem()
	}
	switch p.Kind {
	case KindString:
		s := fv.String()
		if s == "" {
			return dst, false, nil
		}
		if err := p.checkShape(s); err != nil {
			return dst, false, err
		}
		if plainASCII(s, delim) {
			dst = append(dst, s...) // the usual value: nothing to check or escape
			break
		}
		if !utf8.ValidString(s) {
			return dst, false, &FieldError{Field: p.Field.GoName, Reason: "value is not valid UTF-8"}
		}
		dst = AppendEscaped(dst, s, delim)
	case KindInt:
		n := fv.Int()
		if n < 0 && p.Width > 0 {
			return dst, false, &FieldError{Field: p.Field.GoName, Reason: fmt.Sprintf("negative value %d cannot be zero-padded to sort as a string", n)}
		}
		var buf [24]byte
		digits := strconv.AppendInt(buf[:0], n, 10)
		if err := p.checkWidth(digits); err != nil {
			return dst, false, err
		}
		if n < 0 && delim == '-' {
			// The sign is the delimiter: escape it, as in string values.
			dst = append(dst, EscapeByte, hexDigits['-'>>4], hexDigits['-'&0xF])
			digits = digits[1:]
		}
		dst = appendPadded(dst, digits, p.Width)
	case KindUint:
		n := fv.Uint()
		var buf [24]byte
		digits := strconv.AppendUint(buf[:0], n, 10)
		if err := p.checkWidth(digits); err != nil {
			return dst, false, err
		}
		dst = appendPadded(dst, digits, p.Width)
	case KindBool:
		dst = strconv.AppendBool(dst, fv.Bool())
	case KindTime:
		tm := fv.Interface().(time.Time)
		if tm.IsZero() {
			return dst, false, nil
		}
		// Lint reasons about what a layout renders for these years (see
		// timeSets); the default layout sorts only within them too.
		if y := tm.UTC().Year(); y < 0 || y > 9999 {
			return dst, false, &FieldError{Field: p.Field.GoName, Reason: fmt.Sprintf("year %d is outside 0 to 9999, the years a key's time layout writes alike", y)}
		}
		var buf [64]byte
		dst = AppendEscaped(dst, string(tm.UTC().AppendFormat(buf[:0], p.Layout)), delim)
	}
	return dst, true, nil
}

// checkWidth refuses a number wider than its padding: it would still
// render, but no longer sort among the others as a string.
func (p *Placeholder) checkWidth(digits []byte) error {
	if p.Width > 0 && len(digits) > p.Width {
		return &FieldError{Field: p.Field.GoName, Reason: fmt.Sprintf("value %s has %d digits, more than the %d it is zero-padded to, so its key would not sort by number; widen the padding", string(digits), len(digits), p.Width)}
	}
	return nil
}

func appendPadded(dst, digits []byte, width int) []byte {
	for i := len(digits); i < width; i++ {
		dst = append(dst, '0')
	}
	return append(dst, digits...)
}

// plainASCII reports whether s is ASCII without the delimiter or the
// escape byte: valid UTF-8 that AppendEscaped would copy as is. One pass
// instead of utf8.ValidString and AppendEscaped's.
func plainASCII(s string, delim byte) bool { return PlainASCII(s, delim) }

// PlainASCII reports whether s is written into a key as it is: ASCII,
// without the delimiter or the escape byte. It reads eight bytes at a
// time: key values are mostly ids and dates of ten to forty bytes.
func PlainASCII(s string, delim byte) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	d, e := ones*uint64(delim), ones*uint64(EscapeByte)
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s[i:]), 8))
		// A zero byte in x^d or x^e is the delimiter or the escape byte
		// (the usual test for a zero byte: exact, as only existence
		// counts).
		xd, xe := x^d, x^e
		if (x|(xd-ones)&^xd|(xe-ones)&^xe)&highs != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf || c == delim || c == EscapeByte {
			return false
		}
	}
	return true
}

const hexDigits = "0123456789ABCDEF"

// AppendEscaped appends s with the delimiter and the escape byte as %XX.
func AppendEscaped(dst []byte, s string, delim byte) []byte {
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != delim && c != EscapeByte {
			continue
		}
		dst = append(dst, s[start:i]...)
		dst = append(dst, EscapeByte, hexDigits[c>>4], hexDigits[c&0xF])
		start = i + 1
	}
	return append(dst, s[start:]...)
}

// Escape returns s escaped as AppendEscaped writes it.
func Escape(s string, delim byte) string {
	if strings.IndexByte(s, delim) < 0 && strings.IndexByte(s, EscapeByte) < 0 {
		return s
	}
	return string(AppendEscaped(nil, s, delim))
}

// Unescape reverses Escape; it rejects malformed escapes.
func Unescape(s string) (string, error) {
	if strings.IndexByte(s, EscapeByte) < 0 {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != EscapeByte {
			b.WriteByte(c)
			continue
		}
		if i+2 >= len(s) {
			return "", fmt.Errorf("truncated escape in %q", s)
		}
		n, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
		if err != nil {
			return "", fmt.Errorf("bad escape %q in %q", s[i:i+3], s)
		}
		b.WriteByte(byte(n))
		i += 2
	}
	return b.String(), nil
}

// ParseKey splits a stored key back into its fields and sets them on the
// struct value v (addressable), but for the placeholders skip marks (nil:
// none). It fails if key does not match the template: a value that would
// contain the delimiter does not, since values are written with it escaped
// ("ORDER#o1#LINE#1" is not a key of "ORDER#{OrderID}", whose OrderID "o1#LINE#1"
// would be stored "o1%23LINE%231"): such a key is another template's.
func (t *Template) ParseKey(key string, v reflect.Value, skip []bool) error {
	// Room for the captures of most templates, on the stack: ParseKey
	// runs for every key a read decodes.
	var room [4]string
	raws, ok := t.appendCaptures(room[:0], key)
	if ok {
		for _, raw := range raws {
			if strings.IndexByte(raw, t.Delim) >= 0 {
				ok = false
			}
		}
	}
	if !ok {
		return fmt.Errorf("key %q does not match template %q", key, t.Raw)
	}
	for i, ph := range t.Placeholders() {
		if skip != nil && skip[i] {
			continue
		}
		fv := v.FieldByIndex(ph.Field.Index)
		if err := ph.Set(fv, raws[i]); err != nil {
			return fmt.Errorf("key %q, template %q: %w", key, t.Raw, err)
		}
		// Only what the template writes parses: "SEQ#12" is no key of
		// "SEQ#{Seq:3}" (which writes "SEQ#012"), nor "N#+5" or "N#05"
		// of "N#{N}".
		var buf [64]byte
		back, ok, err := ph.AppendValue(buf[:0], fv, t.Delim)
		if err != nil || !ok || string(back) != raws[i] {
			return fmt.Errorf("key %q, template %q: field %s: %q is not how the template writes its value", key, t.Raw, ph.Field.GoName, raws[i])
		}
	}
	return nil
}

// Set parses one rendered value into the field.
func (p *Placeholder) Set(fv reflect.Value, raw string) error {
	if raw == "" {
		return &FieldError{Field: p.Field.GoName, Reason: "empty value in key"}
	}
	if p.Ptr {
		if fv.IsNil() {
			fv.Set(reflect.New(fv.Type().Elem()))
		}
		fv = fv.Elem()
	}
	switch p.Kind {
	case KindString:
		s, err := Unescape(raw)
		if err != nil {
			return &FieldError{Field: p.Field.GoName, Reason: err.Error()}
		}
		fv.SetString(s)
	case KindInt:
		s, err := Unescape(raw) // a sign that is the delimiter is escaped
		if err != nil {
			return &FieldError{Field: p.Field.GoName, Reason: err.Error()}
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || fv.OverflowInt(n) {
			return &FieldError{Field: p.Field.GoName, Reason: fmt.Sprintf("%q is not a %s", raw, fv.Type())}
		}
		fv.SetInt(n)
	case KindUint:
		n, err := strconv.ParseUint(raw, 10, 64)
		if err != nil || fv.OverflowUint(n) {
			return &FieldError{Field: p.Field.GoName, Reason: fmt.Sprintf("%q is not a %s", raw, fv.Type())}
		}
		fv.SetUint(n)
	case KindBool:
		if raw != "true" && raw != "false" { // what AppendValue writes, nothing else
			return &FieldError{Field: p.Field.GoName, Reason: fmt.Sprintf("%q is not a bool", raw)}
		}
		fv.SetBool(raw == "true")
	case KindTime:
		s, err := Unescape(raw)
		if err != nil {
			return &FieldError{Field: p.Field.GoName, Reason: err.Error()}
		}
		tm, err := time.Parse(p.Layout, s)
		if err != nil {
			return &FieldError{Field: p.Field.GoName, Reason: err.Error()}
		}
		fv.Set(reflect.ValueOf(tm.UTC()))
	}
	return nil
}

// throughPointer reports whether the field at index is reached through an
// embedded pointer struct.
func throughPointer(t reflect.Type, index []int) bool {
	for _, i := range index[:len(index)-1] {
		t = t.Field(i).Type
		if t.Kind() == reflect.Pointer {
			return true
		}
	}
	return false
}
