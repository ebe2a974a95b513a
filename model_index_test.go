package singletable_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/singletabletest"
)

type nilUser struct {
	ID     string `dynamodbav:"id"`
	Secret string `dynamodbav:"-"`
}

// Entry points given a nil table, or an entity whose Define failed, return
// (or panic with) a clear *ModelError, never a nil dereference.
func TestNilTableAndEntityAreModelErrors(t *testing.T) {
	_, err := st.Define[nilUser](nil, "User", st.Key("USER#{ID}", "A"))
	var me *st.ModelError
	require.ErrorAs(t, err, &me)
	assert.ErrorIs(t, err, st.ErrInvalidModel)
	assert.Contains(t, err.Error(), "the table is nil")

	assert.PanicsWithError(t, err.Error(), func() { st.MustDefine[nilUser](nil, "User", st.Key("USER#{ID}", "A")) })
	assert.Panics(t, func() { st.New(&singletabletest.Client{}, nil) })
	func() {
		defer func() { assert.ErrorIs(t, recover().(error), st.ErrInvalidModel) }()
		st.New(&singletabletest.Client{}, nil)
	}()

	var failed *st.Entity[nilUser] // what a failed Define returns
	p := failed.Pattern("P").Partition("USER#{ID}")
	require.ErrorIs(t, p.Err(), st.ErrInvalidModel)
	assert.Contains(t, p.Err().Error(), "the entity is nil")
	client := &singletabletest.Client{}
	db := st.New(client, st.MustTable("NilT"))
	_, err = p.Query(context.Background(), db, nilUser{ID: "1"})
	require.ErrorIs(t, err, st.ErrInvalidModel)

	c := (*st.Table)(nil).Collection("C", failed).Partition("USER#{ID}")
	require.ErrorIs(t, c.Err(), st.ErrInvalidModel)
	c = st.MustTable("NilC").Collection("C", failed).Partition("USER#{ID}")
	require.ErrorIs(t, c.Err(), st.ErrInvalidModel)
	assert.Contains(t, c.Err().Error(), "nil entity")
	_, err = c.Query(context.Background(), db, st.Values{"ID": "1"})
	require.ErrorIs(t, err, st.ErrInvalidModel)
	assert.Empty(t, client.Calls())
}

// A key template naming a field that is not stored says so.
func TestKeyOnUnstoredField(t *testing.T) {
	_, err := st.Define[nilUser](st.MustTable("Unstored"), "User", st.Key("USER#{Secret}", "A"))
	var me *st.ModelError
	require.ErrorAs(t, err, &me)
	assert.Equal(t, "Secret", me.Field)
	assert.Contains(t, err.Error(), "not stored")
	assert.NotContains(t, err.Error(), "no such field")
}

type idxMember struct {
	UserID  string
	GroupID string
	Joined  string
	Email   string   `dynamodbav:"email"`
	Tags    []string `dynamodbav:"tags"`
	Age     int      `dynamodbav:"age"`
}

// Indexes over the table's own key attributes and over a field's attribute:
// what Define derives, and what it refuses.
func TestIndexesOverExistingAttributesModel(t *testing.T) {
	inv := func() *st.Table {
		return st.MustTable("Inv", st.WithGSI("Inverted", st.IndexKeys("SK", "PK"), st.KeysOnly()),
			st.WithGSI("Mixed", st.IndexKeys("SK", "MixedSK")))
	}
	key := st.Key("USER#{UserID}", "GROUP#{GroupID}")

	// Derived without a declaration; an explicit one that matches is fine.
	m, err := st.Define[idxMember](inv(), "M", key)
	require.NoError(t, err)
	require.NoError(t, m.Pattern("P").On("Inverted").Partition("GROUP#{GroupID}").SortBeginsWith("USER#").Err())
	_, err = st.Define[idxMember](inv(), "M", key, st.Index("Inverted", "GROUP#{GroupID}", "USER#{UserID}"))
	require.NoError(t, err)
	// A mismatching declaration is refused, naming the derived template.
	_, err = st.Define[idxMember](inv(), "M", key, st.Index("Inverted", "G#{GroupID}", "USER#{UserID}"))
	require.ErrorIs(t, err, st.ErrInvalidModel)
	assert.Contains(t, err.Error(), `"GROUP#{GroupID}"`)
	assert.Contains(t, err.Error(), "table's sort key")
	// When on an index that writes nothing cannot apply.
	_, err = st.Define[idxMember](inv(), "M", key,
		st.Index("Inverted", "GROUP#{GroupID}", "USER#{UserID}").When(func(*idxMember) bool { return true }, "Joined"))
	require.ErrorIs(t, err, st.ErrInvalidModel)
	// The mixed index needs its own sort template declared.
	_, err = st.Define[idxMember](inv(), "M", key, st.Index("Mixed", "GROUP#{GroupID}", "J#{Joined}"))
	require.NoError(t, err)
	_, err = st.Define[idxMember](inv(), "M", key, st.Index("Mixed", "{Joined}", "J#{Joined}"))
	require.ErrorIs(t, err, st.ErrInvalidModel)

	// A field's own attribute: the declaration must be the field itself.
	byEmail := func() *st.Table { return st.MustTable("Ema", st.WithGSI("ByEmail", st.IndexKeys("email", ""))) }
	_, err = st.Define[idxMember](byEmail(), "M", key, st.Index("ByEmail", "{Email}", ""))
	require.NoError(t, err)
	_, err = st.Define[idxMember](byEmail(), "M", key, st.Index("ByEmail", "EMAIL#{Email}", ""))
	require.ErrorIs(t, err, st.ErrInvalidModel)
	assert.Contains(t, err.Error(), "field Email")
	// A field kind that cannot be a key.
	_, err = st.Define[idxMember](st.MustTable("Tgs", st.WithGSI("ByTag", st.IndexKeys("tags", ""))), "M", key)
	require.ErrorIs(t, err, st.ErrInvalidModel)
	assert.Contains(t, err.Error(), "Tags")
	// A field's attribute beside a written key is refused.
	_, err = st.Define[idxMember](st.MustTable("Mxx", st.WithGSI("ByEmailX", st.IndexKeys("email", "XSK"))), "M", key,
		st.Index("ByEmailX", "{Email}", "X#{Joined}"))
	require.ErrorIs(t, err, st.ErrInvalidModel)

	// Two entities must agree on the attribute's type: a rendered key is a
	// string, Age a number.
	tb := st.MustTable("Agx", st.WithGSI("ByAge", st.IndexKeys("age", "")))
	_, err = st.Define[idxMember](tb, "M", key)
	require.NoError(t, err)
	type other struct{ ID string }
	_, err = st.Define[other](tb, "O", st.Key("O#{ID}", "O"), st.Index("ByAge", "AGE#{ID}", ""))
	require.ErrorIs(t, err, st.ErrInvalidModel)
	assert.Contains(t, err.Error(), "age")
}

// The sheet shows derived index keys for what they are.
func TestSheetShowsDerivedIndexKeys(t *testing.T) {
	tbl := st.MustTable("Sheet", st.WithGSI("Inverted", st.IndexKeys("SK", "PK")), st.WithGSI("ByEmail", st.IndexKeys("email", "")))
	st.MustDefine[idxMember](tbl, "M", st.Key("USER#{UserID}", "GROUP#{GroupID}"))
	sheet := tbl.Sheet()
	assert.Contains(t, sheet, "`GROUP#{GroupID}` (table key) | `USER#{UserID}` (table key) | `{Email}` (field's attribute)")
}
