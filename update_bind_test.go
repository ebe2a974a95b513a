package singletable_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/singletabletest"
)

type t3Tagged struct {
	ID     string   `dynamodbav:"id"`
	Labels []string `dynamodbav:"labels,stringset,omitempty"`
	Ports  []int    `dynamodbav:"ports,numberset,omitempty"`
}

// Append and Prepend are list operations (list_append), but a field tagged
// stringset / numberset / binaryset is stored as a set: on an item without
// the attribute, Append("Labels", "x") stored a List ["x"] where Put
// stores a String Set (so a later Add or DeleteFromSet failed, and
// Contains on it meant something else); on an item with the set, DynamoDB
// refused it ("An operand in the update expression has an incorrect data
// type", which the library explains as a NULL). Checked on DynamoDB Local.
func TestAppendToASetFieldFailsBeforeSending(t *testing.T) {
	tbl := st.MustTable("T3Sets")
	things := st.MustDefine[t3Tagged](tbl, "Thing", st.Key("T#{ID}", "T"))
	db := st.New(&singletabletest.Client{}, tbl)
	key := t3Tagged{ID: "t"}
	for name, ch := range map[string]st.Changes{`Append("Labels")`: st.Append("Labels", "x"),
		`Prepend("Labels")`: st.Prepend("Labels", []string{"x"}), `Append("Ports")`: st.Append("Ports", 1)} {
		_, err := things.UpdateInput(db, key, ch)
		require.ErrorIs(t, err, st.ErrInvalidInput, name)
	}
	_, err := things.UpdateInput(db, key, st.Add("Labels", "x"))
	require.NoError(t, err, "Add is the set's operation")
}
