package write

import (
	"errors"
	"strings"
	"testing"
)

// guards is a Guards for tests: Total is the version, Note unique.
type guards struct{}

func (guards) IsVersion(goName string) bool   { return goName == "Total" }
func (guards) IsUnique(goName string) bool    { return goName == "Note" }
func (guards) GuardRole(goName string) string { return "declared Unique" }

func TestCompileRefusesWrongShapes(t *testing.T) {
	m := entity(t)
	known := func(string) bool { return true }
	for _, tc := range []struct {
		changes []Change
		want    string
	}{
		{[]Change{{Op: OpSet, Field: "Nope", Value: 1}}, `no such field`},
		{[]Change{{Op: OpSet, Field: "ID", Value: "x"}}, "part of the primary key"},
		{[]Change{{Op: OpSet, Field: "Total", Value: 1}}, "version field is managed"},
		{[]Change{{Op: OpSet, Field: "Note", Value: "a"}, {Op: OpSet, Field: "Note", Value: "b"}}, "changed twice"},
		{[]Change{{Op: OpSet, Field: "Address", Value: address{}}, {Op: OpSet, Field: "Address.City", Value: "x"}}, "overlap"},
		{[]Change{{Op: OpAppend, Field: "Note.X", Value: "a"}}, "field Note is declared Unique"},
	} {
		_, err := Compile(m, guards{}, "Order.Update", tc.changes, false, known, false)
		var ie *InputError
		if !errors.As(err, &ie) || !errors.Is(err, ErrInvalidInput) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: got %v, want an *InputError saying %q", tc.changes, err, tc.want)
		}
	}
}

func TestCompileShapeAndKey(t *testing.T) {
	m := entity(t)
	changes := []Change{{Op: OpSet, Field: "Note", Value: "a"}, {Op: OpSet, Field: "Address.City", Value: "x"}}
	sh, err := Compile(m, guards{}, "Order.Update", changes[1:], false, func(string) bool { return true }, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(sh.Fields) != 1 || sh.Fields[0].GoName != "Address" || !sh.Nested[0] || len(sh.Indexes) != 0 {
		t.Errorf("shape: %+v", sh)
	}
	a, b := ShapeKey(nil, false, changes), ShapeKey(nil, true, changes)
	c := ShapeKey(nil, false, []Change{{Op: OpSet, Field: "Note", Value: "other value"}, {Op: OpSet, Field: "Address.City", Value: "y"}})
	if string(a) == string(b) || string(a) != string(c) {
		t.Errorf("ShapeKey: upsert must differ and values must not: %q %q %q", a, b, c)
	}
}
