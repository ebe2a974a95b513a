//go:build integration

package singletable_test

// Adopting a table written by plain SDK code: no type attribute, extra
// attributes. Every read path identifies items by their keys under
// WithTypeAttribute("_type,keys"), and writes work with the type attribute
// written (",keys") or not (",omit").

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/ddblocal"
	"github.com/singletable/singletable/migrate"
	"github.com/singletable/singletable/stream"
)

type adoptCustomer struct {
	ID    string `dynamodbav:"id"`
	Name  string `dynamodbav:"name"`
	Email string `dynamodbav:"email"`
}

type adoptOrder struct {
	CustomerID string `dynamodbav:"customer_id"`
	OrderID    string `dynamodbav:"order_id"`
	Status     string `dynamodbav:"status"`
	Total      int    `dynamodbav:"total"`
}

type adoptMessage struct {
	Room string    `dynamodbav:"room"`
	At   time.Time `dynamodbav:"at"`
	Text string    `dynamodbav:"text"`
}

type adoptJoin struct {
	Room string `dynamodbav:"room"`
	User string `dynamodbav:"user"`
}

type adoptModel struct {
	t         *st.Table
	customers *st.Entity[adoptCustomer]
	orders    *st.Entity[adoptOrder]
	messages  *st.Entity[adoptMessage]
	joins     *st.Entity[adoptJoin]
}

func newAdoptModel(t *testing.T, typeAttr string, custOpts ...st.EntityOption) adoptModel {
	t.Helper()
	tbl, err := st.NewTable("Adopt", st.WithTypeAttribute(typeAttr), st.WithGSI("GSI1"))
	require.NoError(t, err)
	m := adoptModel{t: tbl}
	m.customers, err = st.Define[adoptCustomer](tbl, "Customer", append([]st.EntityOption{st.Key("CUSTOMER#{ID}", "PROFILE")}, custOpts...)...)
	require.NoError(t, err)
	m.orders, err = st.Define[adoptOrder](tbl, "Order", st.Key("CUSTOMER#{CustomerID}", "ORDER#{OrderID}"),
		st.Index("GSI1", "STATUS#{Status}", "ORDER#{OrderID}"))
	require.NoError(t, err)
	m.messages, err = st.Define[adoptMessage](tbl, "Message", st.Key("ROOM#{Room}", "{At:2006-01-02T15:04:05Z07:00}"))
	require.NoError(t, err)
	m.joins, err = st.Define[adoptJoin](tbl, "Join", st.Key("ROOM#{Room}", "Join:{User}"))
	require.NoError(t, err)
	return m
}

func adoptDB(t *testing.T, m adoptModel) (*st.DB, *readClient) {
	t.Helper()
	client, err := ddblocal.Client(t.Context())
	require.NoError(t, err, "integration tests need DynamoDB Local: run them with `make test`")
	rc := &readClient{Client: client}
	db := st.New(rc, m.t, st.WithTableName(ddblocal.UniqueName("adopt")))
	require.NoError(t, db.EnsureTable(t.Context()))
	t.Cleanup(func() { _ = db.DeleteTable(t.Context()) })
	return db, rc
}

func adoptS(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

// loadPlain writes the published sample data the way the table's own code
// does: plain PutItem, no type attribute, an attribute no struct names.
func loadPlain(t *testing.T, db *st.DB) {
	t.Helper()
	items := []map[string]types.AttributeValue{
		{"PK": adoptS("CUSTOMER#c1"), "SK": adoptS("PROFILE"), "id": adoptS("c1"), "name": adoptS("Ada"), "email": adoptS("ada@example.com"), "legacy": adoptS("keep me")},
		{"PK": adoptS("CUSTOMER#c1"), "SK": adoptS("ORDER#o1"), "customer_id": adoptS("c1"), "order_id": adoptS("o1"), "status": adoptS("OPEN"), "total": &types.AttributeValueMemberN{Value: "10"},
			"GSI1PK": adoptS("STATUS#OPEN"), "GSI1SK": adoptS("ORDER#o1"), "legacy": adoptS("x")},
		{"PK": adoptS("CUSTOMER#c1"), "SK": adoptS("ORDER#o2"), "customer_id": adoptS("c1"), "order_id": adoptS("o2"), "status": adoptS("OPEN"), "total": &types.AttributeValueMemberN{Value: "20"},
			"GSI1PK": adoptS("STATUS#OPEN"), "GSI1SK": adoptS("ORDER#o2")},
		{"PK": adoptS("ROOM#r1"), "SK": adoptS("2026-01-02T03:04:05Z"), "room": adoptS("r1"), "at": adoptS("2026-01-02T03:04:05Z"), "text": adoptS("hi")},
		{"PK": adoptS("ROOM#r1"), "SK": adoptS("Join:u1"), "room": adoptS("r1"), "user": adoptS("u1")},
	}
	for _, it := range items {
		_, err := db.Client().PutItem(t.Context(), &dynamodb.PutItemInput{TableName: aws.String(db.TableName()), Item: it})
		require.NoError(t, err)
	}
}

func TestAdoptEveryReadPathWithoutTypeAttribute(t *testing.T) {
	m := newAdoptModel(t, "_type,keys")
	db, rc := adoptDB(t, m)
	loadPlain(t, db)
	c := t.Context()

	// Get.
	cust, err := m.customers.Get(c, db, adoptCustomer{ID: "c1"})
	require.NoError(t, err)
	assert.Equal(t, adoptCustomer{ID: "c1", Name: "Ada", Email: "ada@example.com"}, cust)

	// A query over the customer's partition: the profile comes back too
	// (no type filter) and is skipped by its keys, in one request.
	before := rc.sent()
	page, err := m.orders.Query(c, db, adoptOrder{CustomerID: "c1"})
	require.NoError(t, err)
	assert.Len(t, page.Items, 2)
	assert.EqualValues(t, 1, rc.sent()-before)
	in, err := m.orders.QueryInput(db, adoptOrder{CustomerID: "c1"})
	require.NoError(t, err)
	assert.Nil(t, in.FilterExpression, "no type filter: the items carry no type")

	// A pattern on the index.
	open := m.orders.Pattern("OpenOrders").On("GSI1").Partition("STATUS#{Status}").Must()
	page, err = open.Query(c, db, adoptOrder{Status: "OPEN"})
	require.NoError(t, err)
	assert.Len(t, page.Items, 2)

	// Messages and joins share a partition: a bare timestamp sort key
	// and Join: keys tell them apart.
	msgs, err := m.messages.Query(c, db, adoptMessage{Room: "r1"})
	require.NoError(t, err)
	require.Len(t, msgs.Items, 1)
	assert.Equal(t, "hi", msgs.Items[0].Text)
	joins, err := m.joins.Query(c, db, adoptJoin{Room: "r1"})
	require.NoError(t, err)
	assert.Equal(t, []adoptJoin{{Room: "r1", User: "u1"}}, joins.Items)

	// A collection.
	view := m.t.Collection("CustomerView", m.customers, m.orders).Partition("CUSTOMER#{ID}").Must()
	res, err := view.Query(c, db, st.Values{"ID": "c1"})
	require.NoError(t, err)
	assert.Len(t, m.customers.From(res), 1)
	assert.Len(t, m.orders.From(res), 2)
	assert.Empty(t, res.Unknown)

	// BatchGet and TransactGet.
	got, err := m.orders.BatchGet(c, db, []adoptOrder{{CustomerID: "c1", OrderID: "o1"}, {CustomerID: "c1", OrderID: "o2"}})
	require.NoError(t, err)
	require.Len(t, got, 2)
	require.NotNil(t, got[0])
	require.NotNil(t, got[1])
	tg := db.TransactGet()
	tv := m.customers.TxGet(tg, adoptCustomer{ID: "c1"})
	require.NoError(t, tg.Run(c))
	v, ok := tv.Value(), tv.Found()
	require.True(t, ok)
	assert.Equal(t, "Ada", v.Name)

	// Scans: one entity's (no type filter; others' items skipped by
	// their keys) and the table's.
	var orders []adoptOrder
	for o, err := range m.orders.Scan(c, db) {
		require.NoError(t, err)
		orders = append(orders, o)
	}
	assert.Len(t, orders, 2)
	sin, err := m.orders.ScanInput(db)
	require.NoError(t, err)
	assert.Nil(t, sin.FilterExpression)
	var entities []string
	for it, err := range db.Scan(c) {
		require.NoError(t, err)
		require.NotNil(t, it.Value, "every item is known by its keys: %v", it.Item)
		entities = append(entities, it.Entity)
	}
	slices.Sort(entities)
	assert.Equal(t, []string{"Customer", "Join", "Message", "Order", "Order"}, entities)

	// Raw decoding and stream images.
	raw := rawItem(t, db, "CUSTOMER#c1", "ORDER#o1")
	dv, err := m.t.Decode(raw)
	require.NoError(t, err)
	assert.Equal(t, adoptOrder{CustomerID: "c1", OrderID: "o1", Status: "OPEN", Total: 10}, dv)
	name, err := m.t.EntityOf(raw)
	require.NoError(t, err)
	assert.Equal(t, "Order", name)
	_, err = m.customers.Decode(raw)
	var mismatch *st.EntityMismatchError
	require.ErrorAs(t, err, &mismatch)
	assert.Equal(t, "Order", mismatch.Got)
	ch, err := stream.Decode(m.orders, stream.Record{Event: stream.EventInsert, SequenceNumber: "1",
		Keys: map[string]types.AttributeValue{"PK": raw["PK"], "SK": raw["SK"]}, NewImage: raw})
	require.NoError(t, err)
	require.NotNil(t, ch.New)
	assert.Equal(t, 10, ch.New.Total)

	// Update (its result decoded by keys) leaves the other code's
	// attribute alone and, with ",keys", writes the type.
	upd, err := m.orders.Update(c, db, adoptOrder{CustomerID: "c1", OrderID: "o1"}, st.Set("Total", 11))
	require.NoError(t, err)
	assert.Equal(t, 11, upd.Total)
	after := rawItem(t, db, "CUSTOMER#c1", "ORDER#o1")
	assert.Equal(t, adoptS("x"), after["legacy"])
}

// Without the option, the published table cannot be read: the regression
// this option fixes.
func TestAdoptWithoutKeysOptionFails(t *testing.T) {
	m := newAdoptModel(t, "_type")
	db, _ := adoptDB(t, m)
	loadPlain(t, db)
	_, err := m.customers.Get(t.Context(), db, adoptCustomer{ID: "c1"})
	require.ErrorIs(t, err, st.ErrWrongEntity)
	page, err := m.orders.Query(t.Context(), db, adoptOrder{CustomerID: "c1"})
	require.NoError(t, err)
	assert.Empty(t, page.Items)
}

// An item two entities' templates parse is ambiguous on every path: a
// typed error naming both, never a guess.
func TestAdoptAmbiguousItem(t *testing.T) {
	tbl := st.MustTable("Amb", st.WithTypeAttribute("_type,keys"))
	a := st.MustDefine[adoptJoin](tbl, "A", st.Key("ROOM#{Room}", "{User}"))
	st.MustDefine[adoptJoin](tbl, "B", st.Key("ROOM#{Room}", "Join:{User}"))
	client, err := ddblocal.Client(t.Context())
	require.NoError(t, err)
	db := st.New(client, tbl, st.WithTableName(ddblocal.UniqueName("amb")))
	require.NoError(t, db.EnsureTable(t.Context()))
	t.Cleanup(func() { _ = db.DeleteTable(t.Context()) })
	_, err = client.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: aws.String(db.TableName()),
		Item: map[string]types.AttributeValue{"PK": adoptS("ROOM#r"), "SK": adoptS("Join:u"), "room": adoptS("r"), "user": adoptS("u")}})
	require.NoError(t, err)

	check := func(what string, err error) {
		t.Helper()
		var unknown *st.UnknownEntityError
		require.ErrorAs(t, err, &unknown, what)
		assert.Equal(t, []string{"A", "B"}, unknown.Candidates, what)
		assert.Contains(t, err.Error(), "ambiguous", what)
	}
	_, err = a.Get(t.Context(), db, adoptJoin{Room: "r", User: "Join:u"})
	check("Get", err)
	_, err = a.Query(t.Context(), db, adoptJoin{Room: "r"})
	check("Query", err)
	_, err = tbl.Decode(rawItem(t, db, "ROOM#r", "Join:u"))
	check("Decode", err)
	for _, err := range db.Scan(t.Context()) {
		check("Scan", err)
	}
	// Lint says so at declaration.
	var found bool
	for _, i := range tbl.Lint() {
		found = found || (i.Severity == st.LintError && strings.Contains(i.Message, "B"))
	}
	assert.True(t, found, st.LintReport(tbl.Lint()))
}

// Writes under both modes: Put, Create and Update (an upsert and the
// unique guard's read-first step) on items the other code wrote and on the
// library's own; ",omit" writes no type attribute on entity items.
func TestAdoptWrites(t *testing.T) {
	for _, mode := range []string{"_type,keys", "_type,omit"} {
		t.Run(mode, func(t *testing.T) {
			m := newAdoptModel(t, mode, st.Unique("Email"))
			db, _ := adoptDB(t, m)
			loadPlain(t, db)
			c := t.Context()
			typed := mode == "_type,keys"

			// Update of a unique field: read first (by keys), move the guard.
			// The plain item had no guard: the guard is created.
			got, err := m.customers.Update(c, db, adoptCustomer{ID: "c1"}, st.Set("Email", "ada@new.example"))
			require.NoError(t, err)
			assert.Equal(t, "ada@new.example", got.Email)
			raw := rawItem(t, db, "CUSTOMER#c1", "PROFILE")
			assert.Equal(t, adoptS("keep me"), raw["legacy"], "an update leaves attributes no struct names")
			_, hasType := raw["_type"]
			assert.False(t, hasType, "an update of an existing item writes no type")

			// Create with a unique email, and a clash.
			require.NoError(t, m.customers.Create(c, db, adoptCustomer{ID: "c2", Name: "Bo", Email: "bo@example.com"}))
			raw = rawItem(t, db, "CUSTOMER#c2", "PROFILE")
			_, hasType = raw["_type"]
			assert.Equal(t, typed, hasType)
			err = m.customers.Create(c, db, adoptCustomer{ID: "c3", Email: "bo@example.com"})
			var clash *st.UniqueViolationError
			require.ErrorAs(t, err, &clash)
			back, err := m.customers.Get(c, db, adoptCustomer{ID: "c2"})
			require.NoError(t, err)
			assert.Equal(t, "Bo", back.Name)

			// An upsert writes a new item the other code can read too.
			_, err = m.orders.Update(c, db, adoptOrder{CustomerID: "c2", OrderID: "o9"}, st.Set("Total", 5), st.Upsert())
			require.NoError(t, err)
			raw = rawItem(t, db, "CUSTOMER#c2", "ORDER#o9")
			_, hasType = raw["_type"]
			assert.Equal(t, typed, hasType)
			o, err := m.orders.Get(c, db, adoptOrder{CustomerID: "c2", OrderID: "o9"})
			require.NoError(t, err)
			assert.Equal(t, 5, o.Total)

			// Collections and queries read both kinds side by side.
			view := m.t.Collection("V", m.customers, m.orders).Partition("CUSTOMER#{ID}").Must()
			res, err := view.Query(c, db, st.Values{"ID": "c2"})
			require.NoError(t, err)
			assert.Len(t, m.customers.From(res), 1)
			assert.Len(t, m.orders.From(res), 1)

			// Delete reads first to remove the guard.
			require.NoError(t, m.customers.Delete(c, db, adoptCustomer{ID: "c2"}))
			require.NoError(t, m.customers.Create(c, db, adoptCustomer{ID: "c4", Email: "bo@example.com"}))
		})
	}
}

// A migration on a table read by its keys walks the entity's items only
// (the scan filters on no type), keeps the attributes no struct names, and
// under ",omit" writes no type.
func TestAdoptMigration(t *testing.T) {
	for _, mode := range []string{"_type,keys", "_type,omit"} {
		t.Run(mode, func(t *testing.T) {
			m := newAdoptModel(t, mode)
			db, _ := adoptDB(t, m)
			loadPlain(t, db)
			rep, err := migrate.Run(t.Context(), db, m.orders, func(_ context.Context, o *adoptOrder) error {
				o.Total *= 100
				return nil
			})
			require.NoError(t, err)
			assert.Empty(t, rep.Failures)
			assert.EqualValues(t, 2, rep.Scanned)
			assert.EqualValues(t, 2, rep.Changed)
			raw := rawItem(t, db, "CUSTOMER#c1", "ORDER#o1")
			assert.Equal(t, &types.AttributeValueMemberN{Value: "1000"}, raw["total"])
			assert.Equal(t, adoptS("x"), raw["legacy"], "a migration keeps attributes no struct names")
			_, typed := raw["_type"]
			assert.Equal(t, mode == "_type,keys", typed)
		})
	}
}
