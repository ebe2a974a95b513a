package codec

import (
	"fmt"
	"reflect"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// decNative reports whether values of type t are decoded by compiled
// functions; the others go to attributevalue through a wrapper struct.
func decNative(t reflect.Type) bool {
	for depth := 0; depth < 8; depth++ {
		switch t.Kind() {
		case reflect.Bool, reflect.String,
			reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
			reflect.Float32, reflect.Float64,
			reflect.Struct:
			return true
		case reflect.Map:
			k := t.Key()
			return k.Kind() == reflect.String && !k.Implements(textUnmarshalerType) &&
				!reflect.PointerTo(k).Implements(textUnmarshalerType)
		case reflect.Slice, reflect.Array, reflect.Pointer:
			t = t.Elem()
		default: // interfaces, complex, uintptr, chan, func, unsafe pointers
			return false
		}
	}
	return false
}

// ptrUnmarshaler reports whether attributevalue looks for an Unmarshaler on
// the address of a (settable) value of type t.
func ptrUnmarshaler(t reflect.Type) bool {
	return t.Kind() != reflect.Pointer && t.Name() != "" && reflect.PointerTo(t).Implements(unmarshalerType)
}

// decValue compiles attributevalue's decode(av, v, tag) for settable values
// of type t.
func (b *builder) decValue(t reflect.Type, tg Tag) decFn {
	k := codecKey{t, tg}
	if slot, ok := b.decs[k]; ok {
		if *slot != nil {
			return *slot
		}
		// Recursive type: resolved once its codec is complete.
		return func(av types.AttributeValue, v reflect.Value) error {
			return (*slot)(av, v)
		}
	}
	slot := new(decFn)
	b.decs[k] = slot
	*slot = b.compileDec(t, tg)
	return *slot
}

func (b *builder) compileDec(t reflect.Type, tg Tag) decFn {
	if !decNative(t) {
		return fallbackDec(t, tg)
	}
	body := b.decBody(t, tg)
	ptrUnm := ptrUnmarshaler(t)
	return func(av types.AttributeValue, v reflect.Value) error {
		if av != nil {
			if _, null := av.(*types.AttributeValueMemberNULL); !null {
				return body(av, v)
			}
		}
		if ptrUnm && v.CanAddr() && v.CanInterface() {
			return v.Addr().Interface().(attributevalue.Unmarshaler).UnmarshalDynamoDBAttributeValue(av)
		}
		if v.CanSet() {
			v.SetZero()
		}
		return nil
	}
}

// decBody compiles the decoding of a non-NULL attribute value: look for an
// Unmarshaler, allocating nil pointers on the way, then decode by kind.
func (b *builder) decBody(t reflect.Type, tg Tag) decFn {
	if t.Kind() == reflect.Pointer {
		return b.decPtr(t, tg)
	}
	kind := b.decKind(t, tg)
	if !ptrUnmarshaler(t) {
		return kind
	}
	return func(av types.AttributeValue, v reflect.Value) error {
		if v.CanAddr() && v.CanInterface() {
			return v.Addr().Interface().(attributevalue.Unmarshaler).UnmarshalDynamoDBAttributeValue(av)
		}
		return kind(av, v)
	}
}

func (b *builder) decPtr(t reflect.Type, tg Tag) decFn {
	et := t.Elem()
	impl := t.Implements(unmarshalerType)
	var next decFn
	if et.Kind() == reflect.Pointer {
		next = b.decPtr(et, tg)
	} else {
		next = b.decKind(et, tg)
	}
	return func(av types.AttributeValue, v reflect.Value) error {
		if v.IsNil() {
			if !v.CanSet() {
				return fmt.Errorf("codec: cannot allocate %s for a value of an unexported field", t)
			}
			v.Set(reflect.New(et))
		}
		if impl && v.CanInterface() {
			return v.Interface().(attributevalue.Unmarshaler).UnmarshalDynamoDBAttributeValue(av)
		}
		return next(av, v.Elem())
	}
}

// indirect compiles attributevalue's indirect for set elements of type t:
// allocate nil pointers and find an Unmarshaler, else return the value to
// decode into.
func indirect(t reflect.Type) func(reflect.Value) (attributevalue.Unmarshaler, reflect.Value) {
	ptrUnm := ptrUnmarshaler(t)
	var impl []bool // per pointer level
	for pt := t; pt.Kind() == reflect.Pointer; pt = pt.Elem() {
		impl = append(impl, pt.Implements(unmarshalerType))
	}
	if !ptrUnm && len(impl) == 0 {
		return nil
	}
	return func(v reflect.Value) (attributevalue.Unmarshaler, reflect.Value) {
		if ptrUnm && v.CanAddr() && v.CanInterface() {
			return v.Addr().Interface().(attributevalue.Unmarshaler), v
		}
		for _, im := range impl {
			if v.IsNil() {
				v.Set(reflect.New(v.Type().Elem()))
			}
			if im && v.CanInterface() {
				return v.Interface().(attributevalue.Unmarshaler), v
			}
			v = v.Elem()
		}
		return nil, v
	}
}

func derefType(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

func typeError(what string, t reflect.Type) error {
	return &attributevalue.UnmarshalTypeError{Value: what, Type: t}
}

// decKind compiles attributevalue's decoding by attribute value type into
// a non-pointer value of type t.
func (b *builder) decKind(t reflect.Type, tg Tag) decFn {
	bin := decBinary(t)
	num := decNumber(t)
	str := decString(t, tg)
	boolean := decBool(t)
	list := b.decList(t)
	m := b.decMap(t)
	bs := b.decSet(t, "binary set", func(av types.AttributeValue) int { return len(av.(*types.AttributeValueMemberBS).Value) },
		decBinarySetElem)
	ns := b.decSet(t, "number set", func(av types.AttributeValue) int { return len(av.(*types.AttributeValueMemberNS).Value) },
		decNumberSetElem)
	ss := b.decSet(t, "string set", func(av types.AttributeValue) int { return len(av.(*types.AttributeValueMemberSS).Value) },
		decStringSetElem)
	return func(av types.AttributeValue, v reflect.Value) error {
		switch tv := av.(type) {
		case *types.AttributeValueMemberS:
			return str(tv.Value, v)
		case *types.AttributeValueMemberN:
			return num(tv.Value, v)
		case *types.AttributeValueMemberBOOL:
			return boolean(tv.Value, v)
		case *types.AttributeValueMemberL:
			return list(tv.Value, v)
		case *types.AttributeValueMemberM:
			return m(tv.Value, v)
		case *types.AttributeValueMemberB:
			return bin(tv.Value, v)
		case *types.AttributeValueMemberSS:
			return ss(av, v)
		case *types.AttributeValueMemberNS:
			return ns(av, v)
		case *types.AttributeValueMemberBS:
			return bs(av, v)
		default:
			return fmt.Errorf("unsupported AttributeValue type, %T", av)
		}
	}
}

// setTime stores tm into v, a settable value of a type defined from
// time.Time (all share time.Time's layout).
func setTime(v reflect.Value, tm time.Time) {
	if !v.CanSet() {
		v.Set(reflect.ValueOf(tm).Convert(v.Type())) // panics as attributevalue does
	}
	*(*time.Time)(v.Addr().UnsafePointer()) = tm
}

func decodeUnixTime(n string) (time.Time, error) {
	v, err := strconv.ParseInt(n, 10, 64)
	if err != nil {
		return time.Time{}, &attributevalue.UnmarshalError{Err: err, Value: n, Type: timeType}
	}
	return time.Unix(v, 0), nil
}

// decNumber is attributevalue's decodeNumber for a value of type t.
func decNumber(t reflect.Type) func(string, reflect.Value) error {
	switch t.Kind() {
	case reflect.String:
		return func(n string, v reflect.Value) error {
			v.SetString(n)
			return nil
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return func(n string, v reflect.Value) error {
			i, err := strconv.ParseInt(n, 10, 64)
			if err != nil {
				return err
			}
			if v.OverflowInt(i) {
				return typeError(fmt.Sprintf("number overflow, %s", n), t)
			}
			v.SetInt(i)
			return nil
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return func(n string, v reflect.Value) error {
			i, err := strconv.ParseUint(n, 10, 64)
			if err != nil {
				return err
			}
			if v.OverflowUint(i) {
				return typeError(fmt.Sprintf("number overflow, %s", n), t)
			}
			v.SetUint(i)
			return nil
		}
	case reflect.Float32, reflect.Float64:
		return func(n string, v reflect.Value) error {
			f, err := strconv.ParseFloat(n, 64)
			if err != nil {
				return err
			}
			if v.OverflowFloat(f) {
				return typeError(fmt.Sprintf("number overflow, %s", n), t)
			}
			v.SetFloat(f)
			return nil
		}
	}
	if isTime(t) {
		return func(n string, v reflect.Value) error {
			tm, err := decodeUnixTime(n)
			if err != nil {
				return err
			}
			setTime(v, tm)
			return nil
		}
	}
	err := typeError("number", t)
	return func(string, reflect.Value) error { return err }
}

// decString is attributevalue's decodeString for a value of type t.
func decString(t reflect.Type, tg Tag) func(string, reflect.Value) error {
	if tg.AsString {
		return decNumber(t)
	}
	if isTime(t) {
		return func(s string, v reflect.Value) error {
			tm, err := time.Parse(time.RFC3339, s)
			if err != nil {
				return &attributevalue.UnmarshalError{Err: err, Value: s, Type: timeType}
			}
			setTime(v, tm)
			return nil
		}
	}
	if t.Kind() == reflect.String {
		return func(s string, v reflect.Value) error {
			v.SetString(s)
			return nil
		}
	}
	err := typeError("string", t)
	return func(string, reflect.Value) error { return err }
}

func decBool(t reflect.Type) func(bool, reflect.Value) error {
	if t.Kind() == reflect.Bool {
		return func(b bool, v reflect.Value) error {
			v.SetBool(b)
			return nil
		}
	}
	err := typeError("bool", t)
	return func(bool, reflect.Value) error { return err }
}

// decBinary is attributevalue's decodeBinary for a value of type t.
func decBinary(t reflect.Type) func([]byte, reflect.Value) error {
	err := typeError("binary", t)
	switch {
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8:
		return func(b []byte, v reflect.Value) error {
			if v.IsNil() || v.Cap() < len(b) {
				buf := make([]byte, len(b))
				copy(buf, b)
				v.SetBytes(buf)
				return nil
			}
			if v.Len() != len(b) {
				v.SetLen(len(b))
			}
			copy(v.Bytes(), b)
			return nil
		}
	case t.Kind() == reflect.Array && t.Elem().Kind() == reflect.Uint8:
		return func(b []byte, v reflect.Value) error {
			if v.Len() != len(b) {
				// attributevalue panics here (SetLen on an array).
				return fmt.Errorf("codec: cannot unmarshal %d bytes into %s", len(b), t)
			}
			copy(v.Bytes(), b)
			return nil
		}
	}
	return func([]byte, reflect.Value) error { return err }
}

// decList is attributevalue's decodeList for a value of type t.
func (b *builder) decList(t reflect.Type) func([]types.AttributeValue, reflect.Value) error {
	switch t.Kind() {
	case reflect.Slice:
		elem := b.decValue(t.Elem(), Tag{})
		mk := makeSlice(t)
		if plainStringElem(t.Elem()) {
			// Slices of string kinds share []string's layout; S members
			// are stored directly.
			return func(l []types.AttributeValue, v reflect.Value) error {
				if v.IsNil() || v.Cap() < len(l) {
					mk(v, len(l))
				}
				sp := (*[]string)(v.Addr().UnsafePointer())
				for i := 0; i < cap(*sp) && i < len(l); i++ {
					*sp = (*sp)[:i+1]
					if s, ok := l[i].(*types.AttributeValueMemberS); ok {
						(*sp)[i] = s.Value
						continue
					}
					if err := elem(l[i], v.Index(i)); err != nil {
						return err
					}
				}
				return nil
			}
		}
		return func(l []types.AttributeValue, v reflect.Value) error {
			if v.IsNil() || v.Cap() < len(l) {
				mk(v, len(l))
			}
			for i := 0; i < v.Cap() && i < len(l); i++ {
				v.SetLen(i + 1)
				if err := elem(l[i], v.Index(i)); err != nil {
					return err
				}
			}
			return nil
		}
	case reflect.Array:
		elem := b.decValue(t.Elem(), Tag{})
		return func(l []types.AttributeValue, v reflect.Value) error {
			for i := 0; i < v.Len() && i < len(l); i++ {
				if err := elem(l[i], v.Index(i)); err != nil {
					return err
				}
			}
			return nil
		}
	}
	err := typeError("list", t)
	return func([]types.AttributeValue, reflect.Value) error { return err }
}

// plainStringElem reports whether an element of type t decodes an S
// member by storing its string: a string kind without an Unmarshaler.
func plainStringElem(t reflect.Type) bool {
	return t.Kind() == reflect.String && !ptrUnmarshaler(t) && !t.Implements(unmarshalerType)
}

// makeSlice sets the settable slice v to an empty slice of capacity n.
func makeSlice(t reflect.Type) func(v reflect.Value, n int) {
	if t.Elem().Kind() == reflect.String {
		// Slices of string kinds share []string's layout.
		return func(v reflect.Value, n int) {
			*(*[]string)(v.Addr().UnsafePointer()) = make([]string, 0, n)
		}
	}
	return func(v reflect.Value, n int) {
		v.Set(reflect.MakeSlice(t, 0, n))
	}
}

// decMap is attributevalue's decodeMap for a value of type t.
func (b *builder) decMap(t reflect.Type) func(map[string]types.AttributeValue, reflect.Value) error {
	switch {
	case t.Kind() == reflect.Map:
		kt, et := t.Key(), t.Elem()
		elem := b.decValue(et, Tag{})
		return func(m map[string]types.AttributeValue, v reflect.Value) error {
			if v.IsNil() {
				v.Set(reflect.MakeMapWithSize(t, len(m)))
			}
			if len(m) == 0 {
				return nil
			}
			k := reflect.New(kt).Elem()
			e := reflect.New(et).Elem()
			for key, av := range m {
				k.SetString(key)
				e.SetZero()
				if err := elem(av, e); err != nil {
					return err
				}
				v.SetMapIndex(k, e)
			}
			return nil
		}
	case isTime(t):
		// A time has no stored fields: attributevalue decodes nothing.
		return func(map[string]types.AttributeValue, reflect.Value) error { return nil }
	case t.Kind() == reflect.Struct:
		p, err := b.plan(t)
		if err != nil {
			panic(err) // t is a struct
		}
		return func(m map[string]types.AttributeValue, v reflect.Value) error {
			return p.decodeFrom(m, v)
		}
	}
	err := typeError("map", t)
	return func(map[string]types.AttributeValue, reflect.Value) error { return err }
}

// decSet is attributevalue's decodeBinarySet, decodeNumberSet and
// decodeStringSet for a value of type t: what names the set type, n counts
// the set's members and elem decodes member i into an element.
func (b *builder) decSet(t reflect.Type, what string, n func(types.AttributeValue) int,
	elemFor func(reflect.Type) func(types.AttributeValue, int, reflect.Value) error) func(types.AttributeValue, reflect.Value) error {
	isSlice := t.Kind() == reflect.Slice
	if !isSlice && t.Kind() != reflect.Array {
		err := typeError(what, t)
		return func(types.AttributeValue, reflect.Value) error { return err }
	}
	ind := indirect(t.Elem())
	elem := elemFor(derefType(t.Elem()))
	var mk func(reflect.Value, int)
	if isSlice {
		mk = makeSlice(t)
	}
	return func(av types.AttributeValue, v reflect.Value) error {
		size := n(av)
		if isSlice && (v.IsNil() || v.Cap() < size) {
			mk(v, size)
		}
		for i := 0; i < v.Cap() && i < size; i++ {
			if isSlice {
				v.SetLen(i + 1)
			}
			ev := v.Index(i)
			if ind != nil {
				var u attributevalue.Unmarshaler
				if u, ev = ind(ev); u != nil {
					// attributevalue hands the whole set to the first
					// element's Unmarshaler.
					return u.UnmarshalDynamoDBAttributeValue(av)
				}
			}
			if err := elem(av, i, ev); err != nil {
				return err
			}
		}
		return nil
	}
}

func decBinarySetElem(t reflect.Type) func(types.AttributeValue, int, reflect.Value) error {
	dec := decBinary(t)
	return func(av types.AttributeValue, i int, v reflect.Value) error {
		return dec(av.(*types.AttributeValueMemberBS).Value[i], v)
	}
}

func decNumberSetElem(t reflect.Type) func(types.AttributeValue, int, reflect.Value) error {
	dec := decNumber(t)
	return func(av types.AttributeValue, i int, v reflect.Value) error {
		return dec(av.(*types.AttributeValueMemberNS).Value[i], v)
	}
}

func decStringSetElem(t reflect.Type) func(types.AttributeValue, int, reflect.Value) error {
	dec := decString(t, Tag{})
	return func(av types.AttributeValue, i int, v reflect.Value) error {
		return dec(av.(*types.AttributeValueMemberSS).Value[i], v)
	}
}
