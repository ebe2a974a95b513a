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

// A nil pattern, a nil Sum function and a nil transaction body are an
// *InputError before anything is sent, never a panic (or, for Sum, a
// panic at the first item after its requests went out).
func TestNilArgumentsAreInputErrors(t *testing.T) {
	ctx := context.Background()
	mock, db := mockDB()
	var p *st.Pattern[st.WRecord]
	byID := st.WRecords.Pattern("NilArgsByID").Partition("REC#{ID}")
	k := st.WRecord{ID: "r1"}
	first := func(seq func(func(st.WRecord, error) bool)) error {
		for _, err := range seq {
			return err
		}
		return nil
	}
	ops := map[string]func() error{
		"Pattern.Query":             func() error { _, err := p.Query(ctx, db, k); return err },
		"Pattern.QueryBetween":      func() error { _, err := p.QueryBetween(ctx, db, k, k); return err },
		"Pattern.Get":               func() error { _, err := p.Get(ctx, db, k); return err },
		"Pattern.All":               func() error { return first(p.All(ctx, db, k)) },
		"Pattern.AllBetween":        func() error { return first(p.AllBetween(ctx, db, k, k)) },
		"Pattern.Scan":              func() error { return first(p.Scan(ctx, db)) },
		"Pattern.QueryInput":        func() error { _, err := p.QueryInput(db, k); return err },
		"Pattern.QueryBetweenInput": func() error { _, err := p.QueryBetweenInput(db, k, k); return err },
		"Pattern.QueryInputs":       func() error { _, err := p.QueryInputs(db, k); return err },
		"Pattern.GetInput":          func() error { _, err := p.GetInput(db, k); return err },
		"Pattern.ScanInput":         func() error { _, err := p.ScanInput(db); return err },
		"Pattern.Err":               func() error { return p.Err() },
		"Sum nil pattern": func() error {
			_, err := st.Sum(ctx, db, p, k, func(r st.WRecord) int { return r.N })
			return err
		},
		"Sum nil function": func() error {
			_, err := st.Sum[st.WRecord, int](ctx, db, byID, k, nil)
			return err
		},
		"SumBetween nil function": func() error {
			_, err := st.SumBetween[st.WRecord, int](ctx, db, byID, k, k, nil)
			return err
		},
		"Transact nil body":      func() error { return db.Transact(ctx, nil) },
		"TransactInput nil body": func() error { _, err := db.TransactInput(nil); return err },
	}
	for name, op := range ops {
		t.Run(name, func(t *testing.T) {
			var err error
			assert.NotPanics(t, func() { err = op() })
			assert.ErrorIs(t, err, st.ErrInvalidInput)
			assert.Empty(t, mock.Calls(), "nothing may be sent")
		})
	}
}
