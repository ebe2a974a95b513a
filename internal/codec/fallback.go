package codec

import (
	"reflect"

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
// the tag and the value's addressability.
func fallbackEnc(t reflect.Type, tg Tag) encFn {
	w := wrapperType(t, tg)
	return func(v reflect.Value, addr bool) (types.AttributeValue, error) {
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
func fallbackDec(t reflect.Type, tg Tag) decFn {
	w := wrapperType(t, tg)
	return func(av types.AttributeValue, v reflect.Value) error {
		p := reflect.New(w)
		p.Elem().Field(0).Set(v)
		err := attributevalue.Unmarshal(&types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"V": av}}, p.Interface())
		v.Set(p.Elem().Field(0))
		return err
	}
}
