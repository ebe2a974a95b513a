package singletable_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/singletabletest"
)

// A nil option is an *InputError naming its position, whichever operation
// it is given to, and nothing is sent.
func TestNilOptionIsAnInputError(t *testing.T) {
	mock := &singletabletest.Client{}
	db := st.New(mock, st.WShop, st.WithClock(st.FixedClock))
	ctx := context.Background()
	ops := map[string]func() error{
		"Get":    func() error { _, err := st.WProducts.Get(ctx, db, st.WProduct{ID: "p1"}, nil); return err },
		"Put":    func() error { return st.WProducts.Put(ctx, db, st.WProduct{ID: "p1"}, nil) },
		"Delete": func() error { return st.WProducts.Delete(ctx, db, st.WProduct{ID: "p1"}, nil) },
		"Update": func() error {
			_, err := st.WCounters.Update(ctx, db, st.WCounter{ID: "c"}, st.Increment("Value", 1), nil)
			return err
		},
		"Query": func() error { _, err := st.WOrders.Query(ctx, db, st.WOrder{UserID: "u1"}, nil); return err },
		"BatchGet": func() error {
			_, err := st.WRecords.BatchGet(ctx, db, []st.WRecord{{ID: "r1"}}, nil)
			return err
		},
		"BatchWrite": func() error {
			return db.BatchWrite(ctx, []st.BatchOp{st.BatchPut(st.WRecords, st.WRecord{ID: "r1"})}, nil)
		},
		"Transact": func() error {
			return db.Transact(ctx, func(tx *st.Tx) error { st.WProducts.TxPut(tx, st.WProduct{ID: "p2"}); return nil }, nil)
		},
		"Scan": func() error {
			for _, err := range st.WRecords.Scan(ctx, db, nil) {
				return err
			}
			return nil
		},
		"TxGet": func() error {
			tg := db.TransactGet()
			st.WProducts.TxGet(tg, st.WProduct{ID: "p1"}, nil)
			_, err := tg.Input()
			return err
		},
	}
	for name, op := range ops {
		err := op()
		var ie *st.InputError
		if !errors.As(err, &ie) || ie.Reason != "option 1 of 1 is nil" {
			t.Errorf("%s: %v, want an *InputError: option 1 of 1 is nil", name, err)
		}
	}
	assert.Empty(t, mock.Calls(), "nothing sent")
}
