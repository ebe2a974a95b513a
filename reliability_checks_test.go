package singletable_test

// Reliability checks (named after what they check, not after a source file):
// the unit half of the reliability tests, the checks that fail before
// anything is sent; their DynamoDB Local half is in
// reliability_integration_test.go.

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	st "github.com/singletable/singletable"
)

// TestReliabilityChecksFailBeforeSending runs every check of the condition
// builder, transactions and batches against the recording mock: each must
// fail with an error, and the mock must have seen no call.
func TestReliabilityChecksFailBeforeSending(t *testing.T) {
	ctx := context.Background()
	bigCond := func(field string) st.Cond {
		var cs []st.Cond
		for i := 0; i < 100; i++ {
			cs = append(cs, st.In(field, "A", "B", "C", "D", "E", "F", "G", "H", "I", "J"))
		}
		return st.And(cs...)
	}
	var bigSets st.Changes
	for i := 0; i < 400; i++ {
		bigSets = bigSets.Set("Attrs."+strings.Repeat("k", 8)+string(rune('a'+i%26))+strings.Repeat("z", i/26), "v")
	}
	update := func(ch st.Changes) func(*st.DB) error {
		return func(db *st.DB) error { _, err := st.WUsers.Update(ctx, db, st.WUser{ID: "u1"}, ch); return err }
	}
	cond := func(c st.Cond) func(*st.DB) error {
		return func(db *st.DB) error { return st.WOrders.Put(ctx, db, st.WOrder{UserID: "u", ID: "o"}, st.If(c)) }
	}
	tx := func(build func(tx *st.Tx)) func(*st.DB) error {
		return func(db *st.DB) error { return db.Transact(ctx, func(tx *st.Tx) error { build(tx); return nil }) }
	}
	recs := func(n, size int) []st.WRecord {
		out := make([]st.WRecord, n)
		for i := range out {
			out[i] = st.WRecord{ID: strings.Repeat("r", i+1), Data: strings.Repeat("d", size)}
		}
		return out
	}
	checks := []struct {
		item, name string
		run        func(*st.DB) error
	}{
		{"1 conditions", "unknown field", cond(st.Eq("Nope", 1))},
		{"1 conditions", "attribute name for a Go field", cond(st.Eq("orderId", "x"))},
		{"1 conditions", "value of the wrong type", cond(st.Eq("Total", "lots"))},
		{"1 conditions", "In with no values", cond(st.In("Status"))},
		{"1 conditions", "In with 101 values", cond(st.In("Status", make([]any, 101)...))},
		{"1 conditions", "unknown attribute type", cond(st.IsType("Status", "STRING"))},
		{"1 conditions", "contains nil", cond(st.Contains("Status", nil))},
		{"1 conditions", "path into a scalar", cond(st.Eq("Status.x", "y"))},
		{"1 conditions", "condition over 4 KB", cond(bigCond("Status"))},
		{"1 conditions", "unknown field in an update", update(st.Set("Nope", 1))},
		{"1 conditions", "update expression over 4 KB", update(bigSets)},
		{"1 conditions", "computed change to an index field", func(db *st.DB) error {
			_, err := st.WProducts.Update(ctx, db, st.WProduct{ID: "p"}, st.SetIfNotExists("Category", "x"))
			return err
		}},
		{"1 conditions", "index change missing inputs", func(db *st.DB) error {
			_, err := st.WOrders.Update(ctx, db, st.WOrder{UserID: "u", ID: "o"}, st.Set("Status", "PENDING"), st.NoRead())
			return err
		}},
		{"5 transactions", "no actions", tx(func(*st.Tx) {})},
		{"5 transactions", "101 actions", tx(func(tx *st.Tx) {
			for _, r := range recs(101, 0) {
				st.WRecords.TxPut(tx, r)
			}
		})},
		{"5 transactions", "guard items push it over 100", tx(func(tx *st.Tx) {
			for i := 0; i < 51; i++ {
				st.WUsers.TxCreate(tx, st.WUser{ID: strings.Repeat("u", i+1), Email: strings.Repeat("e", i+1)})
			}
		})},
		{"5 transactions", "two actions on one item", tx(func(tx *st.Tx) {
			st.WProducts.TxUpdate(tx, st.WProduct{ID: "p"}, st.Decrement("Inventory", 1))
			st.WProducts.TxCheck(tx, st.WProduct{ID: "p"}, st.Exists("Name"))
		})},
		{"5 transactions", "over 4 MB", tx(func(tx *st.Tx) {
			for _, r := range recs(12, 390*1024) {
				st.WRecords.TxPut(tx, r)
			}
		})},
		{"5 transactions", "an action that cannot be built", tx(func(tx *st.Tx) { st.WOrders.TxPut(tx, st.WOrder{UserID: "u"}) })},
		{"5 transactions", "a condition check without a condition", tx(func(tx *st.Tx) { st.WProducts.TxCheck(tx, st.WProduct{ID: "p"}, st.Cond{}) })},
		{"5 transactions", "idempotency token over 36 characters", func(db *st.DB) error {
			return db.Transact(ctx, func(tx *st.Tx) error { st.WRecords.TxPut(tx, st.WRecord{ID: "a"}); return nil },
				st.IdempotencyToken(strings.Repeat("t", 37)))
		}},
		{"5 transactions", "TransactGet of the same item twice", func(db *st.DB) error {
			tg := db.TransactGet()
			st.WRecords.TxGet(tg, st.WRecord{ID: "a"})
			st.WRecords.TxGet(tg, st.WRecord{ID: "a"})
			return tg.Run(ctx)
		}},
		{"5 transactions", "TransactGet of 101 items", func(db *st.DB) error {
			tg := db.TransactGet()
			for _, r := range recs(101, 0) {
				st.WRecords.TxGet(tg, r)
			}
			return tg.Run(ctx)
		}},
		{"6 batches", "duplicate keys in BatchWrite", func(db *st.DB) error {
			return db.BatchWrite(ctx, []st.BatchOp{st.BatchPut(st.WRecords, recs(30, 0)...), st.BatchDelete(st.WRecords, st.WRecord{ID: "rrr"})})
		}},
		{"6 batches", "duplicate keys in BatchGet", func(db *st.DB) error {
			_, err := st.WRecords.BatchGet(ctx, db, []st.WRecord{{ID: "a"}, {ID: "a"}})
			return err
		}},
		{"6 batches", "entity with unique fields", func(db *st.DB) error {
			return db.BatchWrite(ctx, []st.BatchOp{st.BatchPut(st.WUsers, st.WUser{ID: "u"})})
		}},
		{"6 batches", "item over 400 KB", func(db *st.DB) error {
			return db.BatchWrite(ctx, []st.BatchOp{st.BatchPut(st.WRecords, recs(1, 401*1024)...)})
		}},
		{"6 batches", "missing key field", func(db *st.DB) error {
			return db.BatchWrite(ctx, []st.BatchOp{st.BatchDelete(st.WRecords, st.WRecord{})})
		}},
		{"6 batches", "bad concurrency", func(db *st.DB) error {
			return db.BatchWrite(ctx, []st.BatchOp{st.BatchPut(st.WRecords, recs(1, 0)...)}, st.Concurrency(-2))
		}},
		{"6 batches", "bad retry budget", func(db *st.DB) error {
			_, err := st.WRecords.BatchGet(ctx, db, recs(1, 0), st.BatchRetry(st.RetryPolicy{MaxAttempts: 0}))
			return err
		}},
	}
	perItem := map[string]int{}
	sent := 0
	for _, c := range checks {
		db, mock := pureDB()
		err := c.run(db)
		if !assert.Error(t, err, "%s: %s", c.item, c.name) {
			continue
		}
		assert.True(t, errors.Is(err, st.ErrInvalidInput) || errors.Is(err, st.ErrInvalidKey), "%s: %s: %v", c.item, c.name, err)
		assert.Empty(t, mock.Calls(), "%s: %s: nothing may be sent", c.item, c.name)
		sent += len(mock.Calls())
		perItem[c.item]++
		t.Logf("  %s: %s: %v", c.item, c.name, err)
	}
	t.Logf("RELIABILITY checks before sending: %d checks refused (conditions and updates %d, transactions %d, batches %d); requests the mock saw: %d",
		len(checks), perItem["1 conditions"], perItem["5 transactions"], perItem["6 batches"], sent)
}
