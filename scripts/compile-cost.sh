#!/usr/bin/env bash
# What an entity type costs a user's build (`make compile-cost`): builds, in
# a scratch module outside the repository that uses it (offline, from the
# module cache), a model package of one entity type and one of N (default
# 9; first argument), each type defined with MustDefine, with a Pattern and
# calls of the common operations, and prints the compiler's figures: the
# functions compiled per extra entity type (exact for a toolchain) and the
# seconds (informational: they vary with the machine and its load). It
# fails when the functions are over the budget that
# TestCompileCostPerEntityType holds (internal/compilecost, where the
# scratch package and the measure are; `make test` runs that test with 5).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
if ! command -v go >/dev/null 2>&1 && [[ -x /usr/local/go/bin/go ]]; then
	export PATH=/usr/local/go/bin:$PATH
fi
n=${1:-9}
if ! [[ $n =~ ^[0-9]+$ ]] || ((n < 2)); then
	echo "usage: $0 [N]: N entity types, at least 2" >&2
	exit 2
fi
go version
SINGLETABLE_COMPILE_COST_TYPES=$n go test -count=1 -v -run '^TestCompileCostPerEntityType$' ./internal/compilecost |
	sed -n 's/^ *compilecost_test.go:[0-9]*: //p; /^\(ok\|FAIL\|---\)/p'
