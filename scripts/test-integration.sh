#!/usr/bin/env bash
# Runs, against the DynamoDB Local the environment points at, the tests that
# scripts/test-split.sh found behind the integration tag, and only those: the
# split check already ran every unit test (in the same tagged test binaries,
# without DynamoDB Local) and they passed, so `make test` runs them once.
#
# Usage: SPLIT_RESULTS=DIR scripts/test-integration.sh, where DIR is the
# directory test-split.sh wrote its results to (SPLIT_RESULTS=DIR there too):
# DIR/integration holds one "PACKAGE TEST" line per integration test, each of
# which failed without DynamoDB Local in the split check.
#
# One `go test -json -tags integration -run '^(A|B|...)$'` per module (root and
# bench/) over the packages that have integration tests. Every listed test
# must PASS here: a test that did not run, skipped, or ran under a name the
# list misses fails the step, so a test that did not run never counts as
# passed; so does a skipped subtest under a passing test. A unit test of the
# same name in another listed package runs again, harmlessly. The output shows each package's result line, the whole output
# of every failed test, and the RELIABILITY figures (t.Logf lines; -json
# carries them without -v, see docs/writes.md).
#
# `go test -vet=off`: `make test` runs the full `go vet -tags integration`
# before, on the same files. Uses only Go, sed, sort, comm and awk.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

if ! command -v go >/dev/null 2>&1 && [[ -x /usr/local/go/bin/go ]]; then
	export PATH=/usr/local/go/bin:$PATH
fi
GO=${GO:-go}

log() { printf 'test-integration: %s\n' "$*" >&2; }
fail() {
	log "FAIL: $*"
	exit 1
}

list=${SPLIT_RESULTS:?set SPLIT_RESULTS to the directory test-split.sh wrote (SPLIT_RESULTS=DIR bash scripts/test-split.sh)}/integration
[[ -s $list ]] || fail "$list is missing or empty: run scripts/test-split.sh with SPLIT_RESULTS first"
[[ -n ${AWS_ENDPOINT_URL_DYNAMODB:-} ]] || fail "AWS_ENDPOINT_URL_DYNAMODB is not set: run inside make test, or eval \"\$(make -s ddb-start)\" first"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/singletable-integration.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
sort -u "$list" >"$TMP/want"

# gotest DIR LIST: in DIR, the tests LIST names ("PACKAGE TEST" lines), as
# JSON appended to $TMP/all.json; its status is go test's.
gotest() {
	local dir=$1 pkgs names
	[[ -s $2 ]] || return 0
	pkgs=$(cut -d' ' -f1 "$2" | sort -u)
	names=$(cut -d' ' -f2 "$2" | sort -u | paste -sd '|')
	# shellcheck disable=SC2086 # a list of packages
	(cd "$dir" && "$GO" test -json -count=1 -tags integration -vet=off -run "^($names)\$" $pkgs) >>"$TMP/all.json"
}

log "go test -tags integration -run <the $(wc -l <"$TMP/want") integration tests of the split check> (root module and bench/), against $AWS_ENDPOINT_URL_DYNAMODB"
# bench/ is a module of its own, whose path extends the root's.
bench_mod=$(cd bench && "$GO" list -m)
grep -E "^$bench_mod(/| )" "$TMP/want" >"$TMP/want.bench" || true
grep -vE "^$bench_mod(/| )" "$TMP/want" >"$TMP/want.root" || true
: >"$TMP/all.json"
status=0
gotest . "$TMP/want.root" || status=$?
gotest bench "$TMP/want.bench" || status=$?

# What a person reads: package result lines (output without a Test field),
# the output of failed tests, and the RELIABILITY figures.
unquote() { sed -E 's/\\n$//; s/\\t/\t/g; s/\\"/"/g; s/\\u003c/</g; s/\\u003e/>/g; s/\\u0026/\&/g'; }
sed -nE 's/.*"Action":"fail","Package":"([^"]*)","Test":"([^"]*)".*/\1 \2/p' "$TMP/all.json" | sort -u >"$TMP/failed"
while read -r pkg test; do
	echo "--- output of $pkg $test"
	grep -F "\"Package\":\"$pkg\",\"Test\":\"$test\"" "$TMP/all.json" |
		sed -nE 's/.*"Action":"output",.*"Output":"(.*)"\}$/\1/p' | unquote
done <"$TMP/failed"
sed -nE 's/.*"Action":"output","Package":"[^"]*","Output":"(.*)"\}$/\1/p' "$TMP/all.json" | unquote
sed -nE 's/.*"Output":"(.*RELIABILITY.*)"\}$/\1/p' "$TMP/all.json" | unquote | sed -E 's/^ +//'

if grep -q '"Action":"build-fail"' "$TMP/all.json"; then
	fail "a test package did not build"
fi
sed -nE 's/.*"Action":"pass","Package":"([^"]*)","Test":"([^"/]*)".*/\1 \2/p' "$TMP/all.json" | sort -u >"$TMP/passed"
comm -23 "$TMP/want" "$TMP/passed" >"$TMP/missing"
if [[ -s $TMP/missing ]]; then
	sed 's/^/  /' "$TMP/missing" >&2
	fail "these integration tests did not pass against DynamoDB Local (failed, skipped or did not run)"
fi
# A skipped subtest under a passing test would count as passed.
if grep -E '"Action":"skip"' "$TMP/all.json" | sed -nE 's/.*"Package":"([^"]*)","Test":"([^"]*)".*/  \1 \2/p' | grep . >"$TMP/skipped"; then
	cat "$TMP/skipped" >&2
	fail "these subtests skipped against DynamoDB Local: a skipped case must not count as passed"
fi
((status == 0)) || fail "go test failed (status $status)"
log "ok: $(wc -l <"$TMP/want") integration tests passed against DynamoDB Local"
