package codec

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unsafe"

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

// A Room hands out its caller's memory first, then slabs: the values an
// encoding gives land in ss and ns, and past them are still right.
func TestRoomHandsOutCallerMemory(t *testing.T) {
	var ss [1]types.AttributeValueMemberS
	var ns [1]types.AttributeValueMemberN
	r := NewRoom(ss[:], ns[:])
	defer r.Release()
	type item struct {
		S string
		N int
	}
	p, err := PlanOf(reflect.TypeFor[item]())
	if err != nil {
		t.Fatal(err)
	}
	fs, _ := FieldsOf(reflect.TypeFor[item]())
	fS, _ := fs.ByGoName("S")
	fN, _ := fs.ByGoName("N")
	s, _, err := p.EncodeFieldValueIn(fS, reflect.ValueOf("a"), r)
	if err != nil {
		t.Fatal(err)
	}
	n, _, err := p.EncodeFieldValueIn(fN, reflect.ValueOf(7), r)
	if err != nil {
		t.Fatal(err)
	}
	if s != types.AttributeValue(&ss[0]) || ss[0].Value != "a" {
		t.Errorf("S: %#v, not the room's %#v", s, &ss[0])
	}
	if n != types.AttributeValue(&ns[0]) || ns[0].Value != "7" {
		t.Errorf("N: %#v, not the room's %#v", n, &ns[0])
	}
	// Past the room: a slab of its own, the values still right.
	if v := r.S("b"); v == types.AttributeValue(&ss[0]) || v.(*types.AttributeValueMemberS).Value != "b" || ss[0].Value != "a" {
		t.Errorf("past the room: %#v (room %q)", v, ss[0].Value)
	}
	if v := (Room{}).N("1"); v.(*types.AttributeValueMemberN).Value != "1" {
		t.Errorf("zero Room: %#v", v)
	}
}

// Items encoded in one Shared arena come out as each encoded alone, and
// stay apart: the keys' text an item keeps (NoteKeyText) is not written
// over by the next item's numbers, and changing one item's values (a
// Client may) changes no other's. Items of varying size and keys of
// varying length make slabs and buffers run out mid-item.
func TestSharedArena(t *testing.T) {
	type item struct {
		S    string
		F    float64
		N    int64
		L    []int
		Tags map[string]string
	}
	p, err := PlanOf(reflect.TypeOf(item{}))
	if err != nil {
		t.Fatal(err)
	}
	const count = 300
	sh := NewShared(count)
	defer sh.Release()
	got := make([]map[string]types.AttributeValue, count)
	keys := make([]string, count)
	for i := range count {
		v := item{S: strings.Repeat("s", i%7), F: float64(i) + 0.25, N: int64(i) * 1e12, L: make([]int, i%3)}
		if i%5 == 0 {
			v.Tags = map[string]string{"k": "v"}
		}
		got[i] = map[string]types.AttributeValue{}
		_, room, text, err := p.EncodeItem(reflect.ValueOf(v), got[i], 1, &sh)
		if err != nil {
			t.Fatal(err)
		}
		key := fmt.Sprintf("KEY#%0*d", 1+i%40, i)
		if len(key) <= cap(text) {
			text = append(text[:0], key...)
			keys[i] = unsafe.String(unsafe.SliceData(text), len(text))
		} else {
			keys[i] = key
		}
		room[0].Value = keys[i]
		got[i]["PK"] = &room[0]
		p.NoteKeyText(len(key), &sh)
	}
	for i := range count {
		v := item{S: strings.Repeat("s", i%7), F: float64(i) + 0.25, N: int64(i) * 1e12, L: make([]int, i%3)}
		if i%5 == 0 {
			v.Tags = map[string]string{"k": "v"}
		}
		want := map[string]types.AttributeValue{}
		if _, err := p.Encode(reflect.ValueOf(v), want); err != nil {
			t.Fatal(err)
		}
		want["PK"] = &types.AttributeValueMemberS{Value: fmt.Sprintf("KEY#%0*d", 1+i%40, i)}
		if !reflect.DeepEqual(got[i], want) {
			t.Fatalf("item %d: got %v, want %v", i, got[i], want)
		}
	}
	// A Client changing one item's values changes no other's.
	for i := range count {
		for _, av := range got[i] {
			switch av := av.(type) {
			case *types.AttributeValueMemberS:
				av.Value = "changed"
			case *types.AttributeValueMemberN:
				av.Value = "-1"
			}
		}
		if i+1 < count {
			if s := got[i+1]["PK"].(*types.AttributeValueMemberS).Value; s != fmt.Sprintf("KEY#%0*d", 1+(i+1)%40, i+1) {
				t.Fatalf("changing item %d changed item %d's key to %q", i, i+1, s)
			}
			if n := got[i+1]["F"].(*types.AttributeValueMemberN).Value; n == "-1" {
				t.Fatalf("changing item %d changed item %d's number", i, i+1)
			}
		}
	}
}
