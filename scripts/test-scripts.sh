#!/usr/bin/env bash
# The self-test of scripts/test-split.sh and scripts/test-integration.sh
# (`make test-scripts`): each case is a scratch repository (a module with a
# bench/ module beside it, as here) holding a copy of the two scripts and a
# few tests, and must end as the case says. "DynamoDB Local" is only an
# environment variable here (the scratch tests read AWS_ENDPOINT_URL_DYNAMODB),
# so no instance is needed; each case takes a second or two.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
if ! command -v go >/dev/null 2>&1 && [[ -x /usr/local/go/bin/go ]]; then
	export PATH=/usr/local/go/bin:$PATH
fi
# SCRIPTS_UNDER_TEST: another copy of the two scripts (an older one, say).
SCRIPTS=${SCRIPTS_UNDER_TEST:-$PWD/scripts}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/singletable-scripts.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
export GOFLAGS=-mod=mod GOWORK=off

# need: the line an integration test starts with; it fails without
# "DynamoDB Local".
need='if os.Getenv("AWS_ENDPOINT_URL_DYNAMODB") == "" { t.Fatal("no DynamoDB Local") }'

# file PATH BODY: a test file of the scratch repository; PATH ending in
# _integration_test.go gets the build tag. The package is the directory's
# name (or "root").
file() {
	local path=$REPO/$1 pkg
	mkdir -p "$(dirname "$path")"
	pkg=$(basename "$(dirname "$path")")
	[[ $pkg == "$(basename "$REPO")" ]] && pkg=root
	{
		if [[ $1 == *_integration_test.go ]]; then printf '//go:build integration\n\n'; fi
		printf 'package %s\n\nimport (\n\t"fmt"\n\t"os"\n\t"testing"\n)\n\nvar _, _, _ = fmt.Sprint, os.Getenv, testing.Short\n\n%s\n' "$pkg" "$2"
	} >"$path"
	gofmt -w "$path"
}

# repo NAME: a fresh scratch repository, with a unit test and an integration
# test in the root and in bench/, so that the floors hold.
repo() {
	REPO=$TMP/$1
	mkdir -p "$REPO/scripts" "$REPO/bench"
	cp "$SCRIPTS/test-split.sh" "$SCRIPTS/test-integration.sh" "$REPO/scripts/"
	printf 'module example.com/scratch\n\ngo 1.24\n' >"$REPO/go.mod"
	printf 'module example.com/scratch/bench\n\ngo 1.24\n' >"$REPO/bench/go.mod"
	printf 'package bench\n' >"$REPO/bench/bench.go"
	file unit/unit_test.go 'func TestUnit(t *testing.T) {}'
	file root_integration_test.go "func TestRootIntegration(t *testing.T) { $need }"
	file bench/bench_integration_test.go "func TestBenchIntegration(t *testing.T) { $need }"
}

failed=0
# run CASE WANT [PATTERN]: runs the split check, then (if it passed) the
# integration run with "DynamoDB Local" up; WANT is where it must stop:
# "split" (the split check fails), "integration" (the integration run
# fails) or "pass"; PATTERN, if given, must be in the output.
run() {
	local name=$1 want=$2 pattern=${3:-} got=pass out=$TMP/$1.out
	mkdir -p "$REPO/results"
	if ! (cd "$REPO" && env -u AWS_ENDPOINT_URL_DYNAMODB SPLIT_RESULTS="$REPO/results" MIN_UNIT=1 MIN_INTEGRATION=1 bash scripts/test-split.sh) >"$out" 2>&1; then
		got=split
	elif ! (cd "$REPO" && AWS_ENDPOINT_URL_DYNAMODB=http://fake SPLIT_RESULTS="$REPO/results" bash scripts/test-integration.sh) >>"$out" 2>&1; then
		got=integration
	fi
	if [[ $got != "$want" ]] || { [[ -n $pattern ]] && ! grep -qF -- "$pattern" "$out"; }; then
		echo "FAIL $name: want $want${pattern:+ with \"$pattern\"}, got $got:"
		sed 's/^/    /' "$out"
		failed=1
	else
		echo "ok   $name ($want)"
	fi
}

repo good
file prefix/foo_integration_test.go "func TestFoo(t *testing.T) { $need }
func TestFooBar(t *testing.T) { $need }"
file prefix/foo_test.go 'func TestFooBaz(t *testing.T) {}'
file same/a_test.go 'func TestSame(t *testing.T) {}'
file other/b_integration_test.go "func TestSame(t *testing.T) { $need }"
file example/x_integration_test.go 'func ExampleUp() {
	fmt.Println(os.Getenv("AWS_ENDPOINT_URL_DYNAMODB") != "")
	// Output: true
}

func ExampleNoOutput() {}'
file fuzz/x_integration_test.go "func FuzzUp(f *testing.F) { f.Add(1); f.Fuzz(func(t *testing.T, n int) { $need }) }"
file par/x_integration_test.go "func TestPar1(t *testing.T) { t.Parallel(); $need }
func TestPar2(t *testing.T) { t.Parallel(); $need }"
file startup/main_integration_test.go 'func TestMain(m *testing.M) { os.Exit(m.Run()) }'
file startup/u_test.go 'func TestStartupUnit(t *testing.T) {}'
run good pass 'ok: 9 integration tests passed'

repo crash
file a_integration_test.go 'func TestAPanics(t *testing.T) { if os.Getenv("AWS_ENDPOINT_URL_DYNAMODB") == "" { var m map[string]int; m["x"] = 1 } }
func TestBBroken(t *testing.T) { t.Fatal("broken") }'
file z_test.go 'func TestZUnitBroken(t *testing.T) { t.Fatal("broken") }'
run crash split 'TestZUnitBroken'

repo exit0
file a_integration_test.go "func TestExit0(t *testing.T) { $need; os.Exit(0) }"
run exit0 integration 'TestExit0'

repo exit
file b_integration_test.go 'func TestLogFatal(t *testing.T) { if os.Getenv("AWS_ENDPOINT_URL_DYNAMODB") == "" { fmt.Println("bye"); os.Exit(1) } }'
file z_test.go 'func TestZUnitBroken(t *testing.T) { t.Fatal("broken") }'
run exit split 'TestZUnitBroken'

repo testmain
file tm/main_integration_test.go 'func TestMain(m *testing.M) { if os.Getenv("AWS_ENDPOINT_URL_DYNAMODB") == "" { os.Exit(1) }; os.Exit(m.Run()) }
func TestBehindTestMain(t *testing.T) { t.Fatal("broken") }'
file tm/u_test.go 'func TestUnitTm(t *testing.T) {}'
run testmain split 'TestBehindTestMain'

repo skipup
file x_integration_test.go "func TestSkipsWhenUp(t *testing.T) { $need; t.Skip(\"up\") }"
run skipup integration 'TestSkipsWhenUp'

repo passwithout
file x_integration_test.go 'func TestPassesWithout(t *testing.T) { if os.Getenv("AWS_ENDPOINT_URL_DYNAMODB") != "" { t.Fatal("up") } }'
run passwithout split 'TestPassesWithout'

repo subskip
file x_integration_test.go "func TestSubSkips(t *testing.T) { $need; t.Run(\"case\", func(t *testing.T) { t.Skip(\"up\") }) }"
run subskip integration 'TestSubSkips/case'

repo unitsubskip
file x_test.go 'func TestUnitSubSkips(t *testing.T) { t.Run("case", func(t *testing.T) { t.Skip("why") }) }'
run unitsubskip split 'TestUnitSubSkips/case'

repo subfail
file x_integration_test.go "func TestSubFails(t *testing.T) { $need; t.Run(\"case\", func(t *testing.T) { t.Error(\"broken\") }) }"
run subfail integration 'broken'

repo prefix
file x_integration_test.go "func TestFoo(t *testing.T) { $need; t.Fatal(\"TestFoo broken\") }
func TestFooBar(t *testing.T) { $need }"
run prefix integration 'TestFoo broken'

repo benchbroken
file bench/x_integration_test.go "func TestBenchBroken(t *testing.T) { $need; t.Fatal(\"bench broken\") }"
run benchbroken integration 'bench broken'

repo notag
printf '//go:build !integration\n\npackage root\n\nimport "testing"\n\nfunc TestNeverInMakeTest(t *testing.T) {}\n' >"$REPO/x_notag_test.go"
run notag split 'x_notag_test.go'

repo unitfails
file x_test.go 'func TestUnitFails(t *testing.T) { t.Log("the reason it failed"); t.Fail() }'
run unitfails split 'the reason it failed'

repo example
file x_integration_test.go 'func ExampleBroken() {
	fmt.Println(os.Getenv("AWS_ENDPOINT_URL_DYNAMODB") != "", "broken")
	// Output: true
}'
run example integration 'ExampleBroken'

((failed == 0)) || { echo 'test-scripts: FAIL'; exit 1; }
echo 'test-scripts: ok'
