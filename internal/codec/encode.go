package codec

import (
	"encoding"
	"fmt"
	"reflect"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

var (
	marshalerType      = reflect.TypeFor[attributevalue.Marshaler]()
	unmarshalerType    = reflect.TypeFor[attributevalue.Unmarshaler]()
	timeType           = reflect.TypeFor[time.Time]()
	byteSliceType      = reflect.TypeFor[[]byte]()
	byteSliceSliceType = reflect.TypeFor[[][]byte]()
	numbererType       = reflect.TypeFor[interface {
		Float64() (float64, error)
		Int64() (int64, error)
		String() string
	}]()
	textMarshalerType   = reflect.TypeFor[encoding.TextMarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	stringerType        = reflect.TypeFor[fmt.Stringer]()
	formatterType       = reflect.TypeFor[fmt.Formatter]()
	errorType           = reflect.TypeFor[error]()
)

// isTime reports whether attributevalue treats t as a time: any struct type
// convertible to time.Time (time.Time and types defined from it).
func isTime(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && t.ConvertibleTo(timeType)
}

// elemTag is the tag attributevalue applies to list, set and map elements.
func elemTag(tg Tag) Tag {
	return Tag{OmitEmpty: tg.OmitEmptyElem, OmitEmptyElem: tg.OmitEmptyElem, NullEmpty: tg.NullEmptyElem}
}

// plainStringKey reports whether attributevalue writes map keys of type k
// as the key string itself (fmt.Sprint of a plain string-kind value).
func plainStringKey(k reflect.Type) bool {
	return k.Kind() == reflect.String && !k.Implements(textMarshalerType) &&
		!k.Implements(stringerType) && !k.Implements(formatterType) && !k.Implements(errorType)
}

// encNative reports whether values of type t are encoded by compiled
// functions; the others go to attributevalue through a wrapper struct.
func encNative(t reflect.Type) bool {
	for depth := 0; depth < 8; depth++ {
		switch t.Kind() {
		case reflect.Bool, reflect.String,
			reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
			reflect.Float32, reflect.Float64,
			reflect.Struct, reflect.Slice, reflect.Array:
			return true
		case reflect.Map:
			return plainStringKey(t.Key())
		case reflect.Pointer:
			t = t.Elem()
		default: // interfaces, complex, uintptr, chan, func, unsafe pointers
			return false
		}
	}
	return false
}

// encValue compiles attributevalue's encode(v, tag) for values of type t:
// the empty-value rules, then encBody.
func (b *builder) encValue(t reflect.Type, tg Tag) encFn {
	k := codecKey{t, tg}
	if slot, ok := b.encs[k]; ok {
		if *slot != nil {
			return *slot
		}
		// Recursive type: resolved once its codec is complete.
		return func(v reflect.Value, addr bool, a *arena) (types.AttributeValue, error) {
			return (*slot)(v, addr, a)
		}
	}
	slot := new(encFn)
	b.encs[k] = slot
	*slot = b.compileEnc(t, tg)
	return *slot
}

func (b *builder) compileEnc(t reflect.Type, tg Tag) encFn {
	if !encNative(t) {
		return fallbackEnc(t, tg)
	}
	omit, null := tg.OmitEmpty, tg.NullEmpty
	if fast := b.encScalar(t, tg); fast != nil {
		return fast
	}
	body := b.encBody(t, tg)
	switch t.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice:
		// nil is empty and nullable.
		return func(v reflect.Value, addr bool, a *arena) (types.AttributeValue, error) {
			if v.IsNil() {
				if omit {
					if null {
						return nil, errOmitNull
					}
					return nil, nil
				}
				return a.null(), nil
			}
			return body(v, addr, a)
		}
	case reflect.Array:
		if t.Len() == 0 {
			return emptyWrap(omit, null, body)
		}
		return body
	case reflect.Struct:
		return body // a struct is never empty
	case reflect.String:
		return func(v reflect.Value, addr bool, a *arena) (types.AttributeValue, error) {
			if v.Len() == 0 {
				if av, done, err := onEmpty(omit, null, a); done {
					return av, err
				}
			}
			return body(v, addr, a)
		}
	case reflect.Bool:
		return func(v reflect.Value, addr bool, a *arena) (types.AttributeValue, error) {
			if !v.Bool() {
				if av, done, err := onEmpty(omit, null, a); done {
					return av, err
				}
			}
			return body(v, addr, a)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return func(v reflect.Value, addr bool, a *arena) (types.AttributeValue, error) {
			if v.Int() == 0 {
				if av, done, err := onEmpty(omit, null, a); done {
					return av, err
				}
			}
			return body(v, addr, a)
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return func(v reflect.Value, addr bool, a *arena) (types.AttributeValue, error) {
			if v.Uint() == 0 {
				if av, done, err := onEmpty(omit, null, a); done {
					return av, err
				}
			}
			return body(v, addr, a)
		}
	case reflect.Float32, reflect.Float64:
		return func(v reflect.Value, addr bool, a *arena) (types.AttributeValue, error) {
			if v.Float() == 0 {
				if av, done, err := onEmpty(omit, null, a); done {
					return av, err
				}
			}
			return body(v, addr, a)
		}
	}
	panic("codec: unexpected kind " + t.Kind().String())
}

// onEmpty applies the tag to an empty non-nullable value: done is false
// when encoding goes on as for any other value.
func onEmpty(omit, null bool, a *arena) (types.AttributeValue, bool, error) {
	switch {
	case omit && null:
		return nil, true, errOmitNull
	case omit:
		return nil, true, nil
	case null:
		return a.null(), true, nil
	}
	return nil, false, nil
}

func emptyWrap(omit, null bool, body encFn) encFn {
	return func(v reflect.Value, addr bool, a *arena) (types.AttributeValue, error) {
		if av, done, err := onEmpty(omit, null, a); done {
			return av, err
		}
		return body(v, addr, a)
	}
}

// encScalar compiles the common scalar kinds without marshalers into a
// single function; nil for anything else.
func (b *builder) encScalar(t reflect.Type, tg Tag) encFn {
	if t.Implements(marshalerType) || reflect.PointerTo(t).Implements(marshalerType) {
		return nil
	}
	omit, null, asString := tg.OmitEmpty, tg.NullEmpty, tg.AsString
	switch t.Kind() {
	case reflect.String:
		if t.Implements(numbererType) {
			return nil
		}
		return func(v reflect.Value, _ bool, a *arena) (types.AttributeValue, error) {
			s := v.String()
			if s == "" {
				if av, done, err := onEmpty(omit, null, a); done {
					return av, err
				}
			}
			return a.s(s), nil
		}
	case reflect.Bool:
		return func(v reflect.Value, _ bool, a *arena) (types.AttributeValue, error) {
			x := v.Bool()
			if !x {
				if av, done, err := onEmpty(omit, null, a); done {
					return av, err
				}
			}
			return a.bool(x), nil
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return func(v reflect.Value, _ bool, a *arena) (types.AttributeValue, error) {
			x := v.Int()
			if x == 0 {
				if av, done, err := onEmpty(omit, null, a); done {
					return av, err
				}
			}
			return a.number(a.appendInt(x), asString), nil
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return func(v reflect.Value, _ bool, a *arena) (types.AttributeValue, error) {
			x := v.Uint()
			if x == 0 {
				if av, done, err := onEmpty(omit, null, a); done {
					return av, err
				}
			}
			return a.number(a.appendUint(x), asString), nil
		}
	case reflect.Float32, reflect.Float64:
		bits := t.Bits()
		return func(v reflect.Value, _ bool, a *arena) (types.AttributeValue, error) {
			x := v.Float()
			if x == 0 {
				if av, done, err := onEmpty(omit, null, a); done {
					return av, err
				}
			}
			return a.number(a.appendFloat(x, bits), asString), nil
		}
	case reflect.Struct:
		if isTime(t) {
			return encTime(t, tg) // never empty
		}
	}
	return nil
}

// encBody compiles what attributevalue's encode does after the empty-value
// rules: dereference one pointer, try a Marshaler, then encode by kind.
func (b *builder) encBody(t reflect.Type, tg Tag) encFn {
	if t.Kind() == reflect.Pointer {
		inner := b.encMarshal(t.Elem(), tg)
		return func(v reflect.Value, _ bool, a *arena) (types.AttributeValue, error) {
			return inner(v.Elem(), true, a)
		}
	}
	return b.encMarshal(t, tg)
}

// encMarshal compiles attributevalue's tryMarshaler followed by encKind.
func (b *builder) encMarshal(t reflect.Type, tg Tag) encFn {
	kind := b.encKind(t, tg)
	switch {
	case t.Implements(marshalerType):
		return func(v reflect.Value, addr bool, a *arena) (types.AttributeValue, error) {
			av, err := v.Interface().(attributevalue.Marshaler).MarshalDynamoDBAttributeValue()
			if err != nil {
				return nil, err
			}
			if av != nil {
				return av, nil
			}
			return kind(v, addr, a)
		}
	case t.Kind() != reflect.Pointer && t.Name() != "" && reflect.PointerTo(t).Implements(marshalerType):
		return func(v reflect.Value, addr bool, a *arena) (types.AttributeValue, error) {
			if addr {
				av, err := v.Addr().Interface().(attributevalue.Marshaler).MarshalDynamoDBAttributeValue()
				if err != nil {
					return nil, err
				}
				if av != nil {
					return av, nil
				}
			}
			return kind(v, addr, a)
		}
	}
	return kind
}

// encKind compiles attributevalue's encoding by kind of a value of type t.
func (b *builder) encKind(t reflect.Type, tg Tag) encFn {
	asString := tg.AsString
	switch t.Kind() {
	case reflect.Struct:
		if isTime(t) {
			return encTime(t, tg)
		}
		p, err := b.plan(t)
		if err != nil {
			panic(err) // t is a struct
		}
		return p.encodeM
	case reflect.Map:
		return b.encMap(t, tg)
	case reflect.Slice, reflect.Array:
		return b.encSlice(t, tg)
	case reflect.Pointer:
		// A pointer to a pointer: the inner pointer is encoded in full.
		full := b.encValue(t.Elem(), tg)
		omitNil := tg.OmitEmpty && tg.OmitEmptyElem
		return func(v reflect.Value, _ bool, a *arena) (types.AttributeValue, error) {
			if v.IsNil() {
				if omitNil {
					return nil, nil
				}
				return a.null(), nil
			}
			return full(v.Elem(), true, a)
		}
	case reflect.String:
		if t.Implements(numbererType) {
			return func(v reflect.Value, _ bool, a *arena) (types.AttributeValue, error) {
				return a.number(v.String(), asString), nil
			}
		}
		return func(v reflect.Value, _ bool, a *arena) (types.AttributeValue, error) {
			return a.s(v.String()), nil
		}
	case reflect.Bool:
		return func(v reflect.Value, _ bool, a *arena) (types.AttributeValue, error) {
			return a.bool(v.Bool()), nil
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return func(v reflect.Value, _ bool, a *arena) (types.AttributeValue, error) {
			return a.number(a.appendInt(v.Int()), asString), nil
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return func(v reflect.Value, _ bool, a *arena) (types.AttributeValue, error) {
			return a.number(a.appendUint(v.Uint()), asString), nil
		}
	case reflect.Float32, reflect.Float64:
		bits := t.Bits()
		return func(v reflect.Value, _ bool, a *arena) (types.AttributeValue, error) {
			return a.number(a.appendFloat(v.Float(), bits), asString), nil
		}
	}
	// Only reached through a pointer to a kind encNative rejects.
	return fallbackEnc(t, tg)
}

// encTime encodes time.Time and types defined from it: RFC 3339 with
// nanoseconds as S, or Unix seconds as N with the unixtime tag.
func encTime(t reflect.Type, tg Tag) encFn {
	unix := tg.AsUnixTime
	exact := t == timeType
	return func(v reflect.Value, _ bool, a *arena) (types.AttributeValue, error) {
		var tm time.Time
		switch {
		case v.CanAddr():
			tm = *(*time.Time)(v.Addr().UnsafePointer())
		case exact:
			tm = v.Interface().(time.Time)
		default:
			tm = v.Convert(timeType).Interface().(time.Time)
		}
		if unix {
			return a.n(a.appendInt(tm.Unix())), nil
		}
		if y := tm.Year(); y < 0 || y > 9999 {
			// RFC 3339 text holds four-digit years: stored, the value
			// could not be read back (attributevalue writes it anyway).
			return nil, fmt.Errorf("the time %s is in year %d; stored as RFC 3339 text, which holds the years 0000 to 9999, it could not be read back (tag the field unixtime to store seconds)", tm.Format(time.RFC3339), y)
		}
		return a.s(a.appendTime(tm)), nil
	}
}

// encMap encodes a map with plain string keys as M.
func (b *builder) encMap(t reflect.Type, tg Tag) encFn {
	kt, et := t.Key(), t.Elem()
	elem := b.encValue(et, elemTag(tg))
	general := func(v reflect.Value, _ bool, a *arena) (types.AttributeValue, error) {
		m := make(map[string]types.AttributeValue, v.Len())
		if v.Len() > 0 {
			k := reflect.New(kt).Elem()
			e := reflect.New(et).Elem()
			it := v.MapRange()
			for it.Next() {
				k.SetIterKey(it)
				key := k.String()
				if key == "" {
					return nil, errEmptyKey
				}
				e.SetIterValue(it)
				av, err := elem(e, false, a) // map values are not addressable
				if err != nil {
					return nil, err
				}
				if av != nil {
					m[key] = av
				}
			}
		}
		return a.m(m), nil
	}
	if native := encMapNative(t, elemTag(tg), general); native != nil {
		return native
	}
	return general
}

var (
	mapStringStringType = reflect.TypeFor[map[string]string]()
	mapStringIntType    = reflect.TypeFor[map[string]int]()
)

// encMapNative encodes the map types entities hold most, map[string]string
// and map[string]int, with a native range, as general (which it falls back
// to for a value it cannot take out of reflect) does with a reflect
// iterator: what that costs, an iterator and a key and a value copy per
// map, is three allocations and most of the map's time. nil for other
// types.
func encMapNative(t reflect.Type, et Tag, general encFn) encFn {
	omit, null := et.OmitEmpty, et.NullEmpty
	// empty is what an empty value becomes: ok false when it is encoded
	// as any other, else av (nil: left out).
	empty := func(a *arena) (av types.AttributeValue, ok bool, err error) {
		return onEmpty(omit, null, a)
	}
	switch t {
	case mapStringStringType:
		return encMapOf(general, empty, func(s string, a *arena) types.AttributeValue { return a.s(s) })
	case mapStringIntType:
		return encMapOf(general, empty, func(x int, a *arena) types.AttributeValue { return a.n(a.appendInt(int64(x))) })
	}
	return nil
}

// encMapOf is encMapNative's loop for one map type: each value encoded by
// enc, or as empty when it is its type's zero value.
func encMapOf[V comparable](general encFn, empty func(*arena) (types.AttributeValue, bool, error), enc func(V, *arena) types.AttributeValue) encFn {
	var zero V
	return func(v reflect.Value, addr bool, a *arena) (types.AttributeValue, error) {
		if !v.CanInterface() {
			return general(v, addr, a)
		}
		src := v.Interface().(map[string]V)
		m := make(map[string]types.AttributeValue, len(src))
		for k, x := range src {
			if k == "" {
				return nil, errEmptyKey
			}
			if x == zero {
				if av, ok, err := empty(a); ok {
					if err != nil {
						return nil, err
					}
					if av != nil {
						m[k] = av
					}
					continue
				}
			}
			m[k] = enc(x, a)
		}
		return a.m(m), nil
	}
}

// encSlice encodes slices and arrays: bytes as B, sets by tag (and [][]byte
// as BS), anything else as L.
func (b *builder) encSlice(t reflect.Type, tg Tag) encFn {
	isArray := t.Kind() == reflect.Array
	if t.Elem().Kind() == reflect.Uint8 {
		return func(v reflect.Value, _ bool, a *arena) (types.AttributeValue, error) {
			if !isArray || v.CanAddr() {
				return &types.AttributeValueMemberB{Value: append([]byte{}, v.Bytes()...)}, nil
			}
			out := make([]byte, v.Len())
			for i := range out {
				out[i] = byte(v.Index(i).Uint())
			}
			return &types.AttributeValueMemberB{Value: out}, nil
		}
	}
	elem := b.encValue(t.Elem(), elemTag(tg))
	elemAddr := func(addr bool) bool { return !isArray || addr }
	switch {
	case tg.AsBinSet || t == byteSliceSliceType:
		return func(v reflect.Value, addr bool, a *arena) (types.AttributeValue, error) {
			n := v.Len()
			if n == 0 {
				return a.null(), nil
			}
			out := make([][]byte, 0, n)
			ea := elemAddr(addr)
			for i := 0; i < n; i++ {
				av, err := elem(v.Index(i), ea, a)
				if err != nil {
					return nil, err
				}
				if av == nil {
					continue
				}
				bv, ok := av.(*types.AttributeValueMemberB)
				if !ok || bv == nil || bv.Value == nil {
					return nil, errBinSet
				}
				out = append(out, bv.Value)
			}
			return &types.AttributeValueMemberBS{Value: out}, nil
		}
	case tg.AsNumSet:
		return func(v reflect.Value, addr bool, a *arena) (types.AttributeValue, error) {
			n := v.Len()
			if n == 0 {
				return a.null(), nil
			}
			out := make([]string, 0, n)
			ea := elemAddr(addr)
			for i := 0; i < n; i++ {
				av, err := elem(v.Index(i), ea, a)
				if err != nil {
					return nil, err
				}
				if av == nil {
					continue
				}
				nv, ok := av.(*types.AttributeValueMemberN)
				if !ok || nv == nil {
					return nil, errNumSet
				}
				out = append(out, nv.Value)
			}
			return &types.AttributeValueMemberNS{Value: out}, nil
		}
	case tg.AsStrSet:
		plain := plainString(t.Elem(), elemTag(tg))
		return func(v reflect.Value, addr bool, a *arena) (types.AttributeValue, error) {
			n := v.Len()
			if n == 0 {
				return a.null(), nil
			}
			out := make([]string, 0, n)
			if plain {
				for i := 0; i < n; i++ {
					out = append(out, v.Index(i).String())
				}
				return &types.AttributeValueMemberSS{Value: out}, nil
			}
			ea := elemAddr(addr)
			for i := 0; i < n; i++ {
				av, err := elem(v.Index(i), ea, a)
				if err != nil {
					return nil, err
				}
				if av == nil {
					continue
				}
				sv, ok := av.(*types.AttributeValueMemberS)
				if !ok || sv == nil {
					return nil, errStrSet
				}
				out = append(out, sv.Value)
			}
			return &types.AttributeValueMemberSS{Value: out}, nil
		}
	}
	return func(v reflect.Value, addr bool, a *arena) (types.AttributeValue, error) {
		n := v.Len()
		out := make([]types.AttributeValue, 0, n)
		ea := elemAddr(addr)
		for i := 0; i < n; i++ {
			av, err := elem(v.Index(i), ea, a)
			if err != nil {
				return nil, err
			}
			if av != nil {
				out = append(out, av)
			}
		}
		return a.l(out), nil
	}
}

// plainString reports whether every value of t encodes as S holding the
// value itself under tag tg (so a set needs no per-element checks).
func plainString(t reflect.Type, tg Tag) bool {
	return t.Kind() == reflect.String && !tg.OmitEmpty && !tg.NullEmpty &&
		!t.Implements(numbererType) && !t.Implements(marshalerType) &&
		!reflect.PointerTo(t).Implements(marshalerType)
}

// errOmitNull and friends are attributevalue's own errors, obtained from it
// once so that callers see identical error values and messages.
var (
	errOmitNull = marshalErr(struct {
		A string `dynamodbav:",omitempty,nullempty"`
	}{})
	errBinSet = marshalErr(struct{ A [][]byte }{A: [][]byte{nil}})
	errNumSet = marshalErr(struct {
		A []string `dynamodbav:",numberset"`
	}{A: []string{"x"}})
	errStrSet = marshalErr(struct {
		A []int `dynamodbav:",stringset"`
	}{A: []int{1}})
	errEmptyKey = marshalErr(map[string]int{"": 1})
)

func marshalErr(v any) error {
	_, err := attributevalue.Marshal(v)
	if err == nil {
		panic("codec: attributevalue accepted an invalid value")
	}
	return err
}
