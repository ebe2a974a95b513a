package codec

import (
	"fmt"
	"reflect"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// valueEncs caches the encoders EncodeValue compiles, per type and tag.
var valueEncs sync.Map // codecKey -> encFn

// EncodeValue encodes v, a value of type t, exactly as a struct field of
// type t with tag tg is encoded (in an addressable struct): the way to
// encode a value for a nested field ("In.When"), a list element or a map
// value, whose type and tag the caller found by walking the struct types.
// It returns false when the tag omits the value (omitempty and friends).
func EncodeValue(t reflect.Type, tg Tag, v reflect.Value) (types.AttributeValue, bool, error) {
	return EncodeValueIn(t, tg, v, Room{})
}

// EncodeValueIn is EncodeValue with its values from room r.
func EncodeValueIn(t reflect.Type, tg Tag, v reflect.Value, r Room) (types.AttributeValue, bool, error) {
	if !v.IsValid() || v.Type() != t {
		return nil, false, fmt.Errorf("codec: EncodeValue of a %v as a %v", v, t)
	}
	k := codecKey{t, tg}
	enc, ok := valueEncs.Load(k)
	if !ok {
		buildMu.Lock()
		if enc, ok = valueEncs.Load(k); !ok {
			b := &builder{building: map[reflect.Type]*Plan{}, encs: map[codecKey]*encFn{}, decs: map[codecKey]*decFn{}}
			enc = b.encValue(t, tg)
			for typ, bp := range b.building {
				planCache.LoadOrStore(typ, bp)
			}
			valueEncs.Store(k, enc)
		}
		buildMu.Unlock()
	}
	if !v.CanAddr() {
		// Pointer-receiver Marshalers see addressable values only, as in
		// an addressable struct.
		c := reflect.New(t).Elem()
		c.Set(v)
		v = c
	}
	av, err := enc.(encFn)(v, true, r.a)
	if err != nil || av == nil {
		return nil, false, err
	}
	return av, true, nil
}

// Elem is the tag attributevalue applies to the elements of a list, set or
// map field tagged tg.
func (tg Tag) Elem() Tag { return elemTag(tg) }

// Stored is tg without the options that omit or null empty values: the
// encoding of a value that is given explicitly (a condition's operand).
func (tg Tag) Stored() Tag {
	tg.OmitEmpty, tg.NullEmpty = false, false
	return tg
}
