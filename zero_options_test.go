package singletable_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/singletabletest"
)

// A zero or out-of-range scan option value is an *InputError naming the
// option, on Entity.Scan, DB.Scan and their dry runs, as package migrate's
// own options are; nothing is sent (issue 20: a zero option value is an
// error, never ignored).
func TestScanOptionZeroValuesRefused(t *testing.T) {
	mock := &singletabletest.Client{}
	db := st.New(mock, st.WShop, st.WithClock(st.FixedClock))
	ctx := context.Background()
	for name, o := range map[string]st.ScanOption{
		"ScanConcurrency(0)":               st.ScanConcurrency(0),
		"ScanConcurrency(-1)":              st.ScanConcurrency(-1),
		"PageSize(0)":                      st.PageSize(0),
		"PageSize(-5)":                     st.PageSize(-5),
		"OnProgress(nil)":                  st.OnProgress(nil),
		"Segments(0)":                      st.Segments(0),
		"Filter(Cond{}): the condition is": st.Filter(st.Cond{}),
	} {
		var err error
		for _, e := range st.WRecords.Scan(ctx, db, o) {
			err = e
			break
		}
		assert.ErrorIs(t, err, st.ErrInvalidInput, "Entity.Scan "+name)
		assert.ErrorContains(t, err, name, "Entity.Scan")
		for _, e := range db.Scan(ctx, o) {
			err = e
			break
		}
		assert.ErrorIs(t, err, st.ErrInvalidInput, "DB.Scan "+name)
		assert.ErrorContains(t, err, name, "DB.Scan")
		_, err = st.WRecords.ScanInput(db, o)
		assert.ErrorContains(t, err, name, "ScanInput")
	}
	assert.Empty(t, mock.Calls(), "nothing sent")
}

// Filter and If of the zero Cond are *InputErrors naming the option,
// rather than conditions that vanish; nothing is sent.
func TestZeroCondOptionsRefused(t *testing.T) {
	mock := &singletabletest.Client{}
	db := st.New(mock, st.WShop, st.WithClock(st.FixedClock))
	ctx := context.Background()
	ops := map[string]func() error{
		"Query Filter": func() error {
			_, err := st.WOrders.Query(ctx, db, st.WOrder{UserID: "u1"}, st.Filter(st.Cond{}))
			return err
		},
		"Put If":    func() error { return st.WProducts.Put(ctx, db, st.WProduct{ID: "p1"}, st.If(st.Cond{})) },
		"Create If": func() error { return st.WProducts.Create(ctx, db, st.WProduct{ID: "p1"}, st.If(st.Cond{})) },
		"Delete If": func() error { return st.WProducts.Delete(ctx, db, st.WProduct{ID: "p1"}, st.If(st.Cond{})) },
		"TxPut If": func() error {
			return db.Transact(ctx, func(tx *st.Tx) error { st.WProducts.TxPut(tx, st.WProduct{ID: "p1"}, st.If(st.Cond{})); return nil })
		},
	}
	for name, op := range ops {
		err := op()
		assert.ErrorIs(t, err, st.ErrInvalidInput, name)
		assert.ErrorContains(t, err, "(Cond{}): the condition is empty", name)
	}
	assert.Empty(t, mock.Calls(), "nothing sent")
}

// An option value that cannot apply as given is an *InputError naming the
// option, before anything is sent, rather than an option that is ignored
// (Project(), Concurrency(0) was the default) or read as another
// (PartialTime(0) was PartialMatch). Issue 20 audit.
func TestDegenerateOptionValuesRefused(t *testing.T) {
	mock := &singletabletest.Client{}
	db := st.New(mock, st.WShop, st.WithClock(st.FixedClock))
	ctx := context.Background()
	for name, err := range map[string]error{
		"Project()": func() error {
			_, err := st.WOrders.Query(ctx, db, st.WOrder{UserID: "u1"}, st.Project())
			return err
		}(),
		"PartialTime(TimePrecision(0))": func() error {
			_, err := st.WOrders.Query(ctx, db, st.WOrder{UserID: "u1"}, st.PartialTime(0))
			return err
		}(),
		"PartialTime(TimePrecision(9))": func() error {
			_, err := st.WOrders.Query(ctx, db, st.WOrder{UserID: "u1"}, st.PartialTime(9))
			return err
		}(),
		"Concurrency(0)": func() error {
			_, err := st.WProducts.BatchGet(ctx, db, []st.WProduct{{ID: "p1"}}, st.Concurrency(0))
			return err
		}(),
		"Concurrency(-1)": db.BatchWrite(ctx, []st.BatchOp{st.BatchPut(st.WProducts, st.WProduct{ID: "p1"})}, st.Concurrency(-1)),
	} {
		assert.ErrorIs(t, err, st.ErrInvalidInput, name)
		assert.ErrorContains(t, err, name, name)
	}
	assert.Empty(t, mock.Calls(), "nothing sent")
}

// A DB option given a zero value makes New panic with an *InputError
// naming it, as a nil option does: WithTableName("") sent requests without
// a table name, WithClock(nil) fell back to time.Now, and
// WithAdminClient(nil) left EnsureTable saying to pass WithAdminClient.
func TestZeroDBOptionsPanic(t *testing.T) {
	for name, o := range map[string]st.DBOption{
		`WithTableName("")`:    st.WithTableName(""),
		"WithClock(nil)":       st.WithClock(nil),
		"WithAdminClient(nil)": st.WithAdminClient(nil),
	} {
		func() {
			defer func() {
				err, _ := recover().(error)
				assert.ErrorIs(t, err, st.ErrInvalidInput, name)
				assert.ErrorContains(t, err, name, name)
			}()
			st.New(&singletabletest.Client{}, st.WShop, o)
		}()
	}
}
