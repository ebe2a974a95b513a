package model

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func s(av types.AttributeValue) string { return av.(*types.AttributeValueMemberS).Value }

func TestAddKeysRendersEveryKeyOnce(t *testing.T) {
	gsi1 := &Index{Name: "GSI1", PK: "GSI1PK", SK: "GSI1SK"}
	e, err := define[order](newSchema(gsi1), "Order", Spec{
		PK: "USER#{UserID}", SK: "ORDER#{ID}",
		Indexes: []IndexSpec{{Index: "GSI1", PK: "STATUS#{Status}", SK: "ORDER#{ID}"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	item := map[string]types.AttributeValue{}
	facts, kerr := e.AddKeys(item, reflect.ValueOf(order{UserID: "u1", ID: "o#1", Status: "NEW"}), true, nil)
	if kerr != nil {
		t.Fatal(kerr)
	}
	want := map[string]string{"PK": "USER#u1", "SK": "ORDER#o%231", "GSI1PK": "STATUS#NEW", "GSI1SK": "ORDER#o%231", "_type": "Order"}
	if len(item) != len(want) {
		t.Fatalf("item %v", item)
	}
	size := 0
	for attr, v := range want {
		if got := s(item[attr]); got != v {
			t.Errorf("%s = %q, want %q", attr, got, v)
		}
		size += len(attr) + len(v)
	}
	if facts.Size != size || facts.ID != (ItemID{PK: "USER#u1", SK: "ORDER#o%231"}) || facts.KeyBytes != len("PKUSER#u1SKORDER#o%231") {
		t.Fatalf("facts %+v (size %d)", facts, size)
	}
	// An empty index key field leaves the item out of the index; an empty
	// table key field is a *KeyError.
	item = map[string]types.AttributeValue{}
	if _, err := e.AddKeys(item, reflect.ValueOf(order{UserID: "u1", ID: "o1"}), true, nil); err != nil || item["GSI1PK"] != nil {
		t.Fatalf("sparse: %v %v", err, item)
	}
	_, err2 := e.Key(reflect.ValueOf(order{ID: "o1"}))
	var ke *KeyError
	if !errors.As(err2, &ke) || !errors.Is(err2, ErrInvalidKey) || ke.Attr != "PK" || ke.Field != "UserID" {
		t.Fatalf("empty key field: %#v", err2)
	}
}

func TestKeysOverTheLimitAndInTheGuardNamespace(t *testing.T) {
	e, err := define[order](newSchema(), "Order", Spec{PK: "{UserID}#A", SK: "X"})
	if err != nil {
		t.Fatal(err)
	}
	if !e.PKMayBeReserved {
		t.Fatal("a partition template that starts with a field may render a guard key")
	}
	_, kerr := e.Key(reflect.ValueOf(order{UserID: "_unique"}))
	if !errors.Is(kerr, ErrInvalidKey) || !strings.Contains(kerr.Error(), "reserved for unique-value guard items") {
		t.Fatalf("guard key: %v", kerr)
	}
	_, kerr = e.Key(reflect.ValueOf(order{UserID: strings.Repeat("x", MaxPartitionKeyBytes+1)}))
	if !errors.Is(kerr, ErrInvalidKey) || !strings.Contains(kerr.Error(), "DynamoDB allows 2048") {
		t.Fatalf("long key: %v", kerr)
	}
}

func TestShardHashIsFixed(t *testing.T) {
	e, err := define[order](newSchema(), "Order", Spec{
		PK: "USER#{UserID}#{Shard}", SK: "ORDER#{ID}", Shard: &ShardSpec{Field: "Shard", N: 4, By: []string{"UserID"}, HasBy: true, ByCalled: 1}, ShardCalls: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	// FNV-1a 32 of "s1\x00" mod 4, computed apart from the library: every
	// process and release must find the same shard.
	v := order{UserID: "s1", ID: "o1", Shard: 9} // a wrong shard is recomputed
	key, kerr := e.Key(reflect.ValueOf(v))
	if kerr != nil {
		t.Fatal(kerr)
	}
	const fnvS1 = 0xe1a5e46b // FNV-1a 32 of "s1\x00"
	if want := "USER#s1#" + string(rune('0'+fnvS1%4)); s(key["PK"]) != want {
		t.Fatalf("PK = %q, want %q", s(key["PK"]), want)
	}
	if !e.ShardDerived("Shard") || e.ShardDerived("ID") {
		t.Fatal("ShardDerived")
	}
}
