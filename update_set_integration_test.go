//go:build integration

package singletable_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/singletabletest"
)

// Sets given in any Go shape change the stored set as DynamoDB's ADD and
// DELETE do, and read back as the field's type.
func TestIntegrationUpdateSetShapes(t *testing.T) {
	db := singletabletest.LocalDB(t, setTable)
	ctx := t.Context()
	key := setHolder{ID: "h#1"}
	require.NoError(t, setHolders.Create(ctx, db, setHolder{ID: "h#1", Tags: []string{"a", "b", "c"}, Nums: []int64{1, 2}}))

	steps := []st.Changes{
		st.DeleteFromSet("Tags", map[string]struct{}{"a": {}, "zz": {}}), // a missing member is no error
		st.Add("Tags", map[string]bool{"d": true, "e": false}),
		st.DeleteFromSet("Tags", []any{"b"}),
		st.Add("Colors", []string{"red", "blue"}), // a missing set is created
		st.DeleteFromSet("Colors", []setColor{"red"}),
		st.Add("Nums", []int{3}).DeleteFromSet("Tags", "c"),
		st.DeleteFromSet("Nums", []float64{1}),
	}
	for i, ch := range steps {
		_, err := setHolders.Update(ctx, db, key, ch)
		require.NoError(t, err, "step %d", i)
	}
	got, err := setHolders.Get(ctx, db, key)
	require.NoError(t, err)
	require.ElementsMatch(t, []string{"d"}, got.Tags)
	require.Equal(t, []setColor{"blue"}, got.Colors)
	require.ElementsMatch(t, []int64{2, 3}, got.Nums)

	// A list field is refused before sending, and the item is unchanged.
	_, err = setHolders.Update(ctx, db, key, st.Add("List", "x"))
	require.ErrorIs(t, err, st.ErrInvalidInput)
	again, err := setHolders.Get(ctx, db, key)
	require.NoError(t, err)
	require.Equal(t, got, again)
}
