//go:build integration

package revision_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/observe"
	"github.com/singletable/singletable/revision"
)

// writeBackModel is models' v2 with write-back, on its own table.
func writeBackModel() (*st.Table, *st.Entity[ticketV2]) {
	t2 := st.MustTable("Desk")
	v2 := st.MustDefine[ticketV2](t2, "Ticket", st.Key("T#{ID}", "T"), revision.Current(3), revision.WriteBack(),
		revision.UpgradeItem(1, renameCustomer),
		revision.Upgrade(2, func(v *ticketV2) error {
			if v.Priority == 0 {
				v.Priority = 3
			}
			return nil
		}))
	return t2, v2
}

// hookClient calls afterGet after each GetItem it passes on: another
// writer acting between a read and its write-back.
type hookClient struct {
	st.Client
	afterGet func()
}

func (c *hookClient) GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	out, err := c.Client.GetItem(ctx, in, opts...)
	if c.afterGet != nil {
		c.afterGet()
	}
	return out, err
}

// TestIntegrationWriteBack: a Get or a query of an older item writes it
// back upgraded, once; a current item is not written; a write-back that
// loses its condition to another writer leaves that writer's item and
// still returns the upgraded value.
func TestIntegrationWriteBack(t *testing.T) {
	t1, v1, _, _ := models(t)
	t2, v2 := writeBackModel()
	db1, db2 := localDBs(t, t1, t2)
	var puts atomic.Int64
	db2 = st.New(db2.Client(), t2, st.WithTableName(db2.TableName()), observe.With(func(r observe.Request) {
		if r.Operation == "PutItem" {
			puts.Add(1)
		}
	}))
	for _, id := range []string{"a", "b", "c"} {
		require.NoError(t, v1.Put(ctx, db1, ticketV1{ID: id, Customer: "c-" + id, Title: "t"}))
	}
	want := func(id string) ticketV2 { return ticketV2{ID: id, CustomerID: "c-" + id, Title: "t", Priority: 3} }

	got, err := v2.Get(ctx, db2, ticketV2{ID: "a"})
	require.NoError(t, err)
	assert.Equal(t, want("a"), got)
	assert.Equal(t, int64(1), puts.Load())
	raw := rawItem(t, db2, "a")
	assert.Equal(t, "3", revOf(raw))
	_, kept := raw["Customer"]
	assert.False(t, kept, "the renamed attribute is gone")
	got, err = v2.Get(ctx, db2, ticketV2{ID: "a"})
	require.NoError(t, err)
	assert.Equal(t, want("a"), got)
	assert.Equal(t, int64(1), puts.Load(), "a current item is not written")

	byID := v2.Pattern("ByID").Partition("T#{ID}")
	page, err := byID.Query(ctx, db2, ticketV2{ID: "b"})
	require.NoError(t, err)
	assert.Equal(t, []ticketV2{want("b")}, page.Items)
	assert.Equal(t, int64(2), puts.Load())
	assert.Equal(t, "3", revOf(rawItem(t, db2, "b")))

	// New code writes the item between the read and its write-back: the
	// write-back's condition fails, silently, and the new item stands.
	hc := &hookClient{Client: db2.Client()}
	hdb := st.New(hc, t2, st.WithTableName(db2.TableName()))
	hc.afterGet = func() {
		hc.afterGet = nil
		require.NoError(t, v2.Put(ctx, db2, ticketV2{ID: "c", CustomerID: "new", Priority: 1}))
	}
	got, err = v2.Get(ctx, hdb, ticketV2{ID: "c"})
	require.NoError(t, err)
	assert.Equal(t, want("c"), got, "the reader gets the value it read, upgraded")
	now, err := v2.Get(ctx, db2, ticketV2{ID: "c"})
	require.NoError(t, err)
	assert.Equal(t, ticketV2{ID: "c", CustomerID: "new", Priority: 1}, now, "the other writer's item stands")
}

// TestIntegrationRevisionConflictError: writes refused for the stored
// revision name both revisions, in single writes and in transactions.
func TestIntegrationRevisionConflictError(t *testing.T) {
	t1, v1, t2, v2 := models(t)
	db1, db2 := localDBs(t, t1, t2)
	require.NoError(t, v2.Put(ctx, db2, ticketV2{ID: "n", CustomerID: "c1", Priority: 1}))
	require.NoError(t, v1.Put(ctx, db1, ticketV1{ID: "o", Customer: "c2"}))

	var ce *revision.ConflictError
	_, err := v1.Update(ctx, db1, ticketV1{ID: "n"}, st.Set("Customer", "c9"))
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, [2]int{3, 1}, [2]int{ce.Stored, ce.Writer})
	assert.ErrorIs(t, err, revision.ErrNewer)
	assert.ErrorIs(t, err, st.ErrConditionFailed)
	err = v1.Put(ctx, db1, ticketV1{ID: "n", Customer: "c9"})
	assert.ErrorIs(t, err, revision.ErrNewer, "old code's Put of a newer item")

	_, err = v2.Update(ctx, db2, ticketV2{ID: "o"}, st.Set("Title", "t"))
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, [2]int{1, 3}, [2]int{ce.Stored, ce.Writer})
	assert.ErrorIs(t, err, revision.ErrOlder)
	assert.NotErrorIs(t, err, revision.ErrNewer)

	// In a transaction: the refused action's error, among the others'.
	err = db2.Transact(ctx, func(tx *st.Tx) error {
		v2.TxUpdate(tx, ticketV2{ID: "o"}, st.Set("Title", "t"))
		v2.TxPut(tx, ticketV2{ID: "x", CustomerID: "c3"})
		return nil
	})
	var te *st.TxError
	require.ErrorAs(t, err, &te)
	assert.ErrorIs(t, err, revision.ErrOlder)
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, [2]int{1, 3}, [2]int{ce.Stored, ce.Writer})
	err = db1.Transact(ctx, func(tx *st.Tx) error {
		v1.TxUpdate(tx, ticketV1{ID: "n"}, st.Set("Customer", "c9"))
		v1.TxPut(tx, ticketV1{ID: "y", Customer: "c3"})
		return nil
	})
	assert.ErrorIs(t, err, revision.ErrNewer)
	_, kept := rawItem(t, db2, "x")["PK"]
	assert.False(t, kept, "nothing of a cancelled transaction is written")
}
