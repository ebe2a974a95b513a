package capacity_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/capacity"
	"github.com/singletable/singletable/observe"
)

func TestWriteOfAndMoveOf(t *testing.T) {
	m := newModel(t)
	open := Doc{Owner: "o", ID: "1", Body: strings.Repeat("x", 1500), Status: "open"}
	w, err := capacity.WriteOf(m.Docs, open)
	require.NoError(t, err)
	assert.Equal(t, 2.0, w.Put.Table)
	assert.Equal(t, map[string]float64{"GSI1": 2, "ByStatus": 1}, w.Put.Index, "ALL: the item; KEYS_ONLY: its keys")
	assert.Equal(t, 5.0, w.Put.Units)
	assert.Equal(t, 10.0, w.TxPut.Units, "a transaction doubles")
	assert.Equal(t, w.Put.Units, w.Delete.Units, "a delete removes the entries it put")

	closed := open
	closed.Status = ""
	mv, err := capacity.MoveOf(m.Docs, open, closed)
	require.NoError(t, err)
	assert.Equal(t, map[string]float64{"GSI1": 2, "ByStatus": 1}, mv.Index, "out of the sparse index: a delete there; GSI1's entry rewritten")

	other := open
	other.Status = "shipped"
	mv, err = capacity.MoveOf(m.Docs, open, other)
	require.NoError(t, err)
	assert.Equal(t, 2.0, mv.Index["ByStatus"], "a new index key: a delete and a put")

	same := open
	mv, err = capacity.MoveOf(m.Docs, open, same)
	require.NoError(t, err)
	assert.Equal(t, map[string]float64(nil), mv.Index, "nothing an index holds changed")

	_, err = capacity.WriteOf[Doc](nil, open)
	require.ErrorIs(t, err, st.ErrInvalidInput)
}

func TestReadOf(t *testing.T) {
	m := newModel(t)
	r, err := capacity.ReadOf(m.ByOwner, capacity.Page{Items: 10, ItemBytes: 1000})
	require.NoError(t, err)
	assert.Equal(t, "Query", r.Operation)
	assert.Equal(t, 10000, r.Bytes)
	assert.Equal(t, 1.5, r.Units, "10,000 bytes: 3 units of 4 KB, halved")
	r, err = capacity.ReadOf(m.ByOwner, capacity.Page{Items: 10, ItemBytes: 1000, Consistent: true})
	require.NoError(t, err)
	assert.Equal(t, 3.0, r.Units)
	// On a KEYS_ONLY index, the entries: EntryBytes.
	r, err = capacity.ReadOf(m.ByStatus, capacity.Page{Items: 10, ItemBytes: 1000, EntryBytes: 100, Consistent: true})
	require.NoError(t, err)
	assert.Equal(t, 0.5, r.Units, "an index read is never strongly consistent")
	_, err = capacity.ReadOf("nope", capacity.Page{})
	require.ErrorIs(t, err, st.ErrInvalidInput)
}

func TestSheetShowsUnits(t *testing.T) {
	m := newModel(t)
	s := capacity.Sheet(m.Table, capacity.SheetOptions{Samples: []any{Doc{Owner: "o", ID: "1", Body: strings.Repeat("x", 1500), Status: "open"}}})
	assert.Contains(t, s, m.Table.Sheet(), "the core's sheet, then the capacity")
	assert.Contains(t, s, "| DocsByOwner | table | ")
	assert.Contains(t, s, "| DocsByStatus | ByStatus (KEYS_ONLY) | ")
	assert.Contains(t, s, "| Doc | ")
	assert.Contains(t, s, "| 5 | 5 | 10 | ByStatus 1, GSI1 2 |")
	assert.Contains(t, s, "| ViewShards | table | no sample | | |")
}

func TestCompareFlagsLargerItems(t *testing.T) {
	reqs := []observe.Request{
		{Op: "DocsByOwner", Name: "DocsByOwner", ReadUnits: 1},
		{Op: "DocsByOwner", Name: "DocsByOwner", ReadUnits: 3},
		{Op: "Doc.Put", WriteUnits: 1},
		{Op: "Doc.Delete", WriteUnits: 1},
	}
	c, err := capacity.Compare(reqs, map[string]capacity.Units{"DocsByOwner": {Read: 1}, "Doc.Put": {Write: 1}, "Never": {Read: 1}}, 0)
	require.NoError(t, err)
	require.Len(t, c.Rows, 4)
	byKey := map[string]capacity.Row{}
	for _, r := range c.Rows {
		byKey[r.Key] = r
	}
	assert.Equal(t, 2.0, byKey["DocsByOwner"].Ratio)
	assert.True(t, byKey["DocsByOwner"].Larger)
	assert.False(t, byKey["Doc.Put"].Larger)
	assert.True(t, byKey["Doc.Delete"].Missing)
	assert.Equal(t, 0, byKey["Never"].Calls)
	assert.Contains(t, c.String(), "larger than the model assumed")
}

// A unique value's guard item carries the table's keys, so an index keyed
// on them (an inverted index) holds an entry of it too: DynamoDB Local
// bills 18 WCU for such a Create where the guard's table write alone made
// 16.
func TestWriteOfCountsGuardEntriesInInvertedIndex(t *testing.T) {
	tbl := st.MustTable("CapInv", st.WithGSI("Inverted", st.IndexKeys("SK", "PK")))
	accts := st.MustDefine[Acct](tbl, "Acct", st.Key("ACCT#{ID}", "ACCT"), st.Unique("Email"))
	a := Acct{ID: "a1", Email: strings.Repeat("e", 1500)}
	w, err := capacity.WriteOf(accts, a)
	require.NoError(t, err)
	// The item: 2 units in the table and 2 in Inverted (it projects
	// ALL); the guard: 1 in the table and 1 in Inverted; doubled.
	assert.Equal(t, map[string]float64{"Inverted": 3}, w.Put.Index)
	assert.Equal(t, 3.0, w.Put.Table)
	assert.Equal(t, 12.0, w.Put.Units)
	assert.Equal(t, 12.0, w.TxPut.Units)
	assert.Equal(t, map[string]float64{"Inverted": 3}, w.Delete.Index)

	// No unique value, no guard: the item's entry only.
	plain := st.MustDefine[Doc](tbl, "Doc", st.Key("OWNER#{Owner}", "DOC#{ID}"))
	w, err = capacity.WriteOf(plain, Doc{Owner: "o", ID: "1"})
	require.NoError(t, err)
	assert.Equal(t, map[string]float64{"Inverted": 1}, w.Put.Index)
}

// An update that changes a unique value moves its guard item: a delete and
// a put, in the table and in an index keyed on the table's keys.
func TestMoveOfMovesGuardItems(t *testing.T) {
	tbl := st.MustTable("CapInvMove", st.WithGSI("Inverted", st.IndexKeys("SK", "PK")))
	accts := st.MustDefine[Acct](tbl, "Acct", st.Key("ACCT#{ID}", "ACCT"), st.Unique("Email"))
	a := Acct{ID: "a1", Email: "a@x"}
	b := a
	b.Email = "b@x"
	mv, err := capacity.MoveOf(accts, a, b)
	require.NoError(t, err)
	// The item: 1 unit in the table, its entry rewritten (1); the guards:
	// 2 in each; doubled.
	assert.Equal(t, 3.0, mv.Table)
	assert.Equal(t, map[string]float64{"Inverted": 3}, mv.Index)
	assert.Equal(t, 12.0, mv.Units)

	mv, err = capacity.MoveOf(accts, a, a)
	require.NoError(t, err)
	assert.Equal(t, 1.0, mv.Table, "the unique value unchanged: no guard moves")
}

// A scoped unique value's guard moves when its scope changes, too.
func TestMoveOfMovesScopedGuardItems(t *testing.T) {
	type member struct {
		ID     string `dynamodbav:"id"`
		Tenant string `dynamodbav:"tenant"`
		Email  string `dynamodbav:"email"`
	}
	members := st.MustDefine[member](st.MustTable("CapScoped"), "Member", st.Key("M#{ID}", "M"), st.Unique("Email within Tenant"))
	a := member{ID: "m1", Tenant: "acme", Email: "a@x"}
	b := a
	b.Tenant = "globex"
	mv, err := capacity.MoveOf(members, a, b)
	require.NoError(t, err)
	assert.Equal(t, 3.0, mv.Table, "the item, the old guard's delete and the new one's put")
	assert.True(t, mv.Transaction)
	mv, err = capacity.MoveOf(members, a, a)
	require.NoError(t, err)
	assert.Equal(t, 1.0, mv.Table, "neither changed: no guard moves")
}
