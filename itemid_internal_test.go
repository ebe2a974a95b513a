package singletable

import (
	"github.com/singletable/singletable/internal/model"

	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestItemIndex(t *testing.T) {
	var ids []model.ItemID
	x := newItemIndex(0, func(i int) model.ItemID { return ids[i] })
	add := func(id model.ItemID) (int, bool) {
		ids = append(ids, id)
		return x.add(id, len(ids)-1)
	}
	for i := range 1000 {
		_, dup := add(model.ItemID{PK: fmt.Sprintf("USER#%d", i), SK: "PROFILE"})
		require.False(t, dup)
	}
	// Delimiters do not make two ids one.
	_, dup := add(model.ItemID{PK: "a#", SK: "b"})
	require.False(t, dup)
	_, dup = add(model.ItemID{PK: "a", SK: "#b"})
	require.False(t, dup)

	j, dup := add(model.ItemID{PK: "USER#7", SK: "PROFILE"})
	assert.True(t, dup)
	assert.Equal(t, 7, j)
	j, ok := x.find(model.ItemID{PK: "a", SK: "#b"})
	assert.True(t, ok)
	assert.Equal(t, 1001, j)
	_, ok = x.find(model.ItemID{PK: "USER#1000", SK: "PROFILE"})
	assert.False(t, ok)
}

// Two ids that share a hash are told apart: the second is kept by its id.
func TestItemIndexSharedHash(t *testing.T) {
	ids := []model.ItemID{{PK: "A"}, {PK: "B"}}
	x := newItemIndex(2, func(i int) model.ItemID { return ids[i] })
	_, dup := x.add(ids[0], 0)
	require.False(t, dup)
	x.places[x.hash(ids[1])] = 0 // B's hash is taken by A's place, as in a collision

	_, dup = x.add(ids[1], 1)
	require.False(t, dup, "B is not A")
	for i, id := range ids {
		j, ok := x.find(id)
		require.True(t, ok)
		assert.Equal(t, i, j)
		j, dup := x.add(id, 2)
		assert.True(t, dup)
		assert.Equal(t, i, j)
	}
	_, ok := x.find(model.ItemID{PK: "C"})
	assert.False(t, ok)
}
