package write

import (
	"fmt"
	"go/token"
	"reflect"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/codec"
	"github.com/singletable/singletable/internal/model"
)

// EncodeAt encodes v the way entity m stores the value at field path path
// ("Total", "In.When", "Items[0].At"), or at top-level field top when it
// is not nil (path is then its name), its values from room r (see
// codec.Room; the zero Room allocates each): a value of the type there (or
// convertible to it) goes through that field's own `dynamodbav` rules, at
// any depth, as Put encodes it. With element set, v may also be an element
// of a set or list (for Contains and set updates). A value the tag would
// omit is encoded as given (a condition on it compares with it). An
// AttributeValue passes as is. Either way the value must be one DynamoDB
// takes (codec.CheckedSize): the error names the field.
func EncodeAt(m *model.Entity, r codec.Room, top *codec.Field, path string, v any, element bool) (types.AttributeValue, error) {
	av, err := encodePath(m, r, top, path, v, element)
	if err != nil {
		return nil, err
	}
	if _, err := codec.CheckedSize(av); err != nil {
		return nil, fmt.Errorf("field %s: %w", path, err)
	}
	return av, nil
}

func encodePath(m *model.Entity, r codec.Room, top *codec.Field, path string, v any, element bool) (types.AttributeValue, error) {
	if av, ok := v.(types.AttributeValue); ok {
		return av, nil
	}
	t := PathTarget{Field: top}
	if top != nil {
		t.Type, t.Tag = top.Type, top.Tag
	} else {
		var err error
		if t, err = WalkPath(m, path, nil); err != nil {
			return nil, err
		}
	}
	rv := reflect.ValueOf(v)
	typ, tag := t.Type, t.Tag
	switch {
	case !rv.IsValid():
		return &types.AttributeValueMemberNULL{Value: true}, nil
	case typ == nil:
		return PlainValue(path, v)
	case rv.Type().AssignableTo(typ):
	case Convertible(rv, typ):
		rv = rv.Convert(typ)
	case PointsTo(rv, typ):
		rv = PointerTo(rv, typ)
	case element && elementOf(typ) != nil && (rv.Type().AssignableTo(elementOf(typ)) || Convertible(rv, elementOf(typ))):
		typ, tag = elementOf(typ), tag.Elem()
		if rv.Type() != typ && !rv.Type().AssignableTo(typ) {
			rv = rv.Convert(typ)
		}
	case element:
		return PlainValue(path, v)
	default:
		if target := DerefType(typ); IsNumberKind(rv.Kind()) && IsNumberKind(target.Kind()) {
			// A number of another type that does not convert without loss.
			return nil, fmt.Errorf("field %s is a %s, which cannot hold %v (a %T)", path, typ, v, v)
		}
		return nil, fmt.Errorf("field %s is a %s; got a %T", path, typ, v)
	}
	fv := rv // the value as the field holds it
	if fv.Type() != typ {
		fv = reflect.New(typ).Elem() // an interface field, or another named type
		fv.Set(rv)
	}
	if !t.Nested && typ == t.Field.Type {
		// A top-level field: its own compiled encoder, as Put uses.
		if !Settable(m, t.Field) {
			return nil, fmt.Errorf("field %s is promoted through an unexported embedded pointer and cannot be set", path)
		}
		av, ok, err := m.Plan.EncodeFieldValueIn(t.Field, fv, r)
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", path, err)
		}
		if ok {
			return av, nil
		}
	} else {
		av, ok, err := codec.EncodeValueIn(typ, tag, fv, r)
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", path, err)
		}
		if ok {
			return av, nil
		}
	}
	// Omitted as empty by the tag: encoded as given, still by the tag's
	// other rules (a `,string` zero is "0").
	av, ok, err := codec.EncodeValue(typ, tag.Stored(), fv)
	if err != nil {
		return nil, fmt.Errorf("field %s: %w", path, err)
	}
	if !ok {
		return &types.AttributeValueMemberNULL{Value: true}, nil
	}
	return av, nil
}

// elementOf is the element type of a list, set or map type; nil for others.
func elementOf(t reflect.Type) reflect.Type {
	switch t.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map:
		return t.Elem()
	}
	return nil
}

// Settable reports whether field f of a new struct value of entity m can
// be set: not when it is unexported (an embedded struct with a tag name)
// or promoted through a nil embedded pointer of an unexported type.
// Exported top-level fields, the usual case, are answered without a struct
// value to check.
func Settable(m *model.Entity, f *codec.Field) bool {
	if len(f.Index) == 1 && token.IsExported(f.GoName) {
		return true
	}
	_, ok := SettableField(reflect.New(m.Type).Elem(), f.Index)
	return ok
}

// SettableField returns the field at index of the addressable struct v,
// allocating embedded pointer structs on the way. It reports false when a
// nil embedded pointer cannot be set (its type is unexported).
func SettableField(v reflect.Value, index []int) (reflect.Value, bool) {
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

// FieldValue reads field f of struct value v: the zero value when f is
// promoted through a nil embedded pointer.
func FieldValue(f *codec.Field, v reflect.Value) reflect.Value {
	fv, err := v.FieldByIndexErr(f.Index)
	if err != nil {
		return reflect.Zero(f.Type)
	}
	return fv
}

// Convertible allows the conversions a caller means and that lose nothing:
// between numeric kinds when the value fits (an untyped 5 for an int64
// field; not 1.5 for an int), and between string kinds (a string for a
// named string type).
func Convertible(v reflect.Value, to reflect.Type) bool {
	from := v.Type()
	if from.Kind() == reflect.String && to.Kind() == reflect.String {
		return true
	}
	num := func(k reflect.Kind) bool { return k >= reflect.Int && k <= reflect.Float64 }
	if !num(from.Kind()) || !num(to.Kind()) || !v.CanConvert(to) {
		return false
	}
	back := v.Convert(to).Convert(from)
	return back.Equal(v)
}

// DerefType is t without its pointers.
func DerefType(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// PointsTo reports whether v is a value of what pointer type typ points
// to (or converts to it without loss): Set(5) and Increment(1) of an *int
// field.
func PointsTo(v reflect.Value, typ reflect.Type) bool {
	return typ.Kind() == reflect.Pointer && (v.Type().AssignableTo(typ.Elem()) || Convertible(v, typ.Elem()))
}

// PointerTo is a new pointer of type typ to v (see PointsTo).
func PointerTo(v reflect.Value, typ reflect.Type) reflect.Value {
	p := reflect.New(typ.Elem())
	p.Elem().Set(v.Convert(typ.Elem()))
	return p
}

// PlainValue encodes v plainly (attributevalue's rules), for a path where
// no Go type is known; the error names the path.
func PlainValue(path string, v any) (types.AttributeValue, error) {
	av, err := attributevalue.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("field %s: %w", path, err)
	}
	return av, nil
}

// IsNumberKind reports whether k is a Go number kind.
func IsNumberKind(k reflect.Kind) bool {
	return k >= reflect.Int && k <= reflect.Float64
}

// Nillable reports whether nil is a value of type t (stored as NULL).
func Nillable(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Map, reflect.Slice:
		return true
	}
	return false
}
