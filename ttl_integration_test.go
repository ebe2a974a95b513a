//go:build integration

package singletable_test

import (
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/ddblocal"
)

// ttlClock is a clock the test moves.
type ttlClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *ttlClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *ttlClock) Set(t time.Time) { c.mu.Lock(); c.now = t; c.mu.Unlock() }

// ttlLocalDB binds the TTL model to a fresh DynamoDB Local table, whose
// time to live EnsureTable enables. DynamoDB Local deletes items expired
// by the real clock; the tests' items expire in 2100 (ttlNow), so every
// expired item stays in the table for the reads to skip.
func ttlLocalDB(t *testing.T, clock *ttlClock) *st.DB { return clockedLocalDB(t, ttlTable, clock) }

// clockedLocalDB binds table to a fresh DynamoDB Local table read by clock.
func clockedLocalDB(t *testing.T, table *st.Table, clock *ttlClock) *st.DB {
	t.Helper()
	client, err := ddblocal.Client(ctx)
	require.NoError(t, err)
	db := st.New(client, table, st.WithTableName(ddblocal.UniqueName("ttl")), st.WithClock(clock.Now))
	require.NoError(t, db.EnsureTable(ctx))
	t.Cleanup(func() { _ = db.DeleteTable(ctx) })
	return db
}

// ttlSeed writes, at ttlNow, the sessions of user u1 on device d1: "a"
// expires at ttlNow+10s (the boundary the tests set the clock to), "b" a
// second later, c..n alternately expired (+5s) and live (+1h, from
// ExpiresAfter); and u1's invites (one expired, one with no expiry) and a
// note. It returns the IDs of the sessions live at ttlNow+10s, in order.
func ttlSeed(t *testing.T, db *st.DB) []string {
	t.Helper()
	live := []string{"b"}
	require.NoError(t, ttlSessions.Put(ctx, db, ttlSession{User: "u1", ID: "a", Device: "d1", ExpiresAt: ttlNow.Add(10 * time.Second)}))
	require.NoError(t, ttlSessions.Put(ctx, db, ttlSession{User: "u1", ID: "b", Device: "d1", ExpiresAt: ttlNow.Add(11 * time.Second)}))
	for i, id := range []string{"c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n"} {
		s := ttlSession{User: "u1", ID: id, Device: "d1"}
		if i%2 == 0 {
			s.ExpiresAt = ttlNow.Add(5 * time.Second)
		} else {
			live = append(live, id)
		}
		require.NoError(t, ttlSessions.Put(ctx, db, s))
	}
	require.NoError(t, ttlInvites.Put(ctx, db, ttlInvite{User: "u1", Email: "old@x", Expires: ttlNow.Unix() + 5}))
	require.NoError(t, ttlInvites.Put(ctx, db, ttlInvite{User: "u1", Email: "keep#me@x", Expires: 0}))
	require.NoError(t, ttlNotes.Put(ctx, db, ttlNote{User: "u1", ID: "n1"}))
	return live
}

func TestIntegrationTTLEveryReadPath(t *testing.T) {
	clock := &ttlClock{now: ttlNow}
	db := ttlLocalDB(t, clock)
	live := ttlSeed(t, db)
	all := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n"}

	// Before anything expires, every read returns everything.
	page, err := ttlSessions.Query(ctx, db, ttlSession{User: "u1"})
	require.NoError(t, err)
	assert.Equal(t, all, sessionIDs(page.Items))

	clock.Set(ttlNow.Add(10 * time.Second))

	t.Run("Get, exactly at the boundary", func(t *testing.T) {
		_, err := ttlSessions.Get(ctx, db, ttlSession{User: "u1", ID: "a"})
		require.ErrorIs(t, err, st.ErrNotFound, "expiry == now is expired")
		b, err := ttlSessions.Get(ctx, db, ttlSession{User: "u1", ID: "b"})
		require.NoError(t, err, "a second later is live")
		assert.True(t, b.ExpiresAt.Equal(ttlNow.Add(11*time.Second)))
		a, err := ttlSessions.Get(ctx, db, ttlSession{User: "u1", ID: "a"}, st.IncludeExpired())
		require.NoError(t, err)
		assert.Equal(t, "a", a.ID)
		// Still in the table: a raw GetItem finds it.
		raw := rawItem(t, db, "USER#u1", "SESSION#a")
		require.NotEmpty(t, raw)
		assert.Equal(t, nAttr(ttlNow.Unix()+10), raw["ttl"])

		_, err = ttlOneSession.Get(ctx, db, ttlSession{User: "u1", ID: "a"})
		require.ErrorIs(t, err, st.ErrNotFound)
		_, err = ttlInvites.Get(ctx, db, ttlInvite{User: "u1", Email: "old@x"})
		require.ErrorIs(t, err, st.ErrNotFound, "an integer expiry")
		_, err = ttlInvites.Get(ctx, db, ttlInvite{User: "u1", Email: "keep#me@x"})
		require.NoError(t, err, "no expiry never expires")
	})

	t.Run("Pattern.Query pages with Limit and cursors", func(t *testing.T) {
		for _, limit := range []int{1, 2, 3, 100} {
			var got []string
			cursor := ""
			for pages := 0; ; pages++ {
				require.Less(t, pages, 20)
				page, err := ttlByDevice.Query(ctx, db, ttlSession{Device: "d1"}, st.Limit(limit), st.After(cursor))
				require.NoError(t, err)
				require.LessOrEqual(t, len(page.Items), limit)
				if page.Cursor != "" && limit < len(live) {
					// A page ends early only at the end of the results.
					assert.True(t, len(page.Items) == limit || len(page.Items) == 0, "limit %d: page of %d", limit, len(page.Items))
				}
				got = append(got, sessionIDs(page.Items)...)
				if cursor = page.Cursor; cursor == "" {
					break
				}
			}
			assert.Equal(t, live, got, "limit %d: every live item once, in order", limit)
		}
		page, err := ttlByDevice.Query(ctx, db, ttlSession{Device: "d1"}, st.Limit(100), st.IncludeExpired())
		require.NoError(t, err)
		assert.Equal(t, all, sessionIDs(page.Items))
		desc, err := ttlByDevice.Query(ctx, db, ttlSession{Device: "d1"}, st.Limit(2), st.Descending())
		require.NoError(t, err)
		assert.Equal(t, []string{live[len(live)-1], live[len(live)-2]}, sessionIDs(desc.Items))
	})

	t.Run("Pattern.All and Entity.Query/All", func(t *testing.T) {
		var got []string
		for v, err := range ttlByDevice.All(ctx, db, ttlSession{Device: "d1"}, st.Limit(4)) {
			require.NoError(t, err)
			got = append(got, v.ID)
		}
		assert.Equal(t, live[:4], got, "All with Limit stops after 4 live items")
		got = nil
		for v, err := range ttlSessions.All(ctx, db, ttlSession{User: "u1"}) {
			require.NoError(t, err)
			got = append(got, v.ID)
		}
		assert.Equal(t, live, got)
		page, err := ttlSessions.Query(ctx, db, ttlSession{User: "u1"}, st.Limit(3))
		require.NoError(t, err)
		assert.Equal(t, live[:3], sessionIDs(page.Items))
	})

	t.Run("keys-only index with FetchFull", func(t *testing.T) {
		page, err := ttlByDeviceKO.Query(ctx, db, ttlSession{Device: "d1"}, st.FetchFull(), st.Limit(100))
		require.NoError(t, err)
		assert.Equal(t, live, sessionIDs(page.Items))
		_, err = ttlByDeviceKO.Query(ctx, db, ttlSession{Device: "d1"})
		require.ErrorIs(t, err, st.ErrInvalidInput)
	})

	t.Run("Collection", func(t *testing.T) {
		res, err := ttlUser.Query(ctx, db, st.Values{"User": "u1"}, st.Limit(100))
		require.NoError(t, err)
		assert.Equal(t, live, sessionIDs(ttlSessions.From(res)))
		invites := ttlInvites.From(res)
		require.Len(t, invites, 1)
		assert.Equal(t, "keep#me@x", invites[0].Email)
		assert.Len(t, ttlNotes.From(res), 1)
		assert.Empty(t, res.Unknown)
		n := 0
		for _, err := range ttlUser.All(ctx, db, st.Values{"User": "u1"}) {
			require.NoError(t, err)
			n++
		}
		assert.Equal(t, len(live)+2, n)
		res, err = ttlUser.Query(ctx, db, st.Values{"User": "u1"}, st.Limit(100), st.IncludeExpired())
		require.NoError(t, err)
		assert.Len(t, res.Items, len(all)+3)
	})

	t.Run("BatchGet and TxGet", func(t *testing.T) {
		keys := []ttlSession{{User: "u1", ID: "a"}, {User: "u1", ID: "b"}, {User: "u1", ID: "c"}, {User: "u1", ID: "zz"}}
		got, err := ttlSessions.BatchGet(ctx, db, keys)
		require.NoError(t, err)
		require.Len(t, got, 4)
		assert.Nil(t, got[0], "expired at the boundary")
		require.NotNil(t, got[1])
		assert.Nil(t, got[2], "expired")
		assert.Nil(t, got[3], "absent")
		got, err = ttlSessions.BatchGet(ctx, db, keys, st.IncludeExpired())
		require.NoError(t, err)
		assert.NotNil(t, got[0])
		assert.NotNil(t, got[2])

		tg := db.TransactGet()
		a := ttlSessions.TxGet(tg, keys[0])
		b := ttlSessions.TxGet(tg, keys[1])
		c := ttlSessions.TxGet(tg, keys[2], st.IncludeExpired())
		inv := ttlInvites.TxGet(tg, ttlInvite{User: "u1", Email: "old@x"})
		require.NoError(t, tg.Run(ctx))
		assert.False(t, a.Found())
		_, err = a.Get()
		require.ErrorIs(t, err, st.ErrNotFound)
		assert.True(t, b.Found())
		assert.True(t, c.Found(), "IncludeExpired")
		assert.False(t, inv.Found())
	})

	t.Run("Create over an expired item", func(t *testing.T) {
		require.NoError(t, ttlSessions.Create(ctx, db, ttlSession{User: "u1", ID: "a", Device: "d2"}))
		a, err := ttlSessions.Get(ctx, db, ttlSession{User: "u1", ID: "a"})
		require.NoError(t, err)
		assert.Equal(t, "d2", a.Device)
		assert.True(t, a.ExpiresAt.Equal(clock.Now().Add(time.Hour)), "ExpiresAfter from the write's clock")
		err = ttlSessions.Create(ctx, db, ttlSession{User: "u1", ID: "b", Device: "d2"})
		require.ErrorIs(t, err, st.ErrAlreadyExists, "b is live")
		err = ttlNotes.Create(ctx, db, ttlNote{User: "u1", ID: "n1"})
		require.ErrorIs(t, err, st.ErrAlreadyExists, "a note never expires")
	})
}

// An upsert gives a new item its expiry, and leaves an existing one's; a
// sliding expiry is an explicit Set.
func TestIntegrationTTLUpdate(t *testing.T) {
	clock := &ttlClock{now: ttlNow}
	db := ttlLocalDB(t, clock)
	key := ttlSession{User: "u2", ID: "s1"}
	_, err := ttlSessions.Update(ctx, db, key, st.Set("Device", "d1"), st.Upsert())
	require.NoError(t, err)
	raw := rawItem(t, db, "USER#u2", "SESSION#s1")
	assert.Equal(t, nAttr(ttlNow.Unix()+3600), raw["ttl"], "upsert-created: an hour from the clock")

	clock.Set(ttlNow.Add(30 * time.Minute))
	_, err = ttlSessions.Update(ctx, db, key, st.Set("Device", "d2"), st.Upsert())
	require.NoError(t, err)
	assert.Equal(t, nAttr(ttlNow.Unix()+3600), rawItem(t, db, "USER#u2", "SESSION#s1")["ttl"], "an existing expiry is kept")

	_, err = ttlSessions.Update(ctx, db, key, st.Set("ExpiresAt", clock.Now().Add(time.Hour)))
	require.NoError(t, err)
	clock.Set(ttlNow.Add(90*time.Minute - time.Second))
	got, err := ttlSessions.Get(ctx, db, key)
	require.NoError(t, err, "slid to 1h30")
	assert.Equal(t, "d2", got.Device)
	clock.Set(ttlNow.Add(90 * time.Minute))
	_, err = ttlSessions.Get(ctx, db, key)
	require.ErrorIs(t, err, st.ErrNotFound)

	// Removing the expiry makes the item live for good.
	_, err = ttlSessions.Update(ctx, db, key, st.Remove("ExpiresAt"))
	require.NoError(t, err)
	_, err = ttlSessions.Get(ctx, db, key)
	require.NoError(t, err)
	out, err := db.Client().GetItem(ctx, &dynamodb.GetItemInput{TableName: strp(db.TableName()),
		Key: map[string]types.AttributeValue{"PK": s("USER#u2"), "SK": s("SESSION#s1")}})
	require.NoError(t, err)
	assert.NotContains(t, out.Item, "ttl")
}

// A pointer expiry round-trips: nil becomes the ExpiresAfter expiry on
// Put, a Set moves it, Remove makes the item live for good (nil again),
// and a read leaves the item out once the clock passes it.
func TestIntegrationTTLPointerExpiry(t *testing.T) {
	type invite struct {
		Code    string     `dynamodbav:"code"`
		Expires *time.Time `dynamodbav:"ttl,unixtime"`
	}
	table := st.MustTable("PtrTTL", st.WithTTL("ttl"))
	invites := st.MustDefine[invite](table, "Invite", st.Key("INVITE#{Code}", "INVITE"), st.ExpiresAfter(time.Hour))
	clock := &ttlClock{now: ttlNow}
	db := clockedLocalDB(t, table, clock)

	require.NoError(t, invites.Put(ctx, db, invite{Code: "a#1"}))
	got, err := invites.Get(ctx, db, invite{Code: "a#1"})
	require.NoError(t, err)
	require.NotNil(t, got.Expires)
	assert.Equal(t, ttlNow.Add(time.Hour).Unix(), got.Expires.Unix())

	later := ttlNow.Add(2 * time.Hour)
	got, err = invites.Update(ctx, db, invite{Code: "a#1"}, st.Set("Expires", &later))
	require.NoError(t, err)
	assert.Equal(t, later.Unix(), got.Expires.Unix())
	clock.Set(later)
	_, err = invites.Get(ctx, db, invite{Code: "a#1"})
	require.ErrorIs(t, err, st.ErrNotFound, "expired at the clock")
	for range invites.Scan(ctx, db) {
		t.Fatal("a scan leaves the expired invite out")
	}

	got, err = invites.Update(ctx, db, invite{Code: "a#1"}, st.Remove("Expires"))
	require.NoError(t, err)
	assert.Nil(t, got.Expires)
	got, err = invites.Get(ctx, db, invite{Code: "a#1"})
	require.NoError(t, err, "no expiry: live for good")
	assert.Nil(t, got.Expires)
}

// An item made "live for good" (Remove of its expiry, as docs/ttl.md
// says) got ExpiresAfter's expiry back from the next Upsert Update, which
// sets it with if_not_exists on existing items too: TTL then deleted an
// item its owner had made permanent. ExpiresAfter is for new items; an
// upsert that finds the item must leave its expiry (absent included) alone.
// So an upsert reads whether the item exists first; a transaction, which
// cannot, is refused unless the update sets the expiry itself.
func TestIntegrationTTLUpsertKeepsAPermanentItemPermanent(t *testing.T) {
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

	err = db.Transact(ctx, func(tx *st.Tx) error {
		ttlSessions.TxUpdate(tx, key, st.Set("Device", "d3"), st.Upsert())
		return nil
	})
	require.ErrorIs(t, err, st.ErrReadNeeded)
	err = db.Transact(ctx, func(tx *st.Tx) error {
		ttlSessions.TxUpdate(tx, ttlSession{User: "u9", ID: "s10"}, st.Set("Device", "d3").SetIfNotExists("ExpiresAt", clock.Now().Add(time.Hour)), st.Upsert())
		return nil
	})
	require.NoError(t, err, "an upsert that gives the expiry itself needs no read")
	assert.Equal(t, nAttr(clock.Now().Unix()+3600), rawItem(t, db, "USER#u9", "SESSION#s10")["ttl"])
}

// To every read an expired item is absent, so an upsert over one (DynamoDB
// has not deleted it yet) makes a new item, as over no item: not the old
// one with the changes (its stale attributes back, or still hidden behind
// the past expiry). Update deletes it first; a transaction fails, saying
// why.
func TestIntegrationTTLUpsertReplacesAnExpiredItem(t *testing.T) {
	clock := &ttlClock{now: ttlNow}
	db := ttlLocalDB(t, clock)
	for _, id := range []string{"s1", "s2", "s3"} {
		require.NoError(t, ttlSessions.Put(ctx, db, ttlSession{User: "u5", ID: id, Device: "d1"}))
	}
	clock.Set(ttlNow.Add(2 * time.Hour)) // all three expired an hour ago
	_, err := ttlSessions.Get(ctx, db, ttlSession{User: "u5", ID: "s1"})
	require.ErrorIs(t, err, st.ErrNotFound)

	// An upsert that sets the expiry itself reads nothing: its condition
	// finds the item expired, Update deletes it and sends again.
	later := clock.Now().Add(time.Hour)
	got, err := ttlSessions.Update(ctx, db, ttlSession{User: "u5", ID: "s1"}, st.Set("ExpiresAt", later), st.Upsert())
	require.NoError(t, err)
	assert.Equal(t, ttlSession{User: "u5", ID: "s1", ExpiresAt: later}, got, "a new item: no device from the expired one")
	raw := rawItem(t, db, "USER#u5", "SESSION#s1")
	assert.Equal(t, nAttr(later.Unix()), raw["ttl"])
	assert.NotContains(t, raw, "GSI1PK", "the expired item's index key is gone with it")
	got, err = ttlSessions.Get(ctx, db, ttlSession{User: "u5", ID: "s1"})
	require.NoError(t, err, "the upserted item is visible")
	assert.Empty(t, got.Device)

	// One that does not reads whether the item exists first: the expired
	// item is deleted, and the new one gets ExpiresAfter's expiry.
	got, err = ttlSessions.Update(ctx, db, ttlSession{User: "u5", ID: "s2"}, st.Set("Device", "d2"), st.Upsert())
	require.NoError(t, err)
	assert.Equal(t, "d2", got.Device)
	assert.True(t, got.ExpiresAt.Equal(clock.Now().Add(time.Hour)), "a new item's expiry: %v", got.ExpiresAt)
	assert.Equal(t, nAttr(clock.Now().Add(time.Hour).Unix()), rawItem(t, db, "USER#u5", "SESSION#s2")["ttl"])

	// A transaction cannot delete first: it fails, and says why.
	err = db.Transact(ctx, func(tx *st.Tx) error {
		ttlSessions.TxUpdate(tx, ttlSession{User: "u5", ID: "s3"}, st.Set("Device", "d3").Set("ExpiresAt", later), st.Upsert())
		return nil
	})
	require.ErrorIs(t, err, st.ErrConditionFailed)
	assert.Contains(t, err.Error(), "expired at 2100-01-01T01:00:00Z and DynamoDB has not deleted it yet")
	raw = rawItem(t, db, "USER#u5", "SESSION#s3")
	assert.Equal(t, &types.AttributeValueMemberS{Value: "d1"}, raw["device"], "nothing written")

	// A plain Update still finds the expired item (see docs/ttl.md).
	_, err = ttlSessions.Update(ctx, db, ttlSession{User: "u5", ID: "s3"}, st.Set("Device", "d4"))
	require.NoError(t, err)
}

// TestIntegrationTTLJudgedByOwnEntity: the TTL attribute is the table's,
// but an item is expired only by its own entity's expiry. A note (no
// expiry) whose ttl attribute another writer set in the past, and an item
// of a type the model does not know, are never left out: not by Get, a
// collection or DB.Scan; an expired session is, by all of them.
func TestIntegrationTTLJudgedByOwnEntity(t *testing.T) {
	clock := &ttlClock{now: ttlNow}
	db := ttlLocalDB(t, clock)
	require.NoError(t, ttlSessions.Put(ctx, db, ttlSession{User: "u1", ID: "s1", Device: "d1", ExpiresAt: ttlNow.Add(10 * time.Second)}))
	require.NoError(t, ttlNotes.Put(ctx, db, ttlNote{User: "u1", ID: "n1"}))
	past := nAttr(ttlNow.Unix() + 10)
	_, err := db.Client().UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: &[]string{db.TableName()}[0],
		Key:              map[string]types.AttributeValue{"PK": s("USER#u1"), "SK": s("NOTE#n1")},
		UpdateExpression: &[]string{"SET #t = :t"}[0], ExpressionAttributeNames: map[string]string{"#t": "ttl"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":t": past}})
	require.NoError(t, err)
	_, err = db.Client().PutItem(ctx, &dynamodb.PutItemInput{TableName: &[]string{db.TableName()}[0],
		Item: map[string]types.AttributeValue{"PK": s("USER#u1"), "SK": s("OTHER#1"), "_type": s("Other"), "ttl": past}})
	require.NoError(t, err)
	clock.Set(ttlNow.Add(10 * time.Second)) // expiry == clock: expired

	_, err = ttlSessions.Get(ctx, db, ttlSession{User: "u1", ID: "s1"})
	require.ErrorIs(t, err, st.ErrNotFound)
	_, err = ttlNotes.Get(ctx, db, ttlNote{User: "u1", ID: "n1"})
	require.NoError(t, err, "a note has no expiry")

	res, err := ttlUser.Query(ctx, db, st.Values{"User": "u1"}, st.Limit(100))
	require.NoError(t, err)
	assert.Empty(t, ttlSessions.From(res))
	assert.Len(t, ttlNotes.From(res), 1, "a collection judges the note by the note's expiry (none)")
	require.Len(t, res.Unknown, 1, "an item of an unknown type is unknown, not hidden")

	var got []string
	for v, err := range db.Scan(ctx) {
		require.NoError(t, err)
		got = append(got, v.Entity+" "+v.Item["SK"].(*types.AttributeValueMemberS).Value)
	}
	assert.ElementsMatch(t, []string{"Note NOTE#n1", "Other OTHER#1"}, got)
	got = nil
	for v, err := range ttlNotes.Scan(ctx, db) {
		require.NoError(t, err)
		got = append(got, v.ID)
	}
	assert.Equal(t, []string{"n1"}, got)
}
