package singletable_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/singletable/singletable"
	"github.com/singletable/singletable/singletabletest"
)

type guardedAccount struct {
	ID    string `dynamodbav:"id"`
	Email string `dynamodbav:"email" singletable:"unique"`
}

// guardKeyPrefix is what the guard key of an Account's email holds before
// the (escaped) value: "_unique#Account#email#".
const guardKeyPrefix = len("_unique#Account#email#")

// guardedModel declares accounts on a table with a sort key (a guard's key
// is then limited to the sort key's 1024 bytes) or without one (2048).
func guardedModel(t *testing.T, withSK bool) (*singletable.Table, *singletable.Entity[guardedAccount], int) {
	t.Helper()
	if withSK {
		table := singletable.MustTable("GuardKeys")
		return table, singletable.MustDefine[guardedAccount](table, "Account", singletable.Key("ACCOUNT#{ID}", "ACCOUNT")), 1024
	}
	table := singletable.MustTable("GuardKeysPK", singletable.WithKeys("PK", ""))
	return table, singletable.MustDefine[guardedAccount](table, "Account", singletable.Key("ACCOUNT#{ID}", "")), 2048
}

// A unique value whose guard key would exceed DynamoDB's key limits is an
// ErrInvalidKey naming the entity, the field and the limit, on every write
// path, before anything is sent.
func TestGuardKeyOverTheLimitIsRefusedBeforeSending(t *testing.T) {
	for _, withSK := range []bool{true, false} {
		table, accounts, limit := guardedModel(t, withSK)
		mock := &singletabletest.Client{}
		db := singletable.New(mock, table)
		ctx := context.Background()
		long := strings.Repeat("a", limit-guardKeyPrefix+1)
		// Escaped, '#' takes 3 bytes: short as a value, too long as a key.
		escaped := strings.Repeat("#", (limit-guardKeyPrefix)/3+1)
		for _, v := range []string{long, escaped} {
			acc := guardedAccount{ID: "a1", Email: v}
			writes := map[string]func() error{
				"Create": func() error { return accounts.Create(ctx, db, acc) },
				"Put":    func() error { return accounts.Put(ctx, db, acc) },
				"Update": func() error {
					_, err := accounts.Update(ctx, db, guardedAccount{ID: "a1"}, singletable.Set("Email", v))
					return err
				},
				"Delete": func() error { return accounts.Delete(ctx, db, acc) },
				"TxCreate": func() error {
					return db.Transact(ctx, func(tx *singletable.Tx) error { accounts.TxCreate(tx, acc); return nil })
				},
				"TxPut": func() error {
					return db.Transact(ctx, func(tx *singletable.Tx) error { accounts.TxPut(tx, acc); return nil })
				},
				"TxUpdate": func() error {
					return db.Transact(ctx, func(tx *singletable.Tx) error {
						accounts.TxUpdate(tx, guardedAccount{ID: "a1"}, singletable.Set("Email", v))
						return nil
					})
				},
				"TxDelete": func() error {
					return db.Transact(ctx, func(tx *singletable.Tx) error { accounts.TxDelete(tx, acc); return nil })
				},
			}
			for name, write := range writes {
				err := write()
				require.ErrorIs(t, err, singletable.ErrInvalidKey, "%s, limit %d", name, limit)
				var ke *singletable.KeyError
				require.ErrorAs(t, err, &ke, name)
				assert.Equal(t, "Account", ke.Entity, name)
				assert.Equal(t, "Email", ke.Field, name)
				assert.Contains(t, ke.Reason, "DynamoDB allows "+map[int]string{1024: "1024", 2048: "2048"}[limit], name)
				assert.Contains(t, ke.Reason, "unique", name)
			}
		}
		assert.Empty(t, mock.Calls(), "nothing was sent")
	}
}
