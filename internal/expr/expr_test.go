package expr

import (
	"strconv"
	"testing"

	"github.com/singletable/singletable/internal/codec"
)

func TestBuilderPlaceholders(t *testing.T) {
	var b Builder
	if b.Names != nil || b.Values != nil {
		t.Fatal("a new Builder has nil maps")
	}
	// Past the preformatted placeholders too.
	for i := 0; i < preNames+5; i++ {
		attr := "a" + strconv.Itoa(i)
		if got, want := b.Name(attr), "#n"+strconv.Itoa(i); got != want {
			t.Fatalf("Name(%s) = %s, want %s", attr, got, want)
		}
		if got := b.Name(attr); got != "#n"+strconv.Itoa(i) {
			t.Fatalf("Name(%s) again = %s", attr, got)
		}
		if b.Names["#n"+strconv.Itoa(i)] != attr {
			t.Fatalf("Names[#n%d] = %q", i, b.Names["#n"+strconv.Itoa(i)])
		}
	}
	if got := b.Name("a3"); got != "#n3" {
		t.Fatalf("Name(a3) = %s, want #n3", got)
	}
	for i := 0; i < preValues+5; i++ {
		v := S(strconv.Itoa(i))
		p := b.Value(v)
		if want := ":v" + strconv.Itoa(i); p != want {
			t.Fatalf("Value #%d = %s, want %s", i, p, want)
		}
		if b.Values[p] != v {
			t.Fatalf("Values[%s] is not the value given", p)
		}
	}
	if len(b.Names) != preNames+5 || len(b.Values) != preValues+5 {
		t.Fatalf("%d names, %d values", len(b.Names), len(b.Values))
	}
	want := 0
	for p, a := range b.Names {
		want += len(p) + len(a)
	}
	for p, v := range b.Values {
		want += len(p) + codec.Size(v)
	}
	if b.Bytes() != want {
		t.Fatalf("Bytes() = %d, the maps add up to %d", b.Bytes(), want)
	}
}

// TestBuilderNamesAllocateOnlyTheMap holds the allocation cost of naming
// the attributes of a typical update (two fields, two index keys of two
// attributes each, the condition's key attribute: eight names with the
// spare): the Names map and nothing per name.
var mapSink map[string]string

func TestBuilderNamesAllocateOnlyTheMap(t *testing.T) {
	attrs := [...]string{"status", "orderDate", "GSI1PK", "GSI1SK", "GSI2PK", "GSI2SK", "PK", "SK"}
	mapOnly := testing.AllocsPerRun(100, func() {
		m := make(map[string]string, 4)
		for i, a := range attrs {
			m[namePlaceholders[i]] = a
		}
		mapSink = m // on the heap, as the Builder's is
	})
	got := testing.AllocsPerRun(100, func() {
		var b Builder
		for _, a := range attrs {
			b.Name(a)
		}
		b.Name("status") // seen before: no new placeholder
	})
	if got != mapOnly {
		t.Fatalf("naming %d attributes allocates %.0f times, the map alone %.0f", len(attrs), got, mapOnly)
	}
}
