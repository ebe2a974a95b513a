package write

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/singletable/singletable/internal/codec"
	"github.com/singletable/singletable/internal/expr"
	"github.com/singletable/singletable/internal/recycle"
)

// bind compiles and binds changes on order's model, as the root's
// planUpdate does.
func bind(t *testing.T, changes []Change) (*Plan, *expr.Builder, error) {
	t.Helper()
	m := entity(t)
	p := &Plan{M: m, Values: new(recycle.Pool), Key: reflect.ValueOf(order{ID: "1"}), Changes: changes}
	sh, err := Compile(m, guards{}, "Order.Update", changes, false, p.Known, false)
	if err != nil {
		t.Fatal(err)
	}
	b := new(expr.Builder)
	return p, b, p.Bind("Order.Update", sh, b)
}

func TestBindRendersChangesAndChecksValues(t *testing.T) {
	p, b, err := bind(t, []Change{{Op: OpSet, Field: "Address.City", Value: "Oslo"}, {Op: OpIncrement, Field: "Count", Value: 1}, {Op: OpSet, Field: "Note", Value: ""}})
	if err != nil {
		t.Fatal(err)
	}
	// Note's zero value is omitempty: Put leaves it out, so the update
	// removes it rather than storing it.
	if got := p.Update.String(); got != "SET #n0.#n1 = :v0, #n2 = if_not_exists(#n2, :v1) + :v2 REMOVE #n3" || b.Names["#n3"] != "note" || len(b.Values) != 3 {
		t.Errorf("update = %q, values %v", got, b.Values)
	}
	if len(p.Ranges) != 1 || p.StoredBytes == 0 {
		t.Errorf("an Increment of a uint8 keeps its range: ranges %v, stored bytes %d", p.Ranges, p.StoredBytes)
	}
	if !p.Touches("Count") || p.Touches("Total") || !p.Known("ID") || p.Known("Count") {
		t.Error("Touches/Known: the key is known, an Increment's result is not")
	}

	_, _, err = bind(t, []Change{{Op: OpSet, Field: "Count", Value: nil}})
	var ie *InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), `Set("Count"): the field is a uint8, which nil is not a value of`) {
		t.Errorf("nil for an int64: %v", err)
	}
}

func TestNextValueAndZeroFills(t *testing.T) {
	p, _, err := bind(t, []Change{{Op: OpSet, Field: "Note", Value: "n"}, {Op: OpRemove, Field: "Lines"}})
	if err != nil {
		t.Fatal(err)
	}
	got := p.NextValue().Interface().(order)
	if got.ID != "1" || got.Note != "n" {
		t.Errorf("NextValue = %+v: the key and the fields set", got)
	}
	p.ReleaseNext()

	fills, err := ZeroFills(p.M, p.Changes, func(f *codec.Field) bool { return f.GoName == "Total" })
	if err != nil {
		t.Fatal(err)
	}
	var attrs []string
	for _, f := range fills {
		attrs = append(attrs, f.Attr)
	}
	// Not the key, not the fields changed, not a managed one, not an
	// omitempty one.
	if !sameSet(attrs, []string{"count", "tags", "labels", "addr", "items", "meta", "ptr"}) {
		t.Errorf("ZeroFills = %v", attrs)
	}
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	seen := map[string]bool{}
	for _, s := range a {
		seen[s] = true
	}
	for _, s := range b {
		if !seen[s] {
			return false
		}
	}
	return true
}
