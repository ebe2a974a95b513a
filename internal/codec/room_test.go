package codec

import (
	"reflect"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// EncodeRoom encodes as Encode does, and hands out zero string values of
// its own: filling them in changes none of the encoded ones, on the first
// encoding (no size hint yet) and on later ones (the slab sized to hold
// the room too), for structs with no string field and for Marshalers.
func TestEncodeRoom(t *testing.T) {
	type strs struct {
		A, B string
		N    int
	}
	type nums struct{ N, M int }
	cases := []struct {
		name string
		v    any
	}{
		{"strings", strs{A: "a", B: "b", N: 7}},
		{"no strings", nums{N: 1, M: 2}},
		{"empty strings", strs{}},
		{"marshaler", mapMarshaler{K: "x"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := PlanOf(reflect.TypeOf(c.v))
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]types.AttributeValue{}
			wantSize, err := p.Encode(reflect.ValueOf(c.v), want)
			if err != nil {
				t.Fatal(err)
			}
			for round := range 3 {
				for _, n := range []int{0, 1, 5} {
					got := map[string]types.AttributeValue{}
					size, room, err := p.EncodeRoom(reflect.ValueOf(c.v), got, n)
					if err != nil {
						t.Fatal(err)
					}
					if len(room) != n || cap(room) != n {
						t.Fatalf("round %d: room of %d is len %d cap %d", round, n, len(room), cap(room))
					}
					for i := range room {
						if room[i].Value != "" {
							t.Fatalf("round %d: room[%d] = %q, want zero", round, i, room[i].Value)
						}
						room[i].Value = "ROOM"
					}
					if size != wantSize || !reflect.DeepEqual(got, want) {
						t.Fatalf("round %d, room %d: got %v (size %d), want %v (size %d)", round, n, got, size, want, wantSize)
					}
				}
			}
		})
	}
}
