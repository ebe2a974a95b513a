//go:build integration

package singletable_test

// Fan-out reads at their edges on DynamoDB Local (issue 18): a partial time
// coarser than the bucket, the requests of paging through buckets, and a
// sharded read that the params confine to one shard, counted with the
// recording client over DynamoDB Local.

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/singletabletest"
)

// recordingLocal is a DB whose requests go to db's table on DynamoDB Local
// through a recording client, to count them.
func recordingLocal(db *st.DB, opts ...st.DBOption) (*singletabletest.Client, *st.DB) {
	return recordingLocalAs(db, db.Table(), opts...)
}

// recordingLocalAs is recordingLocal with the model of table: another
// declaration of the same physical table.
func recordingLocalAs(db *st.DB, table *st.Table, opts ...st.DBOption) (*singletabletest.Client, *st.DB) {
	local := db.Client()
	c := &singletabletest.Client{
		QueryFunc: func(ctx context.Context, in *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
			return local.Query(ctx, in)
		},
		GetItemFunc: func(ctx context.Context, in *dynamodb.GetItemInput) (*dynamodb.GetItemOutput, error) {
			return local.GetItem(ctx, in)
		},
	}
	return c, st.New(c, table, append([]st.DBOption{st.WithTableName(db.TableName())}, opts...)...)
}

// hourlyReadings writes n readings in each of the hours hours from start.
func hourlyReadings(t *testing.T, db *st.DB, device string, start time.Time, hours, n int) []reading {
	t.Helper()
	var all []reading
	var ops []st.BatchOp
	for h := range hours {
		for i := range n {
			r := reading{DeviceID: device, At: start.Add(time.Duration(h)*time.Hour + time.Duration(i+1)*time.Minute), Value: float64(h*n + i)}
			all = append(all, r)
			ops = append(ops, st.BatchPut(readings, r))
		}
	}
	require.NoError(t, db.BatchWrite(ctx, ops))
	return all
}

// 18.8: paging through 60 hour buckets, two readings each, two a page:
// a resumed page starts with one bucket ahead, as a first page does, so a
// walk costs about a request per bucket and one per page (the resumed
// bucket's end), not the doubling window of every bucket the cursor says
// is done (1,507 requests, up to 53 a page).
func TestIntegrationFanOutPagingCostsBucketsPlusPages(t *testing.T) {
	db := singletabletest.LocalDB(t, fanTable)
	start := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	all := hourlyReadings(t, db, "d1", start, 60, 2)
	rec, rdb := recordingLocal(db)
	from, to := reading{DeviceID: "d1", At: start}, reading{At: start.Add(60*time.Hour - time.Nanosecond)}
	var got []reading
	cursor, pages, most := "", 0, 0
	for {
		opts := []st.QueryOption{st.Limit(2)}
		if cursor != "" {
			opts = append(opts, st.After(cursor))
		}
		before := len(rec.Calls())
		page, err := deviceReadings.QueryBetween(ctx, rdb, from, to, opts...)
		require.NoError(t, err)
		sent := len(rec.Calls()) - before
		assert.Equal(t, sent, page.Requests)
		most = max(most, sent)
		pages++
		got = append(got, page.Items...)
		if page.Cursor == "" {
			break
		}
		require.Less(t, pages, 200)
		cursor = page.Cursor
	}
	assert.Equal(t, all, got)
	// Page 1 reads bucket 0; each later page the end of the bucket its
	// cursor is in, then the next bucket; the last page the end of 59.
	assert.Equal(t, 61, pages)
	assert.Equal(t, 60+60, len(rec.Calls()), "a request per bucket and one per resumed page")
	assert.Equal(t, 2, most)
}

// 18.2: a day read of an hour-bucketed partition (PartialTime(Day)) reads
// every hour of the day, merged in order, paged with one cursor; it
// returned the one hour of the params' time.
func TestIntegrationFanOutPartialDayOfHourBuckets(t *testing.T) {
	db := singletabletest.LocalDB(t, fanTable)
	day := time.Date(2024, 3, 15, 0, 0, 0, 0, time.UTC)
	all := hourlyReadings(t, db, "d1", day.Add(-time.Hour), 26, 1) // 23:01 the day before to 00:01 the day after
	want := all[1:25]
	rec, rdb := recordingLocal(db)
	params := reading{DeviceID: "d1", At: day.Add(10*time.Hour + 5*time.Minute)}
	got := collectAll(t, readingsInHour.All(ctx, rdb, params, st.PartialTime(st.Day)))
	assert.Equal(t, want, got)
	assert.Len(t, rec.Calls(), 24)
	paged := collectPages(t, 5, func(cursor string) (*st.Page[reading], error) {
		return readingsInHour.Query(ctx, rdb, params, st.PartialTime(st.Day), st.Limit(5), st.After(cursor))
	})
	assert.Equal(t, want, paged)
	newest, err := readingsInHour.Query(ctx, rdb, params, st.PartialTime(st.Day), st.Limit(3), st.Descending())
	require.NoError(t, err)
	assert.Equal(t, []reading{want[23], want[22], want[21]}, newest.Items)
	// An hour is one bucket, as before.
	page, err := readingsInHour.Query(ctx, rdb, params, st.PartialTime(st.Hour))
	require.NoError(t, err)
	assert.Equal(t, want[10:11], page.Items)
}

// 18.9 under Previously, on DynamoDB Local: events written with 4 shards
// (By ID), read with 8 and Previously(4) given their ID, are every one
// found, in at most one request per count; before, a read given the ID
// read the new count's shard only and missed every event not moved.
func TestIntegrationFanOutShardFromParamsPreviously(t *testing.T) {
	db := singletabletest.LocalDB(t, prevTableBefore)
	var ops []st.BatchOp
	for i := range 24 {
		ops = append(ops, st.BatchPut(movingBefore, movingEvent{Stream: "s", ID: "e" + strconv.Itoa(i)}))
	}
	require.NoError(t, db.BatchWrite(ctx, ops))
	rec, rdb := recordingLocalAs(db, prevTable)
	for i := range 24 {
		e := movingEvent{Stream: "s", ID: "e" + strconv.Itoa(i)}
		rec.Reset()
		got, err := movingByID.Get(ctx, rdb, e)
		require.NoError(t, err, e.ID)
		assert.Equal(t, e.ID, got.ID)
		assert.LessOrEqual(t, len(rec.Calls()), 2, e.ID)
		rec.Reset()
		page, err := movingByPrefix.Query(ctx, rdb, e)
		require.NoError(t, err, e.ID)
		require.Len(t, page.Items, 1, e.ID)
		assert.Equal(t, e.ID, page.Items[0].ID)
		assert.LessOrEqual(t, len(rec.Calls()), 2, e.ID)
	}
	n := 0
	for _, err := range moving.All(ctx, rdb, movingEvent{Stream: "s"}) {
		require.NoError(t, err)
		n++
	}
	assert.Equal(t, 24, n, "every shard of both counts")
}
