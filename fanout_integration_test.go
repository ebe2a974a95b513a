//go:build integration

package singletable_test

// Fan-out reads on DynamoDB Local: shards merged in sort order, time buckets
// at their edges (items exactly on a boundary, empty buckets, limits ending
// inside a bucket, cursors across buckets and shards, descending), and the
// requests a limited read saves.

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/singletabletest"
)

// collectPages reads every page of read (given the cursor to resume from),
// checking that no page is over limit.
func collectPages[T any](t *testing.T, limit int, read func(cursor string) (*st.Page[T], error)) []T {
	t.Helper()
	var out []T
	cursor := ""
	for i := 0; ; i++ {
		require.Less(t, i, 1000, "paging does not end")
		page, err := read(cursor)
		require.NoError(t, err)
		require.LessOrEqual(t, len(page.Items), limit)
		out = append(out, page.Items...)
		if page.Cursor == "" {
			return out
		}
		cursor = page.Cursor
	}
}

func collectAll[T any](t *testing.T, seq func(yield func(T, error) bool)) []T {
	t.Helper()
	var out []T
	for v, err := range seq {
		require.NoError(t, err)
		out = append(out, v)
	}
	return out
}

// readingsWritten writes readings at the edges of the hours of 2024-03-15
// and in between, leaving hours 12 and 13 empty, and returns them in time
// order.
func readingsWritten(t *testing.T, db *st.DB, device string) []reading {
	t.Helper()
	var all []reading
	for _, at := range []time.Time{
		hour(9, 59).Add(59*time.Second + 999999999), // the last instant of hour 9
		hour(10, 0), hour(10, 0).Add(time.Nanosecond), hour(10, 17), hour(10, 30), hour(10, 45),
		hour(11, 0).Add(-time.Nanosecond), hour(11, 0), hour(11, 59),
		hour(14, 0), hour(14, 1), hour(15, 0).Add(-time.Nanosecond), hour(16, 30),
	} {
		r := reading{DeviceID: device, At: at, Value: float64(at.Minute())}
		require.NoError(t, readings.Put(ctx, db, r))
		all = append(all, r)
	}
	return all
}

func between(all []reading, from, to time.Time) []reading {
	var out []reading
	for _, r := range all {
		if !r.At.Before(from) && !r.At.After(to) {
			out = append(out, r)
		}
	}
	return out
}

func TestIntegrationFanOutBucketEdges(t *testing.T) {
	db := singletabletest.LocalDB(t, fanTable)
	all := readingsWritten(t, db, "dev#1") // a delimiter in the id
	readingsWritten(t, db, "dev#10")       // another device, whose keys start alike
	reversed := func(rs []reading) []reading { c := slices.Clone(rs); slices.Reverse(c); return c }
	for _, bounds := range [][2]time.Time{
		{hour(10, 0), hour(14, 0)}, // both bounds exactly on items and bucket edges
		{hour(10, 0).Add(time.Nanosecond), hour(11, 0).Add(-time.Nanosecond)}, // inside one bucket
		{hour(9, 0), hour(17, 0)},                         // wider than the data
		{hour(12, 0), hour(13, 59)},                       // empty buckets only
		{hour(11, 30), hour(14, 0).Add(-time.Nanosecond)}, // ends just before an item
	} {
		from, to := reading{DeviceID: "dev#1", At: bounds[0]}, reading{At: bounds[1]}
		want := between(all, bounds[0], bounds[1])
		name := fmt.Sprintf("%s..%s", bounds[0].Format("15:04:05.999999999"), bounds[1].Format("15:04:05.999999999"))
		t.Run(name, func(t *testing.T) {
			got := collectAll(t, deviceReadings.AllBetween(ctx, db, from, to))
			assert.Equal(t, want, got, "ascending")
			got = collectAll(t, latestReadings.AllBetween(ctx, db, from, to))
			assert.Equal(t, reversed(want), got, "descending")
			for _, limit := range []int{1, 2, 3, 5} {
				got = collectPages(t, limit, func(c string) (*st.Page[reading], error) {
					return deviceReadings.QueryBetween(ctx, db, from, to, st.Limit(limit), st.After(c))
				})
				assert.Equal(t, want, got, "ascending pages of %d", limit)
				got = collectPages(t, limit, func(c string) (*st.Page[reading], error) {
					return latestReadings.QueryBetween(ctx, db, from, to, st.Limit(limit), st.After(c), st.FanOutConcurrency(1))
				})
				assert.Equal(t, reversed(want), got, "descending pages of %d", limit)
			}
			// Pages without a limit end where a bucket would need a request.
			got = collectPages(t, len(want)+1, func(c string) (*st.Page[reading], error) {
				return deviceReadings.QueryBetween(ctx, db, from, to, st.After(c))
			})
			assert.Equal(t, want, got, "pages without a limit")
			var wantSum float64
			for _, r := range want {
				wantSum += r.Value
			}
			sum, err := st.SumBetween(ctx, db, latestReadings, from, to, func(r reading) float64 { return r.Value })
			require.NoError(t, err)
			assert.Equal(t, wantSum, sum, "SumBetween")
		})
	}
}

func TestIntegrationFanOutLastNStopsEarly(t *testing.T) {
	db := singletabletest.LocalDB(t, fanTable)
	all := readingsWritten(t, db, "d1")
	from, to := reading{DeviceID: "d1", At: hour(16, 59).Add(-24 * time.Hour)}, reading{At: hour(16, 59)}
	// The newest bucket (16) holds one reading: "last 1" reads it alone.
	page, err := latestReadings.QueryBetween(ctx, db, from, to, st.Limit(1))
	require.NoError(t, err)
	assert.Equal(t, all[len(all)-1:], page.Items)
	assert.Equal(t, 1, page.Requests, "one bucket read")
	// The last 3 need buckets 16, 15 (empty) and 14 (two of its three).
	// One request at a time, the read is exactly those three buckets.
	page, err = latestReadings.QueryBetween(ctx, db, from, to, st.Limit(3), st.FanOutConcurrency(1))
	require.NoError(t, err)
	assert.Equal(t, []reading{all[12], all[11], all[10]}, page.Items)
	assert.Equal(t, 3, page.Requests, "buckets 16, 15 and 14, nothing ahead")
	// In parallel, how far the window has grown when a bucket is awaited
	// depends on which answer comes first: 16 alone, then 15-14, and at
	// most 13-11 ahead while 14 is awaited; never the other 18 buckets.
	page, err = latestReadings.QueryBetween(ctx, db, from, to, st.Limit(3))
	require.NoError(t, err)
	assert.Equal(t, []reading{all[12], all[11], all[10]}, page.Items)
	assert.LessOrEqual(t, page.Requests, 6, "the buckets read, and at most the window ahead")
	next, err := latestReadings.QueryBetween(ctx, db, from, to, st.Limit(3), st.After(page.Cursor))
	require.NoError(t, err)
	assert.Equal(t, []reading{all[9], all[8], all[7]}, next.Items, "resumed inside bucket 14, through the empty 13 and 12")
	// A Get over buckets reads until it has two.
	got := collectAll(t, deviceReadings.AllBetween(ctx, db, from, to, st.Limit(2)))
	assert.Equal(t, all[:2], got)
}

func TestIntegrationFanOutShards(t *testing.T) {
	db := singletabletest.LocalDB(t, fanTable)
	base := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	var written []event
	for i := range 40 {
		// Several events at the same instant: ties across shards.
		e := event{Stream: "s#1", ID: fmt.Sprintf("e%02d", i), At: base.Add(time.Duration(i/3) * time.Second), Kind: []string{"click", "view"}[i%2]}
		require.NoError(t, streamEvs.Put(ctx, db, e))
		written = append(written, e)
	}
	require.NoError(t, streamEvs.Put(ctx, db, event{Stream: "s#10", ID: "other", At: base, Kind: "click"}))
	shardsUsed := map[int]bool{}
	for i := range written {
		got, err := streamEvs.Get(ctx, db, event{Stream: "s#1", ID: written[i].ID, At: written[i].At})
		require.NoError(t, err, "Get finds the item from its hashed shard")
		assert.Equal(t, got.Shard, shardOf(t, db, event{Stream: "s#1", ID: got.ID, At: got.At}), "the stored shard is the key's")
		written[i].Shard = got.Shard
		shardsUsed[got.Shard] = true
	}
	assert.Len(t, shardsUsed, 4, "40 ids hash onto every one of 4 shards")
	sortKey := func(e event) string { return e.At.Format(time.RFC3339Nano) + "#" + e.ID }
	want := slices.Clone(written)
	slices.SortStableFunc(want, func(a, b event) int { return compareStrings(sortKey(a), sortKey(b)) })
	assert.Equal(t, want, collectAll(t, streamEvents.All(ctx, db, event{Stream: "s#1"})))
	newest := slices.Clone(want)
	slices.Reverse(newest)
	assert.Equal(t, newest, collectAll(t, streamEventsNew.All(ctx, db, event{Stream: "s#1"})))
	for _, limit := range []int{1, 4, 7, 40} {
		got := collectPages(t, limit, func(c string) (*st.Page[event], error) {
			return streamEvents.Query(ctx, db, event{Stream: "s#1"}, st.Limit(limit), st.After(c), st.FanOutConcurrency(3))
		})
		assert.Equal(t, want, got, "pages of %d across shards", limit)
		got = collectPages(t, limit, func(c string) (*st.Page[event], error) {
			return streamEventsNew.Query(ctx, db, event{Stream: "s#1"}, st.Limit(limit), st.After(c))
		})
		assert.Equal(t, newest, got, "descending pages of %d", limit)
	}
	// The sharded index: clicks of every shard, merged.
	var clicks []event
	for _, e := range want {
		if e.Kind == "click" {
			clicks = append(clicks, e)
		}
	}
	clicks = append([]event{{Stream: "s#10", ID: "other", At: base, Kind: "click"}}, clicks...)
	got := collectAll(t, eventsByKind.All(ctx, db, event{Kind: "click"}))
	require.Len(t, got, len(clicks))
	for i := range got {
		got[i].Shard = 0
		clicks[i].Shard = 0
	}
	assert.ElementsMatch(t, clicks, got)
	// An update of a field in a sharded index key recomputes it, shard and all.
	up, err := streamEvs.Update(ctx, db, event{Stream: "s#1", ID: "e00", At: base}, st.Set("Kind", "view"))
	require.NoError(t, err)
	assert.Equal(t, written[0].Shard, up.Shard)
	got = collectAll(t, eventsByKind.All(ctx, db, event{Kind: "click"}))
	assert.Len(t, got, len(clicks)-1)
	// Delete finds the item by its hash too.
	require.NoError(t, streamEvs.Delete(ctx, db, event{Stream: "s#1", ID: "e01", At: base}, st.MustExist()))
	_, err = streamEvs.Get(ctx, db, event{Stream: "s#1", ID: "e01", At: base})
	assert.ErrorIs(t, err, st.ErrNotFound)
	// A pattern Get over all shards.
	one, err := streamEvents.Get(ctx, db, event{Stream: "s#10"})
	require.NoError(t, err)
	assert.Equal(t, "other", one.ID)
	_, err = streamEvents.Get(ctx, db, event{Stream: "s#1"})
	assert.ErrorIs(t, err, st.ErrNotUnique)
	assert.Equal(t, 1, strings.Count(err.Error(), "singletable:"), "one prefix: %v", err)
	_, err = streamEvents.Get(ctx, db, event{Stream: "none"})
	assert.ErrorIs(t, err, st.ErrNotFound)
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// shardOf is the shard in the partition key Get sends for e.
func shardOf(t *testing.T, db *st.DB, e event) int {
	t.Helper()
	in, err := streamEvs.GetInput(db, e)
	require.NoError(t, err)
	pk := in.Key["PK"].(*types.AttributeValueMemberS).Value
	n, err := strconv.Atoi(pk[strings.LastIndexByte(pk, '#')+1:])
	require.NoError(t, err)
	return n
}

func TestIntegrationFanOutCounter(t *testing.T) {
	db := singletabletest.LocalDB(t, fanTable)
	const workers, each = 16, 25
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				_, err := pageViews.Update(ctx, db, pageView{PageID: "home"}, st.Increment("Views", 1), st.Upsert(), st.RandomShard())
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	total, err := st.Sum(ctx, db, pageViewShards, pageView{PageID: "home"}, func(v pageView) int64 { return v.Views })
	require.NoError(t, err)
	assert.Equal(t, int64(workers*each), total)
	shards := collectAll(t, pageViewShards.All(ctx, db, pageView{PageID: "home"}))
	assert.GreaterOrEqual(t, len(shards), 8, "400 random increments reach nearly every one of 10 shards")
	// A shard the value carries: out of range is refused before sending.
	err = pageViews.Put(ctx, db, pageView{PageID: "home", Shard: 10})
	assert.ErrorIs(t, err, st.ErrInvalidKey)
	// Pages of one shard at a time still add up.
	got := collectPages(t, 1, func(c string) (*st.Page[pageView], error) {
		return pageViewShards.Query(ctx, db, pageView{PageID: "home"}, st.Limit(1), st.After(c))
	})
	var sum int64
	for _, v := range got {
		sum += v.Views
	}
	assert.Equal(t, int64(workers*each), sum)
}

func TestIntegrationFanOutBucketsAndShards(t *testing.T) {
	db := singletabletest.LocalDB(t, fanTable)
	var want []metric
	day := time.Date(2024, 2, 28, 0, 0, 0, 0, time.UTC)
	for i := range 30 {
		m := metric{Name: "cpu", At: day.Add(time.Duration(i) * 3 * time.Hour), ID: fmt.Sprintf("m%d", i)}
		require.NoError(t, metrics.Put(ctx, db, m))
		want = append(want, m)
	}
	from, to := metric{Name: "cpu", At: want[3].At}, metric{At: want[25].At}
	got := collectPages(t, 4, func(c string) (*st.Page[metric], error) {
		return metricsBetween.QueryBetween(ctx, db, from, to, st.Limit(4), st.After(c))
	})
	for i := range got {
		got[i].Shard = 0
	}
	assert.Equal(t, want[3:26], got)
	// Every leg at once, fewer in flight than a day's shards: each day
	// still merged from all three.
	for _, conc := range []int{2, 32} {
		got = collectAll(t, metricsBetween.AllBetween(ctx, db, from, to, st.FanOutConcurrency(conc)))
		for i := range got {
			got[i].Shard = 0
		}
		assert.Equal(t, want[3:26], got, "All, FanOutConcurrency(%d)", conc)
	}
}

// tick is a ledger entry: sharded by hash of its ID, and read across shards
// by its sequence number, a NUMBER sort key (an index over the table's
// partition key and the field's own attribute).
type tick struct {
	Acct  string `dynamodbav:"acct"`
	ID    string `dynamodbav:"id"`
	Shard int64  `dynamodbav:"shard"`
	Seq   int64  `dynamodbav:"seq"`
}

var (
	tickTable   = st.MustTable("Ticks", st.WithGSI("BySeq", st.IndexKeys("PK", "seq")))
	ticks       = st.MustDefine[tick](tickTable, "Tick", st.Key("T#{Acct}#{Shard}", "{ID}"), st.Shards("Shard", 3).By("ID"))
	ticksBySeq  = ticks.Pattern("TicksBySeq").On("BySeq").Must()
	ticksNewest = ticks.Pattern("TicksNewest").On("BySeq").Descending().Must()
)

// Shards are merged by the exact value of a number sort key: integers past
// 2^53 (float64 ties 2^53+1 with 2^53) come back in order, both ways.
func TestIntegrationFanOutNumberSortKeyExact(t *testing.T) {
	db := singletabletest.LocalDB(t, tickTable)
	base := int64(1) << 53
	var want []int64
	shards := map[int64]bool{}
	for i := range 12 {
		tk := tick{Acct: "a#%", ID: fmt.Sprintf("t%02d", i), Seq: base + int64(i)}
		require.NoError(t, ticks.Put(ctx, db, tk))
		got, err := ticks.Get(ctx, db, tk)
		require.NoError(t, err)
		shards[got.Shard] = true
		want = append(want, tk.Seq)
	}
	require.Len(t, shards, 3, "the ids spread over every shard")
	seqs := func(ts []tick) []int64 {
		out := make([]int64, len(ts))
		for i, tk := range ts {
			out[i] = tk.Seq
		}
		return out
	}
	assert.Equal(t, want, seqs(collectAll(t, ticksBySeq.All(ctx, db, tick{Acct: "a#%"}))))
	newest := slices.Clone(want)
	slices.Reverse(newest)
	assert.Equal(t, newest, seqs(collectAll(t, ticksNewest.All(ctx, db, tick{Acct: "a#%"}))))
	for _, limit := range []int{1, 5} {
		got := collectPages(t, limit, func(c string) (*st.Page[tick], error) {
			return ticksNewest.Query(ctx, db, tick{Acct: "a#%"}, st.Limit(limit), st.After(c))
		})
		assert.Equal(t, newest, seqs(got), "descending pages of %d", limit)
	}
}

// sample is a reading bucketed by month and sharded by a hash of its
// device and sequence number: the randomized check's model.
type sample struct {
	Dev   string    `dynamodbav:"dev"`
	At    time.Time `dynamodbav:"at"`
	Seq   uint16    `dynamodbav:"seq"`
	Shard uint      `dynamodbav:"shard"`
	Val   *float64  `dynamodbav:"val,omitempty"`
}

var (
	sampleTable   = st.MustTable("Samples")
	samples       = st.MustDefine[sample](sampleTable, "Sample", st.Key("DEV#{Dev}#{At:2006-01}#{Shard}", "{At}#{Seq:5}"), st.Shards("Shard", 3).By("Dev", "Seq"))
	samplesRange  = samples.Pattern("SamplesRange").SortBetween().Must()
	samplesNewest = samples.Pattern("SamplesNewest").SortBetween().Descending().Must()
)

// A randomized check of fan-out reads over month buckets × 3 shards:
// random readings (many exactly at or a nanosecond off month and year
// edges, in time zones other than UTC), then random ranges read both ways
// with limits from 1 up and every page's cursor, compared with an
// in-memory sort; a cursor given other bounds or another pattern is
// refused.
func TestIntegrationFanOutRandomized(t *testing.T) {
	db := singletabletest.LocalDB(t, sampleTable)
	ny, err := time.LoadLocation("America/New_York")
	require.NoError(t, err)
	zones := []*time.Location{time.UTC, ny, time.FixedZone("+13:45", 13*3600+45*60), time.FixedZone("-09:30", -(9*3600 + 30*60))}
	rng := rand.New(rand.NewPCG(10, 11))
	edges := []time.Time{
		time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2024, 3, 10, 7, 0, 0, 0, time.UTC), time.Date(2024, 11, 3, 6, 0, 0, 0, time.UTC), // DST changes in New York
		time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC),
	}
	randTime := func() time.Time {
		at := time.Date(2023, 12, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(rng.Int64N(int64(400 * 24 * time.Hour))))
		if rng.IntN(2) == 0 {
			at = edges[rng.IntN(len(edges))].Add(time.Duration(rng.IntN(3)-1) * time.Nanosecond)
		}
		return at.In(zones[rng.IntN(len(zones))])
	}
	devs := []string{"d#1", "d%2", "дат#ч"}
	written := map[string][]sample{}
	for i := range 150 {
		s := sample{Dev: devs[rng.IntN(len(devs))], At: randTime(), Seq: uint16(i)}
		if i%2 == 0 {
			v := float64(i)
			s.Val = &v
		}
		require.NoError(t, samples.Put(ctx, db, s))
		written[s.Dev] = append(written[s.Dev], s)
	}
	key := func(s sample) string {
		return s.At.UTC().Format("2006-01-02T15:04:05.000000000") + fmt.Sprintf("#%05d", s.Seq)
	}
	show := func(ss []sample) []string {
		out := make([]string, len(ss))
		for i, s := range ss {
			out[i] = s.Dev + " " + key(s)
			if s.Val != nil {
				out[i] += " " + strconv.FormatFloat(*s.Val, 'g', -1, 64)
			}
		}
		return out
	}
	for q := range 40 {
		dev := devs[rng.IntN(len(devs))]
		from, to := randTime(), randTime()
		if to.Before(from) {
			from, to = to, from
		}
		desc := rng.IntN(2) == 0
		limit := []int{1, 2, 3, 7, 50}[rng.IntN(5)]
		p, other := samplesRange, samplesNewest
		if desc {
			p, other = other, p
		}
		lo, hi := sample{Dev: dev, At: from}, sample{Dev: dev, At: to, Seq: 65535}
		var want []sample
		for _, s := range written[dev] {
			if k := key(s); k >= key(lo) && k <= key(hi) {
				want = append(want, s)
			}
		}
		slices.SortFunc(want, func(a, b sample) int {
			if desc {
				a, b = b, a
			}
			return compareStrings(key(a), key(b))
		})
		what := fmt.Sprintf("read %d: %s from %s to %s, descending %v, limit %d", q, dev, from, to, desc, limit)
		got := collectPages(t, limit, func(c string) (*st.Page[sample], error) {
			page, err := p.QueryBetween(ctx, db, lo, hi, st.Limit(limit), st.After(c), st.FanOutConcurrency(1+rng.IntN(4)))
			if err == nil && page.Cursor != "" && rng.IntN(3) == 0 {
				_, err := p.QueryBetween(ctx, db, lo, sample{Dev: dev, At: to.Add(time.Hour)}, st.After(page.Cursor))
				assert.ErrorIs(t, err, st.ErrInvalidCursor, "%s: a cursor with other bounds", what)
				_, err = other.QueryBetween(ctx, db, lo, hi, st.After(page.Cursor))
				assert.ErrorIs(t, err, st.ErrInvalidCursor, "%s: a cursor of another pattern", what)
			}
			return page, err
		})
		assert.Equal(t, show(want), show(got), what)
		conc := 1 + rng.IntN(4)
		assert.Equal(t, show(want), show(collectAll(t, p.AllBetween(ctx, db, lo, hi, st.FanOutConcurrency(conc)))),
			"%s, All without a Limit, FanOutConcurrency(%d)", what, conc)
		if len(want) > limit {
			want = want[:limit]
		}
		assert.Equal(t, show(want), show(collectAll(t, p.AllBetween(ctx, db, lo, hi, st.Limit(limit)))), "%s, All", what)
	}
}
