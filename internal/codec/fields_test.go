package codec

import (
	"reflect"
	"sort"
	"testing"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseTag(t *testing.T) {
	cases := map[string]Tag{
		"":                          {},
		"name":                      {Name: "name"},
		"-":                         {Ignore: true},
		"-,omitempty":               {Ignore: true, OmitEmpty: true},
		",omitempty":                {OmitEmpty: true},
		"n,omitempty,omitemptyelem": {Name: "n", OmitEmpty: true, OmitEmptyElem: true},
		",nullempty,nullemptyelem":  {NullEmpty: true, NullEmptyElem: true},
		",string":                   {AsString: true},
		",stringset":                {AsStrSet: true},
		",numberset":                {AsNumSet: true},
		",binaryset":                {AsBinSet: true},
		",unixtime":                 {AsUnixTime: true},
		"x,bogus,omitempty":         {Name: "x", OmitEmpty: true},
	}
	for in, want := range cases {
		got := ParseTag(in)
		assert.Equal(t, want, got, "tag %q", in)
	}
}

type Color string

type fInner struct {
	A      string
	B      string `dynamodbav:"bee"`
	Shadow string
	Twin   string
	TagWin string
	Both   string `dynamodbav:"both"`
}

type FOther struct {
	Twin   string // same depth as fInner.Twin: both dropped
	Win    string `dynamodbav:"TagWin"` // tagged beats fInner.TagWin
	Both   string `dynamodbav:"both"`   // two tagged at one depth: dropped
	Deeper fDeep
}

type fDeep struct {
	Z string
}

type fLeaf struct{ L string }
type fMid1 struct{ fLeaf }
type fMid2 struct{ fLeaf }

type fTagged struct{ T string }

type fRec struct {
	*fRec
	R string
}

type fOuter struct {
	fInner
	*FOther
	fDeep                       // promoted Z
	Named   fDeep               `dynamodbav:"named"` // not embedded: a map attribute
	fTagged `dynamodbav:"leaf"` // unexported embedded, tagged: kept as a field
	Color                       // exported embedded non-struct: a field
	fMid1                       // fMid1 and fMid2 both embed fLeaf: L is ambiguous
	fMid2
	Shadow  string // shadows fInner.Shadow
	Ptr     *string
	Ignored string `dynamodbav:"-"`
	private string
}

type fHiddenScalar string

type fWithHidden struct {
	fHiddenScalar // unexported embedded non-struct: attributevalue panics on it
	V             int
}

func attrs(fs *Fields) []string {
	var out []string
	for _, f := range fs.List {
		out = append(out, f.Attr)
	}
	return out
}

func TestFieldsOf(t *testing.T) {
	fs, err := FieldsOf(reflect.TypeFor[fOuter]())
	require.NoError(t, err)
	assert.Equal(t, []string{"A", "bee", "TagWin", "Deeper", "Z", "named", "leaf", "Color", "Shadow", "Ptr"}, attrs(fs))

	get := func(name string) *Field {
		f, ok := fs.ByAttr(name)
		require.True(t, ok, name)
		return f
	}
	assert.Equal(t, []int{0, 0}, get("A").Index)
	assert.Equal(t, "B", get("bee").GoName)
	assert.Equal(t, []int{1, 1}, get("TagWin").Index, "tagged field wins")
	assert.Equal(t, "Win", get("TagWin").GoName)
	assert.Equal(t, []int{2, 0}, get("Z").Index, "promoted from fDeep")
	assert.Equal(t, reflect.TypeFor[fDeep](), get("named").Type)
	assert.Equal(t, reflect.TypeFor[fTagged](), get("leaf").Type)
	assert.Equal(t, []int{1, 3}, get("Deeper").Index)
	assert.Equal(t, reflect.TypeFor[Color](), get("Color").Type)
	assert.Equal(t, []int{8}, get("Shadow").Index)
	assert.Equal(t, reflect.TypeFor[*string](), get("Ptr").Type, "Type is the field's own type")
	assert.Equal(t, reflect.StructTag(`dynamodbav:"named"`), get("named").Extra)
	assert.Equal(t, Tag{Name: "bee"}, get("bee").Tag)

	f, ok := fs.ByGoName("Win")
	require.True(t, ok)
	assert.Equal(t, "TagWin", f.Attr)
	_, ok = fs.ByGoName("Twin")
	assert.False(t, ok, "ambiguous at the same depth")
	_, ok = fs.ByAttr("both")
	assert.False(t, ok, "two tagged at the same depth")
	_, ok = fs.ByAttr("L")
	assert.False(t, ok, "same type embedded twice at one depth")
	_, ok = fs.ByAttr("Ignored")
	assert.False(t, ok)
	_, ok = fs.ByAttr("private")
	assert.False(t, ok)

	fs2, err := FieldsOf(reflect.TypeFor[fOuter]())
	require.NoError(t, err)
	assert.Same(t, fs, fs2, "cached")

	_, err = FieldsOf(reflect.TypeFor[*fOuter]())
	assert.Error(t, err)

	rec, err := FieldsOf(reflect.TypeFor[fRec]())
	require.NoError(t, err)
	assert.Equal(t, []string{"R"}, attrs(rec))

	hidden, err := FieldsOf(reflect.TypeFor[fWithHidden]())
	require.NoError(t, err)
	assert.Equal(t, []string{"V"}, attrs(hidden))
}

// TestFieldsMatchAttributevalue fills every field with a non-empty value
// and checks that attributevalue stores exactly the attributes FieldsOf
// lists, each holding the value found at the field's index.
func TestFieldsMatchAttributevalue(t *testing.T) {
	for _, typ := range []reflect.Type{
		reflect.TypeFor[fOuter](), reflect.TypeFor[fzAll](), reflect.TypeFor[fuzzEmbedding](), reflect.TypeFor[fRec](),
	} {
		t.Run(typ.String(), func(t *testing.T) {
			fs, err := FieldsOf(typ)
			require.NoError(t, err)
			v := reflect.New(typ)
			fillAll(v.Elem(), 0)
			item, err := attributevalue.MarshalMap(v.Interface())
			require.NoError(t, err)

			var got []string
			for k := range item {
				got = append(got, k)
			}
			var want []string
			for _, f := range fs.List {
				if f.Type.Kind() != reflect.Complex64 { // attributevalue drops complex numbers
					want = append(want, f.Attr)
				}
			}
			sort.Strings(got)
			sort.Strings(want)
			assert.Equal(t, want, got)

			p, err := PlanOf(typ)
			require.NoError(t, err)
			for i := range fs.List {
				f := &fs.List[i]
				if f.Type.Kind() == reflect.Complex64 {
					continue
				}
				av, ok, err := p.EncodeField(v, f)
				require.NoError(t, err)
				require.True(t, ok, f.Attr)
				assert.Equal(t, formatAV(item[f.Attr]), formatAV(av), f.Attr)
			}
		})
	}
}

// fillAll makes every settable value non-empty, allocating pointers up to
// a small depth.
func fillAll(v reflect.Value, depth int) {
	if v.Kind() == reflect.Struct {
		if v.Type() != timeT {
			for i := 0; i < v.NumField(); i++ {
				fillAll(v.Field(i), depth+1)
			}
		}
		return
	}
	if !v.CanSet() {
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if depth < 4 {
			v.Set(reflect.New(v.Type().Elem()))
			fillAll(v.Elem(), depth+1)
		}
	case reflect.String:
		v.SetString("s")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(1)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		v.SetUint(1)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(1)
	case reflect.Complex64, reflect.Complex128:
		v.SetComplex(1)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1, 1)
		fillAll(s.Index(0), depth+1)
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k := reflect.New(v.Type().Key()).Elem()
		fillAll(k, depth+1)
		e := reflect.New(v.Type().Elem()).Elem()
		fillAll(e, depth+1)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Interface:
		if v.NumMethod() == 0 {
			v.Set(reflect.ValueOf("any"))
		}
	}
}
