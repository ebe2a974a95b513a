package singletable

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

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

// escapeByte introduces an escaped byte in a key value.
const escapeByte = '%'

// Service limits on key sizes, in bytes of UTF-8.
const (
	maxPartitionKeyBytes = 2048
	maxSortKeyBytes      = 1024
)

type fieldKind int

const (
	kindString fieldKind = iota
	kindInt
	kindUint
	kindTime
	kindBool
)

// placeholder is one {Field} of a template, resolved against the struct.
type placeholder struct {
	field  *codec.Field
	kind   fieldKind
	ptr    bool   // the field is a pointer to the kind: nil is absent
	width  int    // zero-padding width for integers
	layout string // time layout
}

// segment is a literal run of a template, or a placeholder.
type segment struct {
	lit string
	ph  *placeholder
}

// template is a parsed key template.
type template struct {
	raw   string
	segs  []segment
	delim byte
}

var timeType = reflect.TypeOf(time.Time{})

// parseTemplate parses raw against the fields of an entity's struct.
func parseTemplate(raw string, fields *codec.Fields, delim byte) (*template, error) {
	if raw == "" {
		return nil, fmt.Errorf("template is empty")
	}
	t := &template{raw: raw, delim: delim}
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
			if strings.IndexByte(lit, escapeByte) >= 0 {
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
				t.segs[n-1].ph.field.GoName, ph.field.GoName, string(delim))
		}
		if n := len(t.segs); n > 1 && t.segs[n-2].ph != nil && strings.IndexByte(t.segs[n-1].lit, delim) < 0 {
			return nil, fmt.Errorf("literal %q between {%s} and {%s} must contain the delimiter %q, or the key cannot be split back into fields",
				t.segs[n-1].lit, t.segs[n-2].ph.field.GoName, ph.field.GoName, string(delim))
		}
		t.segs = append(t.segs, segment{ph: ph})
		rest = rest[end+1:]
	}
	return t, nil
}

func parsePlaceholder(spec string, fields *codec.Fields, delim byte) (*placeholder, error) {
	name, format, hasFormat := strings.Cut(spec, ":")
	if name == "" {
		return nil, fmt.Errorf("empty placeholder {%s}", spec)
	}
	f, ok := fields.ByGoName(name)
	if !ok {
		return nil, &fieldError{field: name, reason: "no such field (placeholders name Go struct fields, not attribute names)"}
	}
	if throughPointer(fields.Type(), f.Index) {
		return nil, &fieldError{field: name, reason: "the field is promoted through an embedded pointer, which may be nil; key fields must be reachable without one"}
	}
	ph := &placeholder{field: f}
	t := f.Type
	if t.Kind() == reflect.Pointer {
		ph.ptr, t = true, t.Elem()
	}
	switch {
	case t == timeType:
		ph.kind, ph.layout = kindTime, DefaultTimeLayout
		if hasFormat {
			if format == "" {
				return nil, &fieldError{field: name, reason: "empty time layout"}
			}
			ph.layout = format
		}
		return ph, nil
	case t.Kind() == reflect.String:
		ph.kind = kindString
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Int64:
		ph.kind = kindInt
	case t.Kind() >= reflect.Uint && t.Kind() <= reflect.Uint64:
		ph.kind = kindUint
	case t.Kind() == reflect.Bool:
		ph.kind = kindBool
	default:
		return nil, &fieldError{field: name, reason: fmt.Sprintf("unsupported kind %s for a key (use a string, an integer, a bool or time.Time, or a pointer to one)", f.Type)}
	}
	if hasFormat {
		if ph.kind == kindString || ph.kind == kindBool {
			return nil, &fieldError{field: name, reason: fmt.Sprintf("%s fields take no format, got %q", t.Kind(), format)}
		}
		w, err := strconv.Atoi(format)
		if err != nil || w < 1 || w > 40 {
			return nil, &fieldError{field: name, reason: fmt.Sprintf("integer format must be a padding width from 1 to 40, got %q", format)}
		}
		ph.width = w
	}
	return ph, nil
}

// fieldError is an error about one field of a template; the caller adds the
// entity and the template.
type fieldError struct {
	field  string
	reason string
}

func (e *fieldError) Error() string { return fmt.Sprintf("field %s: %s", e.field, e.reason) }

// fields lists the Go names of the template's placeholders, in order.
func (t *template) fields() []string {
	var out []string
	for _, s := range t.segs {
		if s.ph != nil {
			out = append(out, s.ph.field.GoName)
		}
	}
	return out
}

// uses reports whether the template has a placeholder for the Go field.
func (t *template) uses(goName string) bool {
	for _, s := range t.segs {
		if s.ph != nil && s.ph.field.GoName == goName {
			return true
		}
	}
	return false
}

// constant reports whether the template has no placeholder.
func (t *template) constant() bool {
	for _, s := range t.segs {
		if s.ph != nil {
			return false
		}
	}
	return true
}

// literalPrefix is the literal text before the first placeholder.
func (t *template) literalPrefix() string {
	if len(t.segs) > 0 && t.segs[0].ph == nil {
		return t.segs[0].lit
	}
	return ""
}

// errMissing reports an empty value for a placeholder.
type errMissing struct{ field string }

func (e errMissing) Error() string { return "field " + e.field + " is empty" }

// render renders the full key from struct value v. An absent value (nil
// pointer, empty string, zero time) is an errMissing; other bad values are
// errors too.
func (t *template) render(v reflect.Value) (string, error) {
	if len(t.segs) == 1 && t.segs[0].ph == nil {
		return t.segs[0].lit, nil // literal text only (never escaped): nothing to build
	}
	var buf [128]byte // on the stack: the string below is the one allocation
	b, err := t.appendKey(buf[:0], v)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// appendKey appends the full key rendered from struct value v to dst, as
// render returns it. On error, what it appended is undefined: callers cut
// dst back.
func (t *template) appendKey(dst []byte, v reflect.Value) ([]byte, error) {
	for _, s := range t.segs {
		if s.ph == nil {
			dst = append(dst, s.lit...)
			continue
		}
		var ok bool
		var err error
		dst, ok, err = s.ph.appendValue(dst, v.FieldByIndex(s.ph.field.Index), t.delim)
		if err != nil {
			return dst, err
		}
		if !ok {
			return dst, errMissing{field: s.ph.field.GoName}
		}
	}
	return dst, nil
}

// renderPrefix renders as much of the key as v gives: it stops at the
// first placeholder whose value is absent (see render), after writing the
// literal text before it; with through >= 0, it stops after the first
// through placeholders instead, each of which must have a value. complete
// reports whether every placeholder was rendered. Because the literal after
// a value is written whenever the next field is not, a prefix never ends
// inside a value: "ORDER#{Date}#{ID}" with only Date gives
// "ORDER#2024-01-15#", which cannot match the date "2024-01-150".
//
// A field after the prefix's end that still has a value other than its
// type's zero is an errGap: the caller gave it, and dropping it would read
// more than asked for. (A zero integer there is taken as not given: nothing
// else can express "no value" for an int.)
func (t *template) renderPrefix(v reflect.Value, through int) (prefix string, complete bool, err error) {
	var buf [128]byte
	b := buf[:0]
	n, stop := 0, (*placeholder)(nil)
	for _, s := range t.segs {
		if s.ph == nil {
			if stop == nil {
				b = append(b, s.lit...)
			}
			continue
		}
		fv := v.FieldByIndex(s.ph.field.Index)
		if stop != nil {
			if !fv.IsZero() {
				return "", false, &errGap{missing: stop, given: s.ph, through: through}
			}
			continue
		}
		if through >= 0 && n == through {
			stop = s.ph
			if !fv.IsZero() {
				return "", false, &errGap{missing: stop, given: s.ph, through: through}
			}
			continue
		}
		var ok bool
		b, ok, err = s.ph.appendValue(b, fv, t.delim)
		if err != nil {
			return "", false, err
		}
		if !ok {
			if through >= 0 {
				return "", false, &errGap{missing: s.ph, through: through}
			}
			stop = s.ph
			continue
		}
		n++
	}
	if through > n {
		return "", false, &errGap{through: through, count: n}
	}
	return string(b), stop == nil, nil
}

// errGap is a partial key whose given fields do not form a prefix of the
// template: a value after an absent field, or fields at odds with
// SortFields.
type errGap struct {
	missing, given *placeholder
	through        int // SortFields' n, or -1
	count          int // with neither placeholder: the template has only count
}

func (e *errGap) Error() string {
	switch {
	case e.missing == nil:
		return fmt.Sprintf("SortFields(%d): the sort template has only %d fields", e.through, e.count)
	case e.given == nil:
		return fmt.Sprintf("SortFields(%d) includes sort field %s, which has no value", e.through, e.missing.field.GoName)
	case e.given == e.missing:
		return fmt.Sprintf("sort field %s has a value, but SortFields(%d) ends the prefix before it", e.given.field.GoName, e.through)
	case e.through >= 0:
		return fmt.Sprintf("sort field %s has a value, but SortFields(%d) ends the prefix before %s", e.given.field.GoName, e.through, e.missing.field.GoName)
	}
	return fmt.Sprintf("sort field %s is given but %s before it is not: a key prefix cannot skip a field (give %s, or leave %s out)",
		e.given.field.GoName, e.missing.field.GoName, e.missing.field.GoName, e.given.field.GoName)
}

// appendValue appends the field's rendered value to dst. It reports false,
// appending nothing, for an absent value: a nil pointer, an empty string or
// a zero time. Integers and bools are always values.
func (p *placeholder) appendValue(dst []byte, fv reflect.Value, delim byte) ([]byte, bool, error) {
	if p.ptr {
		if fv.IsNil() {
			return dst, false, nil
		}
		fv = fv.Elem()
	}
	switch p.kind {
	case kindString:
		s := fv.String()
		if s == "" {
			return dst, false, nil
		}
		if plainASCII(s, delim) {
			dst = append(dst, s...) // the usual value: nothing to check or escape
			break
		}
		if !utf8.ValidString(s) {
			return dst, false, &fieldError{field: p.field.GoName, reason: "value is not valid UTF-8"}
		}
		dst = appendEscaped(dst, s, delim)
	case kindInt:
		n := fv.Int()
		if n < 0 && p.width > 0 {
			return dst, false, &fieldError{field: p.field.GoName, reason: fmt.Sprintf("negative value %d cannot be zero-padded to sort as a string", n)}
		}
		var buf [24]byte
		digits := strconv.AppendInt(buf[:0], n, 10)
		if err := p.checkWidth(digits); err != nil {
			return dst, false, err
		}
		if n < 0 && delim == '-' {
			// The sign is the delimiter: escape it, as in string values.
			dst = append(dst, escapeByte, hexDigits['-'>>4], hexDigits['-'&0xF])
			digits = digits[1:]
		}
		dst = appendPadded(dst, digits, p.width)
	case kindUint:
		n := fv.Uint()
		var buf [24]byte
		digits := strconv.AppendUint(buf[:0], n, 10)
		if err := p.checkWidth(digits); err != nil {
			return dst, false, err
		}
		dst = appendPadded(dst, digits, p.width)
	case kindBool:
		dst = strconv.AppendBool(dst, fv.Bool())
	case kindTime:
		tm := fv.Interface().(time.Time)
		if tm.IsZero() {
			return dst, false, nil
		}
		var buf [64]byte
		dst = appendEscaped(dst, string(tm.UTC().AppendFormat(buf[:0], p.layout)), delim)
	}
	return dst, true, nil
}

// checkWidth refuses a number wider than its padding: it would still
// render, but no longer sort among the others as a string.
func (p *placeholder) checkWidth(digits []byte) error {
	if p.width > 0 && len(digits) > p.width {
		return &fieldError{field: p.field.GoName, reason: fmt.Sprintf("value %s has %d digits, more than the %d it is zero-padded to, so its key would not sort by number; widen the padding", string(digits), len(digits), p.width)}
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
// escape byte: valid UTF-8 that appendEscaped would copy as is. One pass
// instead of utf8.ValidString and appendEscaped's.
func plainASCII(s string, delim byte) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf || c == delim || c == escapeByte {
			return false
		}
	}
	return true
}

const hexDigits = "0123456789ABCDEF"

// appendEscaped appends s with the delimiter and the escape byte as %XX.
func appendEscaped(dst []byte, s string, delim byte) []byte {
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != delim && c != escapeByte {
			continue
		}
		dst = append(dst, s[start:i]...)
		dst = append(dst, escapeByte, hexDigits[c>>4], hexDigits[c&0xF])
		start = i + 1
	}
	return append(dst, s[start:]...)
}

// escapeValue returns s escaped as appendEscaped writes it.
func escapeValue(s string, delim byte) string {
	if strings.IndexByte(s, delim) < 0 && strings.IndexByte(s, escapeByte) < 0 {
		return s
	}
	return string(appendEscaped(nil, s, delim))
}

// unescapeValue reverses escapeValue; it rejects malformed escapes.
func unescapeValue(s string) (string, error) {
	if strings.IndexByte(s, escapeByte) < 0 {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != escapeByte {
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

// parse splits a stored key back into its fields and sets them on the
// struct value v (addressable), but for the placeholders skip marks (nil:
// none). It fails if key does not match the template: a value that would
// contain the delimiter does not, since values are written with it escaped
// ("ORDER#o1#LINE#1" is not a key of "ORDER#{OrderID}", whose OrderID "o1#LINE#1"
// would be stored "o1%23LINE%231"): such a key is another template's.
func (t *template) parse(key string, v reflect.Value, skip []bool) error {
	raws, ok := t.captures(key)
	if ok {
		for _, raw := range raws {
			if strings.IndexByte(raw, t.delim) >= 0 {
				ok = false
			}
		}
	}
	if !ok {
		return fmt.Errorf("key %q does not match template %q", key, t.raw)
	}
	for i, ph := range t.placeholders() {
		if skip != nil && skip[i] {
			continue
		}
		if err := ph.set(v.FieldByIndex(ph.field.Index), raws[i]); err != nil {
			return fmt.Errorf("key %q, template %q: %w", key, t.raw, err)
		}
	}
	return nil
}

// set parses one rendered value into the field.
func (p *placeholder) set(fv reflect.Value, raw string) error {
	if raw == "" {
		return &fieldError{field: p.field.GoName, reason: "empty value in key"}
	}
	if p.ptr {
		if fv.IsNil() {
			fv.Set(reflect.New(fv.Type().Elem()))
		}
		fv = fv.Elem()
	}
	switch p.kind {
	case kindString:
		s, err := unescapeValue(raw)
		if err != nil {
			return &fieldError{field: p.field.GoName, reason: err.Error()}
		}
		fv.SetString(s)
	case kindInt:
		s, err := unescapeValue(raw) // a sign that is the delimiter is escaped
		if err != nil {
			return &fieldError{field: p.field.GoName, reason: err.Error()}
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || fv.OverflowInt(n) {
			return &fieldError{field: p.field.GoName, reason: fmt.Sprintf("%q is not a %s", raw, fv.Type())}
		}
		fv.SetInt(n)
	case kindUint:
		n, err := strconv.ParseUint(raw, 10, 64)
		if err != nil || fv.OverflowUint(n) {
			return &fieldError{field: p.field.GoName, reason: fmt.Sprintf("%q is not a %s", raw, fv.Type())}
		}
		fv.SetUint(n)
	case kindBool:
		if raw != "true" && raw != "false" { // what appendValue writes, nothing else
			return &fieldError{field: p.field.GoName, reason: fmt.Sprintf("%q is not a bool", raw)}
		}
		fv.SetBool(raw == "true")
	case kindTime:
		s, err := unescapeValue(raw)
		if err != nil {
			return &fieldError{field: p.field.GoName, reason: err.Error()}
		}
		tm, err := time.Parse(p.layout, s)
		if err != nil {
			return &fieldError{field: p.field.GoName, reason: err.Error()}
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

// settableField returns the field at index of the addressable struct v,
// allocating embedded pointer structs on the way. It reports false when a
// nil embedded pointer cannot be set (its type is unexported).
func settableField(v reflect.Value, index []int) (reflect.Value, bool) {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				if !v.CanSet() {
					return reflect.Value{}, false
				}
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v, v.CanSet()
}
