package singletable_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestArchitecturePageMatchesTree keeps ARCHITECTURE.md true: every
// package directory of the module and every file of the core is named on
// it, and everything it names in the core exists.
func TestArchitecturePageMatchesTree(t *testing.T) {
	page, err := os.ReadFile("ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	named := func(s string) bool { return strings.Contains(string(page), "`"+s+"`") }

	// Packages: the top-level directories, and each package of internal/
	// (examples/ and bench/ are named as a whole).
	top, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range top {
		name := d.Name()
		if !d.IsDir() || strings.HasPrefix(name, ".") || name == "testdata" || name == "docs" || name == "scripts" || !hasGo(t, name) {
			continue
		}
		if name == "internal" {
			inner, err := os.ReadDir(name)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range inner {
				if p.IsDir() && hasGo(t, filepath.Join(name, p.Name())) && !named("internal/"+p.Name()) {
					t.Errorf("ARCHITECTURE.md does not name package internal/%s", p.Name())
				}
			}
			continue
		}
		if !named(name + "/") {
			t.Errorf("ARCHITECTURE.md does not name %s/", name)
		}
	}

	// The core's files: each named, and each named one present.
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	exists := map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		exists[f] = true
		if !named(f) {
			t.Errorf("ARCHITECTURE.md does not name the core's file %s", f)
		}
	}
	for _, word := range strings.Split(string(page), "`") {
		if strings.HasSuffix(word, ".go") && !strings.Contains(word, "/") && !strings.HasSuffix(word, "_test.go") && !exists[word] {
			t.Errorf("ARCHITECTURE.md names %s, which the core does not have", word)
		}
	}
}

// hasGo reports whether dir or a directory below it holds a Go file.
func hasGo(t *testing.T, dir string) bool {
	found := false
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") {
			found = true
			return filepath.SkipAll
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// TestEnginesDoNotImportTheCore keeps the rule ARCHITECTURE.md states:
// internal/'s engines never import the core (or a package built on it),
// so an engine can be read and tested alone. Only what the tests and the
// examples share (internal/testmodel, internal/examplekit) may.
func TestEnginesDoNotImportTheCore(t *testing.T) {
	const module = "github.com/singletable/singletable"
	allowed := map[string]bool{"testmodel": true, "examplekit": true, "lambdaevent": true}
	engines, err := os.ReadDir("internal")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, d := range engines {
		if !d.IsDir() || allowed[d.Name()] {
			continue
		}
		files, err := filepath.Glob(filepath.Join("internal", d.Name(), "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			fset := token.NewFileSet()
			file, err := parser.ParseFile(fset, f, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			checked++
			for _, imp := range file.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				if path == module || strings.HasPrefix(path, module+"/") && !strings.HasPrefix(path, module+"/internal/") {
					t.Errorf("%s imports %s: an engine in internal/ must not import the core or a package built on it", f, path)
				}
			}
		}
	}
	if checked < 50 {
		t.Fatalf("checked only %d files of internal/: the walk lost its way", checked)
	}
}
