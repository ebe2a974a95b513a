//go:build integration

package notes_test

import (
	"context"
	"errors"
	"testing"

	"github.com/singletable/singletable"
	"github.com/singletable/singletable/singletabletest"
	"github.com/singletable/singletable/singletabletest/internal/readme"
	"github.com/singletable/singletable/singletabletest/local"
)

// DynamoDB Local for every test of the package: reused if one runs, else
// started (installed first if needed) and stopped when `go test` ends.
func TestMain(m *testing.M) { local.Main(m) }

// An integration test: its own fresh table, deleted when it ends.
func TestNotesOnLocal(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := singletabletest.LocalDB(t, notes.Table)

	if err := notes.Notes.Create(ctx, db, notes.Note{ID: "n1", Text: "hello"}); err != nil {
		t.Fatal(err)
	}
	err := notes.Notes.Create(ctx, db, notes.Note{ID: "n1", Text: "again"})
	if !errors.Is(err, singletable.ErrAlreadyExists) {
		t.Fatalf("second Create: %v", err)
	}
	got, err := notes.Notes.Get(ctx, db, notes.Note{ID: "n1"})
	if err != nil || got.Text != "hello" {
		t.Fatalf("Get = %+v, %v", got, err)
	}
}
