// Package compilecost measures what the core's generic layer costs a user's
// build per entity type: every struct type T given to MustDefine makes the
// compiler instantiate the methods of *Entity[T], *Pattern[T] and the rest
// for T (each struct type is its own GC shape), so a model package's build
// time grows with its entity types. Measure builds two scratch packages, of
// one entity type and of n, in a module outside the repository that uses
// the repository's module, and reads the compiler's own figures for each
// (go build -gcflags=-bench): the count of functions compiled is exact for
// a toolchain, the time is not. TestCompileCostPerEntityType holds the
// count to a budget; scripts/compile-cost.sh (make compile-cost) prints
// the figures.
package compilecost

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// Module is the module path the scratch module replaces by the repository.
const Module = "github.com/singletable/singletable"

// Build is the compiler's figures for one scratch package.
type Build struct {
	Types   int     // entity types in the package
	Funcs   int     // functions compiled (the compilefuncs phase)
	Seconds float64 // the package's compile time, all phases
}

// Cost is what an entity type beyond the first adds to a build.
type Cost struct {
	One, Many Build
}

// FuncsPerType is the functions compiled per extra entity type.
func (c Cost) FuncsPerType() float64 {
	return float64(c.Many.Funcs-c.One.Funcs) / float64(c.Many.Types-c.One.Types)
}

// SecondsPerType is the compile time per extra entity type: informational,
// it varies with the machine and its load.
func (c Cost) SecondsPerType() float64 {
	return (c.Many.Seconds - c.One.Seconds) / float64(c.Many.Types-c.One.Types)
}

func (c Cost) String() string {
	return fmt.Sprintf("1 entity type: %d funcs, %.2f s; %d entity types: %d funcs, %.2f s; per extra entity type: %.1f funcs, %.3f s",
		c.One.Funcs, c.One.Seconds, c.Many.Types, c.Many.Funcs, c.Many.Seconds, c.FuncsPerType(), c.SecondsPerType())
}

// Measure builds, in a scratch module in dir (outside the repository; it
// is filled in here) that replaces Module by the repository at repo, a
// package of one entity type and one of n (n >= 2), with the go command
// goCmd, offline: the module cache must hold what the repository needs.
func Measure(goCmd, repo, dir string, n int) (Cost, error) {
	if n < 2 {
		return Cost{}, fmt.Errorf("compilecost: %d entity types: need at least 2", n)
	}
	sum, err := os.ReadFile(filepath.Join(repo, "go.sum"))
	if err != nil {
		return Cost{}, err
	}
	files := map[string]string{
		"go.mod":       fmt.Sprintf("module example.com/compilecost\n\ngo 1.24.0\n\nrequire %s v0.0.0\n\nreplace %s => %s\n", Module, Module, repo),
		"go.sum":       string(sum),
		"one/one.go":   Source("one", 1),
		"many/many.go": Source("many", n),
	}
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return Cost{}, err
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			return Cost{}, err
		}
	}
	bench := filepath.Join(dir, "bench.txt")
	cmd := exec.Command(goCmd, "build", "-gcflags=-bench="+bench, "./one", "./many")
	cmd.Dir = dir
	// Offline and on its own: the scratch module's dependencies come from
	// the module cache the repository's build fills; the caller's GOFLAGS
	// (tags, -mod=vendor ...) are not the scratch module's.
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off", "GOTOOLCHAIN=local")
	if out, err := cmd.CombinedOutput(); err != nil {
		return Cost{}, fmt.Errorf("compilecost: go build in %s: %v\n%s", dir, err, out)
	}
	text, err := os.ReadFile(bench)
	if err != nil {
		return Cost{}, err
	}
	builds, err := parseBench(text)
	if err != nil {
		return Cost{}, err
	}
	one, many := builds["example.com/compilecost/one"], builds["example.com/compilecost/many"]
	if one.Funcs == 0 || many.Funcs == 0 {
		return Cost{}, fmt.Errorf("compilecost: no compilefuncs figures for both packages in:\n%s", text)
	}
	one.Types, many.Types = 1, n
	return Cost{One: one, Many: many}, nil
}

// benchLine is a line of the compiler's -bench file:
//
//	BenchmarkCompile:PKG:be:compilefuncs  1  934316538 ns/op  73.25 %  477 funcs  511 funcs/s
//	BenchmarkCompile:PKG:total            1 1275482001 ns/op 100.00 %
var benchLine = regexp.MustCompile(`^BenchmarkCompile:(\S+):(be:compilefuncs|total)\s+\d+\s+(\d+) ns/op(?:.*?\s(\d+) funcs\s)?`)

// parseBench reads the figures of each package in a -bench file.
func parseBench(text []byte) (map[string]Build, error) {
	builds := map[string]Build{}
	sc := bufio.NewScanner(bytes.NewReader(text))
	for sc.Scan() {
		m := benchLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		b := builds[m[1]]
		if m[2] == "total" {
			ns, err := strconv.ParseInt(m[3], 10, 64)
			if err != nil {
				return nil, err
			}
			b.Seconds = float64(ns) / 1e9
		} else if m[4] != "" {
			funcs, err := strconv.Atoi(m[4])
			if err != nil {
				return nil, err
			}
			b.Funcs = funcs
		}
		builds[m[1]] = b
	}
	return builds, sc.Err()
}

// Source is a package named pkg declaring n entity types (distinct struct
// types, as a user's are), each used as a
// user's model package uses one: MustDefine, a Pattern, and calls of the
// common operations (reads, writes, batches, transactions), so that the
// generic functions a user calls are compiled too, not only the methods.
func Source(pkg string, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, `// Package %s is a scratch model package of %d entity types (compilecost).
package %s

import (
	"context"

	st %q
)

var tbl = st.MustTable("Table")

`, pkg, n, pkg, Module)
	for i := range n {
		// A field of its own: types of the same underlying type share
		// their generic code (one GC shape), a user's entities do not.
		fmt.Fprintf(&b, `type T%[1]d struct {
	ID    string
	Name  string
	Count int
	F%[1]d   string
}

var (
	E%[1]d = st.MustDefine[T%[1]d](tbl, "T%[1]d", st.Key("T%[1]d#{ID}", "T%[1]d#{Name}"))
	P%[1]d = E%[1]d.Pattern("T%[1]dByID").Partition("T%[1]d#{ID}").SortBeginsWith("T%[1]d#").Must()
)

func Use%[1]d(ctx context.Context, db *st.DB) error {
	v := T%[1]d{ID: "a", Name: "b"}
	if err := E%[1]d.Put(ctx, db, v); err != nil {
		return err
	}
	if _, err := E%[1]d.Get(ctx, db, v); err != nil {
		return err
	}
	if _, err := E%[1]d.Update(ctx, db, v, st.Set("Count", 1), st.Current(v)); err != nil {
		return err
	}
	if err := E%[1]d.Delete(ctx, db, v); err != nil {
		return err
	}
	if _, err := E%[1]d.Query(ctx, db, v); err != nil {
		return err
	}
	if _, err := P%[1]d.Query(ctx, db, v, st.Limit(10)); err != nil {
		return err
	}
	for _, err := range P%[1]d.All(ctx, db, v) {
		if err != nil {
			return err
		}
	}
	if _, err := E%[1]d.BatchGet(ctx, db, []T%[1]d{v}); err != nil {
		return err
	}
	if err := db.BatchWrite(ctx, []st.BatchOp{st.BatchPut(E%[1]d, v)}); err != nil {
		return err
	}
	tg := db.TransactGet()
	got := E%[1]d.TxGet(tg, v)
	if err := tg.Run(ctx); err != nil {
		return err
	}
	if _, err := got.Get(); err != nil {
		return err
	}
	return db.Transact(ctx, func(tx *st.Tx) error {
		E%[1]d.TxPut(tx, v)
		return nil
	})
}

`, i)
	}
	return b.String()
}
