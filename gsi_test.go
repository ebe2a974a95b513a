package singletable_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
)

type nilUser struct {
	ID     string `dynamodbav:"id"`
	Secret string `dynamodbav:"-"`
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
		st.Index("Inverted", "GROUP#{GroupID}", "USER#{UserID}").When(st.Exists("Joined")))
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

type ownedProject struct {
	Tenant string  `dynamodbav:"tenant"`
	ID     string  `dynamodbav:"id"`
	Owner  *string `dynamodbav:"owner,omitempty"`
}

// A read of a sparse index without the index key's value is refused before
// sending; the error used to give the table key's reason ("every field of
// a table key needs one") for an index key, whose value items may lack.
func TestIndexReadWithoutPartitionValueSaysIndex(t *testing.T) {
	tbl := st.MustTable("OwnedProjects", st.WithGSI("GSI1"))
	projects := st.MustDefine[ownedProject](tbl, "Project", st.Key("TENANT#{Tenant}", "PROJECT#{ID}"),
		st.Index("GSI1", "OWNER#{Owner}", "PROJECT#{ID}"))
	byOwner := projects.Pattern("ByOwner").On("GSI1").Partition("OWNER#{Owner}").Must()
	db := st.New(nil, tbl)

	empty := ""
	for _, params := range []ownedProject{{}, {Owner: &empty}} {
		_, err := byOwner.QueryInput(db, params)
		var ke *st.KeyError
		require.ErrorAs(t, err, &ke)
		assert.Equal(t, "GSI1PK", ke.Attr)
		assert.Equal(t, "Owner", ke.Field)
		assert.NotContains(t, err.Error(), "table key")
		assert.Contains(t, err.Error(), "the read needs one (an item with an empty value is not in the index)")
	}
	// The table's own key keeps its reason.
	_, err := projects.QueryInput(db, ownedProject{})
	assert.ErrorContains(t, err, "every field of a table key needs one")
}
