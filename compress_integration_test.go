//go:build integration

package singletable_test

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/compress"
	"github.com/singletable/singletable/compress/zstd"
	"github.com/singletable/singletable/internal/ddblocal"
	"github.com/singletable/singletable/stream"
)

// czLocalDB binds table to a fresh table on DynamoDB Local (name: its
// physical name, "" for a new one).
func czLocalDB(t *testing.T, table *st.Table, name string) *st.DB {
	t.Helper()
	client, err := ddblocal.Client(ctx)
	require.NoError(t, err)
	fresh := name == ""
	if fresh {
		name = ddblocal.UniqueName("cz")
	}
	db := st.New(client, table, st.WithTableName(name))
	if fresh {
		require.NoError(t, db.EnsureTable(ctx))
		t.Cleanup(func() { _ = db.DeleteTable(ctx) })
	}
	return db
}

// czText is realistic compressible text of n bytes: JSON log lines.
func czText(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		line, _ := json.Marshal(map[string]any{"ts": 1700000000 + i, "level": "info", "msg": "request served", "path": fmt.Sprintf("/api/orders/%d", i%97), "status": 200, "ms": i % 13})
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.String()[:n]
}

// stored reports how attribute attr of the raw item is stored: "S", "B"
// (plain), or the codec id of a compressed value ("gzip", "zstd").
func stored(item map[string]types.AttributeValue, attr string) string {
	switch v := item[attr].(type) {
	case *types.AttributeValueMemberS:
		return "S"
	case *types.AttributeValueMemberM:
		return "M"
	case *types.AttributeValueMemberB:
		if !bytes.HasPrefix(v.Value, []byte("\x00STZ")) {
			return "B"
		}
		return map[byte]string{0: "escaped", 1: "gzip", 2: "zstd"}[v.Value[4]]
	}
	return fmt.Sprintf("%T", item[attr])
}

// Values below the threshold are stored plain, at and above it compressed,
// and every read path restores them.
func TestIntegrationCompressRoundTripsOnEveryReadPath(t *testing.T) {
	db := czLocalDB(t, czTable, "")
	docs := []czDoc{
		{Tenant: "t", ID: "below", Body: czText(czMin - 1), Raw: []byte(czText(czMin - 1)), Meta: czMeta{Tags: []string{"a"}}},
		{Tenant: "t", ID: "at", Body: czText(czMin), Raw: []byte(czText(czMin))},
		{Tenant: "t", ID: "above", Body: czText(5000), Raw: []byte(czText(3000)), Meta: czMeta{Tags: strings.Fields(czText(2000)), Notes: map[string]string{"k": czText(400)}}},
		{Tenant: "t", ID: "random", Body: "x", Raw: randomBytes(2000)},
	}
	// Written by Put, a batch and a transaction.
	require.NoError(t, czDocs.Put(ctx, db, docs[0]))
	require.NoError(t, db.BatchWrite(ctx, []st.BatchOp{st.BatchPut(czDocs, docs[1])}))
	require.NoError(t, db.Transact(ctx, func(tx *st.Tx) error {
		czDocs.TxPut(tx, docs[2])
		czDocs.TxPut(tx, docs[3])
		return nil
	}))

	raw := map[string]map[string]types.AttributeValue{}
	for _, d := range docs {
		raw[d.ID] = rawItem(t, db, "T#t", "DOC#"+d.ID)
	}
	assert.Equal(t, "S", stored(raw["below"], "Body"), "below the threshold: plain")
	assert.Equal(t, "B", stored(raw["below"], "Raw"))
	assert.Equal(t, "M", stored(raw["below"], "Meta"))
	assert.Equal(t, "gzip", stored(raw["at"], "Body"), "at the threshold: compressed")
	assert.Equal(t, "gzip", stored(raw["at"], "Raw"))
	assert.Equal(t, "gzip", stored(raw["above"], "Body"))
	assert.Equal(t, "gzip", stored(raw["above"], "Meta"), "any value, through its encoding")
	assert.Equal(t, "B", stored(raw["random"], "Raw"), "a value that does not shrink is stored plain")
	assert.Less(t, len(raw["above"]["Body"].(*types.AttributeValueMemberB).Value), 5000/3)

	byID := map[string]czDoc{}
	for _, d := range docs {
		byID[d.ID] = d
	}
	check := func(path string, got czDoc) {
		t.Helper()
		want := byID[got.ID]
		assert.Equal(t, want, got, "%s: %s", path, got.ID)
	}
	for _, d := range docs {
		got, err := czDocs.Get(ctx, db, czDoc{Tenant: "t", ID: d.ID})
		require.NoError(t, err)
		check("Get", got)
		v, err := czTable.Decode(raw[d.ID])
		require.NoError(t, err)
		check("Table.Decode", v.(czDoc))
		ch, err := stream.Decode(czDocs, stream.Record{Event: stream.EventInsert, SequenceNumber: "1", Keys: map[string]types.AttributeValue{"PK": raw[d.ID]["PK"], "SK": raw[d.ID]["SK"]}, NewImage: raw[d.ID]})
		require.NoError(t, err)
		check("stream image", *ch.New)
	}
	n := 0
	for v, err := range czDocs.All(ctx, db, czDoc{Tenant: "t"}) {
		require.NoError(t, err)
		check("Query", v)
		n++
	}
	assert.Equal(t, len(docs), n)
	res, err := czColl.Query(ctx, db, st.Values{"Tenant": "t"})
	require.NoError(t, err)
	for _, v := range czDocs.From(res) {
		check("Collection", v)
	}
	assert.Len(t, czDocs.From(res), len(docs))
	got, err := czDocs.BatchGet(ctx, db, []czDoc{{Tenant: "t", ID: "above"}, {Tenant: "t", ID: "at"}})
	require.NoError(t, err)
	for _, v := range got {
		check("BatchGet", *v)
	}
	tg := db.TransactGet()
	tv := czDocs.TxGet(tg, czDoc{Tenant: "t", ID: "above"})
	require.NoError(t, tg.Run(ctx))
	v, err := tv.Get()
	require.NoError(t, err)
	check("TxGet", v)
	n = 0
	for v, err := range czDocs.Scan(ctx, db) {
		require.NoError(t, err)
		check("Scan", v)
		n++
	}
	assert.Equal(t, len(docs), n)
	page, err := czDocs.Query(ctx, db, czDoc{Tenant: "t"}, st.Project("Body"))
	require.NoError(t, err)
	for _, v := range page.Items {
		assert.Equal(t, byID[v.ID].Body, v.Body, "Project(Body)")
	}

	// An Update's whole-value Set is compressed, and reads back.
	long := czText(8000)
	_, err = czDocs.Update(ctx, db, czDoc{Tenant: "t", ID: "below"}, st.Set("Body", long))
	require.NoError(t, err)
	assert.Equal(t, "gzip", stored(rawItem(t, db, "T#t", "DOC#below"), "Body"))
	got1, err := czDocs.Get(ctx, db, czDoc{Tenant: "t", ID: "below"})
	require.NoError(t, err)
	assert.Equal(t, long, got1.Body)
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return b
}

// An item written with one codec reads after the entity switches to the
// other, both ways: the header names the codec.
func TestIntegrationCompressSwitchCodecs(t *testing.T) {
	type doc struct {
		ID   string
		Body string `singletable:"compress"`
	}
	define := func(c compress.Codec) (*st.Table, *st.Entity[doc]) {
		tbl := st.MustTable("CzSwitch")
		return tbl, st.MustDefine[doc](tbl, "Doc", st.Key("D#{ID}", "D"), compress.With(c, 100))
	}
	gzTable, gz := define(compress.Gzip)
	zsTable, zs := define(zstd.Codec)
	gzDB := czLocalDB(t, gzTable, "")
	zsDB := czLocalDB(t, zsTable, gzDB.TableName())

	a, b := doc{ID: "a", Body: czText(3000)}, doc{ID: "b", Body: czText(4000)}
	require.NoError(t, gz.Put(ctx, gzDB, a))
	require.NoError(t, zs.Put(ctx, zsDB, b))
	assert.Equal(t, "gzip", stored(rawItem(t, gzDB, "D#a", "D"), "Body"))
	assert.Equal(t, "zstd", stored(rawItem(t, gzDB, "D#b", "D"), "Body"))
	for _, e := range []struct {
		e  *st.Entity[doc]
		db *st.DB
	}{{gz, gzDB}, {zs, zsDB}} {
		for _, want := range []doc{a, b} {
			got, err := e.e.Get(ctx, e.db, doc{ID: want.ID})
			require.NoError(t, err)
			assert.Equal(t, want, got)
		}
	}
}

// The 400 KB limit: a value that only fits compressed is stored; stored
// plain, it is refused before sending, and so is one that does not shrink.
func TestIntegrationCompressItemLimit(t *testing.T) {
	type doc struct {
		ID   string
		Body string `singletable:"compress"`
	}
	type plainDoc struct {
		ID   string
		Body string
	}
	tbl := st.MustTable("CzLimit")
	docs := st.MustDefine[doc](tbl, "Doc", st.Key("D#{ID}", "D"))
	plain := st.MustDefine[plainDoc](tbl, "Plain", st.Key("P#{ID}", "P"))
	db := czLocalDB(t, tbl, "")

	big := czText(600 * 1024)
	require.NoError(t, docs.Put(ctx, db, doc{ID: "big", Body: big}))
	got, err := docs.Get(ctx, db, doc{ID: "big"})
	require.NoError(t, err)
	assert.Equal(t, big, got.Body)

	err = plain.Put(ctx, db, plainDoc{ID: "big", Body: big})
	require.ErrorIs(t, err, st.ErrTooLarge, "plain, it is over the limit")
	noise := fmt.Sprintf("%x", randomBytes(210*1024)) // hex: shrinks to about half, still over
	err = docs.Put(ctx, db, doc{ID: "noise", Body: noise + noise})
	require.ErrorIs(t, err, st.ErrTooLarge, "the compressed size is what counts")
}

// An item collection of mixed types, each with compressed fields of its
// own (a string with gzip, a struct with zstd) beside an entity without
// any: one Query reads them all and each entity restores its own.
func TestIntegrationCompressCollectionMixedTypes(t *testing.T) {
	type order struct {
		Customer string
		ID       string
		Events   string `singletable:"compress"`
	}
	type profile struct {
		Customer string
		Prefs    czMeta `singletable:"compress"`
	}
	type note struct {
		Customer string
		N        int
		Text     string
	}
	tbl := st.MustTable("CzMixed")
	orders := st.MustDefine[order](tbl, "Order", st.Key("C#{Customer}", "ORDER#{ID}"), compress.With(compress.Gzip, 100))
	profiles := st.MustDefine[profile](tbl, "Profile", st.Key("C#{Customer}", "PROFILE"), compress.With(zstd.Codec, 100))
	notes := st.MustDefine[note](tbl, "Note", st.Key("C#{Customer}", "NOTE#{N}"))
	coll := tbl.Collection("Customer", orders, profiles, notes).Partition("C#{Customer}").Must()
	db := czLocalDB(t, tbl, "")

	o1, o2 := order{Customer: "c", ID: "1", Events: czText(4000)}, order{Customer: "c", ID: "2", Events: "short"}
	p := profile{Customer: "c", Prefs: czMeta{Tags: strings.Fields(czText(1500)), Notes: map[string]string{"k": czText(300)}}}
	n := note{Customer: "c", N: 1, Text: czText(4000)}
	require.NoError(t, db.BatchWrite(ctx, []st.BatchOp{st.BatchPut(orders, o1), st.BatchPut(orders, o2), st.BatchPut(profiles, p), st.BatchPut(notes, n)}))
	assert.Equal(t, "gzip", stored(rawItem(t, db, "C#c", "ORDER#1"), "Events"))
	assert.Equal(t, "S", stored(rawItem(t, db, "C#c", "ORDER#2"), "Events"), "below the threshold")
	assert.Equal(t, "zstd", stored(rawItem(t, db, "C#c", "PROFILE"), "Prefs"))
	assert.Equal(t, "S", stored(rawItem(t, db, "C#c", "NOTE#1"), "Text"), "an entity without compressed fields")

	res, err := coll.Query(ctx, db, st.Values{"Customer": "c"})
	require.NoError(t, err)
	assert.Equal(t, []order{o1, o2}, orders.From(res))
	assert.Equal(t, []profile{p}, profiles.From(res))
	assert.Equal(t, []note{n}, notes.From(res))
}
