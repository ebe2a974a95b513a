#!/usr/bin/env bash
# Checks, without DynamoDB Local, how the tests are split (`make test` runs it
# before the full run):
#
#   1. the unit run, plain `go test ./...` (root module and bench/), passes and
#      runs at least $MIN_UNIT tests;
#   2. with `-tags integration`, every test that the tag adds fails: none passes
#      (it would be a unit test behind the tag) and none skips (an integration
#      test must fail, never skip, where DynamoDB Local is missing, so that
#      `make test` and CI cannot pass without it); there are at least
#      $MIN_INTEGRATION of them, and the unit tests still pass.
#
# A test that needs DynamoDB Local but lacks the tag fails step 1. Test results
# count per package and top-level test (subtests are not counted); Example
# functions count as tests. Uses only Go, sed, sort and awk.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

# Go is preinstalled at /usr/local/go on our machines, not always on PATH.
if ! command -v go >/dev/null 2>&1 && [[ -x /usr/local/go/bin/go ]]; then
	export PATH=/usr/local/go/bin:$PATH
fi
GO=${GO:-go}

# Floors, a little under today's counts (166 and 39), so that a run that
# silently lost most of its tests (a tag on the wrong file, a package that no
# longer builds) fails.
MIN_UNIT=${MIN_UNIT:-150}
MIN_INTEGRATION=${MIN_INTEGRATION:-35}

TMP=$(mktemp -d "${TMPDIR:-/tmp}/singletable-split.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

log() { printf 'test-split: %s\n' "$*" >&2; }
fail() {
	log "FAIL: $*"
	exit 1
}

# gotest OUT ARGS...: `go test -json ARGS ./...` in the root module and in
# bench/, without DynamoDB Local; the JSON goes to OUT. Its status is
# go test's (non-zero if any package failed). Results may come from the test
# cache: a cached result is a result of the same code.
gotest() {
	local out=$1 status=0
	shift
	env -u AWS_ENDPOINT_URL_DYNAMODB "$GO" test -json "$@" ./... >"$out" || status=$?
	(cd bench && env -u AWS_ENDPOINT_URL_DYNAMODB "$GO" test -json "$@" ./...) >>"$out" || status=$?
	if grep -q '"Action":"build-fail"' "$out"; then
		log "build failed (go test${*:+ $*} ./...):"
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

start=$SECONDS
log "unit run: go test ./... (and bench/), no DynamoDB Local"
unit_status=0
gotest "$TMP/unit.json" || unit_status=$?
results "$TMP/unit.json" >"$TMP/unit"
if grep -v '^pass ' "$TMP/unit" >"$TMP/bad"; then
	sed 's/^/  /' "$TMP/bad" >&2
	fail "these tests do not pass without DynamoDB Local; if they need it, put them behind the tag (//go:build integration, in a *_integration_test.go file)"
fi
((unit_status == 0)) || fail "go test ./... failed without DynamoDB Local (run make test-unit to see why)"
units=$(wc -l <"$TMP/unit")
((units >= MIN_UNIT)) || fail "the unit run ran $units tests, fewer than MIN_UNIT=$MIN_UNIT"
unit_secs=$((SECONDS - start))

log "integration run: go test -tags integration ./... (and bench/), no DynamoDB Local: every added test must fail"
if gotest "$TMP/all.json" -tags integration; then
	fail "go test -tags integration passed without DynamoDB Local"
fi
results "$TMP/all.json" >"$TMP/all"
# The tests the tag adds are those the unit run did not have; each must fail,
# and the others must still run and pass.
awk -v added="$TMP/added" -v badadded="$TMP/bad.added" -v badunit="$TMP/bad.unit" '
	NR == FNR { unit[$2 " " $3] = 1; next }
	!(($2 " " $3) in unit) { print > added; if ($1 != "fail") print > badadded; next }
	{ seen[$2 " " $3] = 1 }
	$1 != "pass" { print > badunit }
	END { for (t in unit) if (!(t in seen)) print "missing " t > badunit }
' "$TMP/unit" "$TMP/all"
if [[ -s $TMP/bad.added ]]; then
	sed 's/^/  /' "$TMP/bad.added" >&2
	fail "these integration tests did not fail without DynamoDB Local (a skip hides a missing DynamoDB Local; a pass means a unit test behind the tag)"
fi
if [[ -s $TMP/bad.unit ]]; then
	sed 's/^/  /' "$TMP/bad.unit" >&2
	fail "these unit tests do not pass (or do not run) under -tags integration"
fi
touch "$TMP/added"
integrations=$(wc -l <"$TMP/added")
((integrations >= MIN_INTEGRATION)) ||
	fail "the tag adds $integrations tests, fewer than MIN_INTEGRATION=$MIN_INTEGRATION"
log "ok: $units unit tests pass without DynamoDB Local (${unit_secs}s); the tag adds $integrations integration tests, each failing without it ($((SECONDS - start))s in all)"
