#!/usr/bin/env bash
# Checks, without DynamoDB Local, how the tests are split (`make test` runs it
# before the full run):
#
#   1. the unit configuration, plain `go test ./...` (root module and bench/),
#      builds: `go vet ./...` type-checks every package and its untagged tests;
#   2. with `-tags integration`, every test that the tag adds fails: none passes
#      (it would be a unit test behind the tag) and none skips (an integration
#      test must fail, never skip, where DynamoDB Local is missing, so that
#      `make test` and CI cannot pass without it); there are at least
#      $MIN_INTEGRATION of them;
#   3. in that same run every other test, a unit test, passes without DynamoDB
#      Local, and there are at least $MIN_UNIT of them.
#
# The tests the tag adds are read from the sources: the Test, Example and Fuzz
# functions of the test files that only `-tags integration` builds (`go list`
# tells which; gofmt, checked before, puts each at the start of a line). So
# the unit tests run once, inside the tagged test binaries, instead of in
# binaries of their own: compiling and linking every test package a second
# time, untagged, cost more than a third of a cold `make test`. That is the
# same run as plain `go test ./...` unless a tag-only file changes how the
# package starts (an init function or a TestMain): for such a package the
# script runs the plain `go test` too, and its tests must pass there.
#
# A test that needs DynamoDB Local but lacks the tag fails step 3. Test
# results count per package and top-level test (subtests are not counted);
# Example functions with an output comment count as tests. Uses only Go, sed,
# sort, comm and awk.
#
# With SPLIT_RESULTS=DIR it writes DIR/integration, one "PACKAGE TEST" line
# per test the tag adds (each failed here), for scripts/test-integration.sh:
# `make test` then runs only those against DynamoDB Local, since every unit
# test ran and passed here. The RELIABILITY figures of the unit tests
# (t.Logf lines, which -json carries) are printed here; see docs/writes.md.
#
# `go test -vet=off`: `make test` runs the full `go vet -tags integration`
# (a superset of go test's vet checks, on the same files) just before, so
# vetting again inside go test would type-check every test package twice.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

# Go is preinstalled at /usr/local/go on our machines, not always on PATH.
if ! command -v go >/dev/null 2>&1 && [[ -x /usr/local/go/bin/go ]]; then
	export PATH=/usr/local/go/bin:$PATH
fi
GO=${GO:-go}

# Floors, a little under the counts when they were set (166 and 39; 333 and
# 89 in issue 20), so that a run that silently lost most of its tests (a tag
# on the wrong file, a package that no longer builds) fails.
MIN_UNIT=${MIN_UNIT:-150}
MIN_INTEGRATION=${MIN_INTEGRATION:-35}

TMP=$(mktemp -d "${TMPDIR:-/tmp}/singletable-split.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

log() { printf 'test-split: %s\n' "$*" >&2; }
# unquote: test2json's JSON string escapes back into text.
unquote() { sed -E 's/\\n$//; s/\\t/\t/g; s/\\"/"/g; s/\\u003c/</g; s/\\u003e/>/g; s/\\u0026/\&/g'; }
fail() {
	log "FAIL: $*"
	exit 1
}

# gotest OUT ARGS...: `go test -json ARGS PKGS` without DynamoDB Local, in the
# root module and in bench/; PKGS are $ROOT_PKGS and $BENCH_PKGS (default
# ./...). The JSON goes to OUT. Its status is go test's (non-zero if any
# package failed). Results may come from the test cache: a cached result is a
# result of the same code.
gotest() {
	local out=$1 status=0
	shift
	: >"$out"
	if [[ ${ROOT_PKGS-./...} ]]; then
		# shellcheck disable=SC2086 # a list of packages
		env -u AWS_ENDPOINT_URL_DYNAMODB "$GO" test -json -vet=off "$@" ${ROOT_PKGS-./...} >>"$out" || status=$?
	fi
	if [[ ${BENCH_PKGS-./...} ]]; then
		# shellcheck disable=SC2086
		(cd bench && env -u AWS_ENDPOINT_URL_DYNAMODB "$GO" test -json -vet=off "$@" ${BENCH_PKGS-./...}) >>"$out" || status=$?
	fi
	if grep -q '"Action":"build-fail"' "$out"; then
		log "build failed (go test${*:+ $*}):"
		sed -nE 's/.*"Action":"build-output","Output":"(.*)"\}$/\1/p' "$out" |
			sed -E 's/\\n$//; s/\\t/\t/g; s/\\"/"/g' >&2
		exit 1
	fi
	return "$status"
}

# results JSON: one line "RESULT PACKAGE TEST" per top-level test, sorted by
# package and test. test2json writes its fields in a fixed order (Time,
# Action, Package, Test), and subtests are the names with a slash.
results() {
	sed -nE 's/.*"Action":"(pass|fail|skip)","Package":"([^"]*)","Test":"([^"/]*)".*/\1 \2 \3/p' "$1" |
		sort -k2,3
}

# testfiles [FLAGS]: "PACKAGE FILE" for every test file of the root module and
# bench/ that `go test FLAGS` builds, sorted.
testfiles() {
	local format='{{$p := .ImportPath}}{{$d := .Dir}}{{range .TestGoFiles}}{{$p}} {{$d}}/{{.}}
{{end}}{{range .XTestGoFiles}}{{$p}} {{$d}}/{{.}}
{{end}}'
	{
		"$GO" list "$@" -f "$format" ./...
		(cd bench && "$GO" list "$@" -f "$format" ./...)
	} | sort
}

start=$SECONDS
log "unit configuration: go vet ./... (and bench/) type-checks the untagged tests"
"$GO" vet ./... || fail "go vet ./... (no tag) failed: plain go test ./... does not build"
(cd bench && "$GO" vet ./...) || fail "go vet ./... (no tag) failed in bench/"

# testfuncs: reads "PACKAGE FILE" lines and prints "PACKAGE TEST" for every
# test that go test runs in FILE: its Test and Fuzz functions, and its
# Example functions that have an output comment (go test only compiles the
# others).
testfuncs() {
	while read -r pkg file; do
		awk -v pkg="$pkg" '
			# A test function: Test, Fuzz or Example alone or followed by
			# anything but a lower-case letter (go test'"'"'s rule).
			function name(prefix,   n) {
				n = substr($2, 1, index($2, "(") - 1)
				if (index(n, prefix) != 1 || substr(n, length(prefix) + 1, 1) ~ /[a-z]/) return ""
				return n
			}
			/^func (Test|Fuzz)/ { n = name(substr($2, 1, 4)); if (n != "" && n != "TestMain") print pkg " " n; ex = ""; next }
			/^func Example/ { ex = name("Example"); next }
			/^}/ { ex = "" }
			ex != "" && tolower($0) ~ /^[ \t]*\/\/ (unordered )?output:/ { print pkg " " ex; ex = "" }
		' "$file"
	done | sort -u
}

# The tests the tag adds: the test functions of the files only the tag builds.
testfiles >"$TMP/files.unit"
testfiles -tags integration >"$TMP/files.all"
# A test file that the tag leaves out (//go:build !integration) would run in
# plain go test but never in make test.
comm -23 "$TMP/files.unit" "$TMP/files.all" >"$TMP/files.dropped"
if [[ -s $TMP/files.dropped ]]; then
	sed 's/^/  /' "$TMP/files.dropped" >&2
	fail "these test files are not built with -tags integration, so make test never runs their tests"
fi
comm -13 "$TMP/files.unit" "$TMP/files.all" >"$TMP/files.added"
testfuncs <"$TMP/files.added" >"$TMP/added.src"
# Every test the tagged run must report on, unit and integration.
testfuncs <"$TMP/files.all" >"$TMP/all.src"
# Packages whose tag-only files change how the test binary starts: their
# unit tests also run in a plain go test of their own.
startup_pkgs=$(while read -r pkg file; do
	if grep -qE '^func (init|TestMain)\(' "$file"; then echo "$pkg"; fi
done <"$TMP/files.added" | sort -u)

log "integration run: go test -tags integration ./... (and bench/), no DynamoDB Local: every added test must fail, every other pass"
if gotest "$TMP/all.json" -tags integration; then
	fail "go test -tags integration passed without DynamoDB Local"
fi
results "$TMP/all.json" >"$TMP/all"
awk -v added="$TMP/added" -v badadded="$TMP/bad.added" -v unit="$TMP/unit" -v badunit="$TMP/bad.unit" '
	NR == FNR { tagged[$1 " " $2] = 1; next }
	($2 " " $3) in tagged { print > added; if ($1 != "fail") print > badadded; next }
	{ print > unit; if ($1 != "pass") print > badunit }
' "$TMP/added.src" "$TMP/all"
# A test the sources have but the run did not report ran not at all: a test
# before it crashed its test binary (a panic, os.Exit, log.Fatal) or a
# tag-only TestMain exited early. Counting only the reported tests would let
# a failing unit test, or an integration test, vanish from make test.
# (Only in the packages go test ran: ROOT_PKGS and BENCH_PKGS may narrow it.)
sed -nE 's/.*"Action":"(pass|fail|skip)","Package":"([^"]*)","Elapsed".*/\2/p' "$TMP/all.json" | sort -u >"$TMP/pkgs.ran"
awk 'NR == FNR { ran[$1] = 1; next } $1 in ran' "$TMP/pkgs.ran" "$TMP/all.src" |
	comm -23 - <(cut -d' ' -f2,3 "$TMP/all" | sort -u) >"$TMP/missing"
if [[ -s $TMP/missing ]]; then
	sed 's/^/  /' "$TMP/missing" >&2
	for pkg in $(cut -d' ' -f1 "$TMP/missing" | sort -u); do
		log "the end of $pkg's output:"
		grep -F "\"Package\":\"$pkg\"" "$TMP/all.json" |
			sed -nE 's/.*"Action":"output",.*"Output":"(.*)"\}$/\1/p' | unquote | tail -n 20 >&2
	done
	fail "these tests did not run without DynamoDB Local (a test before them crashed the test binary, or a TestMain exited): they would not run in make test"
fi
if [[ -s $TMP/bad.added ]]; then
	sed 's/^/  /' "$TMP/bad.added" >&2
	fail "these integration tests did not fail without DynamoDB Local (a skip hides a missing DynamoDB Local; a pass means a unit test behind the tag)"
fi
if [[ -s $TMP/bad.unit ]]; then
	while read -r _ pkg test; do
		echo "--- output of $pkg $test" >&2
		grep -F -e "\"Package\":\"$pkg\",\"Test\":\"$test\"" -e "\"Package\":\"$pkg\",\"Test\":\"$test/" "$TMP/all.json" |
			sed -nE 's/.*"Action":"output",.*"Output":"(.*)"\}$/\1/p' | unquote >&2
	done <"$TMP/bad.unit"
	sed 's/^/  /' "$TMP/bad.unit" >&2
	fail "these tests do not pass without DynamoDB Local; if they need it, put them behind the tag (//go:build integration, in a *_integration_test.go file)"
fi
# A skipped subtest under a passing unit test would count as passed.
if grep -E '"Action":"skip"' "$TMP/all.json" | sed -nE 's/.*"Package":"([^"]*)","Test":"([^"]*)".*/  \1 \2/p' | grep . >"$TMP/skipped"; then
	cat "$TMP/skipped" >&2
	fail "these subtests skipped: a skipped case must not count as passed"
fi
touch "$TMP/added" "$TMP/unit"
units=$(wc -l <"$TMP/unit")
integrations=$(wc -l <"$TMP/added")
((units >= MIN_UNIT)) || fail "the unit run ran $units tests, fewer than MIN_UNIT=$MIN_UNIT"
((integrations >= MIN_INTEGRATION)) ||
	fail "the tag adds $integrations tests, fewer than MIN_INTEGRATION=$MIN_INTEGRATION"

if [[ -n $startup_pkgs ]]; then
	log "plain go test of the packages whose tag-only files have an init or TestMain:" $startup_pkgs
	bench_mod=$(cd bench && "$GO" list -m)
	root=$(echo "$startup_pkgs" | grep -vE "^$bench_mod(/|\$)" || true)
	bench=$(echo "$startup_pkgs" | grep -E "^$bench_mod(/|\$)" || true)
	status=0
	ROOT_PKGS=$root BENCH_PKGS=$bench gotest "$TMP/unit.json" || status=$?
	if results "$TMP/unit.json" | grep -v '^pass ' >"$TMP/bad"; then
		sed 's/^/  /' "$TMP/bad" >&2
		fail "these tests do not pass in plain go test (no tag, no DynamoDB Local)"
	fi
	((status == 0)) || fail "plain go test failed for:" $startup_pkgs
fi
# The unit tests' RELIABILITY figures (the integration tests' fail here;
# scripts/test-integration.sh prints theirs).
sed -nE 's/.*"Action":"output","Package":"([^"]*)","Test":"([^"/]*)[^"]*","Output":" *(.*RELIABILITY.*)"\}$/\1 \2\t\3/p' "$TMP/all.json" |
	awk 'NR == FNR { unit[$2 " " $3] = 1; next }
		{ i = index($0, "\t"); if (substr($0, 1, i - 1) in unit) print substr($0, i + 1) }' "$TMP/unit" - |
	sed -E 's/\\n$//; s/\\t/\t/g; s/\\"/"/g'
if [[ -n ${SPLIT_RESULTS:-} ]]; then
	cut -d' ' -f2,3 "$TMP/added" >"$SPLIT_RESULTS/integration"
fi
log "ok: $units unit tests pass without DynamoDB Local; the tag adds $integrations integration tests, each failing without it ($((SECONDS - start))s)"
