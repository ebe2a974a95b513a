package bench

import (
	"context"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// BenchmarkOverhead measures what each variant costs in process, with no
// network: a client that answers every call with a canned response (see
// cannedClient). Sub-benchmarks are <Op>/library, <Op>/sdk (idiomatic
// hand-written aws-sdk-go-v2 code sending the same request) and
// <Op>/guregu (github.com/guregu/dynamo/v2 sending the same request, as far
// as it can: see TestSameRequests). Besides ns/op, B/op and allocs/op each
// reports cpu-ns/op: the CPU time of the whole process (every thread, the
// garbage collector's included) per op, which counts the work the library's
// batch writer spreads over goroutines.
func BenchmarkOverhead(b *testing.B) {
	e := newEnv(&cannedClient{out: newCanned()}, tableName)
	runOps(b, e)
}

// BenchmarkOverheadHTTP runs the same variants through a real
// *dynamodb.Client whose HTTP transport answers with the canned responses
// as JSON: the SDK's whole stack (serialization, signing, retry and
// checksum middleware, deserialization) without a network. It shows the
// library's cost against what every request costs anyway.
func BenchmarkOverheadHTTP(b *testing.B) {
	ddb, streams := newHTTPClients(newCanned())
	e := newEnv(ddb, tableName)
	e.streams = streams
	runOps(b, e)
}

func runOps(b *testing.B, e *env) {
	ctx := context.Background()
	for _, op := range benchOps {
		b.Run(op.name, func(b *testing.B) {
			variants := []namedVariant{{"library", op.library}, {"sdk", op.sdk}, {"guregu", op.guregu}}
			for round := range benchRounds() {
				for _, v := range balancedOrder(variants, round) {
					if v.fn == nil {
						continue
					}
					b.Run(v.name, func(b *testing.B) {
						// One call first: fail fast, and leave one-time costs
						// (codec plans, caches) out of the measurement.
						if err := v.fn(ctx, e); err != nil {
							b.Fatal(err)
						}
						measure(b, func() error { return v.fn(ctx, e) })
					})
				}
			}
		})
	}
}

type namedVariant struct {
	name string
	fn   variant
}

// roundsEnv sets how many rounds the benchmarks run (default 1). In each
// round every variant of an op runs once, side by side, so that a load
// spike on a shared machine does not land on one variant only (-count
// would run all the counts of one variant back to back). The order changes
// from round to round (see balancedOrder). The testing package names the
// repeats <Op>/<variant>#01, #02 ...; cmd/benchreport takes the median
// over them.
const roundsEnv = "SINGLETABLE_BENCH_ROUNDS"

func benchRounds() int {
	n, err := strconv.Atoi(os.Getenv(roundsEnv))
	if err != nil || n < 1 {
		return 1
	}
	return n
}

// balancedOrder returns vs in round r's order of a Williams design: over
// len(vs) rounds (twice that for an odd count) every variant runs once in
// every position and right after every other variant equally often. A
// variant's run inherits the heap and the runtime's background work
// (sweeping, returning memory to the OS) that the run before it left; a
// plain rotation would make each variant always follow the same one.
func balancedOrder[T any](vs []T, r int) []T {
	n := len(vs)
	out := make([]T, n)
	rows := n
	if n%2 == 1 {
		rows = 2 * n
	}
	r %= rows
	for i := range n {
		// The first row is 0, 1, n-1, 2, n-2 ...; row r adds r (mod n);
		// for an odd n, rows n and later are the first n reversed.
		j := i
		if r >= n {
			j = n - 1 - i
		}
		k := (j + 1) / 2
		if j%2 == 0 {
			k = (n - j/2) % n
		}
		out[i] = vs[(k+r)%n]
	}
	return out
}

// measure runs fn b.N times and reports, besides the usual ns/op, B/op and
// allocs/op, the process's CPU time per op (cpu-ns/op).
func measure(b *testing.B, fn func() error) {
	b.ReportAllocs()
	cpu0 := processCPU()
	for b.Loop() {
		if err := fn(); err != nil {
			b.Fatal(err)
		}
	}
	cpu := processCPU() - cpu0
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
}

// processCPU is the user and system CPU time the process has used, all
// threads together.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestBalancedOrder checks the design's balance for every count of variants
// the benchmarks use and more: over a full cycle of rounds every variant
// holds every position, and follows every other variant, equally often.
func TestBalancedOrder(t *testing.T) {
	for n := 1; n <= 7; n++ {
		vs := make([]int, n)
		for i := range vs {
			vs[i] = i
		}
		rows := n
		if n%2 == 1 {
			rows = 2 * n
		}
		position := make(map[[2]int]int)
		follows := make(map[[2]int]int)
		for r := range rows {
			order := balancedOrder(vs, r)
			seen := make(map[int]bool)
			for i, v := range order {
				if seen[v] {
					t.Fatalf("n=%d round %d: %v repeats a variant", n, r, order)
				}
				seen[v] = true
				position[[2]int{v, i}]++
				if i > 0 {
					follows[[2]int{order[i-1], v}]++
				}
			}
		}
		for v := range n {
			for i := range n {
				if got := position[[2]int{v, i}]; got != rows/n {
					t.Errorf("n=%d: variant %d in position %d %d times, want %d", n, v, i, got, rows/n)
				}
				if v == i {
					continue
				}
				// rows rounds of n-1 neighbours over n(n-1) ordered pairs
				if got := follows[[2]int{v, i}]; got != rows/n {
					t.Errorf("n=%d: variant %d follows %d %d times, want %d", n, i, v, got, rows/n)
				}
			}
		}
	}
}
