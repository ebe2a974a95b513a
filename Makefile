# singletable — build, test and example targets. Run `make` for the list.
#
# Everything that talks to DynamoDB runs inside `singletable-local run -- ...`
# (cmd/singletable-local, the Go harness users run too), which installs
# DynamoDB Local when needed, starts a private instance on a free loopback
# port, exports AWS_ENDPOINT_URL_DYNAMODB and friends, and stops it
# afterwards. It needs Java 17+; it installs one (apt-get) only when asked:
# SINGLETABLE_INSTALL_JAVA=1 (CI sets it) or `make ddb-install`. See
# docs/dynamodb-local.md.

SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help
MAKEFLAGS += --no-print-directory

# Go is preinstalled at /usr/local/go on our machines, not always on PATH.
ifeq ($(shell command -v go 2>/dev/null),)
ifneq ($(wildcard /usr/local/go/bin/go),)
export PATH := /usr/local/go/bin:$(PATH)
endif
endif

GO ?= go
# The harness: `go run` caches the built command (Go 1.24+), so each call
# after the first costs a fraction of a second.
DDB := $(GO) run ./cmd/singletable-local
# How much `make fuzz` fuzzes the codec against attributevalue: a count of
# executions, not a duration, because a duration's deadline races the fuzzing
# workers in Go's coordinator and can fail a run that found nothing
# (golang/go#75804, unfixed before Go 1.27). It is not part of `make test`:
# fuzzing rebuilds the standard library and every dependency with coverage
# instrumentation (ten minutes cold on a loaded machine), whatever the count.
# `make test` checks the seed corpus (FuzzDifferential runs as a test); CI
# runs `make fuzz` after `make test` (.ci/run).
FUZZTIME ?= 300000x
# make test's budget in seconds, on a fresh clone with a cold build cache
# (docs/dynamodb-local.md, "How long make test takes"); it prints its wall
# time against it at the end.
TEST_BUDGET := 240
# Extra flags for `go test` in test-unit, test-go, soak and bench-go, e.g.
# `make test-go GOTESTFLAGS='-run TestX -v'`. make test (and its steps)
# refuses them: it runs every test once, and a -run there would make its
# checks (every test ran, the floors) fail or mean nothing.
GOTESTFLAGS ?=
no_gotestflags = $(if $(strip $(GOTESTFLAGS)),$(error make $@ runs every test once and takes no GOTESTFLAGS (given: $(GOTESTFLAGS)); for some tests: make test-unit GOTESTFLAGS=..., or eval "$$(make -s ddb-start)" and make test-go GOTESTFLAGS=...))
BENCHFLAGS ?= -run '^$$' -bench . -benchmem
# Tests that need DynamoDB Local build only with this tag (//go:build
# integration, in *_integration_test.go files), so that plain `go test ./...`
# is the fast unit run. Whatever runs against DynamoDB Local passes it.
TAGS := -tags integration

.PHONY: help
help: ## List the targets.
	@echo 'Usage: make <target>'
	@echo
	@grep -hE '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | \
		awk 'BEGIN { FS = ":.*## " } { printf "  %-12s %s\n", $$1, $$2 }'

.PHONY: check-go
check-go:
	@command -v $(GO) >/dev/null 2>&1 || { \
		echo "make: '$(GO)' not found: install Go (see go.mod for the version) and put it on PATH; looked on PATH and in /usr/local/go/bin" >&2; \
		exit 1; }

# test runs the steps that need no DynamoDB Local (gofmt, vet, the split
# check) while DynamoDB Local starts (`run --early`: its JVM starts while Go
# compiles), then test-integration against it. The steps share one build
# cache, the same flags and the tag, so each package compiles once. Each test
# runs once: the split check runs every unit test (without DynamoDB Local) in
# the tagged test binaries, and test-integration runs only the tests the tag
# adds, which the split check listed (SPLIT_RESULTS), and checks that each of
# them passed. Its budget is TEST_BUDGET on a fresh clone with a cold build
# cache (docs/dynamodb-local.md).
.PHONY: test
test: check-go ## gofmt check, go vet, the split check (unit tests), then the integration tests (and bench/'s) on a fresh DynamoDB Local; prints its wall time.
	$(no_gotestflags)
	@start=$$(date +%s); status=0; \
	TEST_START=$$start $(DDB) run -fresh -early -- $(MAKE) test-steps || status=$$?; \
	secs=$$(($$(date +%s) - start)); \
	if ((status == 0)); then result=passed; else result="FAILED (status $$status)"; fi; \
	echo "make test: $$result in $${secs}s (budget: $(TEST_BUDGET)s on a fresh clone with a cold build cache; load: $$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown))"; \
	echo "make test: the long codec fuzz run is not part of it: make fuzz (CI runs it)"; \
	exit $$status

# test-steps prints each step's wall time at the end (the first, "harness",
# is building cmd/singletable-local before any step can start), so that a
# slow make test shows where its time went.
.PHONY: test-steps
test-steps:
	@results=$$(mktemp -d "$${TMPDIR:-/tmp}/singletable-results.XXXXXX"); trap 'rm -rf "$$results"' EXIT; \
	times=(); if [[ -n $${TEST_START:-} ]]; then times+=("harness $$(($$(date +%s) - TEST_START))s"); fi; \
	step() { local name=$$1 t=$$(date +%s); shift; "$$@"; times+=("$$name $$(($$(date +%s) - t))s"); }; \
	step fmt-check $(MAKE) fmt-check; \
	step vet $(MAKE) vet; \
	step api-budget $(MAKE) api-budget; \
	step test-split env SPLIT_RESULTS="$$results" $(MAKE) test-split; \
	t=$$(date +%s); exports=$$($(DDB) wait); eval "$$exports"; times+=("ddb-wait $$(($$(date +%s) - t))s"); \
	step test-integration env SPLIT_RESULTS="$$results" $(MAKE) test-integration; \
	echo "make test: steps: $${times[*]} (load: $$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown))"

.PHONY: test-unit
test-unit: check-go ## Unit tests only (and bench/'s), no DynamoDB Local: what plain `go test ./...` runs, in seconds.
	env -u AWS_ENDPOINT_URL_DYNAMODB $(GO) test $(GOTESTFLAGS) ./...
	@if [ -f bench/go.mod ]; then \
		echo "cd bench && $(GO) test $(GOTESTFLAGS) ./..."; \
		cd bench && env -u AWS_ENDPOINT_URL_DYNAMODB $(GO) test $(GOTESTFLAGS) ./...; \
	fi

# test-split checks without DynamoDB Local that the unit run passes and that
# every test behind the integration tag fails (never skips) there, so that
# `make test` cannot pass without DynamoDB Local. See scripts/test-split.sh.
.PHONY: test-split
# SINGLETABLE_DDB_ENV_ONLY: the tests' local.Main (singletabletest/local) neither
# reuses a kept DynamoDB Local nor starts one, so "without DynamoDB Local" holds.
test-split: check-go ## Check the unit/integration split without DynamoDB Local (part of make test).
	$(no_gotestflags)
	env -u AWS_ENDPOINT_URL_DYNAMODB SINGLETABLE_DDB_ENV_ONLY=1 bash scripts/test-split.sh

# test-integration runs, against the DynamoDB Local the environment points at,
# the integration tests a split check just listed (SPLIT_RESULTS=DIR, as
# test-steps passes) and fails unless each of them passed; the RELIABILITY
# figures (docs/writes.md) are in its output. See scripts/test-integration.sh.
.PHONY: test-integration
test-integration: check-go
	$(no_gotestflags)
	bash scripts/test-integration.sh

# test-scripts is the self-test of the two scripts above: scratch
# repositories whose tests must make them fail (a crashed test binary hiding
# tests, a skipped subtest, a TestMain that exits, ...) or pass. No DynamoDB
# Local; about half a minute. Run it after changing either script.
.PHONY: test-scripts
test-scripts: check-go ## Self-test of scripts/test-split.sh and scripts/test-integration.sh (scratch repositories, no DynamoDB Local).
	bash scripts/test-scripts.sh

# test-go runs the Go tests, unit and integration, against the DynamoDB Local
# that the environment already points at (`eval "$$(make -s ddb-start)"`);
# the integration tests fail without it. make test runs each test once
# instead (test-split, then test-integration). The reliability tests
# (TestReliability*) run on their own with -v, so that their figures (t.Logf
# lines starting with RELIABILITY) are in the log.
.PHONY: test-go
test-go: check-go ## go test -tags integration ./... (and bench/), unit and integration, against an already running DynamoDB Local (env set).
	$(GO) test -count=1 $(TAGS) -skip '^TestReliability' $(GOTESTFLAGS) ./...
	$(GO) test -count=1 $(TAGS) -v -run '^TestReliability' $(GOTESTFLAGS) .
	@if [ -f bench/go.mod ]; then \
		echo "cd bench && $(GO) test -count=1 $(TAGS) $(GOTESTFLAGS) ./..."; \
		cd bench && $(GO) test -count=1 $(TAGS) $(GOTESTFLAGS) ./...; \
	fi

# soak runs the randomized and concurrent tests at full size (more seeds,
# steps and writers; internal/soak): make test runs them short to stay
# within its budget. CI runs it after make test.
.PHONY: soak
soak: check-go ## The randomized and concurrent tests at full size against DynamoDB Local; CI runs it, make test runs them short.
	$(DDB) run -- env SINGLETABLE_SOAK=1 $(GO) test -count=1 $(TAGS) -run 'Oracle|^TestReliabilityVersionedCounter$$|ConcurrentClaims$$|ConcurrentJoins$$' $(GOTESTFLAGS) . ./graph

# fuzz runs the codec's differential fuzz test for FUZZTIME executions; it
# needs no DynamoDB Local.
.PHONY: fuzz
fuzz: check-go ## Fuzz the codec against attributevalue for FUZZTIME executions (default 300000x); CI runs it, make test does not.
	$(GO) test -run '^$$' -fuzz '^FuzzDifferential$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 100x ./internal/codec

.PHONY: fmt
fmt: check-go ## gofmt -w every Go file.
	@$(call go_files) | xargs -0 -r gofmt -w

.PHONY: fmt-check
fmt-check: check-go ## Fail, listing them, if Go files are not gofmt-formatted.
	@unformatted=$$($(call go_files) | xargs -0 -r gofmt -l); \
	if [ -n "$$unformatted" ]; then \
		echo 'These files are not gofmt-formatted (run `make fmt`):' >&2; \
		echo "$$unformatted" >&2; \
		exit 1; \
	fi

# go_files prints every Go file of the repository, NUL-separated, except
# testdata/ and vendor/ (which gofmt and the go tool leave alone too).
go_files = find . \( -name .git -o -name testdata -o -name vendor -o -name node_modules -o -name '_*' \) -prune \
	-o -type f -name '*.go' -print0

.PHONY: vet
# The core's surface is a standing budget (ARCHITECTURE.md): a capability
# goes into the root package only if every user needs it.
API_BUDGET ?= 165
.PHONY: api-budget
api-budget: check-go ## Fail if `go doc -short .` (the core's exported surface) passes API_BUDGET lines.
	@n=$$($(GO) doc -short . | wc -l); \
	if ((n > $(API_BUDGET))); then echo "api-budget: go doc -short . is $$n lines, over the budget of $(API_BUDGET): move what not every user needs out of the core (ARCHITECTURE.md)" >&2; exit 1; fi; \
	echo "api-budget: go doc -short . is $$n lines (budget $(API_BUDGET))"

# compile-cost: what an entity type costs a user's build, a standing budget
# that TestCompileCostPerEntityType (internal/compilecost) holds in make test.
.PHONY: compile-cost
compile-cost: check-go ## Print what an entity type costs a user's build (functions compiled, seconds); N=40 for more types.
	bash scripts/compile-cost.sh $(or $(N),9)

vet: check-go ## go vet ./... (and bench/), integration tests included.
	$(GO) vet $(TAGS) ./...
	@if [ -f bench/go.mod ]; then \
		echo "cd bench && $(GO) vet $(TAGS) ./..."; \
		cd bench && $(GO) vet $(TAGS) ./...; \
	fi

.PHONY: example
example: check-go ## Run examples/ecommerce against a fresh DynamoDB Local.
	$(DDB) run -fresh -- $(GO) run ./examples/ecommerce

# Directories under examples/ that hold a main package.
EXAMPLE_DIRS = $(sort $(patsubst %/,%,$(dir $(shell grep -lsx 'package main' examples/*/*.go))))

.PHONY: examples
examples: check-go ## Run every examples/*/ program in turn against one DynamoDB Local.
	@if [ -z '$(EXAMPLE_DIRS)' ]; then echo 'no example programs under examples/' >&2; exit 1; fi
	$(DDB) run -fresh -- $(MAKE) examples-run

.PHONY: examples-run
examples-run: check-go
	@failed=(); \
	for dir in $(EXAMPLE_DIRS); do \
		echo "=== go run ./$$dir"; \
		if $(GO) run "./$$dir"; then echo "--- ok   $$dir"; else echo "--- FAIL $$dir"; failed+=("$$dir"); fi; \
	done; \
	if [ "$${#failed[@]}" -gt 0 ]; then echo "failed examples: $${failed[*]}" >&2; exit 1; fi; \
	echo 'all examples passed: $(EXAMPLE_DIRS)'

.PHONY: bench
bench: check-go ## Benchmarks (bench/): library vs hand-written SDK vs guregu, in process and against DynamoDB Local; writes BENCHMARKS.md.
	bash scripts/bench.sh

.PHONY: bench-go
bench-go: check-go
	$(GO) test $(TAGS) $(BENCHFLAGS) ./...
	@if [ -f bench/go.mod ]; then \
		echo "cd bench && $(GO) test $(TAGS) $(BENCHFLAGS) ./..."; \
		cd bench && $(GO) test $(TAGS) $(BENCHFLAGS) ./...; \
	fi

.PHONY: ddb-install
ddb-install: check-go ## Install DynamoDB Local into the cache dir, and Java (apt-get) if missing.
	@$(DDB) -install-java install

.PHONY: ddb-start
ddb-start: check-go ## Start (or reuse) a shared DynamoDB Local; use: eval "$(make -s ddb-start)".
	@$(DDB) start

.PHONY: ddb-stop
ddb-stop: check-go ## Stop the DynamoDB Local started by ddb-start.
	@$(DDB) stop

.PHONY: ddb-bench
ddb-bench: check-go ## Measure the harness: install, cold and warm start, a fresh table, one operation.
	@$(DDB) bench
