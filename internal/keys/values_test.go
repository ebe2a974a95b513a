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
