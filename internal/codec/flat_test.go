package codec

import (
	"errors"
	"math"
	"reflect"
	"strconv"
	"testing"
	"unsafe"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// flatKinds has a field of every kind and tag a flat plan encodes.
type flatKinds struct {
	S     string
	SO    string `dynamodbav:",omitempty"`
	SN    string `dynamodbav:",nullempty"`
	B     bool
	BO    bool `dynamodbav:",omitempty"`
	BN    bool `dynamodbav:",nullempty"`
	I     int
	IO    int `dynamodbav:",omitempty"`
	IN    int `dynamodbav:",nullempty"`
	IS    int `dynamodbav:",string"`
	I8    int8
	I16   int16
	I32   int32
	I64   int64
	U     uint
	U8    uint8 `dynamodbav:",omitempty"`
	U16   uint16
	U32   uint32
	U64   uint64 `dynamodbav:",string"`
	F     float64
	FO    float64 `dynamodbav:",omitempty"`
	FS    float64 `dynamodbav:",string"`
	F32   float32
	Named myString
	Renam string `dynamodbav:"other_name"`
	Skip  string `dynamodbav:"-"`
}

type myString string

// TestFlatEncodingMatchesGeneral holds the flat encoding (encodeFlat) to
// the general one (encodeInto) over values of every kind it encodes:
// empty and omitted values, NULLs, the extremes of each integer width,
// floats DynamoDB refuses (which make the general path's error), strings
// that are not ASCII or not UTF-8 (late in a long string, too). Same
// items, same sizes, same errors.
func TestFlatEncodingMatchesGeneral(t *testing.T) {
	p, err := PlanOf(reflect.TypeFor[flatKinds]())
	if err != nil {
		t.Fatal(err)
	}
	if p.flat == nil {
		t.Fatal("flatKinds has a flat plan")
	}
	strs := []string{"", "a", "héllo", "0123456789abcdef", "0123456789abcdé", "abcdefgh\xff", "\xff", "日本語のテキスト", "ab#c%d"}
	floats := []float64{0, math.Copysign(0, -1), 1, -1, 0.1, 123.456, 1e20, 1e21, 1e-7, 1e125, 9.999e125, 1e126, 1e-130, 1e-131, 1e300,
		math.MaxFloat64, math.SmallestNonzeroFloat64, math.NaN(), math.Inf(1), math.Inf(-1), 100, -0.5, 1234567890123456789}
	ints := []int64{0, 1, -1, 10, 100, -100, 120, 1200000, math.MaxInt64, math.MinInt64, math.MaxInt32, math.MinInt8}
	var vs []flatKinds
	for i, s := range strs {
		vs = append(vs, flatKinds{S: s, SO: s, SN: s, Named: myString(s), Renam: s, B: i%2 == 0, BO: i%3 == 0, BN: i%2 == 1})
	}
	for _, f := range floats {
		vs = append(vs, flatKinds{S: "x", F: f, FO: f, FS: f, F32: float32(f)})
	}
	for _, x := range ints {
		vs = append(vs, flatKinds{I: int(x), IO: int(x), IN: int(x), IS: int(x), I8: int8(x), I16: int16(x), I32: int32(x), I64: x,
			U: uint(x), U8: uint8(x), U16: uint16(x), U32: uint32(x), U64: uint64(x)})
	}
	vs = append(vs, flatKinds{}, flatKinds{U64: math.MaxUint64, U: math.MaxUint64, F32: math.MaxFloat32})
	for i := range vs {
		v := reflect.ValueOf(&vs[i]).Elem()
		flat, general := map[string]types.AttributeValue{}, map[string]types.AttributeValue{}
		fsize, ok := p.encodeFlat(unsafe.Pointer(&vs[i]), flat, newArena(&sizes{}))
		gsize, gerr := p.encodeInto(v, true, general, newArena(&sizes{}), true)
		if !ok {
			if gerr == nil {
				t.Errorf("%+v: the flat encoding gave up on a value the general one encodes", vs[i])
			}
			continue
		}
		if gerr != nil {
			t.Errorf("%+v: flat encoded what the general encoding refuses (%v)", vs[i], gerr)
			continue
		}
		if fsize != gsize || !reflect.DeepEqual(flat, general) {
			t.Errorf("%+v:\nflat    %d %v\ngeneral %d %v", vs[i], fsize, flat, gsize, general)
		}
		// And EncodeItem, which takes the flat path, gives the same.
		item := map[string]types.AttributeValue{}
		isize, _, _, err := p.EncodeItem(v, item, 0, nil)
		if err != nil || isize != gsize || !reflect.DeepEqual(item, general) {
			t.Errorf("%+v: EncodeItem %d %v %v", vs[i], isize, err, item)
		}
	}
	// A refused value: EncodeItem's error is the general path's.
	bad := flatKinds{F: math.NaN()}
	_, gerr := p.encodeInto(reflect.ValueOf(&bad).Elem(), true, map[string]types.AttributeValue{}, nil, true)
	_, _, _, err = p.EncodeItem(reflect.ValueOf(&bad).Elem(), map[string]types.AttributeValue{}, 0, nil)
	var fe *FieldError
	if gerr == nil || err == nil || err.Error() != gerr.Error() || !errors.As(err, &fe) || fe.Field != "F" {
		t.Fatalf("NaN: %v, general %v", err, gerr)
	}
}

// TestFlatPlans: a plan is flat only when every field is a scalar of the
// struct itself, without marshalers or omitempty with nullempty.
func TestFlatPlans(t *testing.T) {
	type nested struct{ A string }
	type embedded struct{ nested }
	cases := []struct {
		v    any
		flat bool
	}{
		{struct{ A, B string }{}, true},
		{struct{ N nested }{}, false},
		{embedded{}, false},
		{struct{ P *string }{}, false},
		{struct{ L []string }{}, false},
		{struct {
			A string `dynamodbav:",omitempty,nullempty"`
		}{}, false},
		{mapMarshaler{}, false},
	}
	for _, c := range cases {
		p, err := PlanOf(reflect.TypeOf(c.v))
		if err != nil {
			t.Fatal(err)
		}
		if got := p.flat != nil; got != c.flat {
			t.Errorf("%T: flat %v, want %v", c.v, got, c.flat)
		}
	}
}

// TestNumberTextSize: the size and validity numberTextSize reads off
// formatted numbers are parseNumber's.
func TestNumberTextSize(t *testing.T) {
	var texts []string
	for _, f := range []float64{0, 1, -1, 0.5, 10, 100.25, -0.001, 1e20, 1e-20, 1e125, 1e126, 9.5e125, 1e-130, 1e-131, 1e-200, 1e300,
		123456789.123, math.NaN(), math.Inf(1), math.Inf(-1), 5e-324} {
		texts = append(texts, strconv.FormatFloat(f, 'f', -1, 64), strconv.FormatFloat(f, 'f', -1, 32))
	}
	for _, x := range []int64{0, 7, -7, 10, 100, 101, -1000, 12300, math.MaxInt64, math.MinInt64} {
		texts = append(texts, strconv.FormatInt(x, 10))
	}
	for _, text := range texts {
		size, ok := numberTextSize(text)
		n, err := parseNumber(text)
		if err == nil {
			err = n.check()
		}
		if ok != (err == nil) || ok && size != n.size() {
			t.Errorf("%s: size %d ok %v; parseNumber %d %v", text, size, ok, n.size(), err)
		}
	}
}
