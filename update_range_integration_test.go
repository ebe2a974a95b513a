//go:build integration

package singletable_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/ddblocal"
)

// Against DynamoDB Local: a change that would take an integer field out of
// its Go type's range fails as a *ConditionError saying so, nothing is
// written, and the item still reads back; changes within the range (up to
// its very edges) are written.
func TestIntegrationUpdateKeepsIntegersInRange(t *testing.T) {
	client, err := ddblocal.Client(ctx)
	require.NoError(t, err)
	db := st.New(client, rangeTable, st.WithTableName(ddblocal.UniqueName("ranges")))
	require.NoError(t, db.EnsureTable(ctx))
	t.Cleanup(func() { _ = db.DeleteTable(ctx) })

	key := counters{ID: "a"}
	zero := uint32(0)
	start := counters{ID: "a", U8: 250, U: 1, I16: -32760, PU32: &zero}
	start.Stats.N = 127
	require.NoError(t, rangeItems.Put(ctx, db, start))

	refused := func(ch st.Changes, reason string) {
		t.Helper()
		_, err := rangeItems.Update(ctx, db, key, ch)
		var ce *st.ConditionError
		require.ErrorAs(t, err, &ce)
		assert.ErrorIs(t, err, st.ErrConditionFailed)
		assert.Contains(t, ce.Reason, reason)
		got, err := rangeItems.Get(ctx, db, key)
		require.NoError(t, err, "the item must still read back")
		assert.Equal(t, start, got, "nothing may be written")
	}
	refused(st.Increment("U8", 6), `Increment("U8"): the item holds 250, and Increment would store 256, beyond what a uint8 holds (255); nothing was written`)
	refused(st.Add("U8", 10), `Add("U8"): the item holds 250`)
	refused(st.Decrement("U", 2), `Decrement("U"): the item holds 1, and Decrement would store -1, beyond what a uint holds (0)`)
	refused(st.Decrement("I16", 9), `beyond what a int16 holds (-32768)`)
	refused(st.Increment("Stats.N", 1), `Increment("Stats.N"): the item holds 127, and Increment would store 128, beyond what a int8 holds (127)`)
	refused(st.Decrement("PU32", 1), `Decrement("PU32"): the item holds 0, and Decrement would store -1, beyond what a uint32 holds (0)`)
	// The caller's own failed condition is still explained as such.
	_, err = rangeItems.Update(ctx, db, key, st.Increment("U8", 1).If(st.Eq("U", 7)))
	require.ErrorIs(t, err, st.ErrConditionFailed)
	assert.Contains(t, err.Error(), "does not hold")

	// Up to the edges, and an upsert of a new item from 0.
	got, err := rangeItems.Update(ctx, db, key, st.Increment("U8", 5).Decrement("U", 1).Decrement("I16", 8).
		Increment("I64", 1).Add("PU32", uint32(4294967295)))
	require.NoError(t, err)
	assert.Equal(t, uint8(255), got.U8)
	assert.Equal(t, uint(0), got.U)
	assert.Equal(t, int16(-32768), got.I16)
	require.NotNil(t, got.PU32)
	assert.Equal(t, uint32(4294967295), *got.PU32)
	_, err = rangeItems.Update(ctx, db, counters{ID: "new"}, st.Decrement("U", 1), st.Upsert())
	var ce *st.ConditionError
	require.ErrorAs(t, err, &ce)
	assert.Contains(t, ce.Reason, "there is no value, which counts as 0, and Decrement would store -1")
	_, err = rangeItems.Get(ctx, db, counters{ID: "new"})
	require.ErrorIs(t, err, st.ErrNotFound, "the upsert must not have created the item")

	// A nil pointer is stored as NULL (no omitempty), which DynamoDB cannot
	// compute from: the range check fails on it and says so; without one,
	// DynamoDB's refusal says the same.
	type nullable struct {
		ID   string
		N    *uint16
		M    *int64
		Log  []string
		Tags []string `dynamodbav:",omitempty"`
	}
	nulls := st.MustDefine[nullable](rangeTable, "Nullable", st.Key("N#{ID}", "N"))
	require.NoError(t, nulls.Put(ctx, db, nullable{ID: "n"}))
	_, err = nulls.Update(ctx, db, nullable{ID: "n"}, st.Increment("N", 1))
	require.ErrorAs(t, err, &ce)
	assert.Contains(t, ce.Reason, `Increment("N"): the item holds NULL, as Put stores a nil pointer, slice or map without omitempty`)
	for _, ch := range []st.Changes{st.Increment("M", 1), st.Append("Log", "x")} {
		_, err = nulls.Update(ctx, db, nullable{ID: "n"}, ch)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "the item may hold NULL there, as Put stores a nil pointer")
	}
	got2, err := nulls.Update(ctx, db, nullable{ID: "n"}, st.Append("Tags", "x").Set("N", 3))
	require.NoError(t, err, "an omitempty nil is left out, and Set replaces a NULL")
	assert.Equal(t, []string{"x"}, got2.Tags)
	require.NotNil(t, got2.N)
	assert.Equal(t, uint16(3), *got2.N)

	// In a transaction the action's failure says the same.
	err = db.Transact(ctx, func(tx *st.Tx) error {
		rangeItems.TxUpdate(tx, key, st.Increment("U8", 1))
		return nil
	})
	var te *st.TxError
	require.True(t, errors.As(err, &te), "%v", err)
	require.Len(t, te.Actions, 1)
	assert.Contains(t, te.Actions[0].Err.Error(), `Increment("U8"): the item holds 255, and Increment would store 256`)
}
