// Command benchreport turns the output of singletable's benchmarks
// (`go test -bench` in bench/) into BENCHMARKS.md: the machine, the date,
// and for each operation the library's cost next to hand-written
// aws-sdk-go-v2 code and guregu/dynamo, as ratios checked against the
// targets of issue #5.
//
//	go run ./cmd/benchreport -overhead overhead.txt -http http.txt -e2e e2e.txt -out ../BENCHMARKS.md
//
// Each benchmark may appear several times (rounds, `#01` suffixes, or
// -count): the report uses the median of each metric. scripts/bench.sh runs
// it; see `make bench`.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Targets (issues #5 and #9), as ratios library ÷ hand-written SDK code
// measured side by side in one run.
const (
	targetCPU        = 1.0  // CPU time per op, at most
	targetAllocs     = 1.0  // allocations per op, at most
	targetBytes      = 1.10 // bytes allocated per op, at most
	targetThroughput = 0.97 // end-to-end throughput, at least
	targetFanOut     = 1.5  // a fan-out's wall time ÷ one query of the same items (issue #10), at most
	targetGuregu     = 0.95 // CPU time per op ÷ guregu/dynamo's, at most (issue #21)
)

// The operations and variants, in report order.
var (
	overheadOps = []string{"Put", "Get", "Query25", "Update", "TxWrite3", "BatchWrite100", "BatchGet100", "PutWide", "GetWide", "QueryWide25",
		"TxWide5", "FanOutWide", "StreamWide100"}
	e2eOps = []string{"Put", "Get", "Query", "Update", "BatchGet100", "PutWide", "GetWide", "QueryWide",
		"TxWide5", "FanOutWide", "StreamWide100"}
	variants = []string{"library", "sdk", "guregu"}
	fanOuts  = []struct{ name, what string }{{"shards10", "10 shards"}, {"buckets24", "24 hour buckets"}}
	fanItems = 480.0 // items per read in BenchmarkFanOut (bench/fanout_test.go fanTotal)
)

// Results holds every measurement: results[benchmark][unit] lists the
// values in the order they were read (one per round or count).
type Results map[string]map[string][]float64

var (
	procSuffix  = regexp.MustCompile(`-\d+$`)
	repeatMark  = regexp.MustCompile(`#\d+`)
	resultStart = regexp.MustCompile(`^\s*\d+\s+\S+\s+\S+/op`)
)

// Parse reads `go test -bench` output. A benchmark's name is normalised:
// the -GOMAXPROCS suffix and the #NN marks of repeated sub-benchmarks are
// removed, so that repeats pool. A result line that something else split
// (a log line written between the name and the numbers) is joined back.
func Parse(r io.Reader, into Results) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1024*1024), 1024*1024)
	pending := "" // a benchmark name whose numbers are on a later line
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "Benchmark") {
			fields := strings.Fields(line)
			if len(fields) < 4 || !isInt(fields[1]) {
				pending = fields[0] // the numbers follow later
				continue
			}
			pending = ""
			if err := addResult(into, fields); err != nil {
				return err
			}
			continue
		}
		if pending != "" && resultStart.MatchString(line) {
			if err := addResult(into, append([]string{pending}, strings.Fields(line)...)); err != nil {
				return err
			}
			pending = ""
		}
	}
	return sc.Err()
}

// addResult adds one result: name, iterations, then value-unit pairs.
func addResult(into Results, fields []string) error {
	name := repeatMark.ReplaceAllString(procSuffix.ReplaceAllString(fields[0], ""), "")
	if into[name] == nil {
		into[name] = map[string][]float64{}
	}
	for i := 2; i+1 < len(fields); i += 2 {
		v, err := strconv.ParseFloat(fields[i], 64)
		if err != nil {
			return fmt.Errorf("benchmark %s: value %q: %v", name, fields[i], err)
		}
		into[name][fields[i+1]] = append(into[name][fields[i+1]], v)
	}
	return nil
}

func isInt(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil
}

func median(vs []float64) float64 {
	if len(vs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(vs)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Median of a benchmark's metric; NaN when missing.
func (r Results) Median(name, unit string) float64 { return median(r[name][unit]) }

// Runs is how many times a benchmark was measured.
func (r Results) Runs(name string) int {
	n := 0
	for _, vs := range r[name] {
		n = max(n, len(vs))
	}
	return n
}

// Ratio compares a with b on one metric. When both ran the same number of
// times the runs are paired (run i of a with run i of b: with interleaved
// rounds the two ran next to each other, under the same load), and Value
// is the median of the per-round ratios, Lo and Hi their range; otherwise
// Value is median(a) ÷ median(b).
type Ratio struct {
	Value, Lo, Hi float64
	Paired        bool
}

func (r Results) Ratio(a, b, unit string) Ratio {
	va, vb := r[a][unit], r[b][unit]
	ra := Ratio{Value: median(va) / median(vb), Lo: math.Inf(1), Hi: math.Inf(-1)}
	if len(va) == len(vb) && len(va) > 1 {
		ra.Paired = true
		xs := make([]float64, len(va))
		for i := range va {
			xs[i] = va[i] / vb[i]
			ra.Lo, ra.Hi = min(ra.Lo, xs[i]), max(ra.Hi, xs[i])
		}
		ra.Value = median(xs)
	}
	return ra
}

// UnitRatio compares two metrics of one benchmark, run by run (see Ratio).
func (r Results) UnitRatio(name, a, b string) Ratio {
	pair := Results{"a": {"v": r[name][a]}, "b": {"v": r[name][b]}}
	return pair.Ratio("a", "b", "v")
}

// throughput is an end-to-end op's throughput ratio, library ÷ sdk, from
// the runs where both variants ran at the same time (<Op>/paired).
func (r Results) throughput(op string) Ratio {
	return r.UnitRatio("BenchmarkEndToEnd/"+op+"/paired", "library-ops/s", "sdk-ops/s")
}

func (ra Ratio) valid() bool { return !math.IsNaN(ra.Value) && !math.IsInf(ra.Value, 0) }

// pairedWindow is the median length of an end-to-end op's paired windows
// and, in brackets, the median of the calls each worker made in them;
// "–" for output without them (before issue 21).
func (r Results) pairedWindow(op string) string {
	paired := "BenchmarkEndToEnd/" + op + "/paired"
	w, calls := r.Median(paired, "window-s"), r.Median(paired, "calls/worker")
	if math.IsNaN(w) || math.IsNaN(calls) {
		return "–"
	}
	return fmt.Sprintf("%.1f s (%s)", w, num(calls))
}

// String renders the ratio with two decimals, and its range when paired.
func (ra Ratio) String() string {
	if !ra.valid() {
		return "–"
	}
	s := fmt.Sprintf("%.2f×", ra.Value)
	if lo, hi := fmt.Sprintf("%.2f", ra.Lo), fmt.Sprintf("%.2f", ra.Hi); ra.Paired && lo != hi {
		s += fmt.Sprintf(" <sub>(%.2f–%.2f)</sub>", ra.Lo, ra.Hi)
	}
	return s
}

// round2 is the ratio as shown (two decimals); targets are judged on it.
func round2(x float64) float64 { return math.Round(x*100) / 100 }

// AtMost marks a ratio against a ceiling.
func (ra Ratio) AtMost(limit float64) string {
	if !ra.valid() {
		return "–"
	}
	return ra.String() + " " + mark(round2(ra.Value) <= limit)
}

// AtLeast marks a ratio against a floor.
func (ra Ratio) AtLeast(limit float64) string {
	if !ra.valid() {
		return "–"
	}
	return ra.String() + " " + mark(round2(ra.Value) >= limit)
}

func mark(ok bool) string {
	if ok {
		return "✅"
	}
	return "❌"
}

// Machine describes where the benchmarks ran.
type Machine struct {
	CPU, Cores, Memory, Go, Kernel string
}

func readMachine() Machine {
	m := Machine{
		CPU:    "unknown",
		Cores:  fmt.Sprintf("%d (GOMAXPROCS %d)", runtime.NumCPU(), runtime.GOMAXPROCS(0)),
		Memory: "unknown",
		Go:     runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH,
		Kernel: runtime.GOOS,
	}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
				if kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64); err == nil {
					m.Memory = fmt.Sprintf("%.1f GiB", kb/1024/1024)
				}
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = "Linux " + strings.TrimSpace(string(b))
	}
	return m
}

// Report is everything the Markdown is made from.
type Report struct {
	Date                        time.Time
	Machine                     Machine
	Commit                      string
	LoadStart, LoadEnd          string
	Overhead, HTTP, E2E, FanOut Results
	BenchtimeOverhead, E2ETime  string
	Workers                     int
	// SharedCores is how many cores the end-to-end benchmarks shared with
	// DynamoDB Local.
	SharedCores int
}

// Write renders the report as Markdown.
func (rp *Report) Write(w io.Writer) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	p("# Benchmarks\n\n")
	p("Written by `make bench` (`scripts/bench.sh`, `bench/cmd/benchreport`) on %s", rp.Date.UTC().Format("2006-01-02 15:04 MST"))
	if rp.Commit != "" {
		p(", at commit `%s`", rp.Commit)
	}
	p(". Every ratio is library ÷ the other code, measured side by side in this one run: the median of the per-round ratios, their range in small print. Below 1.00× the library is cheaper.\n\n")

	p("| machine | |\n| --- | --- |\n")
	p("| CPU | %s |\n| cores | %s |\n| memory | %s |\n| Go | %s |\n| kernel | %s |\n", rp.Machine.CPU, rp.Machine.Cores, rp.Machine.Memory, rp.Machine.Go, rp.Machine.Kernel)
	if rp.LoadStart != "" || rp.LoadEnd != "" {
		p("| load average (1, 5, 15 min) | %s at the start, %s after the in-process runs |\n", orDash(rp.LoadStart), orDash(rp.LoadEnd))
	}
	p("\n")
	if busy := max(load1(rp.LoadStart), load1(rp.LoadEnd)); busy > float64(runtime.NumCPU()) {
		p("> The machine was busy while this ran (load average up to %.1f on %d cores during the in-process runs: other builds and tests). That inflates every absolute figure and widens the ranges; the ratios hold better, since the variants ran interleaved, but read differences of a few percent as noise.\n\n", busy, runtime.NumCPU())
	}

	rp.writeTargets(p)
	rp.writeOverhead(p)
	rp.writeHTTP(p)
	rp.writeE2E(p)
	rp.writeFanOut(p)
	rp.writeMethod(p)
}

// load1 is the 1-minute figure of a load average ("0.52 0.58 0.59"); 0
// when unknown.
func load1(s string) float64 {
	f := strings.Fields(s)
	if len(f) == 0 {
		return 0
	}
	x, _ := strconv.ParseFloat(f[0], 64)
	return x
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

func (rp *Report) writeTargets(p func(string, ...any)) {
	p("## Targets (issues #5, #9, #10 and #21)\n\n")
	p("| target | result |\n| --- | --- |\n")
	cpuFail, allocFail, bytesFail, tpFail, guFail := []string{}, []string{}, []string{}, []string{}, []string{}
	var cpuN, allocN, bytesN, tpN, guN int
	for _, op := range overheadOps {
		lib, sdk := "BenchmarkOverhead/"+op+"/library", "BenchmarkOverhead/"+op+"/sdk"
		if c := rp.Overhead.Ratio(lib, "BenchmarkOverhead/"+op+"/guregu", "cpu-ns/op"); c.valid() {
			guN++
			if round2(c.Value) > targetGuregu {
				guFail = append(guFail, fmt.Sprintf("%s %.2f×", op, c.Value))
			}
		}
		if c := rp.Overhead.Ratio(lib, sdk, "cpu-ns/op"); c.valid() {
			cpuN++
			if round2(c.Value) > targetCPU {
				cpuFail = append(cpuFail, fmt.Sprintf("%s %.2f×", op, c.Value))
			}
		}
		if a := rp.Overhead.Ratio(lib, sdk, "allocs/op"); a.valid() {
			allocN++
			if round2(a.Value) > targetAllocs {
				allocFail = append(allocFail, fmt.Sprintf("%s %.2f×", op, a.Value))
			}
		}
		if by := rp.Overhead.Ratio(lib, sdk, "B/op"); by.valid() {
			bytesN++
			if round2(by.Value) > targetBytes {
				bytesFail = append(bytesFail, fmt.Sprintf("%s %.2f×", op, by.Value))
			}
		}
	}
	for _, op := range e2eOps {
		if t := rp.E2E.throughput(op); t.valid() {
			tpN++
			if round2(t.Value) < targetThroughput {
				tpFail = append(tpFail, fmt.Sprintf("%s %.2f×", op, t.Value))
			}
		}
	}
	line := func(what string, n int, fails []string) {
		switch {
		case n == 0:
			p("| %s | not measured |\n", what)
		case len(fails) == 0:
			p("| %s | ✅ all %d ops |\n", what, n)
		default:
			p("| %s | ❌ %d of %d ops over: %s |\n", what, len(fails), n, strings.Join(fails, ", "))
		}
	}
	line(fmt.Sprintf("CPU time per op ≤ %.2f× hand-written SDK (in process)", targetCPU), cpuN, cpuFail)
	line(fmt.Sprintf("allocations per op ≤ %.2f× hand-written SDK (in process)", targetAllocs), allocN, allocFail)
	line(fmt.Sprintf("bytes allocated per op ≤ %.2f× hand-written SDK (in process)", targetBytes), bytesN, bytesFail)
	line(fmt.Sprintf("CPU time per op ≤ %.2f× guregu/dynamo (in process, the ops it can express)", targetGuregu), guN, guFail)
	line(fmt.Sprintf("end-to-end throughput ≥ %.2f× raw SDK (DynamoDB Local)", targetThroughput), tpN, tpFail)
	var fanFail []string
	fanN := 0
	for _, v := range fanOuts {
		if t := rp.FanOut.Ratio("BenchmarkFanOut/"+v.name, "BenchmarkFanOut/single", "ns/op"); t.valid() {
			fanN++
			if round2(t.Value) > targetFanOut {
				fail := fmt.Sprintf("%s %.2f×", v.name, t.Value)
				if floor := rp.fanFloor("BenchmarkFanOut/" + v.name); !math.IsNaN(floor) {
					fail += fmt.Sprintf(" (this machine's floor %.2f×, hand-written %s)", floor/rp.FanOut.Median("BenchmarkFanOut/single", "ns/op"),
						rp.FanOut.Ratio("BenchmarkFanOut/sdk-"+v.name, "BenchmarkFanOut/sdk-single", "ns/op"))
				}
				fanFail = append(fanFail, fail)
			}
		}
	}
	line(fmt.Sprintf("fan-out wall time ≤ %.2f× one query of the same items (DynamoDB Local)", targetFanOut), fanN, fanFail)
	p("\n")
}

func (rp *Report) writeOverhead(p func(string, ...any)) {
	r := rp.Overhead
	if len(r) == 0 {
		return
	}
	p("## In process: `BenchmarkOverhead`\n\n")
	p("No network: a client answers each call with a canned, realistic response (GetItem a full item, Query 25 items, UpdateItem the new item, BatchWriteItem no unprocessed items, BatchGetItem the 100 items); to a TransactWriteItems request without an idempotency token it adds one as the SDK's middleware does (the library sets its own), so that every variant pays for one token. `cpu-ns/op` is the process's CPU time per op, every thread and the garbage collector included; it is what the CPU target is judged on (for BatchWrite100 the library spreads its four requests over goroutines, so its wall time, `ns/op`, is lower than its CPU time).\n\n")
	p("| op | CPU library ÷ sdk | allocs library ÷ sdk | B/op library ÷ sdk | CPU library ÷ guregu | allocs library ÷ guregu |\n")
	p("| --- | --- | --- | --- | --- | --- |\n")
	for _, op := range overheadOps {
		lib, sdk, gu := "BenchmarkOverhead/"+op+"/library", "BenchmarkOverhead/"+op+"/sdk", "BenchmarkOverhead/"+op+"/guregu"
		if r[lib] == nil {
			continue
		}
		p("| %s | %s | %s | %s | %s | %s |\n", op,
			r.Ratio(lib, sdk, "cpu-ns/op").AtMost(targetCPU),
			r.Ratio(lib, sdk, "allocs/op").AtMost(targetAllocs),
			r.Ratio(lib, sdk, "B/op").AtMost(targetBytes),
			r.Ratio(lib, gu, "cpu-ns/op"),
			r.Ratio(lib, gu, "allocs/op"))
	}
	p("\n")
	for _, op := range overheadOps {
		rp.writeOpTable(p, r, "BenchmarkOverhead/"+op, op, true)
	}
}

// writeOpTable writes one op's medians per variant and the ratio rows.
func (rp *Report) writeOpTable(p func(string, ...any), r Results, prefix, title string, judge bool) {
	lib := prefix + "/library"
	if r[lib] == nil {
		return
	}
	units := []string{"ns/op", "cpu-ns/op", "B/op", "allocs/op"}
	p("### %s\n\n| | ns/op | cpu-ns/op | B/op | allocs/op | runs |\n| --- | ---: | ---: | ---: | ---: | ---: |\n", title)
	for _, v := range variants {
		name := prefix + "/" + v
		if r[name] == nil {
			continue
		}
		p("| %s", v)
		for _, u := range units {
			p(" | %s", num(r.Median(name, u)))
		}
		p(" | %d |\n", r.Runs(name))
	}
	for _, other := range variants[1:] {
		o := prefix + "/" + other
		if r[o] == nil {
			continue
		}
		p("| **library ÷ %s** | %s", other, r.Ratio(lib, o, "ns/op"))
		cpu, allocs := r.Ratio(lib, o, "cpu-ns/op"), r.Ratio(lib, o, "allocs/op")
		if judge && other == "sdk" {
			p(" | %s | %s | %s | |\n", cpu.AtMost(targetCPU), r.Ratio(lib, o, "B/op").AtMost(targetBytes), allocs.AtMost(targetAllocs))
		} else {
			p(" | %s | %s | %s | |\n", cpu, r.Ratio(lib, o, "B/op"), allocs)
		}
	}
	p("\n")
}

func (rp *Report) writeHTTP(p func(string, ...any)) {
	r := rp.HTTP
	if len(r) == 0 {
		return
	}
	p("## Through the SDK's HTTP stack: `BenchmarkOverheadHTTP`\n\n")
	p("The same variants through a real `*dynamodb.Client` whose HTTP transport answers with the canned responses as JSON: serialization, signing, the retry and checksum middleware and deserialization included, no network. For information (no target): it shows how much the library's cost weighs against what every request costs anyway.\n\n")
	p("| op | library cpu-ns/op | sdk cpu-ns/op | guregu cpu-ns/op | CPU library ÷ sdk | allocs library ÷ sdk | CPU library ÷ guregu |\n")
	p("| --- | ---: | ---: | ---: | --- | --- | --- |\n")
	for _, op := range overheadOps {
		pre := "BenchmarkOverheadHTTP/" + op
		lib, sdk, gu := pre+"/library", pre+"/sdk", pre+"/guregu"
		if r[lib] == nil {
			continue
		}
		p("| %s | %s | %s | %s | %s | %s | %s |\n", op,
			num(r.Median(lib, "cpu-ns/op")), num(r.Median(sdk, "cpu-ns/op")), num(r.Median(gu, "cpu-ns/op")),
			r.Ratio(lib, sdk, "cpu-ns/op"), r.Ratio(lib, sdk, "allocs/op"), r.Ratio(lib, gu, "cpu-ns/op"))
	}
	p("\n")
}

func (rp *Report) writeE2E(p func(string, ...any)) {
	r := rp.E2E
	if len(r) == 0 {
		return
	}
	p("## End to end: `BenchmarkEndToEnd` against DynamoDB Local\n\n")
	workers := "the same number of"
	if rp.Workers > 0 {
		workers = strconv.Itoa(rp.Workers)
	}
	p("The library and hand-written SDK code through one `*dynamodb.Client`, on one fresh table with the same seeded items, %s concurrent workers each. DynamoDB Local (a JVM) runs on the same machine and competes with the client for its cores, and its throughput drifts by tens of percent from one second to the next. So throughput is measured with both variants running at the same time (`<Op>/paired`: both see the same drift, on the same items: every item a put writes is seeded first) and compared round by round: the calls in a window that opens once every worker has finished its first call and lasts a set time or, for a slow op, until the workers have finished a minimum number of calls each on average (see the settings below: both variants' calls counted together, so that where the window closes favours neither; with a window of 1 s the slow ops made 3 to 6 calls per worker, and the SDK code against itself spread from 0.83× to 1.18× from round to round), each call counted for the part of it inside the window; the client's CPU time per op (`cpu-ns/op`, the benchmark process only) and allocations come from runs of one variant at a time (`<Op>/library`, `<Op>/sdk`).\n\n", workers)
	p("| op | library ops/s | sdk ops/s | throughput library ÷ sdk | paired window (calls per worker) | library client cpu-ns/op | sdk client cpu-ns/op | client CPU library ÷ sdk | allocs library ÷ sdk |\n")
	p("| --- | ---: | ---: | --- | ---: | ---: | ---: | --- | --- |\n")
	for _, op := range e2eOps {
		lib, sdk := "BenchmarkEndToEnd/"+op+"/library", "BenchmarkEndToEnd/"+op+"/sdk"
		paired := "BenchmarkEndToEnd/" + op + "/paired"
		if r[lib] == nil && r[paired] == nil {
			continue
		}
		p("| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", op,
			num(r.Median(paired, "library-ops/s")), num(r.Median(paired, "sdk-ops/s")),
			r.throughput(op).AtLeast(targetThroughput), r.pairedWindow(op),
			num(r.Median(lib, "cpu-ns/op")), num(r.Median(sdk, "cpu-ns/op")),
			r.Ratio(lib, sdk, "cpu-ns/op"), r.Ratio(lib, sdk, "allocs/op"))
	}
	p("\n")
}

func (rp *Report) writeFanOut(p func(string, ...any)) {
	r := rp.FanOut
	if len(r) == 0 {
		return
	}
	p("## Fan-out: `BenchmarkFanOut` against DynamoDB Local\n\n")
	p("One read of %.0f items through `All`, one read at a time: from one partition (`single`), merged from 10 shards, or from 24 hour buckets in time order. The fan-out sends one Query per shard or bucket, in parallel; each extra request costs the SDK's per-request allocations, so allocations per item grow with the number of requests, not with the merge (which decodes items in place, as the single query does).\n\n", fanItems)
	reads := append([]struct{ name, what string }{{"single", "single"}}, fanOuts...)
	single := "BenchmarkFanOut/single"
	p("| read | ms per read | wall time ÷ single | allocs per item | allocs ÷ single |\n| --- | ---: | --- | ---: | --- |\n")
	for i, v := range reads {
		name := "BenchmarkFanOut/" + v.name
		if r[name] == nil {
			continue
		}
		if i == 0 {
			p("| single | %s | | %s | |\n", num(r.Median(name, "ns/op")/1e6), num(r.Median(name, "allocs/op")/fanItems))
			continue
		}
		p("| %s | %s | %s | %s | %s |\n", v.what, num(r.Median(name, "ns/op")/1e6),
			r.Ratio(name, single, "ns/op").AtMost(targetFanOut), num(r.Median(name, "allocs/op")/fanItems), r.Ratio(name, single, "allocs/op"))
	}
	p("\n")
	if r[single]["server-cpu-ns/op"] == nil {
		return
	}
	p("Where the time goes. The client (the benchmark's process, GC and the SDK's HTTP stack included) and DynamoDB Local (its JVM) share this machine's %d cores, so no read can take less wall time than the CPU time the two spend on it divided by the cores: the *floor*. Every extra Query costs CPU on both sides, whoever sends it; the hand-written reads (`sdk-*`: a goroutine and a paginated Query per partition, decoded with attributevalue and merged by sort key, sending the library's requests) show what the same fan-out costs without the library.\n\n", rp.SharedCores)
	p("| read | client CPU ms | server CPU ms | floor ms | floor ÷ single | hand-written ms | hand-written ÷ its single | library ÷ hand-written | allocs ÷ hand-written |\n| --- | ---: | ---: | ---: | ---: | ---: | --- | --- | --- |\n")
	for _, v := range reads {
		name, sdk := "BenchmarkFanOut/"+v.name, "BenchmarkFanOut/sdk-"+v.name
		if r[name] == nil {
			continue
		}
		floor := rp.fanFloor(name)
		p("| %s | %s | %s | %s | %.2f× | %s | %s | %s | %s |\n", v.what,
			num(r.Median(name, "cpu-ns/op")/1e6), num(r.Median(name, "server-cpu-ns/op")/1e6), num(floor/1e6),
			floor/r.Median(single, "ns/op"), num(r.Median(sdk, "ns/op")/1e6),
			r.Ratio(sdk, "BenchmarkFanOut/sdk-single", "ns/op"), r.Ratio(name, sdk, "ns/op"), r.Ratio(name, sdk, "allocs/op"))
	}
	p("\n")
}

// fanFloor is the least wall time a read (a BenchmarkFanOut benchmark) can
// take on this machine: the client's and the server's CPU time per read
// over the cores they share. NaN when the server's was not measured.
func (rp *Report) fanFloor(name string) float64 {
	r := rp.FanOut
	return (r.Median(name, "cpu-ns/op") + r.Median(name, "server-cpu-ns/op")) / float64(rp.SharedCores)
}

func (rp *Report) writeMethod(p func(string, ...any)) {
	p("## How it was measured\n\n")
	p("- Code: `bench/` (a separate Go module, so that guregu/dynamo stays out of the library's go.mod). `TestSameRequests` checks that the three variants of each op send the same request (table, keys, items, expressions up to placeholder names, return-value options, batch chunking) and decode the same values; `TestEndToEndVariants` does the same against DynamoDB Local, and `TestEndToEndVariants/SameWire` counts on the wire that the library and the SDK code send as many requests, of the same operations and equivalent bodies, without a retry, and get the same response bytes (`TestFanOutVariants/SameWire` for the fan-out reads). Known differences: the library sets `ClientRequestToken` on transactions itself (the others leave it to the SDK's middleware), and guregu cannot ask for `ReturnValuesOnConditionCheckFailure` inside a transaction.\n")
	p("- Ops: **Put** an order (9 fields) with its table key, type attribute and two GSI keys; **Get** it by key and decode it; **Query25** a user's orders, 25 items decoded; **Update** set an order's status and date, which feed both GSI keys (given together, so no read first; the four index keys rewritten, the new item returned and decoded); **TxWrite3** put an order, put a line item, and decrement a product's inventory if there is enough (3 actions); **BatchWrite100** put 100 orders (4 BatchWriteItem requests); **BatchGet100** read 100 orders by key (one BatchGetItem request; the library returns them in the keys' order, the others as DynamoDB sends them); **PutWide**, **GetWide**, **QueryWide25** (end to end **QueryWide**) the same as Put, Get and Query25 for a wide entity, a customer of 21 fields (a nested struct, a nil pointer to one, two maps, two slices, pointers, times, omitempty fields set and left out) with a table key and a GSI key; **TxWide5** a transaction of five actions on customers: three puts, an update that sets two fields, a decrement conditioned on the balance; **FanOutWide** one page of a pattern over 10 shards of 25 customers each (the customer and its shard number), merged by sort key into one page of 250 (the hand-written code queries the shards in parallel and sorts); **StreamWide100** one GetRecords response of 100 MODIFY records of customers (old and new images) decoded into typed changes (the library's `stream.FromStreams` and `stream.Decode`, which also gives the key and the changed fields; the hand-written code converts each image with `attributevalue.FromDynamoDBStreamsMap` and unmarshals it). guregu has no fan-out nor stream decoding: those two compare with the SDK code only.\n")
	p("- Variants: `library` is singletable; `sdk` is idiomatic hand-written aws-sdk-go-v2 code (attributevalue, key strings and expressions built by hand); `guregu` is github.com/guregu/dynamo/v2 with its single-table idiom (a struct holding the key attributes, the domain struct embedded).\n")
	if rp.BenchtimeOverhead != "" || rp.E2ETime != "" {
		p("- Settings: %s.\n", strings.Join(nonEmpty(rp.BenchtimeOverhead, rp.E2ETime), "; "))
	}
	p("- The variants of an op run interleaved, in an order that changes each round (a Williams design: over a cycle of rounds each variant runs in every position and right after every other variant equally often, so neither a load spike nor what the run before left behind — heap, garbage collection, memory returned to the OS — lands on one variant only); each absolute figure is the median of the rounds, each ratio the median of the per-round ratios (a round's variants ran next to each other, under the same load).\n")
	p("- Reproduce: `make bench`; profiles of the library's variants: `scripts/bench.sh profile`. The raw `go test -bench` output of this run is in `bench/results/`.\n")
}

func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// num formats a median for a table: whole numbers (and anything from 100
// up, rounded) with thousands separators, smaller fractions with one
// decimal.
func num(x float64) string {
	switch {
	case math.IsNaN(x):
		return "–"
	case x >= 100 || x == math.Trunc(x):
		return group(strconv.FormatFloat(math.Round(x), 'f', 0, 64))
	default:
		return strconv.FormatFloat(x, 'f', 1, 64)
	}
}

func group(digits string) string {
	var b strings.Builder
	for i, c := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func readResults(path string) (Results, error) {
	r := Results{}
	if path == "" {
		return r, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := Parse(f, r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

func main() {
	var (
		overhead  = flag.String("overhead", "", "output of BenchmarkOverhead")
		httpFile  = flag.String("http", "", "output of BenchmarkOverheadHTTP")
		e2e       = flag.String("e2e", "", "output of BenchmarkEndToEnd")
		fanout    = flag.String("fanout", "", "output of BenchmarkFanOut")
		out       = flag.String("out", "BENCHMARKS.md", "the Markdown file to write ('-' for stdout)")
		commit    = flag.String("commit", "", "the commit measured")
		loadStart = flag.String("load-start", "", "load average when the benchmarks started")
		loadEnd   = flag.String("load-end", "", "load average after the in-process runs (default: now)")
		settings  = flag.String("settings", "", "how the in-process benchmarks ran (for the report)")
		e2eSet    = flag.String("e2e-settings", "", "how the end-to-end benchmarks ran (for the report)")
		workers   = flag.Int("workers", 0, "concurrent workers of the end-to-end benchmarks")
	)
	flag.Parse()
	rp := &Report{Date: time.Now(), Machine: readMachine(), SharedCores: runtime.NumCPU(), Commit: *commit, LoadStart: *loadStart,
		BenchtimeOverhead: *settings, E2ETime: *e2eSet, Workers: *workers}
	rp.LoadEnd = *loadEnd
	if b, err := os.ReadFile("/proc/loadavg"); err == nil && rp.LoadEnd == "" {
		if f := strings.Fields(string(b)); len(f) >= 3 {
			rp.LoadEnd = strings.Join(f[:3], " ")
		}
	}
	var err error
	for _, x := range []struct {
		path string
		dst  *Results
	}{{*overhead, &rp.Overhead}, {*httpFile, &rp.HTTP}, {*e2e, &rp.E2E}, {*fanout, &rp.FanOut}} {
		if *x.dst, err = readResults(x.path); err != nil {
			fmt.Fprintln(os.Stderr, "benchreport:", err)
			os.Exit(1)
		}
	}
	if len(rp.Overhead)+len(rp.HTTP)+len(rp.E2E)+len(rp.FanOut) == 0 {
		fmt.Fprintln(os.Stderr, "benchreport: no benchmark results in the given files")
		os.Exit(1)
	}
	if *out == "-" {
		rp.Write(os.Stdout)
		return
	}
	f, err := os.Create(*out)
	if err == nil {
		rp.Write(f)
		err = f.Close()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchreport:", err)
		os.Exit(1)
	}
}
