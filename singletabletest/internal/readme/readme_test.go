package notes_test

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// The README's "Testing" section shows this package's files, byte for
// byte but for the import path (a user's module, example.com/helpdesk):
// so every snippet there is compiled and run by `go test` (the
// integration one with -tags integration).
func TestReadmeTestSection(t *testing.T) {
	readme, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## Testing\n")
	if !ok {
		t.Fatal(`README.md has no "## Testing" section`)
	}
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	blocks := regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(section, -1)
	files := []string{"notes.go", "notes_test.go", "notes_integration_test.go"}
	if len(blocks) != len(files) {
		t.Fatalf("the Testing section has %d Go blocks, want %d (%v)", len(blocks), len(files), files)
	}
	for i, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		want := strings.ReplaceAll(string(b), "github.com/singletable/singletable/singletabletest/internal/readme", "example.com/helpdesk/notes")
		if blocks[i][1] != want {
			t.Errorf("README's Go block %d differs from %s (with example.com/helpdesk/notes for its import path): copy the file into README.md", i+1, name)
		}
	}
}
