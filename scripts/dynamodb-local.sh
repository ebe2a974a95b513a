#!/usr/bin/env bash
# DynamoDB Local for singletable's tests and examples: a thin wrapper of the
# Go harness, cmd/singletable-local (`go run ./cmd/singletable-local -h`), kept
# so that existing invocations work. The subcommands are the command's:
#
#   scripts/dynamodb-local.sh install          install (if needed, Java too); print the jar's directory
#   scripts/dynamodb-local.sh start            start (or reuse) the kept instance; print `export` lines
#   scripts/dynamodb-local.sh env              print `export` lines of the kept instance
#   scripts/dynamodb-local.sh stop             stop the kept instance
#   scripts/dynamodb-local.sh status           say whether the kept instance runs
#   scripts/dynamodb-local.sh run [--early] -- CMD ...
#                                              run CMD against a fresh private instance
#   scripts/dynamodb-local.sh wait             (inside run --early) wait; print `export` lines
#
# See docs/dynamodb-local.md.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# Go is preinstalled at /usr/local/go on our machines, not always on PATH.
if ! command -v go >/dev/null 2>&1 && [[ -x /usr/local/go/bin/go ]]; then
	export PATH=/usr/local/go/bin:$PATH
fi

case ${1:-} in
# `run` always started a fresh instance here, and CMD ran in the caller's
# directory; `install` installed Java too.
run) shift && set -- run -fresh -C "$PWD" "$@" ;;
install) shift && set -- -install-java install "$@" ;;
"" | help | -h | --help)
	sed -n '2,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
	exit 0
	;;
esac
exec go -C "$ROOT" run ./cmd/singletable-local "$@"
