package singletable_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/singletabletest"
)

type t3Member struct {
	ID   string `dynamodbav:"id"`
	Mail string `dynamodbav:"mail"`
	Nick string `dynamodbav:"nick"`
}

// requireKeyError checks that err is a *KeyError on attr, before anything
// was sent.
func requireKeyError(t *testing.T, c *singletabletest.Client, err error, attr string) {
	t.Helper()
	require.ErrorIs(t, err, st.ErrInvalidKey)
	var ke *st.KeyError
	require.ErrorAs(t, err, &ke)
	assert.Equal(t, attr, ke.Attr)
	assert.Empty(t, c.Calls(), "nothing may be sent")
}

// With an inverted index (IndexKeys("SK", "PK")), the table's partition key
// is that index's sort key, which DynamoDB limits to 1024 bytes: a Put of
// an item whose PK is 1025 to 2048 bytes was sent, and refused by the
// service ("ValidationException: One or more parameter values were
// invalid: Size limit exceeded", checked on DynamoDB Local), instead of
// being a *KeyError before sending.
func TestTablePartitionKeyAsIndexSortKeyLimit(t *testing.T) {
	tbl := st.MustTable("T3Inv", st.WithGSI("Inverted", st.IndexKeys("SK", "PK"), st.KeysOnly()))
	members := st.MustDefine[t3Member](tbl, "Member", st.Key("M#{ID}", "PROFILE"))

	c := &singletabletest.Client{}
	db := st.New(c, tbl)
	require.NoError(t, members.Put(ctx, db, t3Member{ID: strings.Repeat("a", 1022)}), "a 1024-byte PK fits")
	c.Reset()

	long := t3Member{ID: strings.Repeat("a", 1023)} // PK "M#" + 1023: 1025 bytes
	requireKeyError(t, c, members.Put(ctx, db, long), "PK")
	requireKeyError(t, c, db.Transact(ctx, func(tx *st.Tx) error { members.TxPut(tx, long); return nil }), "PK")
	requireKeyError(t, c, db.BatchWrite(ctx, []st.BatchOp{st.BatchPut(members, long)}), "PK")
}

// A GSI over a field's own attribute (IndexKeys("mail", "nick")) takes the
// field's value as its key, and DynamoDB limits it like any key: 2048 bytes
// for the partition key, 1024 for the sort key. Put, TxPut, BatchPut and
// Update sent such a value and DynamoDB refused it ("Size limit
// exceeded"), while a query for the same value is a *KeyError before
// sending.
func TestFieldAttributeIndexKeyLimit(t *testing.T) {
	tbl := st.MustTable("T3Attr", st.WithGSI("ByMail", st.IndexKeys("mail", "nick")))
	members := st.MustDefine[t3Member](tbl, "Member", st.Key("M#{ID}", "PROFILE"))

	c := &singletabletest.Client{}
	db := st.New(c, tbl)
	require.NoError(t, members.Put(ctx, db, t3Member{ID: "m", Mail: strings.Repeat("e", 2048), Nick: strings.Repeat("n", 1024)}),
		"keys at exactly the limits fit")
	c.Reset()

	longNick := t3Member{ID: "m", Mail: "e", Nick: strings.Repeat("n", 1025)}
	requireKeyError(t, c, members.Put(ctx, db, longNick), "nick")
	requireKeyError(t, c, members.Put(ctx, db, t3Member{ID: "m", Mail: strings.Repeat("e", 2049), Nick: "n"}), "mail")
	requireKeyError(t, c, db.Transact(ctx, func(tx *st.Tx) error { members.TxPut(tx, longNick); return nil }), "nick")
	requireKeyError(t, c, db.BatchWrite(ctx, []st.BatchOp{st.BatchPut(members, longNick)}), "nick")
	_, err := members.Update(ctx, db, t3Member{ID: "m"}, st.Set("Nick", longNick.Nick))
	requireKeyError(t, c, err, "nick")
}
