//go:build integration

package singletable_test

import (
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
)

// On DynamoDB Local: an expiring invite's unique email is guarded by an
// item that carries the invite's expiry through every write.
func TestIntegrationUniqueGuardsCarryTheExpiry(t *testing.T) {
	db := clockedLocalDB(t, uqTable, &ttlClock{now: ttlNow})

	// guards lists the guard items by value, with their expiry (0: none).
	guards := func() map[string]int64 {
		out := map[string]int64{}
		for it, err := range db.Scan(ctx, st.IncludeExpired()) {
			require.NoError(t, err)
			if it.Entity != "_unique" {
				continue
			}
			var exp int64
			if n, ok := it.Item["ttl"].(*types.AttributeValueMemberN); ok {
				exp, err = strconv.ParseInt(n.Value, 10, 64)
				require.NoError(t, err)
			}
			out[it.Item["PK"].(*types.AttributeValueMemberS).Value] = exp
		}
		return out
	}
	const gx, gy = "_unique#Invite#email#x@e%231", "_unique#Invite#email#y@e" // the delimiter in a value is escaped

	require.NoError(t, uqInvites.Create(ctx, db, uqInvite{Team: "t#1", Code: "a", Email: "x@e#1"}))
	assert.Equal(t, map[string]int64{gx: ttlNow.Add(24 * time.Hour).Unix()}, guards(), "ExpiresAfter's expiry")
	err := uqInvites.Create(ctx, db, uqInvite{Team: "t#1", Code: "b", Email: "x@e#1"})
	require.ErrorIs(t, err, st.ErrUniqueViolation)

	later := ttlNow.Add(72 * time.Hour)
	_, err = uqInvites.Update(ctx, db, uqInvite{Team: "t#1", Code: "a"}, st.Set("Exp", later))
	require.NoError(t, err)
	assert.Equal(t, map[string]int64{gx: later.Unix()}, guards(), "a new expiry, the guard's too")

	got, err := uqInvites.Update(ctx, db, uqInvite{Team: "t#1", Code: "a"}, st.Set("Email", "y@e"))
	require.NoError(t, err)
	assert.Equal(t, "y@e", got.Email)
	assert.Equal(t, map[string]int64{gy: later.Unix()}, guards(), "the value moved, with the stored expiry")

	_, err = uqInvites.Update(ctx, db, uqInvite{Team: "t#1", Code: "a"}, st.Remove("Exp"))
	require.NoError(t, err)
	assert.Equal(t, map[string]int64{gy: 0}, guards(), "no expiry: the guard lives as long as the invite")

	require.NoError(t, uqInvites.Put(ctx, db, uqInvite{Team: "t#1", Code: "a", Email: "y@e", Exp: later}))
	assert.Equal(t, map[string]int64{gy: later.Unix()}, guards(), "Put writes the guard with the item")

	require.NoError(t, uqInvites.Delete(ctx, db, uqInvite{Team: "t#1", Code: "a"}))
	assert.Empty(t, guards())
}

// On DynamoDB Local: a unique value whose item has expired is free, from
// the second of the expiry on (expiry == clock is expired); a live one
// is not; an expired item revived after another took its value fails
// with the unique violation, and one whose value is still its own comes
// back.
func TestIntegrationUniqueValueOfExpiredItemIsFree(t *testing.T) {
	clock := &ttlClock{now: ttlNow}
	db := clockedLocalDB(t, uqTable, clock)
	exp := ttlNow.Add(10 * time.Second)
	require.NoError(t, uqInvites.Create(ctx, db, uqInvite{Team: "t", Code: "a", Email: "x@e", Exp: exp}))
	require.NoError(t, uqInvites.Create(ctx, db, uqInvite{Team: "t", Code: "c", Email: "z@e", Exp: exp}))

	clock.Set(exp.Add(-time.Second))
	err := uqInvites.Create(ctx, db, uqInvite{Team: "t", Code: "b", Email: "x@e"})
	require.ErrorIs(t, err, st.ErrUniqueViolation, "a second before the expiry the value is taken")

	clock.Set(exp)
	require.NoError(t, uqInvites.Create(ctx, db, uqInvite{Team: "t", Code: "b", Email: "x@e"}), "at the expiry the value is free")
	err = uqInvites.Create(ctx, db, uqInvite{Team: "t", Code: "d", Email: "x@e"})
	require.ErrorIs(t, err, st.ErrUniqueViolation, "b's guard is live")

	// Reviving a: its value is b's now.
	_, err = uqInvites.Update(ctx, db, uqInvite{Team: "t", Code: "a"}, st.Set("Exp", exp.Add(time.Hour)))
	require.ErrorIs(t, err, st.ErrUniqueViolation)
	_, err = uqInvites.Update(ctx, db, uqInvite{Team: "t", Code: "a"}, st.Remove("Exp"))
	require.ErrorIs(t, err, st.ErrUniqueViolation)
	a, err := uqInvites.Get(ctx, db, uqInvite{Team: "t", Code: "a"}, st.IncludeExpired())
	require.NoError(t, err)
	assert.True(t, a.Exp.Equal(exp), "the failed revival wrote nothing")

	// Reviving c, whose value nobody took.
	got, err := uqInvites.Update(ctx, db, uqInvite{Team: "t", Code: "c"}, st.Set("Exp", exp.Add(time.Hour)))
	require.NoError(t, err)
	assert.Equal(t, "z@e", got.Email)
	err = uqInvites.Create(ctx, db, uqInvite{Team: "t", Code: "e", Email: "z@e"})
	require.ErrorIs(t, err, st.ErrUniqueViolation, "c holds its value again")
}

// Several writers claim the value of one expired item at once: exactly one
// wins.
func TestIntegrationUniqueExpiredValueConcurrentClaims(t *testing.T) {
	clock := &ttlClock{now: ttlNow}
	db := clockedLocalDB(t, uqTable, clock)
	exp := ttlNow.Add(10 * time.Second)
	require.NoError(t, uqInvites.Create(ctx, db, uqInvite{Team: "t", Code: "old", Email: "x@e", Exp: exp}))
	clock.Set(exp)

	const n = 8
	var wins, taken atomic.Int64
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := uqInvites.Create(ctx, db, uqInvite{Team: "t", Code: fmt.Sprint("c", i), Email: "x@e"})
			switch {
			case err == nil:
				wins.Add(1)
			case errors.Is(err, st.ErrUniqueViolation) || errors.Is(err, st.ErrTransactionConflict):
				taken.Add(1)
			default:
				t.Errorf("claim %d: %v", i, err)
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, int64(1), wins.Load(), "exactly one claim wins")
	assert.Equal(t, int64(n-1), taken.Load())
	owners := 0
	for i := range n {
		if _, err := uqInvites.Get(ctx, db, uqInvite{Team: "t", Code: fmt.Sprint("c", i)}); err == nil {
			owners++
		}
	}
	assert.Equal(t, 1, owners)
}

// Put over an expired item whose old value another item claimed since
// replaces it (Put does not look at the expiry): the other item's guard
// stays, the new value is claimed, and nothing fails on the old guard.
func TestIntegrationPutOverExpiredItemWhoseValueWasClaimed(t *testing.T) {
	clock := &ttlClock{now: ttlNow}
	db := clockedLocalDB(t, uqTable, clock)
	exp := ttlNow.Add(10 * time.Second)
	require.NoError(t, uqInvites.Create(ctx, db, uqInvite{Team: "t", Code: "old", Email: "x@e", Exp: exp}))
	clock.Set(exp.Add(time.Second))
	require.NoError(t, uqInvites.Create(ctx, db, uqInvite{Team: "t", Code: "new", Email: "x@e"}), "the expired item's value is free")

	require.NoError(t, uqInvites.Put(ctx, db, uqInvite{Team: "t", Code: "old", Email: "y@e"}))
	got, err := uqInvites.Get(ctx, db, uqInvite{Team: "t", Code: "old"}, st.ConsistentRead())
	require.NoError(t, err)
	assert.Equal(t, "y@e", got.Email)
	err = uqInvites.Create(ctx, db, uqInvite{Team: "t", Code: "third", Email: "x@e"})
	require.ErrorIs(t, err, st.ErrUniqueViolation, "x@e is still the new item's")
	err = uqInvites.Create(ctx, db, uqInvite{Team: "t", Code: "fourth", Email: "y@e"})
	require.ErrorIs(t, err, st.ErrUniqueViolation, "y@e is the replaced item's")
}
