package singletable

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestItemIndex(t *testing.T) {
	var ids []itemID
	x := newItemIndex(0, func(i int) itemID { return ids[i] })
	add := func(id itemID) (int, bool) {
		ids = append(ids, id)
		return x.add(id, len(ids)-1)
	}
	for i := range 1000 {
		_, dup := add(itemID{pk: fmt.Sprintf("USER#%d", i), sk: "PROFILE"})
		require.False(t, dup)
	}
	// Delimiters do not make two ids one.
	_, dup := add(itemID{pk: "a#", sk: "b"})
	require.False(t, dup)
	_, dup = add(itemID{pk: "a", sk: "#b"})
	require.False(t, dup)

	j, dup := add(itemID{pk: "USER#7", sk: "PROFILE"})
	assert.True(t, dup)
	assert.Equal(t, 7, j)
	j, ok := x.find(itemID{pk: "a", sk: "#b"})
	assert.True(t, ok)
	assert.Equal(t, 1001, j)
	_, ok = x.find(itemID{pk: "USER#1000", sk: "PROFILE"})
	assert.False(t, ok)
}

// Two ids that share a hash are told apart: the second is kept by its id.
func TestItemIndexSharedHash(t *testing.T) {
	ids := []itemID{{pk: "A"}, {pk: "B"}}
	x := newItemIndex(2, func(i int) itemID { return ids[i] })
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
	_, ok := x.find(itemID{pk: "C"})
	assert.False(t, ok)
}
