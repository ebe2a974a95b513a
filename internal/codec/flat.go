package codec

import (
	"reflect"
	"unsafe"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// A flat plan is one whose stored fields are all strings, booleans,
// integers and floats of the struct itself, without marshalers: the
// usual entity. EncodeItem encodes such a struct in one loop that reads
// each field at its offset and writes its value inline (encodeFlat),
// rather than through a reflect.Value and a compiled function per field,
// and sizes each value as it makes it. What it buys: bench/'s Put runs
// a fifth fewer instructions in the encoder and touches less code (see
// CHANGELOG). It produces what encodeInto produces, value for value (a
// differential test holds it to that); anything it does not handle the
// same way in one pass (a string that is not UTF-8, a float DynamoDB
// refuses) is left to encodeInto, which makes the error.

// flatKind is how a flat field is read and written.
type flatKind uint8

const (
	flatString flatKind = iota
	flatBool
	flatInt
	flatUint
	flatFloat
)

// flatField is one field of a flat plan.
type flatField struct {
	attr string
	off  uintptr
	kind flatKind
	// bits is the width of an integer or float field: 8, 16, 32 or 64.
	bits uint8
	// The tag's options: an empty value is omitted (omit) or stored as
	// NULL (null); a number is stored as a string (asString).
	omit, null, asString bool
}

// flatFields returns the flat encoding of the plan's fields, nil when the
// plan is not flat.
func (p *Plan) flatFields() []flatField {
	if p.marshals || p.ptrMarshals || len(p.plans) == 0 {
		return nil
	}
	out := make([]flatField, len(p.plans))
	for i := range p.plans {
		fp := &p.plans[i]
		f := &p.fields.List[i]
		if fp.nested || fp.embPtr || !fp.scalar || f.Tag.OmitEmpty && f.Tag.NullEmpty {
			return nil
		}
		t := f.Type
		ff := flatField{attr: fp.attr, off: p.typ.Field(fp.first).Offset,
			omit: f.Tag.OmitEmpty, null: f.Tag.NullEmpty, asString: f.Tag.AsString}
		switch t.Kind() {
		case reflect.String:
			ff.kind = flatString
		case reflect.Bool:
			ff.kind = flatBool
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			ff.kind, ff.bits = flatInt, uint8(t.Bits())
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			ff.kind, ff.bits = flatUint, uint8(t.Bits())
		case reflect.Float32, reflect.Float64:
			ff.kind, ff.bits = flatFloat, uint8(t.Bits())
		default: // a time.Time
			return nil
		}
		out[i] = ff
	}
	return out
}

// encodeFlat is encodeInto of a flat plan (sized), of the struct at base:
// false when a value needs encodeInto (dst then holds some of the
// fields, which encodeInto writes again). Each arena call appears once,
// as each inlines: the loop stays small.
func (p *Plan) encodeFlat(base unsafe.Pointer, dst map[string]types.AttributeValue, a *arena) (size int, ok bool) {
	for i := range p.flat {
		f := &p.flat[i]
		at := unsafe.Add(base, f.off)
		var av types.AttributeValue
		var text string
		empty, str := false, f.asString
		switch f.kind {
		case flatString:
			text, str = *(*string)(at), true
			empty = text == ""
			if !validUTF8(text) {
				return 0, false
			}
		case flatBool:
			x := *(*bool)(at)
			if empty = !x; !empty || !(f.omit || f.null) {
				av = a.bool(x)
			}
		case flatInt:
			x := readInt(at, f.bits)
			if empty = x == 0; !empty || !(f.omit || f.null) {
				text = a.appendInt(x)
			}
		case flatUint:
			x := readUint(at, f.bits)
			if empty = x == 0; !empty || !(f.omit || f.null) {
				text = a.appendUint(x)
			}
		case flatFloat:
			var x float64
			if f.bits == 32 {
				x = float64(*(*float32)(at))
			} else {
				x = *(*float64)(at)
			}
			if empty = x == 0; !empty || !(f.omit || f.null) {
				text = a.appendFloat(x, int(f.bits))
			}
		}
		n := 1 // a bool's or a NULL's size
		switch {
		case empty && (f.omit || f.null):
			if !f.null {
				continue // omitted
			}
			av = a.null()
		case av != nil: // a bool
		case str:
			av, n = a.s(text), len(text)
		default:
			if n, ok = numberTextSize(text); !ok { // NaN, Inf, out of range
				return 0, false
			}
			av = a.n(text)
		}
		dst[f.attr] = av
		size += len(f.attr) + n
	}
	return size, true
}

// numberTextSize is the size of number text as strconv formats an integer
// or a float ('f', shortest): number.size of parseNumber(text), and
// whether DynamoDB takes it (number.check), without the parser's generality.
func numberTextSize(text string) (size int, ok bool) {
	neg := 0
	if text != "" && text[0] == '-' {
		neg = 1
	}
	// The positions (10^pos) of the first and last nonzero digits, the
	// units digit being at the point's left.
	point := len(text) // the index of the decimal point, if any
	first, last := -1, -1
	for i := neg; i < len(text); i++ {
		switch c := text[i]; {
		case c == '.':
			point = i
		case c > '0' && c <= '9':
			if first < 0 {
				first = i
			}
			last = i
		case c != '0':
			return 0, false // NaN, +Inf, -Inf
		}
	}
	if first < 0 {
		return 1, true // zero
	}
	pos := func(i int) int {
		if i < point {
			return point - 1 - i
		}
		return point - i
	}
	n := number{neg: neg == 1, hi: pos(first), lo: pos(last)}
	n.digits = n.hi - n.lo + 1
	return n.size(), n.check() == nil
}

// readInt reads a signed integer of bits bits at p.
func readInt(p unsafe.Pointer, bits uint8) int64 {
	switch bits {
	case 8:
		return int64(*(*int8)(p))
	case 16:
		return int64(*(*int16)(p))
	case 32:
		return int64(*(*int32)(p))
	}
	return *(*int64)(p)
}

// readUint reads an unsigned integer of bits bits at p.
func readUint(p unsafe.Pointer, bits uint8) uint64 {
	switch bits {
	case 8:
		return uint64(*(*uint8)(p))
	case 16:
		return uint64(*(*uint16)(p))
	case 32:
		return uint64(*(*uint32)(p))
	}
	return *(*uint64)(p)
}
