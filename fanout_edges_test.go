package singletable_test

// Fan-out reads at their edges (issue 18): one clock per read, a read
// confined to the shard its params give, the dry runs an entity has, and
// a partial time coarser than the bucket. Requests are counted with the
// recording client.

import (
	"context"
	"slices"
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
	expCountsColl    = clockTable.Collection("CountShard", expCounts).Partition("COUNT#{ID}#{Day}#{Shard}").Must()

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
	// An iterator fetches as it goes: not refused, and not bound by the
	// default ceiling.
	c.Reset()
	for _, err := range deviceReadings.AllBetween(ctx, db, from, to) {
		require.NoError(t, err)
	}
	assert.Len(t, c.Calls(), 40)
	_, err = readingsInHour.QueryInputs(db, reading{DeviceID: "d", At: hour(1, 0)}, st.MaxFanOutRequests(0), st.PartialTime(st.Day))
	assert.ErrorIs(t, err, st.ErrInvalidInput)
}

// Given MaxFanOutRequests, an iterator is bound by it: it yields what that
// many requests bring, in order, then an ErrInvalidInput naming the
// ceiling (atkC F9: the option was accepted and ignored, and a loop over
// a long range of empty buckets sent a request per bucket).
func TestFanOutIteratorCeilingGiven(t *testing.T) {
	rs := hourly(6) // one reading in each of the first 6 hours
	c, db := readingsMock(t, rs)
	from, to := reading{DeviceID: "d", At: hour(0, 0)}, reading{At: hour(0, 0).Add(39 * time.Hour)}
	for _, conc := range []int{1, 2, 32} {
		c.Reset()
		var got []reading
		var errs []error
		for r, err := range deviceReadings.AllBetween(ctx, db, from, to, st.MaxFanOutRequests(4), st.FanOutConcurrency(conc)) {
			if err != nil {
				errs = append(errs, err)
				continue
			}
			got = append(got, r)
		}
		assert.Equal(t, rs[:4], got, "concurrency %d: the first 4 buckets' items, in order", conc)
		require.Len(t, errs, 1, "concurrency %d", conc)
		assert.ErrorIs(t, errs[0], st.ErrInvalidInput)
		assert.ErrorContains(t, errs[0], "MaxFanOutRequests(4)")
		assert.Len(t, c.Calls(), 4, "concurrency %d", conc)
	}
	// A read within the ceiling ends without an error.
	c.Reset()
	n := 0
	for _, err := range deviceReadings.AllBetween(ctx, db, from, reading{At: hour(5, 0)}, st.MaxFanOutRequests(6)) {
		require.NoError(t, err)
		n++
	}
	assert.Equal(t, 6, n)
	assert.Len(t, c.Calls(), 6)
}

// readingsMock is a DB whose client answers each Query with the readings
// rs holds in its partition, in sort order, as DynamoDB pages them (Limit,
// ExclusiveStartKey, LastEvaluatedKey).
func readingsMock(t *testing.T, rs []reading) (*singletabletest.Client, *st.DB) {
	t.Helper()
	_, plain := fanMockDB()
	parts := map[string][]map[string]types.AttributeValue{}
	for _, r := range rs {
		in, err := readings.PutInput(plain, r)
		require.NoError(t, err)
		pk := in.Item["PK"].(*types.AttributeValueMemberS).Value
		parts[pk] = append(parts[pk], in.Item)
	}
	sk := func(item map[string]types.AttributeValue) string {
		return item["SK"].(*types.AttributeValueMemberS).Value
	}
	c := &singletabletest.Client{QueryFunc: func(_ context.Context, in *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
		items := slices.Clone(parts[in.ExpressionAttributeValues[":v0"].(*types.AttributeValueMemberS).Value])
		after := func(a, b string) bool { return a > b }
		if in.ScanIndexForward != nil && !*in.ScanIndexForward {
			slices.Reverse(items)
			after = func(a, b string) bool { return a < b }
		}
		i := 0
		if in.ExclusiveStartKey != nil {
			for i < len(items) && !after(sk(items[i]), sk(in.ExclusiveStartKey)) {
				i++
			}
		}
		out := items[i:]
		var last map[string]types.AttributeValue
		if in.Limit != nil && int(*in.Limit) < len(out) {
			out = out[:*in.Limit]
			last = map[string]types.AttributeValue{"PK": out[len(out)-1]["PK"], "SK": out[len(out)-1]["SK"]}
		}
		return &dynamodb.QueryOutput{Items: out, Count: int32(len(out)), ScannedCount: int32(len(out)), LastEvaluatedKey: last}, nil
	}}
	return c, st.New(c, fanTable)
}

// Issue 18, after 18.8: a page that crosses empty buckets widens its
// read-ahead when the window is used up, not at each bucket of it: a
// Limit(2) page over 12 empty hours and a full one sends 15 Queries (1, 2,
// 4, 8 buckets), not 40.
func TestFanOutReadAheadOverEmptyBuckets(t *testing.T) {
	rs := []reading{{DeviceID: "d", At: hour(12, 5), Value: 1}, {DeviceID: "d", At: hour(12, 10), Value: 2}, {DeviceID: "d", At: hour(13, 0), Value: 3}}
	c, db := readingsMock(t, rs)
	page, err := deviceReadings.QueryBetween(ctx, db, reading{DeviceID: "d", At: hour(0, 0)}, reading{At: hour(23, 59)}, st.Limit(2))
	require.NoError(t, err)
	assert.Equal(t, rs[:2], page.Items)
	assert.Len(t, c.Calls(), 15, "buckets 0..14: the window of 1, 2, 4 and 8 buckets")
	assert.Equal(t, 15, page.Requests)
}

// 19.5: iterators and pages build their legs as they get to them, so a
// range of more than 10,000 legs (two years of hour buckets) is not
// refused; a loop that stops early sends at most FanOutConcurrency
// requests (issue 21: an iterator without a Limit reads every leg at once,
// at most that many ahead), one with a Limit a request or two, and a walk
// with pages over a mostly empty range costs about a request per bucket
// and one per page. Sum over it is still refused before sending.
func TestFanOutLongRangeBuiltAsRead(t *testing.T) {
	start := hour(0, 0)
	far := start.Add(2 * 366 * 24 * time.Hour) // 17,569 hour buckets
	from, to := reading{DeviceID: "d", At: start}, reading{At: far}
	var rs []reading
	for _, h := range []int{0, 1, 700, 1500, 2999} {
		for m := range 3 {
			rs = append(rs, reading{DeviceID: "d", At: start.Add(time.Duration(h)*time.Hour + time.Duration(m+1)*time.Minute), Value: float64(h*10 + m)})
		}
	}
	c, db := readingsMock(t, rs)
	var got []reading
	for r, err := range deviceReadings.AllBetween(ctx, db, from, to) {
		require.NoError(t, err)
		if got = append(got, r); len(got) == 2 {
			break
		}
	}
	assert.Equal(t, rs[:2], got)
	assert.LessOrEqual(t, len(c.Calls()), 32, "at most FanOutConcurrency legs ahead of the loop")
	c.Reset()
	got = nil
	for r, err := range deviceReadings.AllBetween(ctx, db, from, to, st.Limit(2)) {
		require.NoError(t, err)
		got = append(got, r)
	}
	assert.Equal(t, rs[:2], got)
	assert.Len(t, c.Calls(), 1, "with a Limit, read ahead as a page: the first bucket had them")
	c.Reset()
	page, err := latestReadings.QueryBetween(ctx, db, reading{DeviceID: "d", At: start}, reading{At: start.Add(2999*time.Hour + 59*time.Minute)}, st.Limit(1))
	require.NoError(t, err, "a page over 3,000 buckets, newest first")
	assert.Equal(t, rs[14:], page.Items)
	assert.Len(t, c.Calls(), 1)

	// A paged walk of the first 3,000 hours: every reading, in order.
	c.Reset()
	walkTo := reading{At: start.Add(3000*time.Hour - time.Nanosecond)}
	var paged []reading
	pages := 0
	for cursor := "first"; cursor != ""; pages++ {
		opts := []st.QueryOption{st.Limit(2)}
		if cursor != "first" {
			opts = append(opts, st.After(cursor))
		}
		page, err := deviceReadings.QueryBetween(ctx, db, from, walkTo, opts...)
		require.NoError(t, err)
		paged = append(paged, page.Items...)
		cursor = page.Cursor
		require.Less(t, pages, 100)
	}
	assert.Equal(t, rs, paged)
	// The read-ahead doubles over empty buckets: it may overshoot the next
	// full one by less than the gap, which the next page reads again.
	assert.LessOrEqual(t, len(c.Calls()), 3000+3000/10+2*pages, "about a request per bucket and one per page")
	t.Logf("paged walk: %d requests, %d pages", len(c.Calls()), pages)
	// The whole range, to its end.
	c.Reset()
	n := 0
	for _, err := range deviceReadings.AllBetween(ctx, db, from, to) {
		require.NoError(t, err)
		n++
	}
	assert.Equal(t, len(rs), n)
	assert.Len(t, c.Calls(), 17569, "each bucket once")
	c.Reset()
	_, err = st.SumBetween(ctx, db, deviceReadings, from, to, func(r reading) float64 { return r.Value })
	require.ErrorIs(t, err, st.ErrInvalidInput)
	assert.ErrorContains(t, err, "17569 requests")
	assert.Empty(t, c.Calls())
}

// Issue 18, after 18.2: a one-sided range over a partition bucketed by
// the sort time has no end in buckets, and a literal prefix into the time
// spans buckets: both read the params' bucket only (02:00 and 02:15 for
// "before 02:20"), so they are refused when declared.
func TestBucketOneSidedRangeRefused(t *testing.T) {
	for name, p := range map[string]*st.Pattern[reading]{
		"SortLessThan":       readings.Pattern("BucketLT").SortLessThan(),
		"SortLessOrEqual":    readings.Pattern("BucketLE").SortLessOrEqual(),
		"SortGreaterThan":    readings.Pattern("BucketGT").SortGreaterThan(),
		"SortGreaterOrEqual": readings.Pattern("BucketGE").SortGreaterOrEqual(),
		"SortBeginsWith":     readings.Pattern("BucketMonth").SortBeginsWith("R#2024-03"),
	} {
		err := p.Err()
		require.ErrorIs(t, err, st.ErrInvalidModel, name)
		assert.ErrorContains(t, err, name, name)
		assert.ErrorContains(t, err, "SortBetween", name)
		assert.Panics(t, func() { p.Must() }, name)
	}
	// The bucket's own literal reads the bucket; an unbucketed key's range
	// is one partition.
	require.NoError(t, readings.Pattern("BucketAll").SortBeginsWith("R#").Err())
	require.NoError(t, streamEvs.Pattern("StreamBefore").SortLessThan().Err())
}

// movingEvent is an event whose shard count grows from 4 to 8: the same
// key under both declarations.
type movingEvent struct {
	Stream string `dynamodbav:"stream"`
	ID     string `dynamodbav:"id"`
	Shard  int    `dynamodbav:"shard"`
}

var (
	prevTable       = st.MustTable("FanPrevious")
	prevTableBefore = st.MustTable("FanPrevious")
	movingBefore    = st.MustDefine[movingEvent](prevTableBefore, "Moving",
		st.Key("EV#{Stream}#{Shard}", "ID#{ID}"), st.Shards("Shard", 4).By("ID"))
	moving = st.MustDefine[movingEvent](prevTable, "Moving",
		st.Key("EV#{Stream}#{Shard}", "ID#{ID}"), st.Shards("Shard", 8).By("ID").Previously(4))
	movingByID     = moving.Pattern("MovingByID").SortEquals().Must()
	movingByPrefix = moving.Pattern("MovingByPrefix").SortPrefix().Must()
)

// 18.9 under Previously: while the shard count changes, an item given its
// By fields is in its shard under the new count or, not moved yet, under
// the old one: a read given them reads both (one request when they
// agree), not the new one only, which missed every item not moved.
func TestFanOutShardFromParamsPreviously(t *testing.T) {
	c, db := fanMockDB()
	db = st.New(c, prevTable)
	beforeDB := st.New(c, prevTableBefore)
	partitionOf := func(call singletabletest.Call) string {
		return call.Input.(*dynamodb.QueryInput).ExpressionAttributeValues[":v0"].(*types.AttributeValueMemberS).Value
	}
	both := 0
	for i := range 24 {
		e := movingEvent{Stream: "s", ID: "e" + strconv.Itoa(i)}
		nowIn, err := moving.PutInput(db, e)
		require.NoError(t, err)
		oldIn, err := movingBefore.PutInput(beforeDB, e)
		require.NoError(t, err)
		want := []string{nowIn.Item["PK"].(*types.AttributeValueMemberS).Value}
		if old := oldIn.Item["PK"].(*types.AttributeValueMemberS).Value; old != want[0] {
			want = append(want, old)
			both++
		}
		for name, read := range map[string]func() error{
			"Get": func() error { _, err := movingByID.Get(ctx, db, e); return err },
			"Query": func() error {
				_, err := movingByPrefix.Query(ctx, db, e)
				return err
			},
		} {
			c.Reset()
			err := read()
			if name == "Get" {
				require.ErrorIs(t, err, st.ErrNotFound)
			} else {
				require.NoError(t, err)
			}
			var got []string
			for _, call := range c.Calls() {
				got = append(got, partitionOf(call))
			}
			assert.ElementsMatch(t, want, got, "%s %s: the shard of each count, once", name, e.ID)
		}
	}
	assert.Positive(t, both, "some IDs change shard")
}
