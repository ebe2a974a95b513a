package compilecost

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// funcsPerTypeBudget is how many functions an entity type beyond the first
// may make a user's build compile, as Source uses it (Go 1.26: 265 before
// the generic layer was thinned, issue 20; 157 after). A change that makes the generic
// layer thicker fails here: move the work into non-generic code
// (ARCHITECTURE.md, "Rules the layout keeps") rather than raise the budget;
// one that makes it thinner should lower it.
const funcsPerTypeBudget = 165

// typesEnv sets how many entity types the larger scratch package has
// (scripts/compile-cost.sh passes its argument, 9 by default); 5 without
// it, which keeps the test short: the count per extra type is the same
// for any number of types.
const typesEnv = "SINGLETABLE_COMPILE_COST_TYPES"

// TestCompileCostPerEntityType holds the functions compiled per entity type
// to the budget. The count is exact for a toolchain; the time is only
// logged.
func TestCompileCostPerEntityType(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH: nothing to build the scratch packages with")
	}
	n := 5
	if s := os.Getenv(typesEnv); s != "" {
		if n, err = strconv.Atoi(s); err != nil || n < 2 {
			t.Fatalf("%s=%q: want a count of at least 2", typesEnv, s)
		}
	}
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	c, err := Measure(goCmd, repo, t.TempDir(), n)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(c)
	if got := c.FuncsPerType(); got > funcsPerTypeBudget {
		t.Errorf("an entity type compiles %.1f functions, over the budget of %d: the generic layer has grown (see ARCHITECTURE.md, \"Rules the layout keeps\")", got, funcsPerTypeBudget)
	}
}

func TestParseBench(t *testing.T) {
	text := []byte(`commit: go1.26.8
BenchmarkCompile:example.com/x/p:fe:parse                      1     171997846 ns/op     13.48 %     10 lines     58 lines/s
BenchmarkCompile:example.com/x/p:be:compilefuncs               1     934316538 ns/op     73.25 %    477 funcs    511 funcs/s
BenchmarkCompile:example.com/x/p:total                         1    1275482001 ns/op    100.00 %
BenchmarkCompile:example.com/x/q:be:compilefuncs               1     934316538 ns/op     73.25 %    9 funcs    51 funcs/s
BenchmarkCompile:example.com/x/q:total                         1    2000000000 ns/op    100.00 %
`)
	got, err := parseBench(text)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Build{
		"example.com/x/p": {Funcs: 477, Seconds: 1.275482001},
		"example.com/x/q": {Funcs: 9, Seconds: 2},
	}
	if len(got) != len(want) {
		t.Fatalf("parseBench: %+v, want %+v", got, want)
	}
	for pkg, w := range want {
		if got[pkg] != w {
			t.Errorf("parseBench: %s: %+v, want %+v", pkg, got[pkg], w)
		}
	}
}
