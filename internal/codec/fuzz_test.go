package codec

import (
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// fuzzEmbedding exercises promotion through embedded structs and pointers.
type fuzzEmbedding struct {
	fzEmbedded
	*FzEmbPtr
	fzHidden `dynamodbav:"hidden"`
	Own      string
	Shadow   *fzStatus
}

// fuzzTypes are the struct types FuzzDifferential generates values of.
var fuzzTypes = []reflect.Type{
	reflect.TypeFor[fzAll](),
	reflect.TypeFor[fzSmall](),
	reflect.TypeFor[fzLeaf](),
	reflect.TypeFor[benchItem](),
	reflect.TypeFor[fuzzEmbedding](),
}

// FuzzDifferential generates struct values from the fuzz input and checks
// that Marshal and Unmarshal agree with attributevalue: encoding the value
// (addressable or not), decoding attributevalue's item into a zero and into
// a populated value, and decoding a mutated item (values of the wrong type,
// attribute names in another case, unknown attributes).
func FuzzDifferential(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 0, 0, 0})
	ramp := make([]byte, 512)
	for i := range ramp {
		ramp[i] = byte(i)
	}
	f.Add(ramp)
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 60; i++ {
		b := make([]byte, 64+r.Intn(1024))
		r.Read(b)
		b[0] = byte(i % len(fuzzTypes))
		f.Add(b)
	}
	f.Fuzz(fuzzBody)
}

var fuzzPool = sampleAVs()

// fuzzBody is one FuzzDifferential run.
func fuzzBody(t *testing.T, data []byte) {
	pool := fuzzPool
	{
		g := &gen{data: data}
		typ := fuzzTypes[g.intn(len(fuzzTypes))]
		seed := g.pos
		newValue := func() reflect.Value {
			p := reflect.New(typ)
			g := &gen{data: data, pos: seed}
			g.fill(p.Elem(), 0)
			return p
		}
		v := newValue()
		checkMarshal(t, v.Elem().Interface())
		checkMarshal(t, v.Interface())

		item, err, panicked := call(func() (map[string]types.AttributeValue, error) { return attributevalue.MarshalMap(v.Interface()) })
		if err != nil || panicked != nil {
			return
		}
		checkEncodeFields(t, v, item)
		checkUnmarshal(t, item, func() reflect.Value { return reflect.New(typ) })

		// Decode into a populated value: slices are reused, maps merged,
		// pointers followed, as attributevalue does.
		g.fill(reflect.New(typ).Elem(), 0) // advance past the value's bytes
		other := g.pos
		populated := func() reflect.Value {
			p := reflect.New(typ)
			g := &gen{data: data, pos: other}
			g.fill(p.Elem(), 0)
			return p
		}
		checkUnmarshal(t, item, populated)

		// Mutate the item.
		mutated := make(map[string]types.AttributeValue, len(item)+1)
		for k, av := range item {
			switch g.intn(8) {
			case 0:
				av = pool[g.intn(len(pool))]
			case 1:
				k = strings.ToLower(k)
			case 2:
				k = strings.ToUpper(k)
			case 3:
				continue
			}
			if _, dup := mutated[k]; dup {
				continue // case changes must not make two keys fold to one field
			}
			mutated[k] = av
		}
		if g.intn(2) == 0 {
			mutated["PK"] = pool[g.intn(len(pool))]
		}
		if !foldUnique(mutated) {
			return
		}
		checkUnmarshal(t, mutated, func() reflect.Value { return reflect.New(typ) })
		checkUnmarshal(t, mutated, populated)
	}
}

// foldUnique reports whether no two keys of m are equal under case
// folding: attributevalue would then decode both into one field in map
// order, which is random.
func foldUnique(m map[string]types.AttributeValue) bool {
	seen := make(map[string]bool, len(m))
	for k := range m {
		fk := foldKey(k)
		if seen[fk] {
			return false
		}
		seen[fk] = true
	}
	return true
}

// checkEncodeFields compares EncodeField, field by field, with the item
// attributevalue made of v.
func checkEncodeFields(t *testing.T, v reflect.Value, item map[string]types.AttributeValue) {
	t.Helper()
	p, err := PlanOf(v.Type().Elem())
	if err != nil {
		t.Fatal(err)
	}
	for i := range p.Fields().List {
		f := &p.Fields().List[i]
		av, ok, err := p.EncodeField(v, f)
		if err != nil {
			t.Fatalf("EncodeField %s: %v", f.Attr, err)
		}
		want, wantOK := item[f.Attr]
		if ok != wantOK || !reflect.DeepEqual(av, want) {
			t.Fatalf("EncodeField %s = %s (%v), attributevalue %s (%v)", f.Attr, formatAV(av), ok, formatAV(want), wantOK)
		}
		// EncodeFieldValue of the field's value, not addressable, encodes
		// it as the addressable struct's field.
		fv, reached := fieldValue(reflect.ValueOf(v.Elem().Interface()), f.Index)
		if !reached || !fv.CanInterface() {
			continue
		}
		av, ok, err = p.EncodeFieldValue(f, fv)
		if err != nil {
			t.Fatalf("EncodeFieldValue %s: %v", f.Attr, err)
		}
		if ok != wantOK || !reflect.DeepEqual(av, want) {
			t.Fatalf("EncodeFieldValue %s = %s (%v), attributevalue %s (%v)", f.Attr, formatAV(av), ok, formatAV(want), wantOK)
		}
	}
}

// fieldValue reaches the field at index of struct v; false when an
// embedded pointer on the way is nil.
func fieldValue(v reflect.Value, index []int) (reflect.Value, bool) {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return reflect.Value{}, false
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v, true
}
