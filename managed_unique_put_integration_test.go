//go:build integration

package singletable_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/singletabletest"
)

// putMover has a value unique table-wide (Handle) and one unique within
// a scope (Email within Tenant).
type putMover struct {
	ID     string `dynamodbav:"id"`
	Tenant string `dynamodbav:"tenant"`
	Handle string `dynamodbav:"handle" singletable:"unique"`
	Email  string `dynamodbav:"email" singletable:"unique within Tenant"`
	Name   string `dynamodbav:"name"`
}

var (
	putMoveTable = st.MustTable("PutMovesGuards")
	putMovers    = st.MustDefine[putMover](putMoveTable, "Agent", st.Key("AGENT#{ID}", "AGENT"))
)

// recordingWrites is db over a recording client that sends writes and
// reads to DynamoDB Local: its Calls count the requests.
func recordingWrites(db *st.DB) (*singletabletest.Client, *st.DB) {
	local := db.Client()
	c := &singletabletest.Client{
		GetItemFunc: func(ctx context.Context, in *dynamodb.GetItemInput) (*dynamodb.GetItemOutput, error) {
			return local.GetItem(ctx, in)
		},
		TransactWriteItemsFunc: func(ctx context.Context, in *dynamodb.TransactWriteItemsInput) (*dynamodb.TransactWriteItemsOutput, error) {
			return local.TransactWriteItems(ctx, in)
		},
	}
	return c, st.New(c, db.Table(), st.WithTableName(db.TableName()))
}

// Put of an item whose unique value, or scope, changed moves the guards
// as Update does, table-wide and scoped alike: two transactions (the
// first fails and returns the stored item), no read; unchanged values
// cost one. A value another item holds is still a *UniqueViolationError,
// and TxPut, which cannot read, refuses a change naming the field.
func TestIntegrationPutMovesUniqueGuards(t *testing.T) {
	ldb := singletabletest.LocalDB(t, putMoveTable)
	rec, db := recordingWrites(ldb)
	ctx := t.Context()
	calls := func() []string {
		var ops []string
		for _, c := range rec.Calls() {
			ops = append(ops, c.Op)
		}
		return ops
	}
	put := func(v putMover) ([]string, error) {
		before := len(rec.Calls())
		err := putMovers.Put(ctx, db, v)
		return calls()[before:], err
	}
	one, two := []string{"TransactWriteItems"}, []string{"TransactWriteItems", "TransactWriteItems"}

	sent, err := put(putMover{ID: "a1", Tenant: "acme", Handle: "ann", Email: "ann@x.com"})
	require.NoError(t, err)
	assert.Equal(t, one, sent, "a new item: one transaction")
	require.NoError(t, putMovers.Create(ctx, db, putMover{ID: "b1", Tenant: "acme", Handle: "bob", Email: "bob@x.com"}))
	want := map[string]string{
		"AGENT#a1": "Agent", "AGENT#b1": "Agent",
		"_unique#Agent#handle#ann":                  "AGENT#a1",
		"_unique#Agent#email#tenant#acme#ann@x.com": "AGENT#a1",
		"_unique#Agent#handle#bob":                  "AGENT#b1",
		"_unique#Agent#email#tenant#acme#bob@x.com": "AGENT#b1",
	}
	require.Equal(t, want, storedItems(t, ldb))

	sent, err = put(putMover{ID: "a1", Tenant: "acme", Handle: "ann", Email: "ann@x.com", Name: "Ann"})
	require.NoError(t, err)
	assert.Equal(t, one, sent, "the same values: one transaction")
	require.Equal(t, want, storedItems(t, ldb))

	// The table-wide value changes: its guard moves, the scoped one stays.
	sent, err = put(putMover{ID: "a1", Tenant: "acme", Handle: "annie", Email: "ann@x.com"})
	require.NoError(t, err)
	assert.Equal(t, two, sent, "a changed value: the failed transaction and the move, no read")
	delete(want, "_unique#Agent#handle#ann")
	want["_unique#Agent#handle#annie"] = "AGENT#a1"
	require.Equal(t, want, storedItems(t, ldb))

	// The scope changes: the scoped guard moves to the new tenant.
	sent, err = put(putMover{ID: "a1", Tenant: "globex", Handle: "annie", Email: "ann@x.com"})
	require.NoError(t, err)
	assert.Equal(t, two, sent)
	delete(want, "_unique#Agent#email#tenant#acme#ann@x.com")
	want["_unique#Agent#email#tenant#globex#ann@x.com"] = "AGENT#a1"
	require.Equal(t, want, storedItems(t, ldb))
	got, err := putMovers.Get(ctx, db, putMover{ID: "a1"}, st.ConsistentRead())
	require.NoError(t, err)
	assert.Equal(t, putMover{ID: "a1", Tenant: "globex", Handle: "annie", Email: "ann@x.com"}, got)

	// Both at once, and the old values are free for another item.
	sent, err = put(putMover{ID: "a1", Tenant: "acme", Handle: "ann", Email: "ann2@x.com"})
	require.NoError(t, err)
	assert.Equal(t, two, sent)
	delete(want, "_unique#Agent#handle#annie")
	delete(want, "_unique#Agent#email#tenant#globex#ann@x.com")
	want["_unique#Agent#handle#ann"] = "AGENT#a1"
	want["_unique#Agent#email#tenant#acme#ann2@x.com"] = "AGENT#a1"
	require.Equal(t, want, storedItems(t, ldb))

	// A value another item holds, table-wide or in the new scope: refused,
	// nothing written.
	for name, v := range map[string]putMover{
		"table-wide": {ID: "a1", Tenant: "acme", Handle: "bob", Email: "ann2@x.com"},
		"scoped":     {ID: "a1", Tenant: "acme", Handle: "ann", Email: "bob@x.com"},
	} {
		sent, err = put(v)
		var uv *st.UniqueViolationError
		require.ErrorAs(t, err, &uv, name)
		assert.Equal(t, two, sent, name)
		require.Equal(t, want, storedItems(t, ldb), name)
	}

	// TxPut cannot read the old value: a change is refused with the field
	// named and the way out, and nothing is written.
	err = db.Transact(ctx, func(tx *st.Tx) error {
		putMovers.TxPut(tx, putMover{ID: "a1", Tenant: "initech", Handle: "ann", Email: "ann2@x.com"})
		return nil
	})
	require.ErrorIs(t, err, st.ErrConditionFailed)
	assert.Contains(t, err.Error(), `Put would change Tenant (the scope of unique Email) from "acme" to "initech", and a Put in a transaction cannot move its guard`)
	assert.Contains(t, err.Error(), "change it with TxUpdate")
	require.Equal(t, want, storedItems(t, ldb))
}
