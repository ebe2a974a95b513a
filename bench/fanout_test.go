//go:build integration

package bench

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	st "github.com/singletable/singletable"
)

// BenchmarkFanOut: a read that fans out over S = 10 shards or B = 24 hour
// buckets against one query of the same total items, end to end on
// DynamoDB Local, one read at a time (its latency is what the target is
// about: a fan-out should cost about one query's latency, at most 1.5
// times, and allocate per item no more than the single query). Each read
// returns fanTotal items of about 100 bytes: all of the partition (or
// partitions), through All. allocs/item is allocations per item returned.

const (
	fanShards  = 10
	fanBuckets = 24
	fanTotal   = 480
)

// FanItem is a small item, read by all three variants.
type FanItem struct {
	Key     string    `dynamodbav:"key"`
	Shard   int       `dynamodbav:"shard"`
	At      time.Time `dynamodbav:"at"`
	ID      string    `dynamodbav:"id"`
	Payload string    `dynamodbav:"payload"`
	N       int64     `dynamodbav:"n"`
}

var (
	FanBench   = st.MustTable("FanBench")
	fanSingle  = st.MustDefine[FanItem](FanBench, "One", st.Key("ONE#{Key}", "{At}#{ID}"))
	fanSharded = st.MustDefine[FanItem](FanBench, "Sharded", st.Key("SHARDED#{Key}#{Shard}", "{At}#{ID}"),
		st.Shards("Shard", fanShards).By("ID"))
	fanBucketed = st.MustDefine[FanItem](FanBench, "Bucketed", st.Key("BUCKETED#{Key}#{At:2006-01-02-15}", "{At}#{ID}"))

	fanSingleRead   = fanSingle.Pattern("FanSingle").Must()
	fanShardedRead  = fanSharded.Pattern("FanShards").Must()
	fanBucketedRead = fanBucketed.Pattern("FanBuckets").SortBetween().Must()
)

var fanStart = time.Date(2024, 3, 15, 0, 0, 0, 0, time.UTC)

// newFanEnv seeds fanTotal items under each entity in a fresh table.
func newFanEnv(tb testing.TB) *st.DB {
	tb.Helper()
	ctx := context.Background()
	cfg, err := localConfig(ctx, &warnLog{})
	if err != nil {
		tb.Fatal(err)
	}
	db := st.New(dynamodb.NewFromConfig(cfg), FanBench, st.WithTableName(fmt.Sprintf("fanbench-%d", time.Now().UnixNano())))
	if err := db.CreateTable(ctx); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := db.DeleteTable(context.Background()); err != nil {
			tb.Errorf("deleting the table: %v", err)
		}
	})
	var ops []st.BatchOp
	var items []FanItem
	for i := range fanTotal {
		// Spread evenly over the 24 hours: fanTotal/24 per bucket.
		at := fanStart.Add(time.Duration(i) * 24 * time.Hour / fanTotal)
		items = append(items, FanItem{Key: "k", At: at, ID: fmt.Sprintf("i%04d", i), Payload: "a payload of some forty bytes or so....", N: int64(i)})
	}
	for _, e := range []*st.Entity[FanItem]{fanSingle, fanSharded, fanBucketed} {
		ops = append(ops, st.BatchPut(e, items...))
	}
	if err := db.BatchWrite(ctx, ops); err != nil {
		tb.Fatal(err)
	}
	return db
}

type fanVariant struct {
	name string
	read func(context.Context, *st.DB) (int, error)
}

func countAll(seq func(yield func(FanItem, error) bool)) (int, error) {
	n := 0
	for _, err := range seq {
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

var fanVariants = []fanVariant{
	{"single", func(ctx context.Context, db *st.DB) (int, error) {
		return countAll(fanSingleRead.All(ctx, db, FanItem{Key: "k"}))
	}},
	{"shards10", func(ctx context.Context, db *st.DB) (int, error) {
		return countAll(fanShardedRead.All(ctx, db, FanItem{Key: "k"}))
	}},
	{"buckets24", func(ctx context.Context, db *st.DB) (int, error) {
		return countAll(fanBucketedRead.AllBetween(ctx, db, FanItem{Key: "k", At: fanStart}, FanItem{At: fanStart.Add(24*time.Hour - time.Nanosecond)}))
	}},
}

func BenchmarkFanOut(b *testing.B) {
	db := newFanEnv(b)
	ctx := context.Background()
	for range 20 { // warm up the server and the connections
		for _, v := range fanVariants {
			if _, err := v.read(ctx, db); err != nil {
				b.Fatal(err)
			}
		}
	}
	for round := range benchRounds() {
		for _, v := range rotate(fanVariants, round) {
			b.Run(v.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					n, err := v.read(ctx, db)
					if err != nil {
						b.Fatal(err)
					}
					if n != fanTotal {
						b.Fatalf("read %d items, want %d", n, fanTotal)
					}
				}
			})
		}
	}
}

// TestFanOutVariants checks that the three reads return the same items.
func TestFanOutVariants(t *testing.T) {
	db := newFanEnv(t)
	ctx := context.Background()
	for _, v := range fanVariants {
		n, err := v.read(ctx, db)
		if err != nil || n != fanTotal {
			t.Errorf("%s: read %d items (err %v), want %d", v.name, n, err, fanTotal)
		}
	}
}
