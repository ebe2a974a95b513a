//go:build integration

package bench

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	st "github.com/singletable/singletable"
)

// BenchmarkFanOut: a read that fans out over S = 10 shards or B = 24 hour
// buckets against one query of the same total items, end to end on
// DynamoDB Local, one read at a time (its latency is what the target is
// about: a fan-out should cost about one query's latency, at most 1.5
// times, and allocate per item no more than the single query). Each read
// returns fanTotal items of about 100 bytes: all of the partition (or
// partitions), through All.
//
// Beside the library's reads, the same three written by hand with the SDK
// (sdk-*: a paginated Query per partition, one goroutine each, decoded
// with attributevalue, merged by sort key): what the fan-out costs
// without the library. Besides wall time and allocations, each read
// reports the CPU time it took: the client's (cpu-ns/op, the whole test
// process) and DynamoDB Local's (server-cpu-ns/op, its JVM, found by
// SINGLETABLE_DDB_PID, which scripts/dynamodb-local.sh exports). Client
// and server share the machine's cores, so a read cannot take less wall
// time than their sum divided by the cores: a floor that grows with the
// number of requests, whoever sends them.
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
	db, _ := newFanEnvWire(tb)
	return db
}

// newFanEnvWire is newFanEnv, and the recorder of what its client sends.
func newFanEnvWire(tb testing.TB) (*st.DB, *wireCounter) {
	tb.Helper()
	ctx := context.Background()
	cfg, err := localConfig(ctx, &warnLog{})
	if err != nil {
		tb.Fatal(err)
	}
	wire := &wireCounter{next: cfg.HTTPClient}
	cfg.HTTPClient = wire
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
	return db, wire
}

// fanVariant reads the fanTotal items, handing each to visit (nil: none)
// in the read's order, and returns how many it read.
type fanVariant struct {
	name string
	read func(ctx context.Context, db *st.DB, visit func(FanItem)) (int, error)
}

func countAll(seq func(yield func(FanItem, error) bool), visit func(FanItem)) (int, error) {
	n := 0
	for v, err := range seq {
		if err != nil {
			return n, err
		}
		if visit != nil {
			visit(v)
		}
		n++
	}
	return n, nil
}

var (
	fanEnd      = fanStart.Add(24*time.Hour - time.Nanosecond)
	fanVariants = []fanVariant{
		{"single", func(ctx context.Context, db *st.DB, visit func(FanItem)) (int, error) {
			return countAll(fanSingleRead.All(ctx, db, FanItem{Key: "k"}), visit)
		}},
		{"shards10", func(ctx context.Context, db *st.DB, visit func(FanItem)) (int, error) {
			return countAll(fanShardedRead.All(ctx, db, FanItem{Key: "k"}), visit)
		}},
		{"buckets24", func(ctx context.Context, db *st.DB, visit func(FanItem)) (int, error) {
			return countAll(fanBucketedRead.AllBetween(ctx, db, FanItem{Key: "k", At: fanStart}, FanItem{At: fanEnd}), visit)
		}},
		{"sdk-single", func(ctx context.Context, db *st.DB, visit func(FanItem)) (int, error) {
			return sdkFanOut(ctx, db, "One", []string{"ONE#k"}, false, visit)
		}},
		{"sdk-shards10", func(ctx context.Context, db *st.DB, visit func(FanItem)) (int, error) {
			pks := make([]string, fanShards)
			for i := range pks {
				pks[i] = "SHARDED#k#" + strconv.Itoa(i)
			}
			return sdkFanOut(ctx, db, "Sharded", pks, false, visit)
		}},
		{"sdk-buckets24", func(ctx context.Context, db *st.DB, visit func(FanItem)) (int, error) {
			pks := make([]string, fanBuckets)
			for i := range pks {
				pks[i] = "BUCKETED#k#" + fanStart.Add(time.Duration(i)*time.Hour).Format("2006-01-02-15")
			}
			return sdkFanOut(ctx, db, "Bucketed", pks, true, visit)
		}},
	}
)

// sdkFanOut is the hand-written fan-out: one paginated Query per partition
// of pks, in parallel, each page decoded with attributevalue; then the
// partitions' items merged by sort key (time, then id), or, for time
// buckets, which hold disjoint ranges, put one after the other. It sends
// the library's requests: the same key condition (with the read's BETWEEN
// bounds when between) and type filter.
func sdkFanOut(ctx context.Context, db *st.DB, typ string, pks []string, between bool, visit func(FanItem)) (int, error) {
	parts := make([][]FanItem, len(pks))
	errs := make([]error, len(pks))
	var wg sync.WaitGroup
	for i, pk := range pks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			parts[i], errs[i] = sdkFanQuery(ctx, db, typ, pk, between)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return 0, err
	}
	items := slices.Concat(parts...)
	if !between && len(parts) > 1 {
		slices.SortStableFunc(items, func(a, b FanItem) int {
			return cmp.Or(a.At.Compare(b.At), strings.Compare(a.ID, b.ID))
		})
	}
	if visit != nil {
		for _, v := range items {
			visit(v)
		}
	}
	return len(items), nil
}

func sdkFanQuery(ctx context.Context, db *st.DB, typ, pk string, between bool) ([]FanItem, error) {
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(db.TableName()),
		KeyConditionExpression:    aws.String("#pk = :pk"),
		FilterExpression:          aws.String("#t = :t"),
		ExpressionAttributeNames:  map[string]string{"#pk": "PK", "#t": "_type"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: pk}, ":t": &types.AttributeValueMemberS{Value: typ}},
	}
	if between {
		in.KeyConditionExpression = aws.String("#pk = :pk AND #sk BETWEEN :lo AND :hi")
		in.ExpressionAttributeNames["#sk"] = "SK"
		in.ExpressionAttributeValues[":lo"] = &types.AttributeValueMemberS{Value: fanStart.Format(fanSortTime) + "#"}
		in.ExpressionAttributeValues[":hi"] = &types.AttributeValueMemberS{Value: fanEnd.Format(fanSortTime) + "$"}
	}
	var out []FanItem
	pages := dynamodb.NewQueryPaginator(db.Client(), in)
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		var items []FanItem
		if err := attributevalue.UnmarshalListOfMaps(page.Items, &items); err != nil {
			return nil, err
		}
		out = append(out, items...)
	}
	return out, nil
}

// fanSortTime is how the sort key template renders At.
const fanSortTime = "2006-01-02T15:04:05.000000000Z07:00"

// serverCPU is the CPU time DynamoDB Local's JVM has used (user and
// system), read from /proc; ok is false when SINGLETABLE_DDB_PID names no
// process this can read.
func serverCPU() (cpu time.Duration, ok bool) {
	pid := os.Getenv("SINGLETABLE_DDB_PID")
	if pid == "" {
		return 0, false
	}
	stat, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0, false
	}
	// The fields after the command name (which may hold spaces): utime and
	// stime are the 14th and 15th of the line, in clock ticks (1/100 s).
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond, true
}

func BenchmarkFanOut(b *testing.B) {
	db := newFanEnv(b)
	ctx := context.Background()
	for range 20 { // warm up the server and the connections
		for _, v := range fanVariants {
			if _, err := v.read(ctx, db, nil); err != nil {
				b.Fatal(err)
			}
		}
	}
	for round := range benchRounds() {
		for _, v := range balancedOrder(fanVariants, round) {
			b.Run(v.name, func(b *testing.B) {
				b.ReportAllocs()
				cpu0 := processCPU()
				server0, serverOK := serverCPU()
				for b.Loop() {
					n, err := v.read(ctx, db, nil)
					if err != nil {
						b.Fatal(err)
					}
					if n != fanTotal {
						b.Fatalf("read %d items, want %d", n, fanTotal)
					}
				}
				b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
				if server1, ok := serverCPU(); ok && serverOK {
					b.ReportMetric(float64(server1-server0)/float64(b.N), "server-cpu-ns/op")
				}
			})
		}
	}
}

// TestFanOutVariants checks that every variant reads the same items in
// the same order: all of them, by time; and that the library's reads send
// as many requests as the hand-written ones (checkFanOutSameWire).
func TestFanOutVariants(t *testing.T) {
	db, wire := newFanEnvWire(t)
	ctx := context.Background()
	t.Run("SameWire", func(t *testing.T) { checkFanOutSameWire(t, db, wire) })
	for _, v := range fanVariants {
		var got []string
		n, err := v.read(ctx, db, func(item FanItem) { got = append(got, item.ID) })
		if err != nil || n != fanTotal || len(got) != fanTotal {
			t.Errorf("%s: read %d items (%d visited, err %v), want %d", v.name, n, len(got), err, fanTotal)
			continue
		}
		for i, id := range got {
			if want := fmt.Sprintf("i%04d", i); id != want {
				t.Errorf("%s: item %d is %s, want %s", v.name, i, id, want)
				break
			}
		}
	}
}
