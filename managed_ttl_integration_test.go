//go:build integration

package singletable_test

import (
	"strconv"
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
