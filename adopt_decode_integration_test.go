//go:build integration

package singletable_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
)

// On DynamoDB Local, items the other code wrote without the attributes of
// their key fields read back with those fields parsed from their keys on
// every path, and an item whose keys make it an order but whose total is a
// string is the order's *DecodeError on every path, DB.Scan and the
// collection included (atkB F1, F2).
func TestAdoptKeyFieldsAndWrongAttributesOnDynamoDBLocal(t *testing.T) {
	m := newAdoptModel(t, "_type,keys")
	db, _ := adoptDB(t, m)
	c := t.Context()
	put := func(item map[string]types.AttributeValue) {
		_, err := db.Client().PutItem(c, &dynamodb.PutItemInput{TableName: aws.String(db.TableName()), Item: item})
		require.NoError(t, err)
	}
	put(map[string]types.AttributeValue{"PK": adoptS("CUSTOMER#c9"), "SK": adoptS("PROFILE"), "name": adoptS("Nine")})
	put(map[string]types.AttributeValue{"PK": adoptS("CUSTOMER#c9"), "SK": adoptS("ORDER#o1")})
	put(map[string]types.AttributeValue{"PK": adoptS("CUSTOMER#c9"), "SK": adoptS("ORDER#o2"), "status": adoptS("OPEN")})
	wantCust := adoptCustomer{ID: "c9", Name: "Nine"}
	want := []adoptOrder{{CustomerID: "c9", OrderID: "o1"}, {CustomerID: "c9", OrderID: "o2", Status: "OPEN"}}

	cust, err := m.customers.Get(c, db, adoptCustomer{ID: "c9"})
	require.NoError(t, err)
	assert.Equal(t, wantCust, cust, "Get")
	for _, w := range want {
		o, err := m.orders.Get(c, db, adoptOrder{CustomerID: "c9", OrderID: w.OrderID})
		require.NoError(t, err)
		assert.Equal(t, w, o, "Get")
	}
	page, err := m.orders.Query(c, db, adoptOrder{CustomerID: "c9"})
	require.NoError(t, err)
	assert.Equal(t, want, page.Items, "Query")
	var got []adoptOrder
	for o, err := range m.orders.Scan(c, db) {
		require.NoError(t, err)
		got = append(got, o)
	}
	assert.ElementsMatch(t, want, got, "Entity.Scan")
	bg, err := m.orders.BatchGet(c, db, want)
	require.NoError(t, err)
	require.Len(t, bg, 2)
	for i := range want {
		require.NotNil(t, bg[i])
		assert.Equal(t, want[i], *bg[i], "BatchGet")
	}
	view := m.t.Collection("CustomerView", m.customers, m.orders).Partition("CUSTOMER#{ID}").Must()
	res, err := view.Query(c, db, st.Values{"ID": "c9"})
	require.NoError(t, err)
	assert.Equal(t, []adoptCustomer{wantCust}, m.customers.From(res), "collection")
	assert.Equal(t, want, m.orders.From(res), "collection")
	var scanned []any
	for it, err := range db.Scan(c) {
		require.NoError(t, err)
		scanned = append(scanned, it.Value)
	}
	assert.ElementsMatch(t, []any{wantCust, want[0], want[1]}, scanned, "DB.Scan")

	// An order whose total is a string: the order's decode error, wherever
	// it is read.
	put(map[string]types.AttributeValue{"PK": adoptS("CUSTOMER#c9"), "SK": adoptS("ORDER#o3"), "total": adoptS("lots")})
	isTotal := func(err error, what string) {
		t.Helper()
		var de *st.DecodeError
		if assert.ErrorAs(t, err, &de, what) {
			assert.Equal(t, "total", de.Attr, what)
			assert.Equal(t, "Order", de.Entity, what)
		}
	}
	_, err = m.orders.Get(c, db, adoptOrder{CustomerID: "c9", OrderID: "o3"})
	isTotal(err, "Get")
	_, err = view.Query(c, db, st.Values{"ID": "c9"})
	isTotal(err, "collection Query")
	var errs int
	for it, err := range db.Scan(c) {
		if err != nil {
			errs++
			isTotal(err, "DB.Scan")
			continue
		}
		assert.True(t, it.Known(), "no item of no entity: %v", it.Item)
	}
	assert.Equal(t, 1, errs, "DB.Scan yields the order's error")
	raw := rawItem(t, db, "CUSTOMER#c9", "ORDER#o3")
	_, err = m.t.Decode(raw)
	isTotal(err, "Table.Decode")
}
