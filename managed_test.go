package singletable_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/golden"
	"github.com/singletable/singletable/singletabletest"
)

// A table whose index sorts by the updated timestamp ("recently changed").
var rvTable = st.MustTable("ReviewWrites", st.WithGSI("GSI1"))

type rvDoc struct {
	ID      string    `dynamodbav:"id"`
	Owner   string    `dynamodbav:"owner"`
	Title   string    `dynamodbav:"title"`
	Updated time.Time `dynamodbav:"updated" singletable:"updated"`
}

var rvDocs = st.MustDefine[rvDoc](rvTable, "Doc",
	st.Key("DOC#{ID}", "DOC"),
	st.Index("GSI1", "OWNER#{Owner}", "{Updated:2006-01-02T15:04:05Z07:00}"),
)

// Managed fields promoted through an exported embedded pointer.
type RvAudit struct {
	Version int64     `dynamodbav:"version" singletable:"version"`
	Created time.Time `dynamodbav:"created" singletable:"created"`
	Updated time.Time `dynamodbav:"updated" singletable:"updated"`
}

type rvNote struct {
	ID   string `dynamodbav:"id"`
	Mail string `dynamodbav:"mail" singletable:"unique"`
	*RvAudit
}

var rvNotes = st.MustDefine[rvNote](rvTable, "Note", st.Key("NOTE#{ID}", "NOTE"))

func TestWritesWithNilEmbeddedManagedFields(t *testing.T) {
	db := st.New(&singletabletest.Client{}, rvTable, st.WithClock(st.FixedClock))
	in, err := db.TransactInput(func(tx *st.Tx) error {
		rvNotes.TxPut(tx, rvNote{ID: "n1", Mail: "a@x"})
		rvNotes.TxUpdate(tx, rvNote{ID: "n2"}, st.Set("Mail", "b@x"))
		rvNotes.TxDelete(tx, rvNote{ID: "n3"})
		return nil
	})
	require.NoError(t, err)
	put := in.TransactItems[0].Put
	require.NotNil(t, put)
	assert.Equal(t, &types.AttributeValueMemberN{Value: "1"}, put.Item["version"], "Put of version 0 stores 1")
	assert.Contains(t, put.Item, "created")
	assert.Contains(t, put.Item, "updated")
}

type rvHidden struct {
	Version int64 `dynamodbav:"version" singletable:"version"`
}

type rvHiddenNote struct {
	ID string `dynamodbav:"id"`
	*rvHidden
}

func TestManagedFieldBehindUnexportedPointerRefused(t *testing.T) {
	_, err := st.Define[rvHiddenNote](rvTable, "HiddenNote", st.Key("HNOTE#{ID}", "NOTE"))
	require.ErrorIs(t, err, st.ErrInvalidModel)
}

// DynamoDB adds to the version on every write, so an index that reads it
// would go stale with each one: the model refuses it.
func TestVersionFieldInIndexRefused(t *testing.T) {
	type doc struct {
		ID      string `dynamodbav:"id"`
		Version int64  `dynamodbav:"version" singletable:"version"`
	}
	table := st.MustTable("VersionIndexed", st.WithGSI("GSI1"))
	_, err := st.Define[doc](table, "Doc", st.Key("DOC#{ID}", "DOC"), st.Index("GSI1", "DOCS", "V#{Version:10}"))
	require.ErrorIs(t, err, st.ErrInvalidModel)
	assert.Contains(t, err.Error(), "index GSI1's key or When condition reads the version field")

	_, err = st.Define[doc](table, "Doc", st.Key("DOC#{ID}", "DOC"),
		st.Index("GSI1", "NEW", "DOC#{ID}").When(st.Eq("Version", 0)))
	require.ErrorIs(t, err, st.ErrInvalidModel, "a When condition on the version goes stale too")
}

// A partition template that starts with a placeholder could render the key
// of a unique-value guard item ("_unique#<Entity>#<attribute>#<value>")
// from a value; a write of such a key is refused before sending, so data
// can neither overwrite nor delete a guard.
func TestKeyInGuardNamespaceRefused(t *testing.T) {
	type node struct {
		Kind string `dynamodbav:"kind"`
		A    string `dynamodbav:"a"`
		B    string `dynamodbav:"b"`
		C    string `dynamodbav:"c"`
		Note string `dynamodbav:"note"`
	}
	table := st.MustTable("GuardForgery")
	nodes := st.MustDefine[node](table, "Node", st.Key("{Kind}#{A}#{B}#{C}", "{Kind}#{A}#{B}#{C}"))
	type account struct {
		ID    string `dynamodbav:"id"`
		Email string `dynamodbav:"email" singletable:"unique"`
	}
	st.MustDefine[account](table, "Account", st.Key("ACCOUNT#{ID}", "ACCOUNT"))

	mock := &singletabletest.Client{}
	db := st.New(mock, table)
	ctx := context.Background()
	forged := node{Kind: "_unique", A: "Account", B: "email", C: "ann@example.com"}

	err := nodes.Put(ctx, db, forged)
	require.ErrorIs(t, err, st.ErrInvalidKey)
	assert.Contains(t, err.Error(), `which is reserved for unique-value guard items`)
	require.ErrorIs(t, nodes.Delete(ctx, db, forged), st.ErrInvalidKey)
	_, err = nodes.Update(ctx, db, forged, st.Set("Note", "x"))
	require.ErrorIs(t, err, st.ErrInvalidKey)
	assert.Empty(t, mock.Calls(), "refused before sending")

	// Only the reserved word followed by the delimiter is refused.
	require.NoError(t, nodes.Put(ctx, db, node{Kind: "_uniqueness", A: "a", B: "b", C: "c"}))
	assert.Len(t, mock.Calls(), 1)
}

func TestUniqueWritesAreTransactions(t *testing.T) {
	db, mock := pureDB()
	u := st.WUser{ID: "u1", Email: "ann@example.com", Name: "Ann", Status: "ACTIVE"}
	_, err := st.WUsers.CreateInput(db, u)
	require.ErrorIs(t, err, st.ErrInvalidInput)
	assert.Contains(t, err.Error(), "TxCreate")

	tok := st.IdempotencyToken("golden-token")
	in, err := db.TransactInput(func(tx *st.Tx) error { st.WUsers.TxCreate(tx, u); return nil }, tok)
	require.NoError(t, err)
	require.Len(t, in.TransactItems, 2)
	golden.Request(t, "txn/unique_create", in)

	in, err = db.TransactInput(func(tx *st.Tx) error {
		st.WUsers.TxUpdate(tx, st.WUser{ID: "u1", Email: "ann@example.com"}, st.Set("Email", "ann@example.org"))
		return nil
	}, tok)
	require.NoError(t, err)
	require.Len(t, in.TransactItems, 3, "update item, delete old guard, put new guard")
	golden.Request(t, "txn/unique_update", in)

	in, err = db.TransactInput(func(tx *st.Tx) error { st.WUsers.TxDelete(tx, u); return nil }, tok)
	require.NoError(t, err)
	require.Len(t, in.TransactItems, 2)
	golden.Request(t, "txn/unique_delete", in)
	assert.Empty(t, mock.Calls())
}

type guardedAccount struct {
	ID    string `dynamodbav:"id"`
	Email string `dynamodbav:"email" singletable:"unique"`
}

// guardKeyPrefix is what the guard key of an Account's email holds before
// the (escaped) value: "_unique#Account#email#".
const guardKeyPrefix = len("_unique#Account#email#")

// guardedModel declares accounts on a table with a sort key (a guard's key
// is then limited to the sort key's 1024 bytes) or without one (2048).
func guardedModel(t *testing.T, withSK bool) (*st.Table, *st.Entity[guardedAccount], int) {
	t.Helper()
	if withSK {
		table := st.MustTable("GuardKeys")
		return table, st.MustDefine[guardedAccount](table, "Account", st.Key("ACCOUNT#{ID}", "ACCOUNT")), 1024
	}
	table := st.MustTable("GuardKeysPK", st.WithKeys("PK", ""))
	return table, st.MustDefine[guardedAccount](table, "Account", st.Key("ACCOUNT#{ID}", "")), 2048
}

// A unique value whose guard key would exceed DynamoDB's key limits is an
// ErrInvalidKey naming the entity, the field and the limit, on every write
// path, before anything is sent.
func TestGuardKeyOverTheLimitIsRefusedBeforeSending(t *testing.T) {
	for _, withSK := range []bool{true, false} {
		table, accounts, limit := guardedModel(t, withSK)
		mock := &singletabletest.Client{}
		db := st.New(mock, table)
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
					_, err := accounts.Update(ctx, db, guardedAccount{ID: "a1"}, st.Set("Email", v))
					return err
				},
				"Delete": func() error { return accounts.Delete(ctx, db, acc) },
				"TxCreate": func() error {
					return db.Transact(ctx, func(tx *st.Tx) error { accounts.TxCreate(tx, acc); return nil })
				},
				"TxPut": func() error {
					return db.Transact(ctx, func(tx *st.Tx) error { accounts.TxPut(tx, acc); return nil })
				},
				"TxUpdate": func() error {
					return db.Transact(ctx, func(tx *st.Tx) error {
						accounts.TxUpdate(tx, guardedAccount{ID: "a1"}, st.Set("Email", v))
						return nil
					})
				},
				"TxDelete": func() error {
					return db.Transact(ctx, func(tx *st.Tx) error { accounts.TxDelete(tx, acc); return nil })
				},
			}
			for name, write := range writes {
				err := write()
				require.ErrorIs(t, err, st.ErrInvalidKey, "%s, limit %d", name, limit)
				var ke *st.KeyError
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
