package codec

import (
	"encoding/binary"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// encFn encodes one value of a known static type the way attributevalue's
// encoder does with a given tag. It returns a nil AttributeValue when the
// value is omitted. addr reports whether v is addressable in attributevalue's
// view (a map value held in a reusable addressable holder is not).
// Values are allocated from the arena a.
type encFn func(v reflect.Value, addr bool, a *arena) (types.AttributeValue, error)

// decFn decodes av into the settable value v of a known static type the way
// attributevalue's decoder does with a given tag.
type decFn func(av types.AttributeValue, v reflect.Value) error

// fieldPlan is the compiled encoder and decoder of one stored field.
type fieldPlan struct {
	attr   string
	goName string // for errors
	first  int    // Index[0]
	index  []int  // the full index path when the field is promoted
	nested bool   // len(index) > 1
	// scalar is set when enc is a compiled scalar encoder, which does not
	// look at addressability (EncodeFieldValue).
	scalar bool
	// embPtr is set when the field is an embedded pointer to its
	// Field.Type (EncodeFieldValue points to the value it is given).
	embPtr bool
	enc    encFn
	dec    decFn
}

// Plan encodes and decodes one struct type. Built once per type and cached.
//
// A Plan produces exactly the items attributevalue.MarshalMap produces and
// fills structs exactly as attributevalue.UnmarshalMap does (both with their
// default options). Common kinds are handled by compiled per-field functions;
// anything else (interfaces, maps with non-string keys, complex numbers, ...)
// is delegated per value to attributevalue itself.
type Plan struct {
	typ    reflect.Type
	fields *Fields
	plans  []fieldPlan
	byAttr map[string]*fieldPlan
	byFold map[string]*fieldPlan // case-folded attribute name -> first field
	sizes  arenaSizes            // arena use of the last encoding

	// The struct type's own Marshaler and Unmarshaler (possibly promoted
	// from an embedded field), which attributevalue uses instead of the
	// fields: marshals for values, ptrMarshals for addressable values.
	marshals, ptrMarshals, unmarshals bool
	// lends is set when encoding an addressable value hands a Marshaler
	// the address of memory inside it (see LendsAddress).
	lends bool
	// flat is the plan's fields as encodeFlat encodes them, nil when the
	// plan is not flat (flat.go).
	flat []flatField

	// unmatched lists attribute names seen in decoded items that match no
	// field, even ignoring case.
	unmatched atomic.Pointer[[]string]
}

var (
	planCache sync.Map   // reflect.Type -> *Plan
	buildMu   sync.Mutex // serialises plan construction
)

// PlanOf returns the plan of struct type t, building and caching it on first
// use.
func PlanOf(t reflect.Type) (*Plan, error) {
	if t == nil || t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("codec: %v is not a struct", t)
	}
	if p, ok := planCache.Load(t); ok {
		return p.(*Plan), nil
	}
	buildMu.Lock()
	defer buildMu.Unlock()
	if p, ok := planCache.Load(t); ok {
		return p.(*Plan), nil
	}
	b := &builder{building: map[reflect.Type]*Plan{}, encs: map[codecKey]*encFn{}, decs: map[codecKey]*decFn{}}
	p, err := b.plan(t)
	if err != nil {
		return nil, err
	}
	// Publish every plan built along the way only once all are complete.
	for typ, bp := range b.building {
		planCache.LoadOrStore(typ, bp)
	}
	return p, nil
}

// builder compiles plans. Plans and value codecs under construction are
// shared so that recursive types (type tree map[string]tree) terminate.
type builder struct {
	building map[reflect.Type]*Plan
	encs     map[codecKey]*encFn
	decs     map[codecKey]*decFn
}

// codecKey identifies a compiled value codec.
type codecKey struct {
	t  reflect.Type
	tg Tag
}

func (b *builder) plan(t reflect.Type) (*Plan, error) {
	if p, ok := planCache.Load(t); ok {
		return p.(*Plan), nil
	}
	if p, ok := b.building[t]; ok {
		return p, nil
	}
	fs, err := FieldsOf(t)
	if err != nil {
		return nil, err
	}
	p := &Plan{
		typ:    t,
		fields: fs,
		plans:  make([]fieldPlan, len(fs.List)),
		byAttr: make(map[string]*fieldPlan, len(fs.List)),
		byFold: make(map[string]*fieldPlan, len(fs.List)),

		marshals:    t.Implements(marshalerType),
		ptrMarshals: reflect.PointerTo(t).Implements(marshalerType),
		unmarshals:  reflect.PointerTo(t).Implements(unmarshalerType),
		lends:       lendsAddress(t),
	}
	b.building[t] = p
	for i := range fs.List {
		f := &fs.List[i]
		ft := typeByIndex(t, f.Index)
		fp := &p.plans[i]
		*fp = fieldPlan{
			attr:   f.Attr,
			goName: f.GoName,
			first:  f.Index[0],
			index:  f.Index,
			nested: len(f.Index) > 1,
			scalar: encNative(ft) && b.encScalar(ft, f.Tag) != nil,
			embPtr: ft != f.Type,
			enc:    b.encValue(ft, f.Tag),
			dec:    b.decValue(ft, f.Tag),
		}
		p.byAttr[f.Attr] = fp
		if k := foldKey(f.Attr); p.byFold[k] == nil {
			p.byFold[k] = fp
		}
	}
	p.flat = p.flatFields()
	return p, nil
}

// typeByIndex is the type of the field at index, through embedded pointers.
func typeByIndex(t reflect.Type, index []int) reflect.Type {
	for i, x := range index {
		if i > 0 && t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		t = t.Field(x).Type
	}
	return t
}

// Type is the struct type the plan is for.
func (p *Plan) Type() reflect.Type { return p.typ }

// Fields lists the stored fields of the plan's struct type.
func (p *Plan) Fields() *Fields { return p.fields }

// structValue accepts a struct value of the plan's type or a non-nil
// pointer to one.
func (p *Plan) structValue(v reflect.Value) (reflect.Value, error) {
	if v.Kind() == reflect.Pointer && v.Type().Elem() == p.typ {
		if v.IsNil() {
			return v, fmt.Errorf("codec: nil %s", v.Type())
		}
		v = v.Elem()
	}
	if !v.IsValid() || v.Type() != p.typ {
		return v, fmt.Errorf("codec: plan for %s used with %v", p.typ, v.Type())
	}
	return v, nil
}

// Encode writes every stored field of struct v into dst, which may already
// hold other attributes (Encode only adds), and returns the size of what
// it wrote: the attribute names plus their values' Size. v is a value of the plan's
// struct type, addressable or not, or a pointer to one. Addressability
// matters as it does for attributevalue: pointer-receiver Marshalers are
// only used on addressable values. A struct type that is itself a Marshaler
// (possibly by promotion from an embedded field) is encoded as
// attributevalue.MarshalMap encodes it, by its method.
func (p *Plan) Encode(v reflect.Value, dst map[string]types.AttributeValue) (size int, err error) {
	size, _, err = p.EncodeRoom(v, dst, 0)
	return size, err
}

// EncodeRoom is Encode, and also returns room for n more string values
// (zero, length n), taken from the slab the encoding's own values come
// from: a caller adding string attributes to the item (its keys) then
// allocates none of its own.
func (p *Plan) EncodeRoom(v reflect.Value, dst map[string]types.AttributeValue, n int) (size int, room []types.AttributeValueMemberS, err error) {
	size, room, _, err = p.EncodeItem(v, dst, n, nil)
	return size, room, err
}

// EncodeItem is EncodeRoom, in sh's arena (nil: one of the encoding's
// own), and also returns room for the text of the item's keys: a slice of
// length 0 whose capacity (at least what the plan's last item's keys took,
// see NoteKeyText) no value of the encoding uses, the rest of the buffer
// their numbers' text comes from. The caller writes its keys' text there
// when it fits, and then reports its length with NoteKeyText, before sh
// encodes another item. What it buys: the keys' text costs no allocation
// of its own.
func (p *Plan) EncodeItem(v reflect.Value, dst map[string]types.AttributeValue, n int, sh *Shared) (size int, room []types.AttributeValueMemberS, text []byte, err error) {
	v, err = p.structValue(v)
	if err != nil {
		return 0, nil, nil, err
	}
	if p.marshals || (p.ptrMarshals && v.CanAddr()) {
		size, err = p.encodeMarshaler(v, dst)
		if err == nil && n > 0 {
			room = make([]types.AttributeValueMemberS, n)
		}
		if err == nil && sh != nil {
			text = sh.a.spare(0) // what NoteKeyText counts on
		}
		return size, room, text, err
	}
	var a *arena
	if sh != nil {
		a = sh.next(p.sizes.get())
	} else {
		a = newArena(p.sizes.get())
	}
	ok := false
	if p.flat != nil && v.CanAddr() {
		used := a.used
		if size, ok = p.encodeFlat(v.Addr().UnsafePointer(), dst, a); !ok {
			a.used = used // what the next encoding's slabs are sized by
		}
	}
	if !ok {
		size, err = p.encodeInto(v, v.CanAddr(), dst, a, true)
	}
	if err == nil {
		if n > 0 {
			room = a.take(n)
		}
		text = a.spare(int(a.hint.keys))
	}
	p.sizes.remember(a)
	if sh == nil {
		a.release()
	}
	return size, room, text, err
}

// NoteKeyText reports that the keys of the item EncodeItem just encoded
// (in sh, or nil) took n bytes of text, which its room held if n is at
// most its capacity: sh's next item comes after them, and the next
// encoding's room holds as many.
func (p *Plan) NoteKeyText(n int, sh *Shared) {
	if sh != nil && sh.a != nil && n <= cap(sh.a.buf)-len(sh.a.buf) {
		sh.a.keep(n)
	}
	p.sizes.noteKeys(int32(n))
}

// KeyText is room in sh for the keys' text of the first of items items
// EncodeItem encoded in sh earlier, for a caller that renders their keys
// after encoding them all (see Shared.KeysLater): what EncodeItem would
// have lent it, in a buffer with room for the others' too. NoteKeyText
// keeps what the keys took.
func (p *Plan) KeyText(sh *Shared, items int) []byte {
	return sh.a.spare(items * int(p.sizes.get().keys))
}

// Shared is an arena the encodings of many items share (a batch write's
// puts, through EncodeItem): their values come from common slabs, each
// sized for the items still to come, instead of three or four slabs per
// item. What it buys: a batch of 100 puts allocates a few dozen slabs
// rather than hundreds. As in an item's own arena, memory is only ever
// handed out, never reused, so each item's values stay its own. The zero
// Shared is not ready: use NewShared.
type Shared struct {
	a         *arena
	left      int
	keysLater bool // see KeysLater
}

// KeysLater says whether the keys of the items encoded next are rendered
// after all of them are (KeyText): then their values' buffers leave no
// room for keys, which would go unused.
func (sh *Shared) KeysLater(later bool) { sh.keysLater = later }

// NewShared returns a Shared for the encodings of items items, to Release
// once they are done.
func NewShared(items int) Shared {
	return Shared{a: arenas.Get().(*arena), left: max(items, 1)}
}

// next readies the arena for one more item, of a plan with hint.
func (sh *Shared) next(hint *sizes) *arena {
	a := sh.a
	a.last, a.base, a.left = hint, a.used, max(sh.left, 2)
	a.own = *hint
	if sh.keysLater {
		a.own.keys = 0
	}
	for _, c := range []*int32{&a.own.s, &a.own.n, &a.own.b, &a.own.null, &a.own.l, &a.own.m, &a.own.buf} {
		*c = max(*c, 1) // see slabSize
	}
	a.hint = &a.own
	sh.left--
	return a
}

// Release recycles the arena's header; the values it handed out stay.
func (sh *Shared) Release() {
	if sh.a != nil {
		sh.a.release()
		sh.a = nil
	}
}

// LendsAddress reports whether encoding an addressable value of the
// plan's type may hand a Marshaler the address of memory inside the value,
// which the attribute value it returns could keep (a slice of an array
// field): then the value must outlive what the encoding made.
func (p *Plan) LendsAddress() bool { return p.lends }

// lendsAddress reports whether t, or a type t holds inline (a struct
// field, an array element, at any depth), is a type whose pointer is a
// Marshaler and whose value is not: encoded from an addressable value, its
// marshaler is called on that address. Memory a value only points to (a
// pointer, slice or map field) is not the value's own.
func lendsAddress(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Struct, reflect.Array:
	default:
		return false
	}
	if !t.Implements(marshalerType) && reflect.PointerTo(t).Implements(marshalerType) {
		return true
	}
	if t.Kind() == reflect.Array {
		return t.Len() > 0 && lendsAddress(t.Elem())
	}
	for i := range t.NumField() {
		if lendsAddress(t.Field(i).Type) {
			return true
		}
	}
	return false
}

// encodeMarshaler encodes struct v, whose type is a Marshaler, with
// attributevalue.MarshalMap: with the Marshaler's value if it is a map.
func (p *Plan) encodeMarshaler(v reflect.Value, dst map[string]types.AttributeValue) (size int, err error) {
	in := v.Interface()
	if v.CanAddr() {
		in = v.Addr().Interface()
	}
	m, err := attributevalue.MarshalMap(in)
	if err != nil {
		return 0, err
	}
	for k, av := range m {
		n, err := CheckedSize(av)
		if err != nil {
			return 0, &FieldError{Field: k, Err: err}
		}
		dst[k] = av
		size += len(k) + n
	}
	return size, nil
}

// encodeInto encodes the fields of struct v into dst. With sized, it adds
// up the size of what it wrote (the top level of an item; a nested map's
// size is its parent's business), and checks that DynamoDB takes every
// value (CheckedSize: the walk that sizes a value checks it). Errors name
// the field (*FieldError).
func (p *Plan) encodeInto(v reflect.Value, addr bool, dst map[string]types.AttributeValue, a *arena, sized bool) (size int, err error) {
	for i := range p.plans {
		fp := &p.plans[i]
		var av types.AttributeValue
		if !fp.nested {
			av, err = fp.enc(v.Field(fp.first), addr, a)
		} else {
			fv, faddr, ok := fp.encValue(v, addr)
			if !ok {
				continue
			}
			av, err = fp.enc(fv, faddr, a)
		}
		if err != nil {
			return 0, fieldError(fp.goName, err)
		}
		if av != nil {
			dst[fp.attr] = av
			if s, ok := av.(*types.AttributeValueMemberS); ok && sized && validUTF8(s.Value) {
				// The most common value, whose size is its length, and
				// which DynamoDB takes when it is UTF-8.
				size += len(fp.attr) + len(s.Value)
			} else if sized {
				n, err := CheckedSize(av)
				if err != nil {
					return 0, &FieldError{Field: fp.goName, Err: err}
				}
				size += len(fp.attr) + n
			}
		}
	}
	return size, nil
}

// validUTF8 is utf8.ValidString behind an ASCII test of eight bytes at a
// time: most values are short ASCII, for which the test costs a fraction
// of the call (bench/'s Put: see CHANGELOG); the rest is validated from
// its first byte that is not ASCII.
func validUTF8(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 { // eight bytes at a time
		if binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s[i:]), 8))&0x8080808080808080 != 0 {
			return utf8.ValidString(s[i:])
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return utf8.ValidString(s[i:])
		}
	}
	return true
}

// FieldError is a field whose value cannot be encoded, or that DynamoDB
// would refuse (see CheckedSize). Field is the Go field's name, with the
// names of the nested struct fields leading to it: "In.When".
type FieldError struct {
	Field string
	Err   error
}

func (e *FieldError) Error() string { return "field " + e.Field + ": " + e.Err.Error() }

// Unwrap returns the encoding error (attributevalue's, for the errors it
// shares).
func (e *FieldError) Unwrap() error { return e.Err }

// fieldError names field name in err: a *FieldError of a nested struct's
// field gets the outer name in front.
func fieldError(name string, err error) error {
	if fe, ok := err.(*FieldError); ok {
		return &FieldError{Field: name + "." + fe.Field, Err: fe.Err}
	}
	return &FieldError{Field: name, Err: err}
}

// encodeM encodes a nested struct value as a map attribute.
func (p *Plan) encodeM(v reflect.Value, addr bool, a *arena) (types.AttributeValue, error) {
	m := make(map[string]types.AttributeValue, len(p.plans))
	if _, err := p.encodeInto(v, addr, m, a, false); err != nil {
		return nil, err
	}
	return a.m(m), nil
}

// encValue reaches a promoted field; false when an embedded pointer on the
// way is nil (attributevalue then skips the field).
func (fp *fieldPlan) encValue(v reflect.Value, addr bool) (reflect.Value, bool, bool) {
	for i, x := range fp.index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return reflect.Value{}, false, false
			}
			v = v.Elem()
			addr = true
		}
		v = v.Field(x)
	}
	return v, addr, true
}

// decValue reaches a promoted field for setting, allocating nil embedded
// pointers on the way as attributevalue does.
func (fp *fieldPlan) decValue(v reflect.Value) (reflect.Value, error) {
	for i, x := range fp.index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				if !v.CanSet() {
					return v, fmt.Errorf("codec: cannot set embedded pointer to unexported struct %s", v.Type().Elem())
				}
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v, nil
}

// planOf returns the fieldPlan of f, which normally points into p.Fields().List.
//
// What the pointer arithmetic buys: f's index in the list is its offset
// from the list's start, so the field's plan is found in a few
// instructions, where a lookup by attribute name (the fallback, for a
// Field from elsewhere) hashes the name; every update and condition
// encodes its values field by field through here. Only the address is
// compared, never dereferenced, so a Field outside the list is safe.
func (p *Plan) planOf(f *Field) (*fieldPlan, error) {
	if n := len(p.fields.List); n > 0 {
		base := uintptr(unsafe.Pointer(&p.fields.List[0]))
		off := uintptr(unsafe.Pointer(f)) - base
		if off < uintptr(n)*unsafe.Sizeof(Field{}) && off%unsafe.Sizeof(Field{}) == 0 {
			return &p.plans[off/unsafe.Sizeof(Field{})], nil
		}
	}
	if fp := p.byAttr[f.Attr]; fp != nil {
		return fp, nil
	}
	return nil, fmt.Errorf("codec: %s has no stored field %q", p.typ, f.Attr)
}

// EncodeField encodes one field of struct v (a value of the plan's type or a
// pointer to one). It returns false when the field is not stored: omitted by
// omitempty and friends, or promoted through a nil embedded pointer.
func (p *Plan) EncodeField(v reflect.Value, f *Field) (types.AttributeValue, bool, error) {
	v, err := p.structValue(v)
	if err != nil {
		return nil, false, err
	}
	fp, err := p.planOf(f)
	if err != nil {
		return nil, false, err
	}
	fv, addr, ok := fp.encValue(v, v.CanAddr())
	if !ok {
		return nil, false, nil
	}
	av, err := fp.enc(fv, addr, nil)
	if err != nil || av == nil {
		return nil, false, err
	}
	return av, true, nil
}

// EncodeFieldValue encodes fv, a value of field f's type, exactly as
// EncodeField encodes that value in the field of an addressable struct,
// without a struct to hold it. It returns false when the value is not
// stored (omitted by omitempty and friends). Scalar fields are encoded
// straight from fv; for other types, whose pointer-receiver Marshalers see
// only addressable values, fv is first copied into an addressable value.
// An embedded pointer field, whose Type is the type pointed to, is encoded
// as pointing to a copy of fv.
func (p *Plan) EncodeFieldValue(f *Field, fv reflect.Value) (types.AttributeValue, bool, error) {
	return p.EncodeFieldValueIn(f, fv, Room{})
}

// EncodeFieldValueIn is EncodeFieldValue with its values from room r.
func (p *Plan) EncodeFieldValueIn(f *Field, fv reflect.Value, r Room) (types.AttributeValue, bool, error) {
	fp, err := p.planOf(f)
	if err != nil {
		return nil, false, err
	}
	if !fv.IsValid() || fv.Type() != f.Type {
		return nil, false, fmt.Errorf("codec: field %s of %s is a %v, not a %v", f.GoName, p.typ, f.Type, fv)
	}
	switch {
	case fp.embPtr:
		// The field is a *f.Type (Type resolves embedded pointers): encode
		// a pointer to a copy of fv.
		c := reflect.New(fv.Type())
		c.Elem().Set(fv)
		fv = c
	case !fp.scalar && !fv.CanAddr():
		c := reflect.New(fv.Type()).Elem()
		c.Set(fv)
		fv = c
	}
	av, err := fp.enc(fv, true, r.a)
	if err != nil || av == nil {
		return nil, false, err
	}
	return av, true, nil
}

// Decode sets the fields of struct v from src. v must be addressable (or a
// pointer to the struct). Attributes without a field are ignored and fields
// without an attribute are left as they are, exactly like
// attributevalue.UnmarshalMap: attribute names match exactly or, failing
// that, case-insensitively. A struct type that is an Unmarshaler (through a
// pointer) is decoded by its method, as UnmarshalMap does.
func (p *Plan) Decode(src map[string]types.AttributeValue, v reflect.Value) error {
	v, err := p.structValue(v)
	if err != nil {
		return err
	}
	if !v.CanAddr() {
		return fmt.Errorf("codec: Decode needs an addressable %s", p.typ)
	}
	if p.unmarshals {
		return attributevalue.UnmarshalMap(src, v.Addr().Interface())
	}
	return p.decodeFrom(src, v)
}

func (p *Plan) decodeFrom(src map[string]types.AttributeValue, v reflect.Value) error {
	// Fields are looked up by name rather than src iterated: cheaper, and
	// equivalent, as every attribute name matches at most one field.
	hits := 0
	for i := range p.plans {
		fp := &p.plans[i]
		av, ok := src[fp.attr]
		if !ok {
			continue
		}
		hits++
		if err := fp.decodeInto(av, v); err != nil {
			return err
		}
	}
	if hits == len(src) {
		return nil
	}
	// Other attributes may still match a field case-insensitively. Skip the
	// search when they are all names known to match nothing (typically the
	// table's key attributes).
	if known := p.unmatched.Load(); known != nil {
		n := hits
		for _, k := range *known {
			if _, ok := src[k]; ok {
				n++
			}
		}
		if n == len(src) {
			return nil
		}
	}
	var learned []string
	for k, av := range src {
		if _, exact := p.byAttr[k]; exact {
			continue
		}
		fp := p.foldLookup(k)
		if fp == nil {
			learned = append(learned, k)
			continue
		}
		if _, exact := src[fp.attr]; exact {
			continue // the exact match was decoded and wins
		}
		if err := fp.decodeInto(av, v); err != nil {
			return err
		}
	}
	p.learnUnmatched(learned)
	return nil
}

// maxUnmatched bounds the attribute names a plan remembers as matching no
// field.
const maxUnmatched = 16

func (p *Plan) learnUnmatched(names []string) {
	if len(names) == 0 {
		return
	}
	old := p.unmatched.Load()
	var list []string
	if old != nil {
		list = append(list, *old...)
	}
	for _, k := range names {
		if len(list) >= maxUnmatched {
			break
		}
		if !slices.Contains(list, k) {
			list = append(list, strings.Clone(k))
		}
	}
	if old == nil || len(list) > len(*old) {
		p.unmatched.CompareAndSwap(old, &list)
	}
}

// decodeInto decodes av into the field of struct v; an error names the
// attribute and field (*AttrError).
func (fp *fieldPlan) decodeInto(av types.AttributeValue, v reflect.Value) error {
	var err error
	if !fp.nested {
		err = fp.dec(av, v.Field(fp.first))
	} else {
		var fv reflect.Value
		if fv, err = fp.decValue(v); err == nil {
			err = fp.dec(av, fv)
		}
	}
	if err != nil {
		return attrError(fp.attr, fp.goName, err)
	}
	return nil
}

// AttrError is an attribute whose value cannot be decoded into its field
// (a string in a number field, a number out of the field's range). For a
// nested struct's field, Attr and Field name the path to it: "in.when",
// "In.When".
type AttrError struct {
	Attr  string
	Field string
	Err   error
}

func (e *AttrError) Error() string {
	return "attribute " + e.Attr + " (field " + e.Field + "): " + e.Err.Error()
}

// Unwrap returns the decoding error (attributevalue's, for the errors it
// shares).
func (e *AttrError) Unwrap() error { return e.Err }

// attrError names attribute attr (field name) in err: an *AttrError of a
// nested struct's attribute gets the outer names in front.
func attrError(attr, name string, err error) error {
	if ae, ok := err.(*AttrError); ok {
		return &AttrError{Attr: attr + "." + ae.Attr, Field: name + "." + ae.Field, Err: ae.Err}
	}
	return &AttrError{Attr: attr, Field: name, Err: err}
}

// DecodeField decodes av into field f of the addressable struct v (or a
// pointer to it), allocating nil embedded pointers on the way.
func (p *Plan) DecodeField(av types.AttributeValue, f *Field, v reflect.Value) error {
	v, err := p.structValue(v)
	if err != nil {
		return err
	}
	fp, err := p.planOf(f)
	if err != nil {
		return err
	}
	fv, err := fp.decValue(v)
	if err != nil {
		return err
	}
	return fp.dec(av, fv)
}

// foldLookup finds the first field whose attribute name equals k under
// strings.EqualFold, as attributevalue's fallback lookup does.
func (p *Plan) foldLookup(k string) *fieldPlan {
	var buf [64]byte
	b := buf[:0]
	for _, r := range k {
		b = utf8.AppendRune(b, foldRune(r))
	}
	return p.byFold[string(b)]
}

// foldKey maps s to a key shared by exactly the strings equal to s under
// strings.EqualFold: every rune becomes the smallest rune of its simple
// case-folding orbit.
func foldKey(s string) string {
	b := make([]byte, 0, len(s))
	for _, r := range s {
		b = utf8.AppendRune(b, foldRune(r))
	}
	return string(b)
}

func foldRune(r rune) rune {
	if r < utf8.RuneSelf {
		if 'a' <= r && r <= 'z' {
			return r - ('a' - 'A')
		}
		return r
	}
	m := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		m = min(m, f)
	}
	return m
}

// Marshal encodes a struct or a pointer to a struct into an item, exactly
// as attributevalue.MarshalMap does. Other values are passed to
// attributevalue.MarshalMap.
func Marshal(v any) (map[string]types.AttributeValue, error) {
	rv := reflect.ValueOf(v)
	addr := false
	switch rv.Kind() {
	case reflect.Struct:
	case reflect.Pointer:
		if rv.IsNil() || rv.Type().Elem().Kind() != reflect.Struct {
			return attributevalue.MarshalMap(v)
		}
		rv, addr = rv.Elem(), true
	default:
		return attributevalue.MarshalMap(v)
	}
	t := rv.Type()
	if isTime(t) || t.Implements(marshalerType) || (addr && reflect.PointerTo(t).Implements(marshalerType)) {
		return attributevalue.MarshalMap(v)
	}
	p, err := PlanOf(t)
	if err != nil {
		return nil, err
	}
	m := make(map[string]types.AttributeValue, len(p.plans))
	a := newArena(p.sizes.get())
	_, err = p.encodeInto(rv, addr, m, a, false)
	p.sizes.remember(a)
	a.release()
	if err != nil {
		return map[string]types.AttributeValue{}, err
	}
	return m, nil
}

// Unmarshal decodes an item into the struct out points to, exactly as
// attributevalue.UnmarshalMap does. Other targets are passed to
// attributevalue.UnmarshalMap.
func Unmarshal(m map[string]types.AttributeValue, out any) error {
	rv := reflect.ValueOf(out)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Type().Elem().Kind() != reflect.Struct ||
		rv.Type().Implements(unmarshalerType) || isTime(rv.Type().Elem()) {
		return attributevalue.UnmarshalMap(m, out)
	}
	p, err := PlanOf(rv.Type().Elem())
	if err != nil {
		return err
	}
	return p.decodeFrom(m, rv.Elem())
}
