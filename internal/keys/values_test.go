package keys

import (
	"reflect"
	"testing"
	"time"

	"github.com/singletable/singletable/internal/codec"
)

// AppendKeyFrom renders what AppendKey renders from a struct holding the
// same values, errors and missing fields included.
func TestAppendKeyFromMatchesAppendKey(t *testing.T) {
	type item struct {
		A string
		N int
		P *string
		T time.Time
	}
	fs, err := codec.FieldsOf(reflect.TypeOf(item{}))
	if err != nil {
		t.Fatal(err)
	}
	tpl, err := Parse("X#{A}#{N:04}#{P}#{T}", fs, '#')
	if err != nil {
		t.Fatal(err)
	}
	s := "p#q"
	for _, it := range []item{
		{A: "a", N: 7, P: &s, T: time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)},
		{A: "", N: 7, P: &s},       // missing A
		{A: "a#b", N: 0, P: nil},   // missing P
		{A: "a", N: 123456, P: &s}, // too wide
	} {
		v := reflect.ValueOf(it)
		var vals []reflect.Value
		for _, ph := range tpl.Placeholders() {
			vals = append(vals, v.FieldByIndex(ph.Field.Index))
		}
		want, wantErr := tpl.AppendKey(nil, v)
		got, gotErr := tpl.AppendKeyFrom(nil, vals)
		if (wantErr == nil) != (gotErr == nil) || (wantErr != nil && wantErr.Error() != gotErr.Error()) {
			t.Fatalf("%+v: error %v, AppendKey's %v", it, gotErr, wantErr)
		}
		if wantErr == nil && string(got) != string(want) {
			t.Errorf("%+v: %q, AppendKey's %q", it, got, want)
		}
	}
}

// AppendKey's inline path for plain string fields (see segment.plain)
// renders, refuses and reports missing values as the general path
// (AppendKeyFrom's) does: delimiters and escape bytes escaped, invalid
// UTF-8 refused, shapes checked, empty values missing, and a named string
// type or a promoted field rendered alike.
func TestAppendKeyPlainStringsMatchGeneralPath(t *testing.T) {
	type name string
	type Inner struct{ E string }
	type item struct {
		Inner
		A string
		B name
		H string
	}
	fs, err := codec.FieldsOf(reflect.TypeOf(item{}))
	if err != nil {
		t.Fatal(err)
	}
	tpl, err := Parse("X#{A}#{B}#{E}#{H:hex}", fs, '#')
	if err != nil {
		t.Fatal(err)
	}
	long := "abcdefghijklmnopqrstuvwxyz0123456789"
	values := []string{"a", long, long + "#", "#" + long, "ab%cd", long[:7] + "%", "caf\u00e9", "a\xffb", ""}
	checked := 0
	for _, a := range values {
		for _, e := range values {
			it := item{Inner: Inner{E: e}, A: a, B: name(a + e), H: "0f"}
			if a == long {
				it.H = "zz" // not hex
			}
			v := reflect.ValueOf(it)
			var vals []reflect.Value
			for _, ph := range tpl.Placeholders() {
				vals = append(vals, v.FieldByIndex(ph.Field.Index))
			}
			want, wantErr := tpl.AppendKeyFrom(nil, vals)
			got, gotErr := tpl.AppendKey(nil, v)
			if (wantErr == nil) != (gotErr == nil) || (wantErr != nil && wantErr.Error() != gotErr.Error()) {
				t.Fatalf("%+v: error %v, the general path's %v", it, gotErr, wantErr)
			}
			if string(got) != string(want) {
				t.Errorf("%+v: %q, the general path's %q", it, got, want)
			}
			if wantErr == nil {
				checked++
			}
		}
	}
	if checked == 0 {
		t.Fatal("no value rendered: the test checks errors only")
	}
}
