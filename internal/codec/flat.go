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
// fields, which encodeInto writes again).
func (p *Plan) encodeFlat(base unsafe.Pointer, dst map[string]types.AttributeValue, a *arena) (size int, ok bool) {
	for i := range p.flat {
		f := &p.flat[i]
		at := unsafe.Add(base, f.off)
		var av types.AttributeValue
		n := 0
		switch f.kind {
		case flatString:
			s := *(*string)(at)
			if s == "" && (f.omit || f.null) {
				break
			}
			if !validUTF8(s) {
				return 0, false
			}
			av, n = a.s(s), len(s)
		case flatBool:
			x := *(*bool)(at)
			if !x && (f.omit || f.null) {
				break
			}
			av, n = a.bool(x), 1
		case flatInt, flatUint:
			var text string
			if f.kind == flatInt {
				x := readInt(at, f.bits)
				if x == 0 && (f.omit || f.null) {
					break
				}
				text = a.appendInt(x)
			} else {
				x := readUint(at, f.bits)
				if x == 0 && (f.omit || f.null) {
					break
				}
				text = a.appendUint(x)
			}
			av, n = a.number(text, f.asString), integerSize(text, f.asString)
		case flatFloat:
			var x float64
			if f.bits == 32 {
				x = float64(*(*float32)(at))
			} else {
				x = *(*float64)(at)
			}
			if x == 0 && (f.omit || f.null) {
				break
			}
			text := a.appendFloat(x, int(f.bits))
			if f.asString {
				av, n = a.s(text), len(text)
				break
			}
			num, err := parseNumber(text)
			if err != nil || num.check() != nil { // NaN, Inf, out of range
				return 0, false
			}
			av, n = a.n(text), num.size()
		}
		if av == nil {
			if !f.null {
				continue // omitted
			}
			av, n = a.null(), 1
		}
		dst[f.attr] = av
		size += len(f.attr) + n
	}
	return size, true
}

// integerSize is the size of an integer's text (see number.size): its
// length as a string, else a byte per pair of digits from its first
// through its last nonzero digit (aligned on the units), one more, and
// one more when negative.
func integerSize(text string, asString bool) int {
	if asString {
		return len(text)
	}
	neg := 0
	if text[0] == '-' {
		neg = 1
	}
	hi := len(text) - neg - 1 // the position of the first digit
	if hi == 0 && text[neg] == '0' {
		return 1 // zero
	}
	lo := 0 // the position of the last nonzero digit
	for text[len(text)-1-lo] == '0' {
		lo++
	}
	return hi/2 - lo/2 + 2 + neg
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
