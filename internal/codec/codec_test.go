package codec

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// call runs f, turning a panic into a value so both sides can be compared.
func call[T any](f func() (T, error)) (out T, err error, panicked any) {
	defer func() {
		if r := recover(); r != nil {
			panicked = r
		}
	}()
	out, err = f()
	return out, err, nil
}

// checkMarshal compares Marshal with attributevalue.MarshalMap on v, which
// may be a struct value (fields not addressable) or a pointer.
func checkMarshal(t *testing.T, v any) {
	t.Helper()
	want, wantErr, wantPanic := call(func() (map[string]types.AttributeValue, error) { return attributevalue.MarshalMap(v) })
	if wantPanic != nil {
		t.Logf("attributevalue panics on %T: %v (not compared)", v, wantPanic)
		return
	}
	got, gotErr := Marshal(v)
	if (wantErr != nil) != (gotErr != nil) {
		t.Fatalf("Marshal(%T) error = %v, attributevalue error = %v\n got: %s\nwant: %s", v, gotErr, wantErr, formatItem(got), formatItem(want))
	}
	if wantErr != nil {
		return
	}
	if !reflect.DeepEqual(want, got) {
		t.Fatalf("Marshal(%T) differs from attributevalue\n got: %s\nwant: %s", v, formatItem(got), formatItem(want))
	}
}

// checkUnmarshal decodes item with both Unmarshal and
// attributevalue.UnmarshalMap into values made by newTarget (two separate
// but equal values) and compares the results.
func checkUnmarshal(t *testing.T, item map[string]types.AttributeValue, newTarget func() reflect.Value) {
	t.Helper()
	want := newTarget()
	_, wantErr, wantPanic := call(func() (struct{}, error) {
		return struct{}{}, attributevalue.UnmarshalMap(item, want.Interface())
	})
	if wantPanic != nil {
		t.Logf("attributevalue panics decoding into %s: %v (not compared)", want.Type(), wantPanic)
		return
	}
	got := newTarget()
	gotErr := Unmarshal(item, got.Interface())
	if (wantErr != nil) != (gotErr != nil) {
		t.Fatalf("Unmarshal into %s: error = %v, attributevalue error = %v\nitem: %s", got.Type(), gotErr, wantErr, formatItem(item))
	}
	if wantErr != nil {
		return
	}
	if !valuesEqual(want.Interface(), got.Interface()) {
		t.Fatalf("Unmarshal into %s differs from attributevalue\nitem: %s\n got: %#v\nwant: %#v", got.Type(), formatItem(item), got.Elem().Interface(), want.Elem().Interface())
	}
}

// checkBoth runs the differential checks on a struct value in both
// directions, addressable and not.
func checkBoth(t *testing.T, v any) {
	t.Helper()
	rv := reflect.ValueOf(v)
	ptr := reflect.New(rv.Type())
	ptr.Elem().Set(rv)
	checkMarshal(t, v)
	checkMarshal(t, ptr.Interface())
	item, err, p := call(func() (map[string]types.AttributeValue, error) { return attributevalue.MarshalMap(ptr.Interface()) })
	if err != nil || p != nil {
		return
	}
	checkUnmarshal(t, item, func() reflect.Value { return reflect.New(rv.Type()) })
}

func ptr[T any](v T) *T { return &v }

func TestDifferentialTable(t *testing.T) {
	s, empty := "x", ""
	ps := &s
	pe := &empty
	zero := 0
	pz := &zero
	cet := time.FixedZone("CET", 3600)
	when := time.Date(2023, 10, 1, 12, 30, 45, 123456000, cet)

	type scalars struct {
		S    string
		I    int
		I8   int8
		U16  uint16
		U64  uint64
		F32  float32
		F64  float64
		B    bool
		Name fzStatus
		Lvl  fzLevel
		Num  attributevalue.Number
		JN   json.Number
	}
	type tags struct {
		Renamed string                `dynamodbav:"renamed"`
		Omit    string                `dynamodbav:",omitempty"`
		OmitI   int                   `dynamodbav:",omitempty"`
		OmitF   float64               `dynamodbav:",omitempty"`
		OmitB   bool                  `dynamodbav:",omitempty"`
		NullS   string                `dynamodbav:",nullempty"`
		NullI   int                   `dynamodbav:",nullempty"`
		StrI    int                   `dynamodbav:",string"`
		StrF    float64               `dynamodbav:",string"`
		StrB    bool                  `dynamodbav:",string"`
		StrS    string                `dynamodbav:",string"`
		StrN    attributevalue.Number `dynamodbav:",string"`
		Ignored string                `dynamodbav:"-"`
		NoName  string                `dynamodbav:",omitempty,unknownopt"`
	}
	type times struct {
		T   time.Time
		U   time.Time `dynamodbav:",unixtime"`
		O   time.Time `dynamodbav:",omitempty"`
		P   *time.Time
		PU  *time.Time `dynamodbav:",unixtime"`
		M   fzTime
		MU  fzTime `dynamodbav:",unixtime"`
		L   []time.Time
		Map map[string]time.Time
	}
	type ptrs struct {
		PS   *string
		PE   *string `dynamodbav:",omitempty"`
		PN   *string `dynamodbav:",nullempty"`
		PI   *int    `dynamodbav:",omitempty"`
		PPS  **string
		PPE  **string `dynamodbav:",omitempty"`
		PPN  **string `dynamodbav:",omitempty,omitemptyelem"`
		PL   *[]string
		PM   *map[string]int
		PLf  *fzLeaf
		PAny *any
	}
	type colls struct {
		Strs  []string
		Ints  []int
		Bytes []byte
		Blob  fzBlob
		Arr   [4]byte
		Arr0  [0]string
		BS    [][]byte
		SS    []string  `dynamodbav:",stringset"`
		NS    []float32 `dynamodbav:",numberset"`
		BST   []fzBlob  `dynamodbav:",binaryset"`
		L2    [][]string
		E     []string `dynamodbav:",omitemptyelem"`
		N     []string `dynamodbav:",nullemptyelem"`
		M     map[string]string
		ME    map[string]string `dynamodbav:",omitemptyelem"`
		MN    map[string]string `dynamodbav:",nullemptyelem"`
		MM    map[string]map[string]int
		MK    map[fzStatus]int
		Arr2  [2]fzLeaf
	}
	type fallbacks struct {
		Any    any
		AnyM   map[string]any
		AnyL   []any
		IntK   map[int]string
		FltK   map[float64]int
		BoolK  map[bool]int
		TextK  map[fzTextKey]string
		StrK   map[fzStringer]string
		C      complex128
		UP     uintptr
		Ch     chan int
		F      func()
		TextV  fzTextVal
		Reader fmt.Stringer
	}

	cases := []struct {
		name string
		v    any
	}{
		{"scalars zero", scalars{}},
		{"scalars", scalars{S: "s", I: -5, I8: -128, U16: 65535, U64: math.MaxUint64, F32: 1.1, F64: 1e21, B: true, Name: "n", Lvl: 3, Num: "12.5", JN: "7"}},
		{"scalars special floats", scalars{F32: float32(math.Inf(1)), F64: math.NaN()}},
		{"scalars tiny floats", scalars{F32: math.SmallestNonzeroFloat32, F64: -math.SmallestNonzeroFloat64}},
		{"tags zero", tags{}},
		{"tags set", tags{Renamed: "r", Omit: "o", OmitI: 1, OmitF: 0.5, OmitB: true, NullS: "n", NullI: 2, StrI: 3, StrF: 4.5, StrB: true, StrS: "s", StrN: "9", Ignored: "i", NoName: "nn"}},
		{"times zero", times{}},
		{"times", times{T: when, U: when, O: when, P: &when, PU: &when, M: fzTime(when), MU: fzTime(when), L: []time.Time{when, {}}, Map: map[string]time.Time{"a": when}}},
		{"times utc", times{T: when.UTC(), P: ptr(time.Unix(0, 1).UTC())}},
		{"ptrs nil", ptrs{}},
		{"ptrs empty", ptrs{PS: pe, PE: pe, PN: pe, PI: pz, PPS: &pe, PPE: &pe, PPN: new(*string), PL: &[]string{}, PM: &map[string]int{}, PLf: &fzLeaf{}, PAny: new(any)}},
		{"ptrs nil inner", ptrs{PPS: new(*string), PPE: new(*string), PL: new([]string), PM: new(map[string]int)}},
		{"ptrs set", ptrs{PS: ps, PE: ps, PN: ps, PPS: &ps, PLf: &fzLeaf{A: "a", Next: &fzLeaf{B: 2}}, PAny: ptr[any]("x")}},
		{"colls nil", colls{}},
		{"colls empty", colls{Strs: []string{}, Ints: []int{}, Bytes: []byte{}, Blob: fzBlob{}, BS: [][]byte{}, SS: []string{}, NS: []float32{}, BST: []fzBlob{}, L2: [][]string{}, E: []string{}, N: []string{}, M: map[string]string{}, ME: map[string]string{}, MN: map[string]string{}, MM: map[string]map[string]int{}, MK: map[fzStatus]int{}}},
		{"colls set", colls{
			Strs: []string{"a", "", "b"}, Ints: []int{1, 0, -1}, Bytes: []byte("hi"), Blob: fzBlob{0}, Arr: [4]byte{1, 2, 3, 4},
			BS: [][]byte{[]byte("a"), {}}, SS: []string{"x", ""}, NS: []float32{1.5, 0}, BST: []fzBlob{{1}, {}},
			L2: [][]string{nil, {}, {"z"}}, E: []string{"", "e", ""}, N: []string{"", "n"},
			M: map[string]string{"a": "", "b": "x"}, ME: map[string]string{"a": "", "b": "x"}, MN: map[string]string{"a": "", "b": "x"},
			MM: map[string]map[string]int{"o": {"i": 1}, "n": nil}, MK: map[fzStatus]int{"k": 0},
			Arr2: [2]fzLeaf{{A: "x"}, {}},
		}},
		{"fallbacks zero", fallbacks{}},
		{"fallbacks set", fallbacks{
			Any: map[string]any{"a": []any{1.0, "x", nil}}, AnyM: map[string]any{"n": 1, "s": "s", "nil": nil, "p": ps},
			AnyL: []any{nil, "", 0, []byte{}, ptr(2)}, IntK: map[int]string{1: "a", -2: "b"}, FltK: map[float64]int{1.5: 1, 1e21: 2},
			BoolK: map[bool]int{true: 1}, TextK: map[fzTextKey]string{"a": "b"}, StrK: map[fzStringer]string{"a": "b"},
			C: 1 + 2i, UP: 7, Ch: make(chan int), F: func() {}, TextV: fzTextVal{V: "v"},
		}},
		{"fallbacks any scalars", fallbacks{Any: "", AnyM: map[string]any{"e": ""}}},
		{"custom zero", struct {
			C  fzCustom
			CP *fzCustom
			P  fzPtrCustom
			PP *fzPtrCustom
			PL []fzPtrCustom
			PM map[string]fzPtrCustom
			SS []fzCustom `dynamodbav:",stringset"`
		}{}},
		{"custom set", struct {
			C  fzCustom
			CP *fzCustom
			P  fzPtrCustom
			PP *fzPtrCustom
			PL []fzPtrCustom
			PM map[string]fzPtrCustom
			SS []fzCustom `dynamodbav:",stringset"`
		}{C: fzCustom{3}, CP: &fzCustom{4}, P: fzPtrCustom{5}, PP: &fzPtrCustom{6}, PL: []fzPtrCustom{{7}}, PM: map[string]fzPtrCustom{"k": {8}}, SS: []fzCustom{{1}, {2}}}},
		{"custom error", struct{ C fzCustom }{fzCustom{13}}},
		{"omitempty and nullempty", struct {
			S string `dynamodbav:",omitempty,nullempty"`
		}{}},
		{"omitempty and nullempty set", struct {
			S string `dynamodbav:",omitempty,nullempty"`
		}{"x"}},
		{"number set of strings", struct {
			S []string `dynamodbav:",numberset"`
		}{[]string{"1"}}},
		{"number set of Numbers", struct {
			S []attributevalue.Number `dynamodbav:",numberset"`
		}{[]attributevalue.Number{"1", "2.5"}}},
		{"string set of ints", struct {
			S []int `dynamodbav:",stringset"`
		}{[]int{1}}},
		{"string set with nil", struct {
			S []*string `dynamodbav:",stringset"`
		}{[]*string{nil}}},
		{"string set omitting nil", struct {
			S []*string `dynamodbav:",stringset,omitemptyelem"`
		}{[]*string{nil, ps}}},
		{"string set all omitted", struct {
			S []*string `dynamodbav:",stringset,omitemptyelem"`
		}{[]*string{nil}}},
		{"binary set with nil", struct{ B [][]byte }{[][]byte{nil}}},
		{"empty map key", struct{ M map[string]int }{map[string]int{"": 1}}},
		{"empty text map key", struct{ M map[fzTextKey]int }{map[fzTextKey]int{"": 1}}},
		{"all", fzAll{}},
		{"UnixTime", struct {
			U  attributevalue.UnixTime
			UP *attributevalue.UnixTime
			UL []attributevalue.UnixTime
		}{attributevalue.UnixTime(when), ptr(attributevalue.UnixTime(when)), []attributevalue.UnixTime{{}}}},
		{"time as string", struct {
			T time.Time `dynamodbav:",string"`
		}{when}},
		{"embedded", struct {
			fzEmbedded
			*FzEmbPtr
		}{fzEmbedded{EmbS: "e", Shadow: "s", Conf: "c", Win: "w"}, &FzEmbPtr{EPS: ps, Shadow: 1, Conf: 2, Tagged: "t"}}},
		{"embedded nil ptr", struct {
			fzEmbedded
			*FzEmbPtr
		}{}},
		{"hidden tagged embedded", struct {
			fzHidden `dynamodbav:"h"`
		}{fzHidden{"x"}}},
		{"recursive", fzLeaf{A: "a", Next: &fzLeaf{A: "b", Next: &fzLeaf{}}}},
		{"bench item", newBenchItem()},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkBoth(t, c.v) })
	}
}

func TestDifferentialDecodeTable(t *testing.T) {
	every := sampleAVs()
	targets := map[string]func() reflect.Value{
		"all zero": func() reflect.Value { return reflect.New(reflect.TypeFor[fzAll]()) },
		"all filled": func() reflect.Value {
			v := reflect.New(reflect.TypeFor[fzAll]())
			g := &gen{data: []byte("some fixed bytes to fill a value with, again and again and again......")}
			g.fill(v.Elem(), 0)
			return v
		},
	}
	fields, err := FieldsOf(reflect.TypeFor[fzAll]())
	require.NoError(t, err)
	for name, target := range targets {
		for _, f := range fields.List {
			for i, av := range every {
				item := map[string]types.AttributeValue{f.Attr: av}
				t.Run(fmt.Sprintf("%s/%s/%d", name, f.Attr, i), func(t *testing.T) {
					checkUnmarshal(t, item, target)
				})
			}
		}
	}

	// Attribute names match case-insensitively when nothing matches exactly.
	type folded struct {
		Name   string
		Kelvin string `dynamodbav:"k"`
		Long   string `dynamodbav:"s"`
		Exact  string `dynamodbav:"name"`
	}
	S := func(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }
	for _, item := range []map[string]types.AttributeValue{
		{"NAME": S("upper")},
		{"name": S("exact"), "NAME": S("upper")},
		{"K": S("k upper"), "\u017f": S("long s")},
		{"\u212a": &types.AttributeValueMemberS{Value: "kelvin"}},
		{"unknown": S("x"), "Nam": S("y")},
	} {
		checkUnmarshal(t, item, func() reflect.Value { return reflect.New(reflect.TypeFor[folded]()) })
	}
}

func TestUnmarshalTargets(t *testing.T) {
	item := map[string]types.AttributeValue{"A": &types.AttributeValueMemberS{Value: "a"}}
	var leaf fzLeaf
	assert.Error(t, Unmarshal(item, leaf))
	assert.Error(t, Unmarshal(item, (*fzLeaf)(nil)))
	assert.Error(t, Unmarshal(item, nil))
	require.NoError(t, Unmarshal(item, &leaf))
	assert.Equal(t, "a", leaf.A)

	var m map[string]any
	require.NoError(t, Unmarshal(item, &m))
	assert.Equal(t, map[string]any{"A": "a"}, m)

	var c fzCustom
	require.NoError(t, Unmarshal(item, &c))
	assert.Equal(t, 2001, c.X)

	var tm time.Time
	require.NoError(t, Unmarshal(item, &tm))
	assert.True(t, tm.IsZero())
}

func TestMarshalNonStructs(t *testing.T) {
	for _, v := range []any{nil, (*fzLeaf)(nil), map[string]int{"a": 1}, 5, "x", time.Now(), fzCustom{3}, &fzCustom{4}, &fzPtrCustom{5}, fzPtrCustom{6}} {
		checkMarshal(t, v)
	}
}

func TestPlanAPI(t *testing.T) {
	_, err := PlanOf(reflect.TypeFor[int]())
	assert.Error(t, err)
	_, err = PlanOf(nil)
	assert.Error(t, err)

	p, err := PlanOf(reflect.TypeFor[benchItem]())
	require.NoError(t, err)
	p2, err := PlanOf(reflect.TypeFor[benchItem]())
	require.NoError(t, err)
	assert.Same(t, p, p2)
	assert.Len(t, p.Fields().List, 9)

	item := newBenchItem()
	dst := map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "pk"}}
	size, err := p.Encode(reflect.ValueOf(item), dst)
	require.NoError(t, err)
	want, err := attributevalue.MarshalMap(item)
	require.NoError(t, err)
	want["PK"] = &types.AttributeValueMemberS{Value: "pk"}
	assert.Equal(t, want, dst)
	wantSize := 0
	for k, av := range dst {
		if k != "PK" {
			wantSize += len(k) + Size(av)
		}
	}
	assert.Equal(t, wantSize, size, "the size of what Encode wrote")
	_, err = p.Encode(reflect.ValueOf(fzLeaf{}), dst)
	assert.Error(t, err)

	f, ok := p.Fields().ByGoName("ParentID")
	require.True(t, ok)
	av, ok, err := p.EncodeField(reflect.ValueOf(&item), f)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, &types.AttributeValueMemberS{Value: "order#2024-0001"}, av)
	item.ParentID = nil
	_, ok, err = p.EncodeField(reflect.ValueOf(item), f)
	require.NoError(t, err)
	assert.False(t, ok, "omitempty nil pointer is omitted")

	copied := *f
	_, ok, err = p.EncodeField(reflect.ValueOf(item), &copied)
	require.NoError(t, err)
	assert.False(t, ok)
	_, _, err = p.EncodeField(reflect.ValueOf(item), &Field{Attr: "nope"})
	assert.Error(t, err)

	var out benchItem
	require.NoError(t, p.DecodeField(&types.AttributeValueMemberS{Value: "p"}, f, reflect.ValueOf(&out)))
	require.NotNil(t, out.ParentID)
	assert.Equal(t, "p", *out.ParentID)
	assert.Error(t, p.DecodeField(&types.AttributeValueMemberBOOL{Value: true}, f, reflect.ValueOf(&out)))

	require.NoError(t, p.Decode(dst, reflect.ValueOf(&out)))
	assert.Equal(t, newBenchItem().Name, out.Name)
	assert.Error(t, p.Decode(dst, reflect.ValueOf(out)), "not addressable")

	// Promoted through a nil embedded pointer: not stored, allocated on decode.
	type outer struct {
		*FzEmbPtr
		Own string
	}
	po, err := PlanOf(reflect.TypeFor[outer]())
	require.NoError(t, err)
	fe, ok := po.Fields().ByGoName("EPS")
	require.True(t, ok)
	_, ok, err = po.EncodeField(reflect.ValueOf(outer{}), fe)
	require.NoError(t, err)
	assert.False(t, ok)
	var o outer
	require.NoError(t, po.DecodeField(&types.AttributeValueMemberS{Value: "e"}, fe, reflect.ValueOf(&o)))
	require.NotNil(t, o.FzEmbPtr)
	assert.Equal(t, "e", *o.EPS)
}

// TestUnexportedEmbeddedPointer: attributevalue panics setting a nil
// unexported embedded pointer; the codec reports an error instead.
func TestUnexportedEmbeddedPointer(t *testing.T) {
	type hiddenPtr struct {
		*fzHidden
	}
	item := map[string]types.AttributeValue{"H": &types.AttributeValueMemberS{Value: "h"}}
	var v hiddenPtr
	assert.Error(t, Unmarshal(item, &v))
	v.fzHidden = &fzHidden{}
	require.NoError(t, Unmarshal(item, &v))
	assert.Equal(t, "h", v.H)
	checkMarshal(t, v)
	checkMarshal(t, hiddenPtr{})
}

func TestRecursivePlanConcurrent(t *testing.T) {
	type node struct {
		Name     string
		Children []node
		Parent   *node
		Index    map[string]*node
	}
	done := make(chan struct{})
	for i := 0; i < 8; i++ {
		go func() {
			defer func() { done <- struct{}{} }()
			n := node{Name: "root", Children: []node{{Name: "c"}}, Index: map[string]*node{"x": {Name: "x"}}}
			m, err := Marshal(n)
			if err != nil {
				t.Error(err)
				return
			}
			want, _ := attributevalue.MarshalMap(n)
			if !reflect.DeepEqual(m, want) {
				t.Errorf("got %s want %s", formatItem(m), formatItem(want))
			}
		}()
	}
	for i := 0; i < 8; i++ {
		<-done
	}
}

// sampleAVs is a pool of attribute values of every type, including ones
// that do not fit the fields they are decoded into.
func sampleAVs() []types.AttributeValue {
	S := func(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }
	N := func(s string) types.AttributeValue { return &types.AttributeValueMemberN{Value: s} }
	B := func(b []byte) types.AttributeValue { return &types.AttributeValueMemberB{Value: b} }
	BOOL := func(b bool) types.AttributeValue { return &types.AttributeValueMemberBOOL{Value: b} }
	NULL := &types.AttributeValueMemberNULL{Value: true}
	L := func(l ...types.AttributeValue) types.AttributeValue { return &types.AttributeValueMemberL{Value: l} }
	M := func(m map[string]types.AttributeValue) types.AttributeValue {
		return &types.AttributeValueMemberM{Value: m}
	}
	SS := func(s ...string) types.AttributeValue { return &types.AttributeValueMemberSS{Value: s} }
	NS := func(s ...string) types.AttributeValue { return &types.AttributeValueMemberNS{Value: s} }
	BS := func(b ...[]byte) types.AttributeValue { return &types.AttributeValueMemberBS{Value: b} }

	return []types.AttributeValue{
		nil, NULL, &types.AttributeValueMemberNULL{}, S(""), S("x"), S("12"), S("-3"), S("2024-01-02T03:04:05.5+02:00"), S("2024-01-02T03:04:05Z"), S("c7"), S("t-key"),
		N("0"), N("12"), N("-12"), N("1.5"), N("1e3"), N("300"), N("-129"), N("18446744073709551616"), N("1e39"), N("NaN"), N("+Inf"), N("x"), N("1700000000"),
		B(nil), B([]byte{}), B([]byte("abc")), BOOL(true), BOOL(false),
		L(), L(S("a"), NULL, N("1")), L(S("a"), S("b")), L(N("1"), N("2")), L(L(S("x"))),
		M(nil), M(map[string]types.AttributeValue{}), M(map[string]types.AttributeValue{"A": S("a"), "b": N("2"), "X": N("4"), "k": S("v")}),
		M(map[string]types.AttributeValue{"a": S("lower"), "T": N("5")}),
		SS(), SS("a", "b"), SS("c1", "c2"), SS("1", "2"), NS(), NS("1", "2.5"), NS("1", "x"), NS("300"), BS(), BS([]byte("a"), nil),
		&types.UnknownUnionMember{Tag: "X"},
	}
}

// TestFallbackPanicsBecomeErrors: attributevalue panics decoding a list
// into an interface holding a slice value; the codec returns an error.
func TestFallbackPanicsBecomeErrors(t *testing.T) {
	type holder struct{ Any any }
	item := map[string]types.AttributeValue{"Any": &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberS{Value: "a"}}}}
	h := holder{Any: []string{"x"}}
	assert.Panics(t, func() { _ = attributevalue.UnmarshalMap(item, &holder{Any: []string{"x"}}) })
	assert.Error(t, Unmarshal(item, &h))
}

type recTree map[string]recTree
type recList []recList

func TestRecursiveNonStructTypes(t *testing.T) {
	type holder struct {
		Tree recTree
		List recList
		Ptr  *recList
	}
	h := holder{
		Tree: recTree{"a": {"b": nil, "c": {}}},
		List: recList{nil, {}, {{}}},
		Ptr:  &recList{{nil}},
	}
	checkBoth(t, h)
	checkBoth(t, holder{})
}

type myByte uint8

// TestDeviationsWherePanics documents inputs on which attributevalue
// panics and the codec does something sensible instead.
func TestDeviationsWherePanics(t *testing.T) {
	// Bytes of a named uint8 type: attributevalue's reflect.Copy panics.
	type named struct{ B []myByte }
	v := named{B: []myByte{1, 2}}
	assert.Panics(t, func() { _, _ = attributevalue.MarshalMap(v) })
	m, err := Marshal(v)
	require.NoError(t, err)
	assert.Equal(t, &types.AttributeValueMemberB{Value: []byte{1, 2}}, m["B"])
	var back named
	require.NoError(t, Unmarshal(m, &back))
	assert.Equal(t, v, back)

	// B of the wrong length into a byte array: SetLen on an array.
	type arr struct{ A [4]byte }
	item := map[string]types.AttributeValue{"A": &types.AttributeValueMemberB{Value: []byte{1}}}
	assert.Panics(t, func() { _ = attributevalue.UnmarshalMap(item, &arr{}) })
	assert.Error(t, Unmarshal(item, &arr{}))

	// An unexported embedded non-struct: reflect refuses to read it.
	type hidden struct {
		fHiddenScalar
		V int
	}
	h := hidden{fHiddenScalar: "x", V: 1}
	assert.Panics(t, func() { _, _ = attributevalue.MarshalMap(h) })
	m, err = Marshal(h)
	require.NoError(t, err)
	assert.Equal(t, map[string]types.AttributeValue{"V": &types.AttributeValueMemberN{Value: "1"}}, m)
}

func TestExactAttributeNameWins(t *testing.T) {
	type item struct{ Name string }
	for i := 0; i < 20; i++ { // map order varies
		var v item
		require.NoError(t, Unmarshal(map[string]types.AttributeValue{
			"Name": &types.AttributeValueMemberS{Value: "exact"},
			"NAME": &types.AttributeValueMemberS{Value: "upper"},
			"name": &types.AttributeValueMemberS{Value: "lower"},
		}, &v))
		assert.Equal(t, "exact", v.Name)
	}
	var v item
	require.NoError(t, Unmarshal(map[string]types.AttributeValue{"nAmE": &types.AttributeValueMemberS{Value: "folded"}}, &v))
	assert.Equal(t, "folded", v.Name)
}

func TestHandMarshalMatches(t *testing.T) {
	it := newBenchItem()
	want, err := attributevalue.MarshalMap(it)
	require.NoError(t, err)
	assert.Equal(t, want, handMarshal(&it))
}

// embPtrHolder embeds struct pointers with tag names: stored as map
// attributes, and listed with their Field.Type resolved to the struct.
type embPtrHolder struct {
	*fzLeaf   `dynamodbav:"leaf"`
	*FzEmbPtr `dynamodbav:"emb"`
	N         int
}

// TestEncodeFieldValueEmbeddedPointer: EncodeFieldValue of a value of
// Field.Type for an embedded pointer field encodes it as the field pointing
// to that value does in attributevalue's item.
func TestEncodeFieldValueEmbeddedPointer(t *testing.T) {
	p, err := PlanOf(reflect.TypeFor[embPtrHolder]())
	require.NoError(t, err)
	leaf := fzLeaf{A: "a", B: 2}
	emb := FzEmbPtr{Conf: 3, Deep: fzLeaf{Next: &leaf}}
	want, err := attributevalue.MarshalMap(embPtrHolder{fzLeaf: &leaf, FzEmbPtr: &emb})
	require.NoError(t, err)
	for attr, v := range map[string]any{"leaf": leaf, "emb": emb} {
		f, ok := p.Fields().ByAttr(attr)
		require.True(t, ok, attr)
		require.Equal(t, reflect.TypeOf(v), f.Type, attr)
		av, ok, err := p.EncodeFieldValue(f, reflect.ValueOf(v))
		require.NoError(t, err, attr)
		require.True(t, ok, attr)
		assert.Equal(t, formatAV(want[attr]), formatAV(av), attr)
	}
}

// mapMarshaler marshals itself as a map holding its K under "k".
type mapMarshaler struct{ K string }

func (m mapMarshaler) MarshalDynamoDBAttributeValue() (types.AttributeValue, error) {
	return &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"k": &types.AttributeValueMemberS{Value: m.K}}}, nil
}

func (m *mapMarshaler) UnmarshalDynamoDBAttributeValue(av types.AttributeValue) error {
	m.K = fmt.Sprintf("unmarshaled %d attributes", len(av.(*types.AttributeValueMemberM).Value))
	return nil
}

// embedsMarshaler is a Marshaler and (through a pointer) an Unmarshaler
// by promotion from its embedded field.
type embedsMarshaler struct {
	mapMarshaler
	N int
}

// embedsPtrMarshaler is a Marshaler only through a pointer (fzPtrCustom's
// methods have pointer receivers).
type embedsPtrMarshaler struct {
	fzPtrCustom
	N int
}

// TestPlanOfMarshalerStruct: Plan.Encode and Plan.Decode of a struct type
// that is itself a Marshaler or Unmarshaler (here by promotion from an
// embedded field) use its methods, as MarshalMap and UnmarshalMap do.
func TestPlanOfMarshalerStruct(t *testing.T) {
	for _, v := range []any{
		embedsMarshaler{mapMarshaler{"x"}, 1},
		embedsPtrMarshaler{fzPtrCustom{2}, 3},
		fzCustom{4},  // marshals as S: MarshalMap gives an empty map
		fzCustom{0},  // no value: MarshalMap stores the fields
		fzCustom{13}, // an error
	} {
		rv := reflect.ValueOf(v)
		p, err := PlanOf(rv.Type())
		require.NoError(t, err)
		pv := reflect.New(rv.Type())
		pv.Elem().Set(rv)
		for _, in := range []reflect.Value{rv, pv} {
			want, wantErr := attributevalue.MarshalMap(in.Interface())
			got := map[string]types.AttributeValue{}
			size, err := p.Encode(in, got)
			require.Equal(t, wantErr != nil, err != nil, "%T: error %v, attributevalue's %v", in.Interface(), err, wantErr)
			if wantErr != nil {
				continue
			}
			require.Equal(t, formatItem(want), formatItem(got), "%T", in.Interface())
			wantSize := 0
			for k, av := range want {
				wantSize += len(k) + Size(av)
			}
			assert.Equal(t, wantSize, size)
		}

		item := map[string]types.AttributeValue{"k": &types.AttributeValueMemberS{Value: "y"}, "N": &types.AttributeValueMemberN{Value: "5"}}
		want := reflect.New(rv.Type())
		wantErr := attributevalue.UnmarshalMap(item, want.Interface())
		got := reflect.New(rv.Type())
		err = p.Decode(item, got)
		require.Equal(t, wantErr != nil, err != nil, "decoding %T: error %v, attributevalue's %v", v, err, wantErr)
		assert.Equal(t, want.Interface(), got.Interface())
	}
}
