package singletable_test

// The fan-out model (a sharded counter, hashed-sharded events, hourly
// readings, daily metrics sharded by hash) and the unit tests of fanout.go:
// golden requests of every leg, cursors, options.

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/golden"
	"github.com/singletable/singletable/singletabletest"
)

var fanTable = st.MustTable("FanOut", st.WithGSI("GSI1"))

// pageView is one shard of a page's view counter (random shards).
type pageView struct {
	PageID string `dynamodbav:"pageId"`
	Shard  int    `dynamodbav:"shard"`
	Views  int64  `dynamodbav:"views"`
}

// event is an event of a stream, its shard a hash of its ID; the GSI lists
// a stream's events by kind, sharded the same way.
type event struct {
	Stream string    `dynamodbav:"stream"`
	ID     string    `dynamodbav:"id"`
	Shard  int       `dynamodbav:"shard"`
	At     time.Time `dynamodbav:"at"`
	Kind   string    `dynamodbav:"kind"`
}

// reading is a device's reading, bucketed by hour.
type reading struct {
	DeviceID string    `dynamodbav:"deviceId"`
	At       time.Time `dynamodbav:"at"`
	Value    float64   `dynamodbav:"value"`
}

// metric is a point of a named metric, bucketed by day and sharded by ID.
type metric struct {
	Name  string    `dynamodbav:"name"`
	At    time.Time `dynamodbav:"at"`
	ID    string    `dynamodbav:"id"`
	Shard uint8     `dynamodbav:"shard"`
}

var (
	pageViews = st.MustDefine[pageView](fanTable, "PageView",
		st.Key("PAGEVIEW#{PageID}#{Shard}", "COUNTER"), st.Shards("Shard", 10))
	streamEvs = st.MustDefine[event](fanTable, "Event",
		st.Key("EVENT#{Stream}#{Shard}", "{At}#{ID}"),
		st.Index("GSI1", "KIND#{Kind}#{Shard:2}", "{At}#{ID}"),
		st.Shards("Shard", 4).By("Stream", "ID"))
	readings = st.MustDefine[reading](fanTable, "Reading",
		st.Key("DEVICE#{DeviceID}#{At:2006-01-02-15}", "R#{At}"))
	metrics = st.MustDefine[metric](fanTable, "Metric",
		st.Key("METRIC#{Name}#{At:2006-01-02}#{Shard}", "M#{At}#{ID}"), st.Shards("Shard", 3).By("ID"))

	pageViewShards  = pageViews.Pattern("PageViewShards").Must()
	pageViewOne     = pageViews.Pattern("PageViewShard3").Partition("PAGEVIEW#{PageID}#3").Must()
	streamEvents    = streamEvs.Pattern("StreamEvents").Must()
	streamEventsNew = streamEvs.Pattern("StreamEventsNewest").Descending().Must()
	eventsByKind    = streamEvs.Pattern("EventsByKind").On("GSI1").Partition("KIND#{Kind}#{Shard}").Must()
	deviceReadings  = readings.Pattern("DeviceReadings").SortBetween().Must()
	latestReadings  = readings.Pattern("LatestReadings").SortBetween().Descending().Must()
	readingsInHour  = readings.Pattern("ReadingsInHour").SortPrefix().Must()
	metricsBetween  = metrics.Pattern("MetricsBetween").SortBetween().Must()
)

func fanMockDB() (*singletabletest.Client, *st.DB) {
	c := &singletabletest.Client{}
	return c, st.New(c, fanTable)
}

func hour(h, m int) time.Time { return time.Date(2024, 3, 15, h, m, 0, 0, time.UTC) }

func TestFanOutInputsGolden(t *testing.T) {
	_, db := fanMockDB()
	must := mustInput(t)
	golden.Request(t, "fanout/shards", must(pageViewShards.QueryInputs(db, pageView{PageID: "home#1"})))
	golden.Request(t, "fanout/shards_index", must(eventsByKind.QueryInputs(db, event{Kind: "click"}, st.Limit(5))))
	golden.Request(t, "fanout/buckets_descending", must(latestReadings.QueryBetweenInputs(db,
		reading{DeviceID: "d1", At: hour(10, 30)}, reading{At: hour(13, 0)})))
	golden.Request(t, "fanout/buckets_shards", must(metricsBetween.QueryBetweenInputs(db,
		metric{Name: "cpu", At: time.Date(2024, 2, 28, 12, 0, 0, 0, time.UTC)}, metric{At: time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)})))
}

func TestFanOutOneShardOrBucketIsOneRequest(t *testing.T) {
	_, db := fanMockDB()
	ins, err := pageViewOne.QueryInputs(db, pageView{PageID: "p"})
	require.NoError(t, err)
	require.Len(t, ins, 1)
	assert.Equal(t, "PAGEVIEW#p#3", ins[0].ExpressionAttributeValues[":v0"].(*types.AttributeValueMemberS).Value)
	// A SortPrefix read of one hour reads that hour's partition only.
	in, err := readingsInHour.QueryInput(db, reading{DeviceID: "d1", At: hour(10, 5)})
	require.NoError(t, err)
	assert.Equal(t, "DEVICE#d1#2024-03-15-10", in.ExpressionAttributeValues[":v0"].(*types.AttributeValueMemberS).Value)
	// A range within one bucket, exactly at its edges, is one leg.
	ins, err = deviceReadings.QueryBetweenInputs(db, reading{DeviceID: "d1", At: hour(10, 0)}, reading{At: hour(11, 0).Add(-time.Nanosecond)})
	require.NoError(t, err)
	assert.Len(t, ins, 1)
	ins, err = deviceReadings.QueryBetweenInputs(db, reading{DeviceID: "d1", At: hour(10, 0)}, reading{At: hour(11, 0)})
	require.NoError(t, err)
	assert.Len(t, ins, 2)
}

func TestFanOutInputErrors(t *testing.T) {
	_, db := fanMockDB()
	_, err := pageViewShards.QueryInput(db, pageView{PageID: "p"})
	assert.ErrorIs(t, err, st.ErrInvalidInput)
	assert.ErrorContains(t, err, "fan-out over 10 shards")
	_, err = deviceReadings.QueryBetweenInput(db, reading{DeviceID: "d", At: hour(1, 0)}, reading{At: hour(2, 0)})
	assert.ErrorIs(t, err, st.ErrInvalidInput)
	for name, call := range map[string]func() error{
		"FanOutConcurrency on one partition": func() error {
			_, err := readingsInHour.QueryInput(db, reading{DeviceID: "d", At: hour(1, 0)}, st.FanOutConcurrency(2))
			return err
		},
		"FanOutConcurrency 0": func() error {
			_, err := pageViewShards.QueryInputs(db, pageView{PageID: "p"}, st.FanOutConcurrency(0))
			return err
		},
		"upper bound before lower": func() error {
			_, err := deviceReadings.QueryBetweenInputs(db, reading{DeviceID: "d", At: hour(3, 0)}, reading{At: hour(2, 0)})
			return err
		},
		"zero upper bound": func() error {
			_, err := deviceReadings.QueryBetweenInputs(db, reading{DeviceID: "d", At: hour(3, 0)}, reading{})
			return err
		},
		"too many buckets": func() error {
			_, err := deviceReadings.QueryBetweenInputs(db, reading{DeviceID: "d", At: hour(0, 0)}, reading{At: hour(0, 0).AddDate(2, 0, 0)})
			return err
		},
		"Query on a SortBetween pattern": func() error {
			_, err := deviceReadings.Query(ctx, db, reading{DeviceID: "d", At: hour(0, 0)})
			return err
		},
	} {
		assert.ErrorIs(t, call(), st.ErrInvalidInput, name)
	}
}

func TestFanOutCursorRefused(t *testing.T) {
	c, db := fanMockDB()
	// Every shard answers one item and more to read: the page has a cursor.
	c.QueryFunc = func(_ context.Context, in *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
		pk := in.ExpressionAttributeValues[":v0"]
		item := map[string]types.AttributeValue{"PK": pk, "SK": &types.AttributeValueMemberS{Value: "COUNTER"},
			"_type": &types.AttributeValueMemberS{Value: "PageView"}, "views": &types.AttributeValueMemberN{Value: "1"}}
		out := &dynamodb.QueryOutput{Items: []map[string]types.AttributeValue{item}, Count: 1, ScannedCount: 1}
		if in.ExclusiveStartKey == nil {
			out.LastEvaluatedKey = map[string]types.AttributeValue{"PK": pk, "SK": item["SK"]}
		}
		return out, nil
	}
	page, err := pageViewShards.Query(ctx, db, pageView{PageID: "p"}, st.Limit(3))
	require.NoError(t, err)
	require.Len(t, page.Items, 3)
	require.NotEmpty(t, page.Cursor)
	// The cursor resumes the same read; another page id, a one-partition
	// cursor or a tampered one is refused before anything is sent.
	c.Reset()
	_, err = pageViewShards.Query(ctx, db, pageView{PageID: "q"}, st.After(page.Cursor))
	assert.ErrorIs(t, err, st.ErrInvalidCursor)
	tampered := []byte(page.Cursor)
	tampered[3] ^= 1
	_, err = pageViewShards.Query(ctx, db, pageView{PageID: "p"}, st.After(string(tampered)))
	assert.ErrorIs(t, err, st.ErrInvalidCursor)
	_, err = pageViewShards.Query(ctx, db, pageView{PageID: "p"}, st.After(page.Cursor), st.Ascending())
	assert.NoError(t, err, "the pattern reads ascending anyway: the same direction")
	assert.NotEmpty(t, c.Calls())
	c.Reset()
	_, err = streamEvents.Query(ctx, db, event{Stream: "s"}, st.After(page.Cursor))
	assert.ErrorIs(t, err, st.ErrInvalidCursor)
	assert.Empty(t, c.Calls())
}

func TestFanOutSheet(t *testing.T) {
	sheet := fanTable.Sheet()
	assert.Contains(t, sheet, "| PageViewShards | Query, fan-out over 10 shards |")
	assert.Contains(t, sheet, "| PageViewShard3 | Query |")
	assert.Contains(t, sheet, "| LatestReadings | Query, descending, fan-out over hour buckets |")
	assert.Contains(t, sheet, "| MetricsBetween | Query, fan-out over day buckets × 3 shards |")
	assert.Contains(t, sheet, "| ReadingsInHour | Query |")
}
