//go:build integration

package singletable_test

// Key-only fields on a table written by plain SDK code: the ids and times
// live in the keys only (no attribute of their own), and every read path
// gives them back, parsed from the table key.

import (
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/stream"
)

type koUser struct {
	ID    string `dynamodbav:"-"`
	Name  string `dynamodbav:"name"`
	Email string `dynamodbav:"email"`
}

type koEvent struct {
	UserID string    `dynamodbav:"-"`
	At     time.Time `dynamodbav:"-"`
	Seq    int       `dynamodbav:"-"`
	Kind   string    `dynamodbav:"kind"`
	Note   string    `dynamodbav:"note"`
}

type keyOnlyModel struct {
	t      *st.Table
	users  *st.Entity[koUser]
	events *st.Entity[koEvent]
}

func newKeyOnlyModel(t *testing.T) keyOnlyModel {
	t.Helper()
	tbl, err := st.NewTable("KeyOnly", st.WithTypeAttribute("_type,keys"),
		st.WithGSI("GSI1"),
		st.WithGSI("ByKind", st.IndexKeys("KindPK", "KindSK"), st.KeysOnly()),
		st.WithGSI("Inverted", st.IndexKeys("SK", "PK"), st.Include("note")))
	require.NoError(t, err)
	m := keyOnlyModel{t: tbl}
	m.users, err = st.Define[koUser](tbl, "User", st.Key("USER#{ID}", "PROFILE"),
		st.Index("GSI1", "EMAIL#{Email}", "USER#{ID}"))
	require.NoError(t, err)
	m.events, err = st.Define[koEvent](tbl, "Event", st.Key("USER#{UserID}", "EVENT#{At}#{Seq:3}"),
		st.Index("ByKind", "KIND#{Kind}", "{At}#{Seq:3}"))
	require.NoError(t, err)
	return m
}

// The ids hold the delimiter, the escape character and unicode; the
// event times and sequence numbers include the zero sequence.
var (
	koID    = "a#b%c—日本"
	koIDKey = "a%23b%25c—日本" // as the key writes it (escaped)
	koAt0   = time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	koAt1   = time.Date(2026, 1, 2, 3, 4, 5, 7, time.UTC)
)

func koKey(at time.Time) string { return at.Format(st.DefaultTimeLayout) }

// loadKOPlain writes items as the table's other code does: the ids, times
// and numbers only in the keys, no type attribute.
func loadKOPlain(t *testing.T, db *st.DB) {
	t.Helper()
	items := []map[string]types.AttributeValue{
		{"PK": adoptS("USER#" + koIDKey), "SK": adoptS("PROFILE"), "name": adoptS("Ada"), "email": adoptS("ada@example.com"),
			"GSI1PK": adoptS("EMAIL#ada@example.com"), "GSI1SK": adoptS("USER#" + koIDKey)},
		{"PK": adoptS("USER#" + koIDKey), "SK": adoptS("EVENT#" + koKey(koAt0) + "#000"), "kind": adoptS("login"), "note": adoptS("first"),
			"KindPK": adoptS("KIND#login"), "KindSK": adoptS(koKey(koAt0) + "#000")},
		{"PK": adoptS("USER#" + koIDKey), "SK": adoptS("EVENT#" + koKey(koAt1) + "#042"), "kind": adoptS("login"), "note": adoptS("second"),
			"KindPK": adoptS("KIND#login"), "KindSK": adoptS(koKey(koAt1) + "#042")},
	}
	for _, it := range items {
		_, err := db.Client().PutItem(t.Context(), &dynamodb.PutItemInput{TableName: aws.String(db.TableName()), Item: it})
		require.NoError(t, err)
	}
}

func TestKeyOnlyFieldsEveryReadPath(t *testing.T) {
	m := newKeyOnlyModel(t)
	db, _ := adoptDB(t, adoptModel{t: m.t})
	loadKOPlain(t, db)
	c := t.Context()
	user := koUser{ID: koID, Name: "Ada", Email: "ada@example.com"}
	ev0 := koEvent{UserID: koID, At: koAt0, Seq: 0, Kind: "login", Note: "first"}
	ev1 := koEvent{UserID: koID, At: koAt1, Seq: 42, Kind: "login", Note: "second"}

	// Get.
	got, err := m.users.Get(c, db, koUser{ID: koID})
	require.NoError(t, err)
	assert.Equal(t, user, got)
	e0, err := m.events.Get(c, db, koEvent{UserID: koID, At: koAt0})
	require.NoError(t, err)
	assert.Equal(t, ev0, e0, "a zero Seq and a time to the nanosecond come back exactly")

	// Queries: the table, an ALL index, a KEYS_ONLY index, an INCLUDE index.
	page, err := m.events.Query(c, db, koEvent{UserID: koID})
	require.NoError(t, err)
	assert.Equal(t, []koEvent{ev0, ev1}, page.Items)
	byEmail := m.users.Pattern("ByEmail").On("GSI1").Partition("EMAIL#{Email}").Must()
	users, err := byEmail.Query(c, db, koUser{Email: "ada@example.com"})
	require.NoError(t, err)
	assert.Equal(t, []koUser{user}, users.Items)
	byKind := m.events.Pattern("ByKind").On("ByKind").Partition("KIND#{Kind}").Must()
	kinds, err := byKind.Query(c, db, koEvent{Kind: "login"})
	require.NoError(t, err)
	assert.Equal(t, []koEvent{{UserID: koID, At: koAt0, Kind: "login"}, {UserID: koID, At: koAt1, Seq: 42, Kind: "login"}}, kinds.Items,
		"a KEYS_ONLY index gives the key-only fields and the index's own")
	inv := m.events.Pattern("Inverted").On("Inverted").Partition("EVENT#{At}#{Seq:3}").Must()
	invPage, err := inv.Query(c, db, koEvent{At: koAt1, Seq: 42})
	require.NoError(t, err)
	assert.Equal(t, []koEvent{{UserID: koID, At: koAt1, Seq: 42, Note: "second"}}, invPage.Items)

	// A collection of both entities.
	view := m.t.Collection("UserView", m.users, m.events).Partition("USER#{ID}").Must()
	res, err := view.Query(c, db, st.Values{"ID": koID})
	require.NoError(t, err)
	assert.Equal(t, []koUser{user}, m.users.From(res))
	assert.Equal(t, []koEvent{ev0, ev1}, m.events.From(res))
	assert.Empty(t, res.Unknown)

	// BatchGet and TransactGet.
	bg, err := m.events.BatchGet(c, db, []koEvent{{UserID: koID, At: koAt1, Seq: 42}, {UserID: koID, At: koAt0}})
	require.NoError(t, err)
	require.Len(t, bg, 2)
	require.NotNil(t, bg[0])
	require.NotNil(t, bg[1])
	assert.Equal(t, ev1, *bg[0])
	assert.Equal(t, ev0, *bg[1])
	tg := db.TransactGet()
	tu := m.users.TxGet(tg, koUser{ID: koID})
	te := m.events.TxGet(tg, koEvent{UserID: koID, At: koAt1, Seq: 42})
	require.NoError(t, tg.Run(c))
	assert.Equal(t, user, tu.Value())
	assert.Equal(t, ev1, te.Value())

	// Scans: one entity's and the table's.
	var scanned []koEvent
	for e, err := range m.events.Scan(c, db) {
		require.NoError(t, err)
		scanned = append(scanned, e)
	}
	assert.ElementsMatch(t, []koEvent{ev0, ev1}, scanned)
	var all []any
	for it, err := range db.Scan(c) {
		require.NoError(t, err)
		all = append(all, it.Value)
	}
	assert.ElementsMatch(t, []any{user, ev0, ev1}, all)

	// Raw decoding and stream records (their keys alone, and images).
	raw := rawItem(t, db, "USER#"+koIDKey, "EVENT#"+koKey(koAt1)+"#042")
	dv, err := m.t.Decode(raw)
	require.NoError(t, err)
	assert.Equal(t, ev1, dv)
	name, err := m.t.EntityOf(raw)
	require.NoError(t, err)
	assert.Equal(t, "Event", name)
	de, err := m.events.Decode(raw)
	require.NoError(t, err)
	assert.Equal(t, ev1, de)
	keysOnly := map[string]types.AttributeValue{"PK": raw["PK"], "SK": raw["SK"]}
	ch, err := stream.Decode(m.events, stream.Record{Event: stream.EventModify, SequenceNumber: "1", Keys: keysOnly, OldImage: raw, NewImage: raw})
	require.NoError(t, err)
	require.NotNil(t, ch.New)
	require.NotNil(t, ch.Old)
	assert.Equal(t, ev1, *ch.New)
	assert.Equal(t, ev1, *ch.Old)
	assert.Equal(t, koEvent{UserID: koID, At: koAt1, Seq: 42}, ch.Key)
	ch, err = stream.Decode(m.events, stream.Record{Event: stream.EventRemove, SequenceNumber: "2", Keys: keysOnly})
	require.NoError(t, err)
	assert.Equal(t, koEvent{UserID: koID, At: koAt1, Seq: 42}, ch.Key)
}

// Writes put the key-only fields into the keys and nowhere else, and read
// back exactly: Put, Update (its result, an upsert) and a delete's old value.
func TestKeyOnlyFieldsWrites(t *testing.T) {
	m := newKeyOnlyModel(t)
	db, _ := adoptDB(t, adoptModel{t: m.t})
	c := t.Context()
	id := "x#y%z — ü"
	ev := koEvent{UserID: id, At: koAt0, Seq: 0, Kind: "k", Note: "n"}
	require.NoError(t, m.events.Put(c, db, ev))
	raw := rawItem(t, db, "USER#x%23y%25z — ü", "EVENT#"+koKey(koAt0)+"#000")
	require.NotNil(t, raw)
	assert.Equal(t, []string{"KindPK", "KindSK", "PK", "SK", "_type", "kind", "note"}, sortedKeys(raw),
		"no attribute of the key-only fields")
	back, err := m.events.Get(c, db, koEvent{UserID: id, At: koAt0})
	require.NoError(t, err)
	assert.Equal(t, ev, back)

	upd, err := m.events.Update(c, db, koEvent{UserID: id, At: koAt0}, st.Set("Kind", "k2"))
	require.NoError(t, err)
	assert.Equal(t, koEvent{UserID: id, At: koAt0, Kind: "k2", Note: "n"}, upd)
	raw = rawItem(t, db, "USER#x%23y%25z — ü", "EVENT#"+koKey(koAt0)+"#000")
	assert.Equal(t, adoptS("KIND#k2"), raw["KindPK"])
	assert.Equal(t, adoptS(koKey(koAt0)+"#000"), raw["KindSK"], "the index key renders the key-only fields from the key")

	up, err := m.events.Update(c, db, koEvent{UserID: id, At: koAt1, Seq: 7}, st.Set("Kind", "new"), st.Upsert())
	require.NoError(t, err)
	assert.Equal(t, koEvent{UserID: id, At: koAt1, Seq: 7, Kind: "new"}, up)
	raw = rawItem(t, db, "USER#x%23y%25z — ü", "EVENT#"+koKey(koAt1)+"#007")
	assert.Equal(t, []string{"KindPK", "KindSK", "PK", "SK", "_type", "kind", "note"}, sortedKeys(raw), "an upsert writes the zero values of the stored fields, none of the key-only ones")
	assert.Equal(t, adoptS(koKey(koAt1)+"#007"), raw["KindSK"])
}

func sortedKeys(item map[string]types.AttributeValue) []string {
	out := make([]string, 0, len(item))
	for k := range item {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
