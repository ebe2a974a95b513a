package singletable

import (
	"reflect"
	"testing"
)

// item returns the facts it works out while encoding (the size, the key's
// size, the itemID); they must be what reading the finished item gives.
func TestItemSizeMatchesItemSize(t *testing.T) {
	values := []any{
		WUser{ID: "u1", Email: "a@example.com", Name: "Ann", Status: "ACTIVE", Tags: []string{"x", "yy"},
			Log: []string{"l1"}, Logins: 12345, Address: WAddress{City: "Paris", Zip: "75001"},
			Attrs: map[string]string{"k": "v"}, Version: 3, Created: WClock, Updated: WClock},
		WUser{ID: "u2"}, // out of the index: Status is empty
		WOrder{UserID: "u1", ID: "o#1", Date: "2024-01-15", Status: "PENDING", Total: 12.5},
		WOrder{UserID: "u1", ID: "o2", Date: "2024-01-15", Status: "SHIPPED"}, // When false
		WProduct{ID: "p1", Name: "Cable", Category: "usb", Price: 9.99, Inventory: 7},
		WRecord{ID: "r%1", N: -3, Data: "data"},
	}
	models := map[reflect.Type]*entityModel{
		reflect.TypeFor[WUser]():    WUsers.m,
		reflect.TypeFor[WOrder]():   WOrders.m,
		reflect.TypeFor[WProduct](): WProducts.m,
		reflect.TypeFor[WRecord]():  WRecords.m,
	}
	for _, v := range values {
		m := models[reflect.TypeOf(v)]
		rv := reflect.New(m.Type).Elem()
		rv.Set(reflect.ValueOf(v))
		item, facts, err := m.item(rv)
		if err != nil {
			t.Fatalf("%T: %v", v, err)
		}
		if want := itemSize(item); facts.Size != want {
			t.Errorf("%+v: item size %d, itemSize %d", v, facts.Size, want)
		}
		key := m.keyOfItem(item)
		if want := itemSize(key); facts.KeyBytes != want {
			t.Errorf("%+v: key size %d, itemSize of the key %d", v, facts.KeyBytes, want)
		}
		if want := m.table.idOf(item); facts.ID != want {
			t.Errorf("%+v: id %v, idOf %v", v, facts.ID, want)
		}
		k, kf, err := m.KeyFacts(rv, nil)
		if err != nil {
			t.Fatal(err)
		}
		if kf.ID != facts.ID || kf.KeyBytes != itemSize(k) {
			t.Errorf("%+v: keyFacts %+v, key %v", v, kf, k)
		}
	}
}
