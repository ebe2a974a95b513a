#!/usr/bin/env bash
# singletable's benchmarks (the bench/ module): the library against
# hand-written aws-sdk-go-v2 code and guregu/dynamo, in process and end to
# end against DynamoDB Local.
#
#   scripts/bench.sh           run them all; write BENCHMARKS.md and bench/results/*.txt
#   scripts/bench.sh profile   CPU and memory profiles of the library's variants,
#                              with `go tool pprof -top` summaries, in bench/profiles/
#
# `make bench` runs the first. Settings (environment):
#   BENCH_ROUNDS=24      in-process rounds (every variant of an op once per round, interleaved,
#                        in a balanced order: a multiple of 6 for three variants); 24 short
#                        rounds rather than 12 long ones: on 2 shared cores the per-round ratio
#                        of an op near 1.00× spreads by ±0.1, and the median of more pairs,
#                        each run closer in time, moves less between runs
#   BENCH_TIME=0.25s     -benchtime of each in-process run
#   BENCH_HTTP_ROUNDS=3  rounds through the SDK's HTTP stack (BenchmarkOverheadHTTP; 0 skips it)
#   BENCH_E2E_ROUNDS=8   end-to-end rounds against DynamoDB Local (0 skips them)
#   BENCH_E2E_TIME=0.5s  -benchtime of each end-to-end run of one variant (client CPU per op)
#   BENCH_E2E_WINDOW=1s  the shortest window of the paired runs (both variants side by side:
#                        the throughput ratio)
#   BENCH_E2E_MIN_CALLS=20  calls per worker, on average, that a paired window lasts for at the
#                        least (at most 10 s): a slow op (StreamWide100, FanOutWide: 3 to 6 calls
#                        per worker a second) gets a longer window, so that its per-round ratio
#                        does not rest on a handful of calls per worker
#   BENCH_FANOUT_TIME=1s -benchtime of each BenchmarkFanOut run (against DynamoDB Local)
#   BENCH_PROFILE_TIME=3s  -benchtime of each profiled run
# About 14 minutes on 2 cores with the defaults.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD

# Go is preinstalled at /usr/local/go on our machines, not always on PATH.
if ! command -v go >/dev/null 2>&1 && [[ -x /usr/local/go/bin/go ]]; then
	export PATH=/usr/local/go/bin:$PATH
fi
GO=${GO:-go}

ROUNDS=${BENCH_ROUNDS:-24}
TIME=${BENCH_TIME:-0.25s}
HTTP_ROUNDS=${BENCH_HTTP_ROUNDS:-3}
E2E_ROUNDS=${BENCH_E2E_ROUNDS:-8}
E2E_TIME=${BENCH_E2E_TIME:-0.5s}
E2E_WINDOW=${BENCH_E2E_WINDOW:-1s}
E2E_MIN_CALLS=${BENCH_E2E_MIN_CALLS:-20}
FANOUT_TIME=${BENCH_FANOUT_TIME:-1s}
PROFILE_TIME=${BENCH_PROFILE_TIME:-3s}
OPS=(Put Get Query25 Update TxWrite3 BatchWrite100 BatchGet100 PutWide GetWide QueryWide25 TxWide5 FanOutWide StreamWide100)

log() { printf 'bench: %s\n' "$*" >&2; }

TMP=$(mktemp -d "${TMPDIR:-/tmp}/singletable-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

# Compile the benchmarks once; every step runs the same binary. The
# end-to-end ones (e2e_test.go) are behind the integration tag.
build() {
	log "compiling the bench/ module's benchmarks"
	(cd bench && "$GO" test -tags integration -c -o "$TMP/bench.test" .)
}

# run NAME ROUNDS BENCHTIME REGEXP [ENV...]: run the benchmarks matching
# REGEXP, teeing their output to bench/results/NAME.txt.
run_bench() {
	local name=$1 rounds=$2 benchtime=$3 regexp=$4
	log "$name: $rounds round(s) of -benchtime $benchtime"
	(cd bench && SINGLETABLE_BENCH_ROUNDS=$rounds "$TMP/bench.test" -test.run '^$' -test.bench "$regexp" \
		-test.benchtime "$benchtime" -test.benchmem -test.timeout 30m) | tee "bench/results/$name.txt"
}

cmd_run() {
	local started=$SECONDS load_start load_end commit
	load_start=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || true)
	commit=$(git rev-parse --short HEAD 2>/dev/null || true)
	if [[ -n $commit ]] && ! git diff --quiet HEAD -- . 2>/dev/null; then
		commit+=" + uncommitted changes"
	fi
	build
	mkdir -p bench/results
	rm -f bench/results/*.txt

	run_bench overhead "$ROUNDS" "$TIME" '^BenchmarkOverhead$'
	local args=(-overhead results/overhead.txt)
	if ((HTTP_ROUNDS > 0)); then
		run_bench http "$HTTP_ROUNDS" "$TIME" '^BenchmarkOverheadHTTP$'
		args+=(-http results/http.txt)
	fi
	# The load after the in-process runs, not after the end-to-end ones: those
	# load the machine themselves (DynamoDB Local and 16 workers).
	load_end=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || true)
	if ((E2E_ROUNDS > 0)); then
		log "e2e: $E2E_ROUNDS round(s) of -benchtime $E2E_TIME (paired: $E2E_WINDOW and $E2E_MIN_CALLS calls per worker at least) against DynamoDB Local"
		# BENCH_CHILD=1: the inner call runs the end-to-end step only.
		scripts/dynamodb-local.sh run -- env BENCH_CHILD=1 bash "$ROOT/scripts/bench.sh" e2e-inner \
			"$TMP/bench.test" "$E2E_ROUNDS" "$E2E_TIME" "$E2E_WINDOW" "$E2E_MIN_CALLS" "$FANOUT_TIME"
		args+=(-e2e results/e2e.txt -workers 8 -fanout results/fanout.txt)
	fi

	log "writing BENCHMARKS.md"
	(cd bench && "$GO" run ./cmd/benchreport "${args[@]}" -out ../BENCHMARKS.md \
		-commit "$commit" -load-start "$load_start" -load-end "$load_end" \
		-settings "in process: $ROUNDS rounds of -benchtime $TIME per variant; through the HTTP stack: $HTTP_ROUNDS rounds" \
		-e2e-settings "end to end: $E2E_ROUNDS rounds of -benchtime $E2E_TIME per variant, and of both variants side by side for $E2E_WINDOW or until the workers have finished $E2E_MIN_CALLS calls each on average (at most 10 s), 8 workers each; fan-out: $E2E_ROUNDS rounds of -benchtime $FANOUT_TIME")
	log "done in $((SECONDS - started))s: BENCHMARKS.md, raw output in bench/results/"
}

# e2e-inner BINARY ROUNDS BENCHTIME WINDOW MIN_CALLS FANOUT_BENCHTIME: the
# end-to-end step, run inside `scripts/dynamodb-local.sh run` (which sets
# AWS_ENDPOINT_URL_DYNAMODB).
cmd_e2e_inner() {
	[[ ${BENCH_CHILD:-} == 1 ]] || {
		log "e2e-inner is internal to scripts/bench.sh"
		exit 2
	}
	local bin=$1 rounds=$2 benchtime=$3 window=$4 min_calls=$5 fanout_time=$6
	(cd bench && SINGLETABLE_BENCH_ROUNDS=$rounds SINGLETABLE_E2E_WINDOW=$window SINGLETABLE_E2E_MIN_CALLS=$min_calls "$bin" -test.run '^$' \
		-test.bench '^BenchmarkEndToEnd$' -test.benchtime "$benchtime" -test.benchmem -test.timeout 30m) | tee bench/results/e2e.txt
	(cd bench && SINGLETABLE_BENCH_ROUNDS=$rounds "$bin" -test.run '^$' -test.bench '^BenchmarkFanOut$' \
		-test.benchtime "$fanout_time" -test.benchmem -test.timeout 30m) | tee bench/results/fanout.txt
}

cmd_profile() {
	build
	local dir=bench/profiles op re
	mkdir -p "$dir"
	for op in "${OPS[@]}"; do
		re="^BenchmarkOverhead\$/^$op\$/^library\$"
		log "profiling $op/library (-benchtime $PROFILE_TIME)"
		(cd bench && "$TMP/bench.test" -test.run '^$' -test.bench "$re" -test.benchtime "$PROFILE_TIME" \
			-test.cpuprofile "$TMP/$op.cpu.prof") >/dev/null
		# A second run for memory, sampling every allocation (exact counts,
		# but too slow to share a run with the CPU profile).
		(cd bench && "$TMP/bench.test" -test.run '^$' -test.bench "$re" -test.benchtime 1s \
			-test.memprofile "$TMP/$op.mem.prof" -test.memprofilerate 1) >/dev/null
		cp "$TMP/$op.cpu.prof" "$TMP/$op.mem.prof" "$dir/"
		{
			echo "# $op/library: CPU, flat"
			"$GO" tool pprof -top -nodecount 30 "$TMP/bench.test" "$TMP/$op.cpu.prof" 2>/dev/null
			echo
			echo "# $op/library: CPU, cumulative"
			"$GO" tool pprof -top -cum -nodecount 40 "$TMP/bench.test" "$TMP/$op.cpu.prof" 2>/dev/null
		} >"$dir/$op.cpu.txt"
		{
			echo "# $op/library: allocations (objects)"
			"$GO" tool pprof -top -sample_index alloc_objects -nodecount 30 "$TMP/bench.test" "$TMP/$op.mem.prof" 2>/dev/null
			echo
			echo "# $op/library: allocations (objects), cumulative"
			"$GO" tool pprof -top -cum -sample_index alloc_objects -nodecount 40 "$TMP/bench.test" "$TMP/$op.mem.prof" 2>/dev/null
			echo
			echo "# $op/library: allocations (bytes)"
			"$GO" tool pprof -top -sample_index alloc_space -nodecount 30 "$TMP/bench.test" "$TMP/$op.mem.prof" 2>/dev/null
		} >"$dir/$op.mem.txt"
	done
	cp "$TMP/bench.test" "$dir/bench.test"
	log "profiles in $dir/: <Op>.cpu.txt, <Op>.mem.txt (pprof -top); <Op>.{cpu,mem}.prof with bench.test for go tool pprof"
}

case ${1:-run} in
run) cmd_run ;;
profile) cmd_profile ;;
e2e-inner)
	shift
	cmd_e2e_inner "$@"
	;;
-h | --help | help) sed -n '2,28p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' ;;
*)
	log "unknown command $1 (run, profile)"
	exit 2
	;;
esac
