package singletable_test

// Fan-out reads at their edges (issue 18): one clock per read, a read
// confined to the shard its params give, the dry runs an entity has, and
// a partial time coarser than the bucket. Requests are counted with the
// recording client.

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/singletabletest"
)

// expiringCount is a sharded counter whose shards expire, bucketed by day.
type expiringCount struct {
	ID      string    `dynamodbav:"id"`
	Day     time.Time `dynamodbav:"day"`
	Shard   int       `dynamodbav:"shard"`
	N       int       `dynamodbav:"n"`
	Expires time.Time `dynamodbav:"ttl,unixtime"`
}

var (
	clockTable = st.MustTable("FanClock", st.WithTTL("ttl"))
	expCounts  = st.MustDefine[expiringCount](clockTable, "Count",
		st.Key("COUNT#{ID}#{Day:2006-01-02}#{Shard}", "D#{Day}"), st.Shards("Shard", 4), st.Expires("Expires"))
	expCountsDay     = expCounts.Pattern("CountsOfDay").Partition("COUNT#{ID}#{Day}#{Shard}").Must()
	expCountsBetween = expCounts.Pattern("CountsBetween").SortBetween().Must()
	expCountsColl    = st.MustCollection(clockTable, "CountShard", "COUNT#{ID}#{Day}#{Shard}", expCounts)

	// 18.9: the events of a stream by their ID (By("Stream", "ID")).
	streamEvent       = streamEvs.Pattern("StreamEvent").SortEquals().Must()
	streamEventPrefix = streamEvs.Pattern("StreamEventPrefix").SortPrefix().Must()
	kindEvent         = streamEvs.Pattern("KindEvent").On("GSI1").Partition("KIND#{Kind}#{Shard}").SortEquals().Must()
)

// 18.4: every leg of a fan-out read judges expiry by one reading of the
// DB's clock. The clock ticks a second at each reading, and every shard
// holds an item expiring two seconds after the first: read leg by leg, the
// later legs dropped it.
func TestFanOutOneClockReading(t *testing.T) {
	base := time.Date(2024, 3, 15, 12, 0, 0, 0, time.UTC)
	var readings atomic.Int64
	clock := func() time.Time { return base.Add(time.Duration(readings.Add(1)-1) * time.Second) }
	c := &singletabletest.Client{QueryFunc: func(_ context.Context, in *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
		pk := in.ExpressionAttributeValues[":v0"].(*types.AttributeValueMemberS).Value
		item := map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: pk}, "SK": &types.AttributeValueMemberS{Value: "D#2024-03-15T00:00:00Z"},
			"_type": &types.AttributeValueMemberS{Value: "Count"}, "n": &types.AttributeValueMemberN{Value: "1"},
			"ttl": &types.AttributeValueMemberN{Value: strconv.FormatInt(base.Unix()+2, 10)}}
		return &dynamodb.QueryOutput{Items: []map[string]types.AttributeValue{item}, Count: 1, ScannedCount: 1}, nil
	}}
	db := st.New(c, clockTable, st.WithClock(clock))
	day := base.Truncate(24 * time.Hour)
	params := expiringCount{ID: "a", Day: day}
	n := func(v expiringCount) int { return v.N }
	for name, read := range map[string]func() (int, error){
		"Query": func() (int, error) {
			page, err := expCountsDay.Query(ctx, db, params)
			if err != nil {
				return 0, err
			}
			return len(page.Items), nil
		},
		"All": func() (int, error) {
			k := 0
			for _, err := range expCountsDay.All(ctx, db, params) {
				if err != nil {
					return 0, err
				}
				k++
			}
			return k, nil
		},
		"Sum": func() (int, error) { return st.Sum(ctx, db, expCountsDay, params, n) },
		"SumBetween": func() (int, error) {
			return st.SumBetween(ctx, db, expCountsBetween, params, expiringCount{Day: day.Add(23 * time.Hour)}, n)
		},
		"QueryBetween": func() (int, error) {
			page, err := expCountsBetween.QueryBetween(ctx, db, params, expiringCount{Day: day.Add(time.Hour)})
			if err != nil {
				return 0, err
			}
			return len(page.Items), nil
		},
	} {
		readings.Store(0)
		got, err := read()
		require.NoError(t, err, name)
		assert.Equal(t, 4, got, "%s: every shard's item, judged at one instant", name)
		assert.EqualValues(t, 1, readings.Load(), "%s: one clock reading", name)
	}
	// A collection reads one partition: one reading too.
	readings.Store(0)
	res, err := expCountsColl.Query(ctx, db, st.Values{"ID": "a", "Day": day, "Shard": 2})
	require.NoError(t, err)
	assert.Len(t, res.Items, 1)
	assert.EqualValues(t, 1, readings.Load(), "collection: one clock reading")
}

// 18.9: a pattern over hashed shards that the params give By's fields
// reads the one shard they hash to: SortEquals on the table is one GetItem
// (as Entity.Get), a prefix through the ID one Query.
func TestFanOutShardFromParams(t *testing.T) {
	c, db := fanMockDB()
	at := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	e := event{Stream: "s", ID: "e7", At: at}
	want, err := streamEvs.GetInput(db, e)
	require.NoError(t, err)

	assert.Equal(t, "GetItem", streamEvent.Operation())
	_, err = streamEvent.Get(ctx, db, e)
	require.ErrorIs(t, err, st.ErrNotFound)
	calls := c.Calls()
	require.Len(t, calls, 1, "one GetItem, not a Query per shard")
	assert.Equal(t, want.Key, calls[0].Input.(*dynamodb.GetItemInput).Key)

	c.Reset()
	_, err = streamEventPrefix.Query(ctx, db, e)
	require.NoError(t, err)
	calls = c.Calls()
	require.Len(t, calls, 1, "one Query on the derived shard")
	assert.Equal(t, want.Key["PK"], calls[0].Input.(*dynamodb.QueryInput).ExpressionAttributeValues[":v0"])
	in, err := streamEventPrefix.QueryInput(db, e)
	require.NoError(t, err, "a read of one shard has its one request")
	assert.Equal(t, want.Key["PK"], in.ExpressionAttributeValues[":v0"])

	// Without the ID (or with it only partly), every shard.
	c.Reset()
	_, err = streamEventPrefix.Query(ctx, db, event{Stream: "s", At: at})
	require.NoError(t, err)
	assert.Len(t, c.Calls(), 4)
	c.Reset()
	_, err = streamEventPrefix.Query(ctx, db, event{Stream: "s", At: at, ID: "e"}, st.PartialMatch())
	require.NoError(t, err)
	assert.Len(t, c.Calls(), 4, "a partial ID is no ID: its items are in every shard")
	// An index read whose templates do not hold Stream cannot derive it.
	c.Reset()
	_, err = kindEvent.Query(ctx, db, event{Kind: "click", At: at, ID: "e7", Stream: "s"})
	require.NoError(t, err)
	assert.Len(t, c.Calls(), 4)
}

// 18.14: QueryInput of a sharded entity names the dry run that exists.
func TestEntityQueryInputsOfShards(t *testing.T) {
	_, db := fanMockDB()
	_, err := pageViews.QueryInput(db, pageView{PageID: "p"})
	require.ErrorIs(t, err, st.ErrInvalidInput)
	assert.ErrorContains(t, err, "Entity.QueryInputs")
	ins, err := pageViews.QueryInputs(db, pageView{PageID: "p"})
	require.NoError(t, err)
	assert.Len(t, ins, 10)
	_, err = pageViewShards.QueryInput(db, pageView{PageID: "p"})
	assert.ErrorContains(t, err, "Pattern.QueryInputs")
	_, err = deviceReadings.QueryBetweenInput(db, reading{DeviceID: "d", At: hour(1, 0)}, reading{At: hour(2, 0)})
	assert.ErrorContains(t, err, "Pattern.QueryBetweenInputs")
}

// 18.2: a PartialTime coarser than the partition's bucket reads every
// bucket of its period, in order; one as fine as the bucket, one.
func TestFanOutPartialTimeCoversBuckets(t *testing.T) {
	c, db := fanMockDB()
	ins, err := readingsInHour.QueryInputs(db, reading{DeviceID: "d1", At: hour(10, 5)}, st.PartialTime(st.Day))
	require.NoError(t, err)
	require.Len(t, ins, 24)
	for h, in := range ins {
		assert.Equal(t, "DEVICE#d1#2024-03-15-"+twoDigits(h), in.ExpressionAttributeValues[":v0"].(*types.AttributeValueMemberS).Value)
		assert.Equal(t, "R#2024-03-15T", in.ExpressionAttributeValues[":v1"].(*types.AttributeValueMemberS).Value)
	}
	_, err = readingsInHour.QueryInput(db, reading{DeviceID: "d1", At: hour(10, 5)}, st.PartialTime(st.Day))
	assert.ErrorIs(t, err, st.ErrInvalidInput)
	_, err = readingsInHour.Query(ctx, db, reading{DeviceID: "d1", At: hour(10, 5)}, st.PartialTime(st.Day))
	require.NoError(t, err)
	assert.Len(t, c.Calls(), 24, "an empty day: every hour read")
	ins, err = readingsInHour.QueryInputs(db, reading{DeviceID: "d1", At: hour(10, 5)}, st.PartialTime(st.Hour))
	require.NoError(t, err)
	assert.Len(t, ins, 1)
	ins, err = readings.QueryInputs(db, reading{DeviceID: "d1", At: hour(10, 5)}, st.PartialTime(st.Month))
	require.NoError(t, err)
	assert.Len(t, ins, 31*24, "Entity.Query too")
}

func twoDigits(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

// 18.17: a sort key coarser than its partition's bucket (sorted by day,
// bucketed by hour) is refused at Define: a range over it returned
// readings outside the range.
func TestBucketSortCoarserThanBucketRefused(t *testing.T) {
	tbl := st.MustTable("FanCoarse", st.WithGSI("GSI1"))
	_, err := st.Define[reading](tbl, "ByDay", st.Key("DEVICE#{DeviceID}#{At:2006-01-02-15}", "{At:2006-01-02}"))
	require.ErrorIs(t, err, st.ErrInvalidModel)
	assert.ErrorContains(t, err, "coarser than the hour bucket")
	_, err = st.Define[reading](tbl, "ByDayIndex", st.Key("DEVICE#{DeviceID}", "{At}"),
		st.Index("GSI1", "DAY#{At:2006-01-02}", "{At:2006-01}"))
	require.ErrorIs(t, err, st.ErrInvalidModel)
	// As fine as the bucket, or finer, is a model.
	_, err = st.Define[reading](tbl, "ByHour", st.Key("DEVICE#{DeviceID}#{At:2006-01-02-15}", "{At:2006-01-02T15}"))
	require.NoError(t, err)
	_, err = st.Define[reading](tbl, "ByInstant", st.Key("DEVICE#{DeviceID}#{At:2006-01-02}", "{At}"))
	require.NoError(t, err)
}

// 19.5: the fan-out ceiling. SumBetween over n hour buckets sends n
// requests at a ceiling of n, and is refused before sending at n-1; a
// Query page reads ahead at most the ceiling and returns a cursor; an
// iterator is not bound by it.
func TestFanOutCeiling(t *testing.T) {
	c, db := fanMockDB()
	from := reading{DeviceID: "d", At: hour(0, 0)}
	to := reading{At: hour(0, 0).Add(39*time.Hour + 30*time.Minute)} // 40 hour buckets
	value := func(r reading) float64 { return r.Value }
	_, err := st.SumBetween(ctx, db, deviceReadings, from, to, value, st.MaxFanOutRequests(40))
	require.NoError(t, err)
	assert.Len(t, c.Calls(), 40, "at the ceiling: every bucket")
	c.Reset()
	_, err = st.SumBetween(ctx, db, deviceReadings, from, to, value, st.MaxFanOutRequests(39))
	require.ErrorIs(t, err, st.ErrInvalidInput)
	assert.ErrorContains(t, err, "40 requests")
	assert.ErrorContains(t, err, "MaxFanOutRequests(40)")
	assert.Empty(t, c.Calls(), "one over: refused before sending")
	// Sum over shards and Get, as eager.
	_, err = st.Sum(ctx, db, pageViewShards, pageView{PageID: "p"}, func(v pageView) int64 { return v.Views }, st.MaxFanOutRequests(9))
	require.ErrorIs(t, err, st.ErrInvalidInput)
	_, err = pageViewShards.Get(ctx, db, pageView{PageID: "p"}, st.MaxFanOutRequests(9))
	require.ErrorIs(t, err, st.ErrInvalidInput)
	assert.Empty(t, c.Calls())
	// The default: a month of hours passes, 1,001 hours do not.
	month := reading{At: hour(0, 0).Add(743 * time.Hour)}
	_, err = st.SumBetween(ctx, db, deviceReadings, from, month, value)
	require.NoError(t, err)
	assert.Len(t, c.Calls(), 744)
	c.Reset()
	_, err = st.SumBetween(ctx, db, deviceReadings, from, reading{At: hour(0, 0).Add(1000 * time.Hour)}, value)
	require.ErrorIs(t, err, st.ErrInvalidInput)
	assert.ErrorContains(t, err, "1001 requests")
	assert.Empty(t, c.Calls())
	// A page over empty buckets stops at the ceiling with a cursor; the
	// next resumes there.
	page, err := deviceReadings.QueryBetween(ctx, db, from, to, st.Limit(5), st.MaxFanOutRequests(7), st.FanOutConcurrency(1))
	require.NoError(t, err)
	assert.Empty(t, page.Items)
	assert.NotEmpty(t, page.Cursor)
	assert.Len(t, c.Calls(), 7)
	c.Reset()
	n := 0
	for cursor := page.Cursor; cursor != ""; n++ {
		page, err := deviceReadings.QueryBetween(ctx, db, from, to, st.Limit(5), st.MaxFanOutRequests(7), st.After(cursor))
		require.NoError(t, err)
		cursor = page.Cursor
	}
	assert.Equal(t, 5, n, "33 buckets left, 7 a page")
	assert.Len(t, c.Calls(), 33)
	// An iterator fetches as it goes: not refused.
	c.Reset()
	for _, err := range deviceReadings.AllBetween(ctx, db, from, to, st.MaxFanOutRequests(3)) {
		require.NoError(t, err)
	}
	assert.Len(t, c.Calls(), 40)
	_, err = readingsInHour.QueryInputs(db, reading{DeviceID: "d", At: hour(1, 0)}, st.MaxFanOutRequests(0), st.PartialTime(st.Day))
	assert.ErrorIs(t, err, st.ErrInvalidInput)
}
