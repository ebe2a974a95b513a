//go:build integration

package bench

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/logging"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
)

// End to end against DynamoDB Local: the library and hand-written SDK code
// through the same *dynamodb.Client, on the same table and data, with the
// same number of concurrent workers. DynamoDB Local runs on the same
// machine, so these numbers say whether the library's overhead shows next
// to a real round trip, not what the service would sustain.

const (
	endpointEnv = "AWS_ENDPOINT_URL_DYNAMODB"
	// e2eWorkers is the number of goroutines sending requests, for every
	// variant (independent of GOMAXPROCS).
	e2eWorkers = 8
	e2eUsers   = 40   // seeded users, with nQuery orders each
	e2ePutPool = 4096 // distinct orders the Put benchmark cycles through

	// e2eWindowEnv sets the shortest paired window (a duration); the
	// -benchtime when unset.
	e2eWindowEnv = "SINGLETABLE_E2E_WINDOW"
	// e2eMinCallsEnv sets the calls each worker makes, on average, in a
	// paired window (see pairedClosed); e2eMinCalls when unset.
	e2eMinCallsEnv = "SINGLETABLE_E2E_MIN_CALLS"
	e2eMinCalls    = 20
	// e2eMaxWindow bounds a paired window however slow the calls are.
	e2eMaxWindow = 10 * time.Second
)

// localConfig loads an SDK config for DynamoDB Local, as internal/ddblocal
// does for the library's own tests (an internal package cannot be imported
// from this module): it refuses to run without AWS_ENDPOINT_URL_DYNAMODB,
// so that a benchmark never reaches a real AWS account, and uses dummy
// credentials and region when the environment has none. Its HTTP client
// keeps enough idle connections for every worker.
func localConfig(ctx context.Context, logger logging.Logger) (aws.Config, error) {
	endpoint := strings.TrimSpace(os.Getenv(endpointEnv))
	if endpoint == "" {
		return aws.Config{}, errors.New(endpointEnv + " is not set: run `make bench` (or `make test`), " +
			"or `scripts/dynamodb-local.sh run -- <cmd>`")
	}
	if u, err := url.Parse(endpoint); err != nil || u.Scheme == "" || u.Host == "" {
		return aws.Config{}, fmt.Errorf("%s=%q is not a URL such as http://127.0.0.1:8000", endpointEnv, endpoint)
	}
	if v, _ := strconv.ParseBool(os.Getenv("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS")); v {
		return aws.Config{}, fmt.Errorf("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS is set: the SDK would ignore %s", endpointEnv)
	}
	// Room for every request the paired FanOutWide run has in flight
	// (both variants' workers, ten shards each): with fewer idle
	// connections kept, each paired run dialled and closed the rest.
	hc := awshttp.NewBuildableClient().WithTransportOptions(func(tr *http.Transport) {
		tr.MaxIdleConns = 2 * e2eWorkers * fanWideShards
		tr.MaxIdleConnsPerHost = 2 * e2eWorkers * fanWideShards
	})
	opts := []func(*config.LoadOptions) error{config.WithHTTPClient(hc), config.WithLogger(logger)}
	if os.Getenv("AWS_ACCESS_KEY_ID") == "" || os.Getenv("AWS_SECRET_ACCESS_KEY") == "" {
		opts = append(opts, config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("local", "local", "")))
	}
	if os.Getenv("AWS_REGION") == "" && os.Getenv("AWS_DEFAULT_REGION") == "" {
		opts = append(opts, config.WithRegion("us-east-1"))
	}
	return config.LoadDefaultConfig(ctx, opts...)
}

// e2eEnv is a fresh table on DynamoDB Local with seeded data.
type e2eEnv struct {
	client *dynamodb.Client
	db     *st.DB
	table  string
	users  []string // users with nQuery orders each
	seed   []Order  // the seeded orders
	keys   []Order  // keys of the seeded orders
	puts   []Order  // orders the Put benchmark writes, in turn
	// batches are the key sets BatchGet100 reads, in turn: nBatch distinct
	// seeded orders each (fewer if fewer are seeded).
	batches [][]Order

	tenants  []string   // tenants with nQuery customers each
	custKeys []Customer // keys of the seeded customers
	putsWide []Customer // customers the PutWide benchmark writes, in turn

	wide wideE2E // the wide ops' (e2e_wide_test.go)

	// wire records what the clients send, when on (wire_test.go).
	wire *wireCounter

	warnings *warnLog
}

// newE2EEnv creates a uniquely named table, seeds it, and deletes it when
// tb ends.
func newE2EEnv(tb testing.TB, users int) *e2eEnv {
	tb.Helper()
	ctx := context.Background()
	warnings := &warnLog{}
	cfg, err := localConfig(ctx, warnings)
	if err != nil {
		tb.Fatal(err)
	}
	wire := &wireCounter{next: cfg.HTTPClient}
	cfg.HTTPClient = wire
	client := dynamodb.NewFromConfig(cfg)
	var suffix [4]byte
	_, _ = rand.Read(suffix[:])
	table := "bench-" + hex.EncodeToString(suffix[:]) + "-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	db := st.New(client, Shop, st.WithTableName(table))
	if err := db.CreateTable(ctx); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := db.DeleteTable(context.Background()); err != nil {
			tb.Errorf("deleting table %s: %v", table, err)
		}
	})
	e := &e2eEnv{client: client, db: db, table: table, warnings: warnings, wire: wire}
	var customers []Customer
	for u := range users {
		user := fmt.Sprintf("e2e-q-%03d", u)
		e.users = append(e.users, user)
		tenant := fmt.Sprintf("e2e-t-%03d", u)
		e.tenants = append(e.tenants, tenant)
		for i := 1; i <= nQuery; i++ {
			o := makeOrder(user, i)
			e.seed = append(e.seed, o)
			e.keys = append(e.keys, Order{UserID: o.UserID, ID: o.ID})
			c := makeCustomer(tenant, i)
			customers = append(customers, c)
			e.custKeys = append(e.custKeys, Customer{Tenant: c.Tenant, ID: c.ID})
		}
	}
	if err := db.BatchWrite(ctx, []st.BatchOp{st.BatchPut(Orders, e.seed...), st.BatchPut(Customers, customers...)}); err != nil {
		tb.Fatalf("seeding %d orders and %d customers: %v", len(e.seed), len(customers), err)
	}
	for start := 0; start < len(e.keys); start += nBatch {
		batch := make([]Order, min(nBatch, len(e.keys)))
		for k := range batch {
			batch[k] = e.keys[(start+k)%len(e.keys)]
		}
		e.batches = append(e.batches, batch)
	}
	for i := range e2ePutPool {
		e.puts = append(e.puts, makeOrder(fmt.Sprintf("e2e-p-%03d", i%64), 1000+i))
		e.putsWide = append(e.putsWide, makeCustomer(fmt.Sprintf("e2e-pw-%03d", i%64), 1000+i))
	}
	e.seedWide(tb)
	return e
}

// seedPuts writes every item the put benchmarks write (Put, PutWide, and
// TxWide5's puts), so that each of their writes replaces an item of the
// same size. Without it, the paired run's SDK workers (at an offset of
// half the fixtures) inserted items while the library's replaced those
// its earlier runs wrote: not the same work for DynamoDB Local.
func (e *e2eEnv) seedPuts(tb testing.TB) {
	tb.Helper()
	ops := []st.BatchOp{st.BatchPut(Orders, e.puts...), st.BatchPut(Customers, e.putsWide...)}
	for _, puts := range e.wide.txPuts {
		ops = append(ops, st.BatchPut(Customers, puts...))
	}
	if err := e.db.BatchWrite(context.Background(), ops); err != nil {
		tb.Fatalf("seeding the puts' items: %v", err)
	}
}

// updateArgs is what call i of the Update benchmark changes: seeded order
// i's status (in turn through the three), with its date given too (the
// same date: GSI1's key reads both, so the update needs no read).
func (e *e2eEnv) updateArgs(i int) (key Order, status, date string) {
	o := e.seed[i%len(e.seed)]
	statuses := [...]string{"PENDING", "SHIPPED", "DELIVERED"}
	return Order{UserID: o.UserID, ID: o.ID}, statuses[i%len(statuses)], o.Date
}

// e2eOp is one end-to-end operation; call i of a run uses fixture i (mod
// the fixtures' count).
type e2eOp struct {
	name         string
	library, sdk func(ctx context.Context, e *e2eEnv, i int) error
}

var e2eOps = []e2eOp{
	{"Put",
		func(ctx context.Context, e *e2eEnv, i int) error {
			return Orders.Put(ctx, e.db, e.puts[i%len(e.puts)])
		},
		func(ctx context.Context, e *e2eEnv, i int) error {
			return sdkPutOrder(ctx, e.client, e.table, e.puts[i%len(e.puts)])
		}},
	{"Get",
		func(ctx context.Context, e *e2eEnv, i int) error {
			_, err := Orders.Get(ctx, e.db, e.keys[i%len(e.keys)])
			return err
		},
		func(ctx context.Context, e *e2eEnv, i int) error {
			k := e.keys[i%len(e.keys)]
			_, err := sdkGetOrder(ctx, e.client, e.table, k.UserID, k.ID)
			return err
		}},
	{"Query",
		func(ctx context.Context, e *e2eEnv, i int) error {
			page, err := Orders.Query(ctx, e.db, Order{UserID: e.users[i%len(e.users)]})
			if err != nil {
				return err
			}
			return checkCount(page.Items, nil)
		},
		func(ctx context.Context, e *e2eEnv, i int) error {
			os, err := sdkQueryOrders(ctx, e.client, e.table, e.users[i%len(e.users)])
			return checkCount(os, err)
		}},

	{"Update",
		func(ctx context.Context, e *e2eEnv, i int) error {
			key, status, date := e.updateArgs(i)
			_, err := Orders.Update(ctx, e.db, key, st.Set("Status", status).Set("Date", date))
			return err
		},
		func(ctx context.Context, e *e2eEnv, i int) error {
			key, status, date := e.updateArgs(i)
			_, err := sdkUpdateOrder(ctx, e.client, e.table, key.UserID, key.ID, status, date)
			return err
		}},
	{"BatchGet100",
		func(ctx context.Context, e *e2eEnv, i int) error {
			keys := e.batches[i%len(e.batches)]
			found, err := Orders.BatchGet(ctx, e.db, keys)
			if err == nil && slices.Contains(found, nil) {
				err = fmt.Errorf("batch get: a seeded order of %d is missing", len(keys))
			}
			return err
		},
		func(ctx context.Context, e *e2eEnv, i int) error {
			keys := e.batches[i%len(e.batches)]
			os, err := sdkBatchGetOrders(ctx, e.client, e.table, keys)
			if err == nil && len(os) != len(keys) {
				err = fmt.Errorf("batch get returned %d orders, want %d", len(os), len(keys))
			}
			return err
		}},
	{"PutWide",
		func(ctx context.Context, e *e2eEnv, i int) error {
			return Customers.Put(ctx, e.db, e.putsWide[i%len(e.putsWide)])
		},
		func(ctx context.Context, e *e2eEnv, i int) error {
			return sdkPutCustomer(ctx, e.client, e.table, e.putsWide[i%len(e.putsWide)])
		}},
	{"GetWide",
		func(ctx context.Context, e *e2eEnv, i int) error {
			_, err := Customers.Get(ctx, e.db, e.custKeys[i%len(e.custKeys)])
			return err
		},
		func(ctx context.Context, e *e2eEnv, i int) error {
			k := e.custKeys[i%len(e.custKeys)]
			_, err := sdkGetCustomer(ctx, e.client, e.table, k.Tenant, k.ID)
			return err
		}},
	{"QueryWide",
		func(ctx context.Context, e *e2eEnv, i int) error {
			page, err := Customers.Query(ctx, e.db, Customer{Tenant: e.tenants[i%len(e.tenants)]})
			if err != nil {
				return err
			}
			return checkCount(page.Items, nil)
		},
		func(ctx context.Context, e *e2eEnv, i int) error {
			cs, err := sdkQueryCustomers(ctx, e.client, e.table, e.tenants[i%len(e.tenants)])
			return checkCount(cs, err)
		}},
}

// allE2EOps are the end-to-end ops, the wide ones of e2e_wide_test.go
// included.
func allE2EOps() []e2eOp { return append(e2eOps[:len(e2eOps):len(e2eOps)], e2eWideOps...) }

func checkCount[T any](items []T, err error) error {
	if err == nil && len(items) != nQuery {
		return fmt.Errorf("query returned %d items, want %d", len(items), nQuery)
	}
	return err
}

// BenchmarkEndToEnd measures each op against DynamoDB Local, with
// e2eWorkers concurrent workers per variant, in two ways each round:
//
//   - <Op>/paired runs both at the same time (b.N is not used; see
//     runPaired for how long) and reports each one's throughput,
//     library-ops/s and sdk-ops/s, the window and the calls per worker.
//     DynamoDB Local's throughput drifts by tens of percent from one second
//     to the next (JIT, its own GC); variants that run side by side see the
//     same drift, so their ratio is what the throughput target is judged on.
//   - <Op>/library and <Op>/sdk run one after the other and report the
//     client process's CPU time per op (cpu-ns/op) and allocations, besides
//     ops/s and ns/op (wall time per op, all workers together).
//
// Both variants get the same: one client, the same items (the puts'
// seeded first, so that every put replaces an item, whichever variant
// and run writes it first), the same warm-up, e2eWorkers workers each.
// TestEndToEndVariants/SameWire checks that they send the same requests.
//
// It fails, rather than skips, without AWS_ENDPOINT_URL_DYNAMODB.
func BenchmarkEndToEnd(b *testing.B) {
	e := newE2EEnv(b, e2eUsers)
	e.seedPuts(b)
	ctx := context.Background()
	// Warm up the server (the JVM compiles its hot paths) and the
	// connection pool with every op of both variants.
	for _, op := range allE2EOps() {
		for _, fn := range []func(context.Context, *e2eEnv, int) error{op.library, op.sdk} {
			if err := runWorkers(cmp.Or(e2eWarm[op.name], 500), func(i int) error { return fn(ctx, e, i) }); err != nil {
				b.Fatalf("warm-up %s: %v", op.name, err)
			}
		}
	}
	for _, op := range allE2EOps() {
		b.Run(op.name, func(b *testing.B) {
			variants := []e2eVariant{{"library", op.library}, {"sdk", op.sdk}}
			for round := range benchRounds() {
				// The paired run first: both variants in it follow the
				// same run (the op before's, or this op's last round), and
				// each variant run alone follows a run of this op. With
				// the paired run last, the first variant of the first
				// round (the library) alone followed the op before's
				// paired run and what it left DynamoDB Local to do.
				b.Run("paired", func(b *testing.B) {
					lib, sdk, window, err := runPaired(ctx, e, op, pairedWindow(), pairedMinCalls())
					if err != nil {
						b.Fatal(err)
					}
					b.ReportMetric(lib/window.Seconds(), "library-ops/s")
					b.ReportMetric(sdk/window.Seconds(), "sdk-ops/s")
					b.ReportMetric(window.Seconds(), "window-s")
					b.ReportMetric((lib+sdk)/(2*e2eWorkers), "calls/worker")
				})
				for _, v := range balancedOrder(variants, round) {
					b.Run(v.name, func(b *testing.B) {
						b.ReportAllocs()
						e.warnings.take() // not this run's
						cpu0 := processCPU()
						start := time.Now()
						err := runWorkers(b.N, func(i int) error { return v.fn(ctx, e, i) })
						elapsed := time.Since(start)
						cpu := processCPU() - cpu0
						b.StopTimer()
						if err != nil {
							b.Fatal(err)
						}
						b.ReportMetric(float64(b.N)/elapsed.Seconds(), "ops/s")
						b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
						if n, first := e.warnings.take(); n > 0 {
							b.Logf("the SDK logged %d warning(s) during this run; the first: %s", n, first)
						}
					})
				}
			}
		})
	}
}

// benchTime is the -benchtime when it is a duration, else one second.
func benchTime() time.Duration {
	if f := flag.Lookup("test.benchtime"); f != nil {
		if d, err := time.ParseDuration(f.Value.String()); err == nil && d > 0 {
			return d
		}
	}
	return time.Second
}

// pairedWindow is the shortest paired window: $SINGLETABLE_E2E_WINDOW,
// else the -benchtime. scripts/bench.sh keeps it at 1 s while the runs of
// one variant (CPU per op) take 0.5 s: a fast op's per-round ratio rests
// on a few hundred calls, and spread two to three times as wide in 0.5 s
// on a busy machine.
func pairedWindow() time.Duration {
	if d, err := time.ParseDuration(os.Getenv(e2eWindowEnv)); err == nil && d > 0 {
		return d
	}
	return benchTime()
}

// pairedMinCalls is the calls each worker makes, on average, in a paired
// window: $SINGLETABLE_E2E_MIN_CALLS, else e2eMinCalls.
func pairedMinCalls() int {
	if n, err := strconv.Atoi(os.Getenv(e2eMinCallsEnv)); err == nil && n >= 0 {
		return n
	}
	return e2eMinCalls
}

// runPaired runs op's two variants at the same time, e2eWorkers workers
// each, and returns how many calls of each ran in a window that opens once
// every worker has finished its first call (the start, 16 workers sending
// at once, dialling connections and racing for idle ones, is not
// measured), and the window's length: d, or longer for a slow op, until
// the workers have finished minCalls calls each on average (pairedClosed,
// at most e2eMaxWindow). With a window of d = 1 s, StreamWide100 and
// FanOutWide made 3 to 6 calls per worker, and with the SDK code on both
// sides the ratio of the two counts spread from 0.83 to 1.18 per round.
// A call counts for the part of it inside the window: one that took 40
// ms, 10 of them before the window closed, counts 0.25. Counting whole
// calls instead (those started, as before issue 21) was off by up to one
// call per worker: a coin toss of up to a tenth of a slow op's count.
//
// The SDK's workers use other fixtures than the library's (an offset of
// half the fixtures), so that the two do not write the same items at the
// same moment; BenchmarkEndToEnd seeds every fixture the puts write, so
// that both variants' writes replace an item (neither inserts one).
func runPaired(ctx context.Context, e *e2eEnv, op e2eOp, d time.Duration, minCalls int) (lib, sdk float64, window time.Duration, err error) {
	type span struct{ start, end time.Time }
	spans := make([][]span, 2*e2eWorkers) // per worker: even the library's, odd the SDK code's
	var stop atomic.Bool
	var ended atomic.Int64 // calls finished, both variants'
	var wg, firsts sync.WaitGroup
	var once sync.Once
	run := func(w int, fn func(context.Context, *e2eEnv, int) error, next *atomic.Int64, offset int) {
		defer wg.Done()
		first := sync.OnceFunc(firsts.Done)
		defer first()
		for !stop.Load() {
			i := int(next.Add(1) - 1)
			t0 := time.Now()
			if e := fn(ctx, e, i+offset); e != nil {
				once.Do(func() { err = e })
				stop.Store(true)
				return
			}
			spans[w] = append(spans[w], span{t0, time.Now()})
			ended.Add(1)
			first()
		}
	}
	var libN, sdkN atomic.Int64
	wg.Add(2 * e2eWorkers)
	firsts.Add(2 * e2eWorkers)
	for w := range e2eWorkers {
		go run(2*w, op.library, &libN, 0)
		go run(2*w+1, op.sdk, &sdkN, e2ePutPool/2)
	}
	firsts.Wait()
	from, ended0 := time.Now(), ended.Load()
	if !stop.Load() {
		time.Sleep(d)
	}
	for !stop.Load() && !pairedClosed(time.Since(from), d, e2eMaxWindow, int(ended.Load()-ended0), 2*e2eWorkers, minCalls) {
		time.Sleep(5 * time.Millisecond)
	}
	to := time.Now()
	stop.Store(true)
	wg.Wait()
	for w, ss := range spans {
		work := &lib
		if w%2 == 1 {
			work = &sdk
		}
		for _, s := range ss {
			*work += pairedCredit(s.start, s.end, from, to)
		}
	}
	return lib, sdk, to.Sub(from), err
}

type e2eVariant struct {
	name string
	fn   func(context.Context, *e2eEnv, int) error
}

// warnLog is the SDK's logger in the end-to-end benchmarks: it counts what
// the SDK logs (such as DynamoDB Local's connection resets) and keeps the
// first message, so that the benchmark can report it after the run instead
// of the SDK writing into the middle of a benchmark's result line.
type warnLog struct {
	mu    sync.Mutex
	n     int
	first string
}

func (w *warnLog) Logf(c logging.Classification, format string, v ...any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.n == 0 {
		w.first = string(c) + " " + fmt.Sprintf(format, v...)
	}
	w.n++
}

// take returns and resets the count and the first message.
func (w *warnLog) take() (int, string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, first := w.n, w.first
	w.n, w.first = 0, ""
	return n, first
}

// runWorkers calls fn(0) ... fn(n-1) from e2eWorkers goroutines and returns
// the first error.
func runWorkers(n int, fn func(i int) error) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	for range e2eWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if err := fn(i); err != nil {
					once.Do(func() { first = err })
					next.Store(int64(n)) // stop the others
					return
				}
			}
		}()
	}
	wg.Wait()
	return first
}

// TestEndToEndVariants runs each end-to-end op of both variants against
// DynamoDB Local (make test provides it) and checks that they read and
// write the same data, so that the benchmark compares equal work. Like the
// library's integration tests it fails without AWS_ENDPOINT_URL_DYNAMODB.
func TestEndToEndVariants(t *testing.T) {
	e := newE2EEnv(t, 2)
	ctx := context.Background()
	t.Run("SameWire", func(t *testing.T) { checkSameWire(t, e) })
	for _, op := range e2eOps {
		for i := range 3 {
			require.NoError(t, op.library(ctx, e, i), "%s/library", op.name)
			require.NoError(t, op.sdk(ctx, e, i), "%s/sdk", op.name)
		}
	}

	// Reads: both decode the same values.
	for _, k := range e.keys[:5] {
		lib, err := Orders.Get(ctx, e.db, k)
		require.NoError(t, err)
		sdk, err := sdkGetOrder(ctx, e.client, e.table, k.UserID, k.ID)
		require.NoError(t, err)
		assert.Equal(t, lib, sdk)
		assert.Equal(t, k.ID, lib.ID)
	}
	for _, u := range e.users {
		lib, err := Orders.Query(ctx, e.db, Order{UserID: u})
		require.NoError(t, err)
		sdk, err := sdkQueryOrders(ctx, e.client, e.table, u)
		require.NoError(t, err)
		assert.Len(t, lib.Items, nQuery)
		assert.Equal(t, lib.Items, sdk)
	}

	// Writes: an order put by either is the same item, and reads back.
	o := makeOrder("e2e-w", 7)
	require.NoError(t, sdkPutOrder(ctx, e.client, e.table, o))
	byLib, err := Orders.Get(ctx, e.db, o)
	require.NoError(t, err)
	assert.Equal(t, o, byLib)
	raw1, err := e.client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(e.table), Key: storedOrderKey(o)})
	require.NoError(t, err)
	require.NoError(t, Orders.Put(ctx, e.db, o))
	raw2, err := e.client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(e.table), Key: storedOrderKey(o)})
	require.NoError(t, err)
	assert.Equal(t, canonItem(raw1.Item), canonItem(raw2.Item), "the SDK code and the library store the same item")
	assert.Len(t, raw2.Item, 16)

	// Update: both leave the same item and return it.
	key, status, date := e.updateArgs(4)
	libUpd, err := Orders.Update(ctx, e.db, key, st.Set("Status", status).Set("Date", date))
	require.NoError(t, err)
	raw1, err = e.client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(e.table), Key: storedOrderKey(key)})
	require.NoError(t, err)
	sdkUpd, err := sdkUpdateOrder(ctx, e.client, e.table, key.UserID, key.ID, status, date)
	require.NoError(t, err)
	raw2, err = e.client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(e.table), Key: storedOrderKey(key)})
	require.NoError(t, err)
	assert.Equal(t, libUpd, sdkUpd)
	assert.Equal(t, status, libUpd.Status)
	assert.Equal(t, canonItem(raw1.Item), canonItem(raw2.Item), "the SDK code and the library leave the same item")

	// BatchGet100: the same orders.
	found, err := Orders.BatchGet(ctx, e.db, e.batches[0])
	require.NoError(t, err)
	sdkFound, err := sdkBatchGetOrders(ctx, e.client, e.table, e.batches[0])
	require.NoError(t, err)
	libFound := make([]Order, len(found))
	for i, o := range found {
		require.NotNil(t, o, "key %d", i)
		libFound[i] = *o
	}
	assert.ElementsMatch(t, libFound, sdkFound)

	// The wide entity: both read the same values, and store the same item.
	for _, k := range e.custKeys[:5] {
		lib, err := Customers.Get(ctx, e.db, k)
		require.NoError(t, err)
		sdk, err := sdkGetCustomer(ctx, e.client, e.table, k.Tenant, k.ID)
		require.NoError(t, err)
		assert.Equal(t, lib, sdk)
		assert.Equal(t, k.ID, lib.ID)
	}
	for _, tenant := range e.tenants {
		page, err := Customers.Query(ctx, e.db, Customer{Tenant: tenant})
		require.NoError(t, err)
		sdk, err := sdkQueryCustomers(ctx, e.client, e.table, tenant)
		require.NoError(t, err)
		assert.Len(t, page.Items, nQuery)
		assert.Equal(t, page.Items, sdk)
	}
	c := makeCustomer("e2e-w", 7)
	ck := map[string]types.AttributeValue{"PK": sv(customerPK(c.Tenant)), "SK": sv(customerSK(c.ID))}
	require.NoError(t, sdkPutCustomer(ctx, e.client, e.table, c))
	raw1, err = e.client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(e.table), Key: ck})
	require.NoError(t, err)
	require.NoError(t, Customers.Put(ctx, e.db, c))
	raw2, err = e.client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(e.table), Key: ck})
	require.NoError(t, err)
	assert.Equal(t, canonItem(raw1.Item), canonItem(raw2.Item), "the SDK code and the library store the same customer")
	byLibC, err := Customers.Get(ctx, e.db, c)
	require.NoError(t, err)
	assert.Equal(t, c, byLibC)

	// The paired run runs both variants for the time given.
	lib, sdk, window, err := runPaired(ctx, e, e2eOps[1], 200*time.Millisecond, 0)
	require.NoError(t, err)
	assert.Positive(t, lib)
	assert.Positive(t, sdk)
	assert.GreaterOrEqual(t, window, 200*time.Millisecond)
	// A slow op's window lasts until its workers have made their calls.
	slow := e2eOp{"slow Get", func(ctx context.Context, e *e2eEnv, i int) error {
		time.Sleep(20 * time.Millisecond)
		return e2eOps[1].library(ctx, e, i)
	}, func(ctx context.Context, e *e2eEnv, i int) error {
		time.Sleep(20 * time.Millisecond)
		return e2eOps[1].sdk(ctx, e, i)
	}}
	lib, sdk, window, err = runPaired(ctx, e, slow, 50*time.Millisecond, 5)
	require.NoError(t, err)
	// 80 calls or more ended in the window, at most one a worker begun
	// before it opened: 64 or more lay wholly in it, 4 a worker on
	// average, so some worker made 4 whole calls of 20 ms or more.
	assert.GreaterOrEqual(t, window, 80*time.Millisecond)
	assert.GreaterOrEqual(t, lib+sdk, float64(2*e2eWorkers*(5-1)), "the calls of the window, less a part of those begun before it")
}
