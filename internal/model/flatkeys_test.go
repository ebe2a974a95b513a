package model

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

type flatOrder struct {
	UserID string `dynamodbav:"userId"`
	ID     string `dynamodbav:"orderId"`
	Status string `dynamodbav:"status"`
	Date   string `dynamodbav:"date"`
	Email  string `dynamodbav:"email"`
	N      int    `dynamodbav:"n"`
}

// TestFlatKeysMatchGeneral holds the flat key rendering to the general
// one (AddKeysIn with flat keys off) over values that are empty (a table
// key's: an error; an index key's: the item leaves the index), hold the
// delimiter or the escape byte, are not ASCII, put the partition key in
// the guard items' namespace, or make a key exactly as long as its limit
// and one byte longer: the same items, facts and errors.
func TestFlatKeysMatchGeneral(t *testing.T) {
	gsis := []*Index{{Name: "GSI1", PK: "GSI1PK", SK: "GSI1SK"}, {Name: "GSI2", PK: "GSI2PK", SK: "GSI2SK"}, {Name: "GSI3", PK: "GSI3PK"}}
	specs := map[string]Spec{
		"literal partition key": {PK: "USER#{UserID}", SK: "ORDER#{ID}", Indexes: []IndexSpec{
			{Index: "GSI1", PK: "STATUS#{Status}", SK: "{Date}#{ID}"},
			{Index: "GSI2", PK: "DATE#{Date}", SK: "{UserID}#{ID}"},
			{Index: "GSI3", PK: "{Email}"},
		}},
		"partition key from a field": {PK: "{UserID}", SK: "ORDER#{ID}#{Status}", Indexes: []IndexSpec{
			{Index: "GSI1", PK: "{Status}", SK: "{Date}"},
		}},
		// "_unique" then the delimiter: the guard items' namespace.
		"partition key from two fields": {PK: "{UserID}#{Status}", SK: "{ID}"},
	}
	long := func(n int) string { return strings.Repeat("x", n) }
	vals := []string{"", "u1", "a#b", "50%", "h\u00e9llo", "_unique", "0123456789abcdefghij", "ab\xffcd"}
	var vs []flatOrder
	for i, a := range vals {
		for j, b := range vals {
			vs = append(vs, flatOrder{UserID: a, ID: b, Status: vals[(i+j)%len(vals)], Date: vals[(i+2*j+1)%len(vals)], Email: vals[(2*i+j)%len(vals)]})
		}
	}
	// Keys at their limits, and a byte over: the partition key (2048
	// bytes) from UserID, the sort keys (1024 bytes) from ID.
	for _, n := range []int{MaxPartitionKeyBytes - len("USER#"), MaxPartitionKeyBytes - len("USER#") + 1, MaxPartitionKeyBytes, MaxPartitionKeyBytes + 1} {
		vs = append(vs, flatOrder{UserID: long(n), ID: "o1", Status: "s", Date: "d", Email: "e"})
	}
	for _, n := range []int{MaxSortKeyBytes - len("ORDER#"), MaxSortKeyBytes - len("ORDER#") + 1, MaxSortKeyBytes - len("d#"), MaxSortKeyBytes - len("d#") + 1} {
		vs = append(vs, flatOrder{UserID: "u", ID: long(n), Status: "s", Date: "d", Email: "e"})
	}
	for name, spec := range specs {
		t.Run(name, func(t *testing.T) {
			flat, err := define[flatOrder](newSchema(gsis...), "Order", spec)
			if err != nil {
				t.Fatal(err)
			}
			general, err := define[flatOrder](newSchema(gsis...), "Order", spec)
			if err != nil {
				t.Fatal(err)
			}
			general.flatKeys.Store(noFlatKeys)
			if flat.flat() == nil || general.flat() != nil {
				t.Fatal("flat keys: want them on one entity only")
			}
			flatOK := 0
			for i := range vs {
				for _, textCap := range []int{0, 64, 4096} {
					v := reflect.ValueOf(&vs[i]).Elem()
					fi, gi := map[string]types.AttributeValue{}, map[string]types.AttributeValue{}
					ff, ferr := flat.AddKeysIn(fi, v, true, nil, make([]byte, 0, textCap))
					gf, gerr := general.AddKeysIn(gi, v, true, nil, make([]byte, 0, textCap))
					if fmt.Sprint(ferr) != fmt.Sprint(gerr) || !reflect.DeepEqual(fi, gi) || ff != gf {
						t.Errorf("%+v (text room %d):\nflat    %v %+v %v\ngeneral %v %+v %v", vs[i], textCap, ferr, ff, fi, gerr, gf, gi)
					}
					if _, ok := flat.addKeysFlat(flat.flat(), map[string]types.AttributeValue{}, unsafe.Pointer(&vs[i]), nil, nil); ok {
						flatOK++
					}
				}
			}
			if flatOK == 0 {
				t.Fatal("no case took the flat path")
			}
		})
	}
}

// TestFlatKeysOnlyForFlatEntities: keys with a placeholder that is not a
// plain string field take the general path.
func TestFlatKeysOnlyForFlatEntities(t *testing.T) {
	gsi1 := &Index{Name: "GSI1", PK: "GSI1PK", SK: "GSI1SK"}
	cases := map[string]Spec{
		"an integer field":          {PK: "USER#{UserID}", SK: "N#{Shard}"},
		"a time field":              {PK: "USER#{UserID}", SK: "AT#{At}"},
		"a shaped field":            {PK: "USER#{UserID:hex}", SK: "X"},
		"an index with a time":      {PK: "USER#{UserID}", SK: "X", Indexes: []IndexSpec{{Index: "GSI1", PK: "S#{Status}", SK: "{At}"}}},
		"all plain (the only flat)": {PK: "USER#{UserID}", SK: "X", Indexes: []IndexSpec{{Index: "GSI1", PK: "S#{Status}", SK: "{ID}"}}},
	}
	for name, spec := range cases {
		e, err := define[order](newSchema(gsi1), "Order", spec)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if want := strings.HasPrefix(name, "all plain"); (e.flat() != nil) != want {
			t.Errorf("%s: flat keys %v, want %v", name, e.flat() != nil, want)
		}
	}
}
