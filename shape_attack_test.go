package singletable_test

// Outside attack on key shapes and adoption (issue 25): what lint relies on
// must hold for every request the library sends.

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/singletabletest"
)

// Lint says a SortBetween over a bare {At} sort key reaches only keys that
// start with a digit. A bound whose time is zero would render "" and open
// the range (SK >= from, SK <= to, or no condition), reaching "Meta" and
// "Join:" keys lint declared out of reach: it is refused, as the other
// comparisons refuse a bound without the first sort field, and nothing is
// sent.
func TestBetweenBoundWithoutFirstSortValueRefused(t *testing.T) {
	type message struct {
		Room string
		At   time.Time
	}
	type room struct{ Room string }
	type join struct{ Room, User string }
	tbl := st.MustTable("Chat")
	msgs := st.MustDefine[message](tbl, "Message", st.Key("ROOM#{Room}", "{At}"))
	st.MustDefine[room](tbl, "Room", st.Key("ROOM#{Room}", "Meta"))
	st.MustDefine[join](tbl, "Join", st.Key("ROOM#{Room}", "Join:{User}"))
	between := msgs.Pattern("Between").Partition("ROOM#{Room}").SortBetween().Must()
	require.Empty(t, tbl.Lint(), st.LintReport(tbl.Lint()))
	c := &singletabletest.Client{}
	db := st.New(c, tbl)
	at := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	for name, b := range map[string][2]message{
		"no lower time": {{Room: "r"}, {At: at}},
		"no upper time": {{Room: "r", At: at}, {}},
		"neither":       {{Room: "r"}, {}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := between.QueryBetweenInput(db, b[0], b[1])
			require.ErrorIs(t, err, st.ErrInvalidInput)
			assert.Contains(t, err.Error(), "At")
			_, err = between.QueryBetween(t.Context(), db, b[0], b[1])
			require.ErrorIs(t, err, st.ErrInvalidInput)
		})
	}
	assert.Empty(t, c.Calls(), "nothing sent")
	in, err := between.QueryBetweenInput(db, message{Room: "r", At: at}, message{At: at.Add(time.Hour)})
	require.NoError(t, err)
	assert.Equal(t, "#n0 = :v0 AND #n1 BETWEEN :v1 AND :v2", *in.KeyConditionExpression)
}

// An update that sets a field an index key renders, while the key also
// needs a field the update does not give, reads that field first. A value
// outside the key's shape (or a time outside the years 0 to 9999) is
// refused before that read, not after it: nothing is sent.
func TestUpdateRefusesShapedIndexValueBeforeReading(t *testing.T) {
	type device struct {
		Site, ID, Code, Region string
		Seen                   time.Time `dynamodbav:"seen,unixtime"` // stores any year
	}
	tbl := st.MustTable("Devices", st.WithGSI("GSI1"), st.WithGSI("GSI2"))
	devs := st.MustDefine[device](tbl, "Device", st.Key("SITE#{Site}", "DEV#{ID:hex}"),
		st.Index("GSI1", "REG#{Region}", "C#{Code:digits}#{Site}"),
		st.Index("GSI2", "REG#{Region}", "SEEN#{Seen}"))
	c := &singletabletest.Client{}
	db := st.New(c, tbl)
	key := device{Site: "s", ID: "ab12"}
	for name, ch := range map[string]st.Changes{
		"shape": st.Set("Code", "zz"),
		"year":  st.Set("Seen", time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := devs.Update(t.Context(), db, key, ch)
			var ke *st.KeyError
			require.ErrorAs(t, err, &ke)
			assert.ErrorIs(t, err, st.ErrInvalidKey)
			_, err = devs.Update(t.Context(), db, key, ch, st.Upsert())
			require.ErrorAs(t, err, &ke)
			err = db.Transact(t.Context(), func(tx *st.Tx) error { devs.TxUpdate(tx, key, ch); return nil })
			require.ErrorAs(t, err, &ke)
		})
	}
	assert.Empty(t, c.Calls(), "nothing sent, not even the read")
}
