package singletable_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	st "github.com/singletable/singletable"
)

// A nil *DB given to an entity's or a pattern's operation is an
// *InputError before anything is sent, as Get's always was, never a panic.
func TestNilDBIsInputError(t *testing.T) {
	ctx := context.Background()
	var db *st.DB
	k := st.WRecord{ID: "r1"}
	byID := st.WRecords.Pattern("NilDBByID").Partition("REC#{ID}")
	ops := map[string]func() error{
		"Get":    func() error { _, err := st.WRecords.Get(ctx, db, k); return err },
		"Put":    func() error { return st.WRecords.Put(ctx, db, k) },
		"Create": func() error { return st.WRecords.Create(ctx, db, k) },
		"Update": func() error { _, err := st.WRecords.Update(ctx, db, k, st.Set("N", 1)); return err },
		"Delete": func() error { return st.WRecords.Delete(ctx, db, k) },
		"Query":  func() error { _, err := st.WRecords.Query(ctx, db, k); return err },
		"All": func() error {
			for _, err := range st.WRecords.All(ctx, db, k) {
				return err
			}
			return nil
		},
		"Scan": func() error {
			for _, err := range st.WRecords.Scan(ctx, db) {
				return err
			}
			return nil
		},
		"BatchGet":      func() error { _, err := st.WRecords.BatchGet(ctx, db, []st.WRecord{k}); return err },
		"Pattern.Query": func() error { _, err := byID.Query(ctx, db, k); return err },
		"Pattern.Get":   func() error { _, err := byID.Get(ctx, db, k); return err },
		"Pattern.All": func() error {
			for _, err := range byID.All(ctx, db, k) {
				return err
			}
			return nil
		},
		"PutInput":   func() error { _, err := st.WRecords.PutInput(db, k); return err },
		"QueryInput": func() error { _, err := byID.QueryInput(db, k); return err },
	}
	for name, op := range ops {
		t.Run(name, func(t *testing.T) {
			var err error
			assert.NotPanics(t, func() { err = op() })
			assert.ErrorIs(t, err, st.ErrInvalidInput)
		})
	}
}
