package recycle

import (
	"reflect"
	"testing"
)

type item struct {
	Name string
	Tags []string
}

// A copy is the value's, and a recycled one is zeroed (so that it keeps
// nothing alive); a Pool that does not recycle copies leaves them alone.
func TestCopyRecycle(t *testing.T) {
	for _, copies := range []bool{false, true} {
		var p Pool
		p.Enable(true, copies)
		v := item{Name: "a", Tags: []string{"x"}}
		c, ptr := p.Copy(reflect.ValueOf(v))
		if ptr.(*item) == &v || !reflect.DeepEqual(c.Interface(), v) {
			t.Fatalf("copies=%v: Copy = %p %+v, want a copy of %+v", copies, ptr, c, v)
		}
		p.Recycle(c, ptr)
		if zeroed := reflect.DeepEqual(*ptr.(*item), item{}); zeroed != copies {
			t.Errorf("copies=%v: after Recycle %+v", copies, *ptr.(*item))
		}
		if v.Name != "a" || len(v.Tags) != 1 {
			t.Errorf("copies=%v: the original changed: %+v", copies, v)
		}
	}
}

// New hands out zero, addressable values; Release zeroes a recycled one.
func TestNewRelease(t *testing.T) {
	for _, built := range []bool{false, true} {
		var p Pool
		p.Enable(built, false)
		v, ptr := p.New(reflect.TypeFor[item]())
		if !v.CanAddr() || !v.IsZero() || (ptr != nil) != built {
			t.Fatalf("built=%v: New = %v (addressable %v), %v", built, v, v.CanAddr(), ptr)
		}
		v.Field(0).SetString("b")
		p.Release(v, ptr)
		if built && !v.IsZero() {
			t.Errorf("built: after Release %v", v)
		}
	}
}
