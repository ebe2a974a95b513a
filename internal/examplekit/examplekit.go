// Package examplekit holds what the runnable examples share: checking
// results against what the seed data implies, and a fresh table per run.
package examplekit

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/ddblocal"
)

// Checker prints each check as it is made and counts the ones that failed.
type Checker struct{ failures []string }

// Equal checks that got is want (reflect.DeepEqual).
func (c *Checker) Equal(what string, want, got any) {
	if reflect.DeepEqual(want, got) {
		fmt.Printf("  ok: %s\n", what)
		return
	}
	c.failures = append(c.failures, what)
	fmt.Printf("  WRONG: %s\n    want %+v\n    got  %+v\n", what, want, got)
}

// That checks that ok holds.
func (c *Checker) That(what string, ok bool) { c.Equal(what, true, ok) }

// Err is nil when every check passed.
func (c *Checker) Err() error {
	if len(c.failures) == 0 {
		return nil
	}
	return fmt.Errorf("%d check(s) failed", len(c.failures))
}

// FreshTable deletes the DB's table if it exists and creates it anew, so
// that each run of an example starts from the seed data alone.
func FreshTable(ctx context.Context, db *st.DB) error {
	var nf *types.ResourceNotFoundException
	if err := db.DeleteTable(ctx); err != nil && !errors.As(err, &nf) {
		return err
	}
	return db.CreateTable(ctx)
}

// UniqueName is a table name of its own for each run (prefix, a per-process
// id and a counter), so that examples run side by side never share a table.
func UniqueName(prefix string) string { return ddblocal.UniqueName(prefix) }
