package main

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"
)

const sample = `goos: linux
goarch: amd64
pkg: github.com/singletable/singletable/bench
cpu: Intel(R) Xeon(R) Processor
BenchmarkOverhead/Put/library-2         	     200	      9000 ns/op	      9200 cpu-ns/op	    3944 B/op	      45 allocs/op
BenchmarkOverhead/Put/sdk-2             	     200	      4000 ns/op	      4000 cpu-ns/op	    3005 B/op	      36 allocs/op
BenchmarkOverhead/Put/guregu-2          	     200	      2000 ns/op	      2000 cpu-ns/op	    2205 B/op	      30 allocs/op
BenchmarkOverhead/Put/sdk#01-2          	     200	      5000 ns/op	      5000 cpu-ns/op	    3005 B/op	      36 allocs/op
BenchmarkOverhead/Put/guregu#01-2       	     200	      2000 ns/op	      2000 cpu-ns/op	    2205 B/op	      30 allocs/op
BenchmarkOverhead/Put/library#01-2      	     200	      5000 ns/op	      4000 cpu-ns/op	    3944 B/op	      45 allocs/op
BenchmarkOverhead/Get/library-2         	     200	      2000 ns/op	      2000 cpu-ns/op	     768 B/op	      12 allocs/op
BenchmarkOverhead/Get/sdk-2             	     200	      2000 ns/op	      2000 cpu-ns/op	     768 B/op	      12 allocs/op
BenchmarkEndToEnd/Query/library-2         	SDK 2026/11/21 22:12:51 WARN failed to discard remaining HTTP response body
    1398	   2055231 ns/op	    625163 cpu-ns/op	       486.6 ops/s	  117520 B/op	    1483 allocs/op
BenchmarkEndToEnd/Query/sdk-2             	    2326	   1064466 ns/op	    456194 cpu-ns/op	       500 ops/s	  106630 B/op	    1392 allocs/op
    e2e_test.go:10: a log line
BenchmarkEndToEnd/Query/paired-2          	       1	1000123456 ns/op	       486.6 library-ops/s	       500 sdk-ops/s	         0.5000 window-s	        30.8 calls/worker
BenchmarkEndToEnd/Query/paired#01-2       	       1	1000123456 ns/op	       510 library-ops/s	       500 sdk-ops/s	         0.6000 window-s	        38.0 calls/worker
PASS
ok  	github.com/singletable/singletable/bench	18.972s
`

func TestParse(t *testing.T) {
	r := Results{}
	if err := Parse(strings.NewReader(sample), r); err != nil {
		t.Fatal(err)
	}
	if got := r["BenchmarkOverhead/Put/library"]["ns/op"]; len(got) != 2 || got[0] != 9000 || got[1] != 5000 {
		t.Errorf("repeats do not pool: %v", got)
	}
	if got := r.Median("BenchmarkOverhead/Put/library", "ns/op"); got != 7000 {
		t.Errorf("median = %v, want 7000", got)
	}
	if got := r.Median("BenchmarkEndToEnd/Query/library", "ops/s"); got != 486.6 {
		t.Errorf("a result split by a log line: ops/s = %v, want 486.6", got)
	}
	if got := r.Runs("BenchmarkOverhead/Put/sdk"); got != 2 {
		t.Errorf("runs = %d", got)
	}

	ra := r.Ratio("BenchmarkOverhead/Put/library", "BenchmarkOverhead/Put/sdk", "cpu-ns/op")
	// pairwise 9200/4000 = 2.3, 4000/5000 = 0.8: median 1.55
	if math.Abs(ra.Value-1.55) > 1e-9 || !ra.Paired || ra.Lo != 0.8 || ra.Hi != 2.3 {
		t.Errorf("ratio = %+v", ra)
	}
	if got := r.Ratio("BenchmarkOverhead/Get/library", "BenchmarkOverhead/Get/sdk", "allocs/op").AtMost(1); got != "1.00× ✅" {
		t.Errorf("equal allocations: %q", got)
	}
	if got := r.Ratio("BenchmarkOverhead/Put/library", "BenchmarkOverhead/Put/sdk", "allocs/op").AtMost(1); !strings.HasSuffix(got, "❌") {
		t.Errorf("more allocations: %q", got)
	}
	// Throughput pairs the two variants' metrics of one paired run:
	// 486.6/500 = 0.97, 510/500 = 1.02.
	if got := r.throughput("Query").AtLeast(0.97); got != "1.00× <sub>(0.97–1.02)</sub> ✅" {
		t.Errorf("throughput: %q", got)
	}
	if got := r.throughput("Put").String(); got != "–" {
		t.Errorf("throughput without paired runs: %q", got)
	}
	if got := r.Ratio("BenchmarkOverhead/Nope/library", "BenchmarkOverhead/Put/sdk", "ns/op").String(); got != "–" {
		t.Errorf("missing benchmark: %q", got)
	}
}

func TestWrite(t *testing.T) {
	r := Results{}
	if err := Parse(strings.NewReader(sample), r); err != nil {
		t.Fatal(err)
	}
	rp := &Report{Date: time.Date(2026, 11, 21, 22, 0, 0, 0, time.UTC), Machine: Machine{CPU: "Test CPU", Cores: "2"},
		Overhead: r, E2E: r, Commit: "abc1234", Workers: 8}
	var b bytes.Buffer
	rp.Write(&b)
	md := b.String()
	for _, want := range []string{
		"2026-11-21 22:00 UTC", "`abc1234`", "Test CPU",
		"❌ 1 of 2 ops over: Put 1.55×", // CPU: Get passes at 1.00
		"| Put | 1.55× <sub>(0.80–2.30)</sub> ❌ |",
		"### Put", "| library | 7,000 | 6,600 | 3,944 | 45 | 2 |",
		"| **library ÷ sdk** | 1.62× <sub>(1.00–2.25)</sub> | 1.55× <sub>(0.80–2.30)</sub> ❌ | 1.31× ❌ | 1.25× ❌ | |",
		"bytes allocated per op ≤ 1.10× hand-written SDK (in process) | ❌ 1 of 2 ops over: Put 1.31×",
		"| Query | 498 | 500 | 1.00× <sub>(0.97–1.02)</sub> ✅ | 0.6 s (34.4) | 625,163 | 456,194 | 1.37× | 1.07× |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
}

const fanSample = `BenchmarkFanOut/single-2         	     100	   8000000 ns/op	   4000000 cpu-ns/op	   5000000 server-cpu-ns/op	  948947 B/op	   13920 allocs/op
BenchmarkFanOut/shards10-2       	     100	   9600000 ns/op	   5000000 cpu-ns/op	   6000000 server-cpu-ns/op	  983754 B/op	   14400 allocs/op
BenchmarkFanOut/buckets24-2      	     100	  13600000 ns/op	  10000000 cpu-ns/op	  13000000 server-cpu-ns/op	 1464948 B/op	   20160 allocs/op
BenchmarkFanOut/sdk-single-2     	     100	   8200000 ns/op	   4500000 cpu-ns/op	   5000000 server-cpu-ns/op	 1076997 B/op	   14842 allocs/op
BenchmarkFanOut/sdk-shards10-2   	     100	   9840000 ns/op	   5500000 cpu-ns/op	   6000000 server-cpu-ns/op	 1100000 B/op	   15000 allocs/op
BenchmarkFanOut/sdk-buckets24-2  	     100	  13940000 ns/op	  10700000 cpu-ns/op	  13300000 server-cpu-ns/op	 1545103 B/op	   20963 allocs/op
`

func TestWriteFanOut(t *testing.T) {
	r := Results{}
	if err := Parse(strings.NewReader(fanSample), r); err != nil {
		t.Fatal(err)
	}
	rp := &Report{FanOut: r, SharedCores: 2}
	if got, want := rp.fanFloor("BenchmarkFanOut/buckets24"), 11.5e6; got != want {
		t.Errorf("floor = %v, want %v ((10 + 13 ms) / 2 cores)", got, want)
	}
	var b bytes.Buffer
	rp.Write(&b)
	md := b.String()
	for _, want := range []string{
		"fan-out wall time ≤ 1.50× one query of the same items (DynamoDB Local) | ❌ 1 of 2 ops over: buckets24 1.70× (this machine's floor 1.44×, hand-written 1.70×)",
		"| 10 shards | 9.6 | 1.20× ✅ | 30 | 1.03× |",
		"| 24 hour buckets | 13.6 | 1.70× ❌ | 42 | 1.45× |",
		"share this machine's 2 cores",
		"| single | 4 | 5 | 4.5 | 0.56× | 8.2 | 1.00× | 0.98× | 0.94× |",
		"| 24 hour buckets | 10 | 13 | 11.5 | 1.44× | 13.9 | 1.70× | 0.98× | 0.96× |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
}
