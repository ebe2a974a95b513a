package codec

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// wrapperType is struct{ V t `dynamodbav:"V,<options of tg>"` }: a value
// stored in its field V is encoded and decoded by attributevalue exactly as
// a field or element of type t with tag tg.
func wrapperType(t reflect.Type, tg Tag) reflect.Type {
	tag := "V"
	for _, o := range []struct {
		on   bool
		name string
	}{
		{tg.OmitEmpty, "omitempty"},
		{tg.OmitEmptyElem, "omitemptyelem"},
		{tg.NullEmpty, "nullempty"},
		{tg.NullEmptyElem, "nullemptyelem"},
		{tg.AsString, "string"},
		{tg.AsBinSet, "binaryset"},
		{tg.AsNumSet, "numberset"},
		{tg.AsStrSet, "stringset"},
		{tg.AsUnixTime, "unixtime"},
	} {
		if o.on {
			tag += "," + o.name
		}
	}
	return reflect.StructOf([]reflect.StructField{{
		Name: "V",
		Type: t,
		Tag:  reflect.StructTag(TagKey + `:"` + tag + `"`),
	}})
}

// fallbackEnc encodes values of type t with attributevalue itself, keeping
// the tag and the value's addressability. Panics of package reflect inside
// attributevalue become errors, as for fallbackDec.
func fallbackEnc(t reflect.Type, tg Tag) encFn {
	w := wrapperType(t, tg)
	return func(v reflect.Value, addr bool, _ *arena) (_ types.AttributeValue, err error) {
		defer recoverReflect(t, &err)
		p := reflect.New(w)
		p.Elem().Field(0).Set(v)
		in := p.Interface()
		if !addr {
			in = p.Elem().Interface() // a copy: not addressable
		}
		av, err := attributevalue.Marshal(in)
		if err != nil {
			return nil, err
		}
		m, ok := av.(*types.AttributeValueMemberM)
		if !ok {
			return nil, nil
		}
		return m.Value["V"], nil
	}
}

// fallbackDec decodes into values of type t with attributevalue itself,
// starting from the value's current content as attributevalue would.
//
// attributevalue panics on some inputs, e.g. a list decoded into an
// interface holding a non-pointer slice (it calls SetLen on the
// unaddressable value). Since attributevalue visits attributes in random
// map order it may report another attribute's error first, so such reflect
// panics are returned as errors here.
func fallbackDec(t reflect.Type, tg Tag) decFn {
	w := wrapperType(t, tg)
	return func(av types.AttributeValue, v reflect.Value) (err error) {
		defer recoverReflect(t, &err)
		p := reflect.New(w)
		p.Elem().Field(0).Set(v)
		err = attributevalue.Unmarshal(&types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"V": av}}, p.Interface())
		v.Set(p.Elem().Field(0))
		return err
	}
}

// recoverReflect turns a panic raised by package reflect inside
// attributevalue into an error.
func recoverReflect(t reflect.Type, err *error) {
	if r := recover(); r != nil {
		if !isReflectPanic(r) {
			panic(r)
		}
		*err = fmt.Errorf("codec: attributevalue failed on %s: %v", t, r)
	}
}

// isReflectPanic reports whether r was raised by package reflect for a
// misuse such as setting an unaddressable value.
func isReflectPanic(r any) bool {
	switch r := r.(type) {
	case *reflect.ValueError:
		return true
	case string:
		return strings.HasPrefix(r, "reflect")
	}
	return false
}
