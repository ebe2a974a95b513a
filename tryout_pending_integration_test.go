//go:build integration

package singletable_test

// Integration regression tests of the adversarial try-out whose fixes
// belong to files under performance work (update.go, update_plan.go):
// failing until the lead merges them with the fix each one proposes. The
// unit ones are in tryout_pending_test.go.

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
)

// An item made "live for good" (Remove of its expiry, as docs/ttl.md
// says) got ExpiresAfter's expiry back from the next Upsert Update, which
// sets it with if_not_exists on existing items too: TTL then deleted an
// item its owner had made permanent. ExpiresAfter is for new items; an
// upsert that finds the item must leave its expiry (absent included) alone.
//
// Proposed fix (update_plan.go / update.go): plan the ExpiresAfter expiry of
// an upsert like an index key that only creation decides: send the update
// conditioned on the item existing, without the expiry; when that condition
// fails, send the creating form (expiry set) conditioned on the item not
// existing, retrying as for ReadChangedError. (Or read first, as Update does
// for index keys.) docs/ttl.md's "on an Upsert Update when the stored item
// has none" then becomes "when the Upsert creates the item".
func TestPendingUpsertKeepsAPermanentItemPermanent(t *testing.T) {
	clock := &ttlClock{now: ttlNow}
	db := ttlLocalDB(t, clock)
	key := ttlSession{User: "u9", ID: "s9"}
	_, err := ttlSessions.Update(ctx, db, key, st.Set("Device", "d1"), st.Upsert())
	require.NoError(t, err)
	assert.Equal(t, nAttr(ttlNow.Unix()+3600), rawItem(t, db, "USER#u9", "SESSION#s9")["ttl"], "upsert-created: an hour from the clock")

	_, err = ttlSessions.Update(ctx, db, key, st.Remove("ExpiresAt"))
	require.NoError(t, err)
	require.NotContains(t, rawItem(t, db, "USER#u9", "SESSION#s9"), "ttl", "live for good")

	clock.Set(ttlNow.Add(time.Minute))
	got, err := ttlSessions.Update(ctx, db, key, st.Set("Device", "d2"), st.Upsert())
	require.NoError(t, err)
	assert.Equal(t, "d2", got.Device)
	assert.NotContains(t, rawItem(t, db, "USER#u9", "SESSION#s9"), "ttl", "an upsert of an existing item leaves its (absent) expiry alone")
}
