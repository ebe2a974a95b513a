package singletable_test

import (
	"os"
	"path/filepath"
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
