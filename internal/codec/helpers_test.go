package codec

import (
	"encoding/base64"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// formatAV renders an attribute value canonically (sorted map keys, nil and
// empty slices told apart) for failure messages and comparisons.
func formatAV(av types.AttributeValue) string {
	var b strings.Builder
	writeAV(&b, av)
	return b.String()
}

func formatItem(m map[string]types.AttributeValue) string {
	if m == nil {
		return "item<nil>"
	}
	return formatAV(&types.AttributeValueMemberM{Value: m})
}

func writeAV(b *strings.Builder, av types.AttributeValue) {
	strs := func(tag string, ss []string) {
		if ss == nil {
			fmt.Fprintf(b, "%s<nil>", tag)
			return
		}
		fmt.Fprintf(b, "%s%q", tag, ss)
	}
	bytes := func(p []byte) string {
		if p == nil {
			return "<nil>"
		}
		return "b64:" + base64.StdEncoding.EncodeToString(p)
	}
	switch v := av.(type) {
	case nil:
		b.WriteString("<nil AV>")
	case *types.AttributeValueMemberS:
		fmt.Fprintf(b, "S%q", v.Value)
	case *types.AttributeValueMemberN:
		fmt.Fprintf(b, "N%q", v.Value)
	case *types.AttributeValueMemberBOOL:
		fmt.Fprintf(b, "BOOL(%v)", v.Value)
	case *types.AttributeValueMemberNULL:
		fmt.Fprintf(b, "NULL(%v)", v.Value)
	case *types.AttributeValueMemberB:
		fmt.Fprintf(b, "B(%s)", bytes(v.Value))
	case *types.AttributeValueMemberSS:
		strs("SS", v.Value)
	case *types.AttributeValueMemberNS:
		strs("NS", v.Value)
	case *types.AttributeValueMemberBS:
		if v.Value == nil {
			b.WriteString("BS<nil>")
			return
		}
		b.WriteString("BS[")
		for i, p := range v.Value {
			if i > 0 {
				b.WriteString(" ")
			}
			b.WriteString(bytes(p))
		}
		b.WriteString("]")
	case *types.AttributeValueMemberL:
		if v.Value == nil {
			b.WriteString("L<nil>")
			return
		}
		b.WriteString("L[")
		for i, e := range v.Value {
			if i > 0 {
				b.WriteString(" ")
			}
			writeAV(b, e)
		}
		b.WriteString("]")
	case *types.AttributeValueMemberM:
		if v.Value == nil {
			b.WriteString("M<nil>")
			return
		}
		keys := make([]string, 0, len(v.Value))
		for k := range v.Value {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteString("M{")
		for i, k := range keys {
			if i > 0 {
				b.WriteString(" ")
			}
			fmt.Fprintf(b, "%q:", k)
			writeAV(b, v.Value[k])
		}
		b.WriteString("}")
	default:
		fmt.Fprintf(b, "%T", av)
	}
}

// valuesEqual is reflect.DeepEqual except that NaNs equal NaNs of the
// same bits, so that decoded structs holding NaN compare equal.
func valuesEqual(a, b any) bool {
	return deepEq(reflect.ValueOf(a), reflect.ValueOf(b), map[[2]uintptr]bool{})
}

func deepEq(a, b reflect.Value, seen map[[2]uintptr]bool) bool {
	if a.IsValid() != b.IsValid() {
		return false
	}
	if !a.IsValid() {
		return true
	}
	if a.Type() != b.Type() {
		return false
	}
	switch a.Kind() {
	case reflect.Bool:
		return a.Bool() == b.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return a.Int() == b.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return a.Uint() == b.Uint()
	case reflect.Float32, reflect.Float64:
		x, y := a.Float(), b.Float()
		return x == y || (math.IsNaN(x) && math.IsNaN(y))
	case reflect.Complex64, reflect.Complex128:
		return a.Complex() == b.Complex()
	case reflect.String:
		return a.String() == b.String()
	case reflect.Chan, reflect.UnsafePointer, reflect.Func:
		return a.Pointer() == b.Pointer()
	case reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return deepEq(a.Elem(), b.Elem(), seen)
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		if a.Pointer() == b.Pointer() {
			return true
		}
		k := [2]uintptr{a.Pointer(), b.Pointer()}
		if seen[k] {
			return true
		}
		seen[k] = true
		return deepEq(a.Elem(), b.Elem(), seen)
	case reflect.Struct:
		if a.Type() == reflect.TypeFor[time.Time]() {
			ta, tb := a.Interface().(time.Time), b.Interface().(time.Time)
			if !ta.Equal(tb) || ta.Location().String() != tb.Location().String() {
				return false
			}
			_, oa := ta.Zone()
			_, ob := tb.Zone()
			return oa == ob && ta.Format(time.RFC3339Nano) == tb.Format(time.RFC3339Nano)
		}
		for i := 0; i < a.NumField(); i++ {
			if !deepEq(a.Field(i), b.Field(i), seen) {
				return false
			}
		}
		return true
	case reflect.Slice:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return false
		}
		fallthrough
	case reflect.Array:
		for i := 0; i < a.Len(); i++ {
			if !deepEq(a.Index(i), b.Index(i), seen) {
				return false
			}
		}
		return true
	case reflect.Map:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return false
		}
		it := a.MapRange()
		for it.Next() {
			bv := b.MapIndex(it.Key())
			if !bv.IsValid() || !deepEq(it.Value(), bv, seen) {
				return false
			}
		}
		return true
	}
	panic("deepEq: unhandled kind " + a.Kind().String())
}

// gen fills Go values from fuzz bytes, deterministically: the same bytes
// always give equal values.
type gen struct {
	data []byte
	pos  int
}

func (g *gen) byte() byte {
	if g.pos >= len(g.data) {
		return 0
	}
	b := g.data[g.pos]
	g.pos++
	return b
}

func (g *gen) intn(n int) int { return int(g.byte()) % n }

func (g *gen) u64() uint64 {
	var x uint64
	for i := 0; i < 8; i++ {
		x = x<<8 | uint64(g.byte())
	}
	return x
}

var genStrings = []string{"", "a", "hello", "Hello World", "ünïcödé ✓", "0", "123", "-1.5", "2024-01-02T03:04:05Z", "\xff\xfe"}

var genZones = []*time.Location{time.UTC, time.Local, time.FixedZone("CET", 3600), time.FixedZone("", -(7*3600 + 30*60)), time.FixedZone("X", 14*3600)}

var interestingInts = []int64{0, 1, -1, 42, 99, 100, 12345, -987654321, math.MaxInt64, math.MinInt64, math.MaxInt32, math.MinInt8}

var interestingFloats = []float64{0, math.Copysign(0, -1), 1.5, -2.25, 0.1, 1e21, 1e-7, 123456789.125, math.MaxFloat64, math.SmallestNonzeroFloat64,
	math.MaxFloat32, math.NaN(), math.Inf(1), math.Inf(-1), 3.4e39}

func (g *gen) str() string {
	if g.intn(4) == 0 {
		n := g.intn(6)
		b := make([]byte, n)
		for i := range b {
			b[i] = g.byte()
		}
		return string(b)
	}
	return genStrings[g.intn(len(genStrings))]
}

func (g *gen) time() time.Time {
	switch g.intn(5) {
	case 0:
		return time.Time{}
	case 1:
		return time.Date(2024, 2, 29, 23, 59, 59, 999999999, genZones[g.intn(len(genZones))])
	}
	sec := int64(g.u64()%(400*365*86400)) - 100*365*86400
	nsec := int64(g.u64() % 1e9)
	if g.intn(2) == 0 {
		nsec = 0
	}
	return time.Unix(sec, nsec).In(genZones[g.intn(len(genZones))])
}

var (
	timeT = reflect.TypeFor[time.Time]()
	anyT  = reflect.TypeFor[any]()
)

// fill sets v (settable, or a struct whose settable fields are filled).
func (g *gen) fill(v reflect.Value, depth int) {
	t := v.Type()
	if t.Kind() != reflect.Struct && !v.CanSet() {
		return
	}
	switch t.Kind() {
	case reflect.Bool:
		v.SetBool(g.byte()&1 == 1)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		var x int64
		if g.intn(2) == 0 {
			x = interestingInts[g.intn(len(interestingInts))]
		} else {
			x = int64(g.u64())
		}
		shift := 64 - t.Bits()
		v.SetInt(x << shift >> shift)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		x := g.u64()
		if g.intn(2) == 0 {
			x = uint64(g.intn(3))
		}
		shift := 64 - t.Bits()
		v.SetUint(x << shift >> shift)
	case reflect.Float32, reflect.Float64:
		if g.intn(3) == 0 {
			v.SetFloat(math.Float64frombits(g.u64()))
		} else {
			v.SetFloat(interestingFloats[g.intn(len(interestingFloats))])
		}
	case reflect.Complex64, reflect.Complex128:
		v.SetComplex(complex(float64(g.intn(5)), 1))
	case reflect.String:
		v.SetString(g.str())
	case reflect.Pointer:
		if depth > 4 || g.intn(3) == 0 {
			v.SetZero()
			return
		}
		p := reflect.New(t.Elem())
		g.fill(p.Elem(), depth+1)
		v.Set(p)
	case reflect.Slice:
		switch n := g.intn(6); {
		case n == 0 || depth > 4:
			v.SetZero()
		case n == 1:
			v.Set(reflect.MakeSlice(t, 0, 0))
		default:
			s := reflect.MakeSlice(t, n-1, n-1)
			for i := 0; i < n-1; i++ {
				g.fill(s.Index(i), depth+1)
			}
			v.Set(s)
		}
	case reflect.Array:
		for i := 0; i < v.Len(); i++ {
			g.fill(v.Index(i), depth+1)
		}
	case reflect.Map:
		switch n := g.intn(5); {
		case n == 0 || depth > 4:
			v.SetZero()
		default:
			m := reflect.MakeMap(t)
			for i := 0; i < n-1; i++ {
				k := reflect.New(t.Key()).Elem()
				g.fill(k, depth+1)
				e := reflect.New(t.Elem()).Elem()
				g.fill(e, depth+1)
				m.SetMapIndex(k, e)
			}
			v.Set(m)
		}
	case reflect.Interface:
		if t != anyT {
			v.SetZero()
			return
		}
		var x any
		switch g.intn(10) {
		case 0:
		case 1:
			x = g.str()
		case 2:
			x = interestingFloats[g.intn(len(interestingFloats))]
		case 3:
			x = g.byte()&1 == 1
		case 4:
			x = []any{g.str(), float64(g.intn(100)), nil}
		case 5:
			x = map[string]any{"k": g.str(), "n": float64(g.intn(9))}
		case 6:
			x = int64(g.intn(1000)) - 500
		case 7:
			s := g.str()
			x = &s
		case 8:
			x = []string{g.str(), g.str()}
		case 9:
			x = []byte(g.str())
		}
		if x == nil {
			v.SetZero()
		} else {
			v.Set(reflect.ValueOf(x))
		}
	case reflect.Struct:
		if t.ConvertibleTo(timeT) {
			if v.CanSet() {
				v.Set(reflect.ValueOf(g.time()).Convert(t))
			}
			return
		}
		for i := 0; i < v.NumField(); i++ {
			g.fill(v.Field(i), depth+1)
		}
	}
}
