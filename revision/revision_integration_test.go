//go:build integration

package revision_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/ddblocal"
	"github.com/singletable/singletable/migrate"
	"github.com/singletable/singletable/revision"
	"github.com/singletable/singletable/stream"
)

var ctx = context.Background()

// Two model versions over one physical table, as during a rolling deploy:
// v1 stores the customer as "Customer" (revision 1); v2 renames it to
// "CustomerID" (raw upgrader 1 → 2) and gives old tickets a priority
// (typed upgrader 2 → 3).
type ticketV1 struct {
	ID       string
	Customer string
	Title    string
}

type ticketV2 struct {
	ID         string
	CustomerID string
	Title      string
	Priority   int
}

func renameCustomer(item map[string]types.AttributeValue) error {
	if c, ok := item["Customer"]; ok {
		item["CustomerID"] = c
		delete(item, "Customer")
	}
	return nil
}

func models(t *testing.T) (*st.Table, *st.Entity[ticketV1], *st.Table, *st.Entity[ticketV2]) {
	t1 := st.MustTable("Desk")
	v1 := st.MustDefine[ticketV1](t1, "Ticket", st.Key("T#{ID}", "T"), revision.Current(1))
	t2 := st.MustTable("Desk")
	v2 := st.MustDefine[ticketV2](t2, "Ticket", st.Key("T#{ID}", "T"), revision.Current(3),
		revision.UpgradeItem(1, renameCustomer),
		revision.Upgrade(2, func(v *ticketV2) error {
			if v.Priority == 0 {
				v.Priority = 3
			}
			return nil
		}))
	return t1, v1, t2, v2
}

func localDBs(t *testing.T, t1, t2 *st.Table) (*st.DB, *st.DB) {
	t.Helper()
	client, err := ddblocal.Client(ctx)
	require.NoError(t, err)
	name := ddblocal.UniqueName("rev")
	db1 := st.New(client, t1, st.WithTableName(name))
	require.NoError(t, db1.EnsureTable(ctx))
	t.Cleanup(func() { _ = db1.DeleteTable(ctx) })
	return db1, st.New(client, t2, st.WithTableName(name))
}

func rawItem(t *testing.T, db *st.DB, id string) map[string]types.AttributeValue {
	t.Helper()
	out, err := db.Client().GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(db.TableName()),
		Key: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "T#" + id}, "SK": &types.AttributeValueMemberS{Value: "T"}}})
	require.NoError(t, err)
	return out.Item
}

func revOf(item map[string]types.AttributeValue) string {
	if n, ok := item[revision.DefaultAttribute].(*types.AttributeValueMemberN); ok {
		return n.Value
	}
	return "none"
}

func TestRevisionStoredOnEveryWrite(t *testing.T) {
	t1, _, t2, v2 := models(t)
	_, db := localDBs(t, t1, t2)
	require.NoError(t, v2.Put(ctx, db, ticketV2{ID: "put"}))
	require.NoError(t, v2.Create(ctx, db, ticketV2{ID: "create"}))
	_, err := v2.Update(ctx, db, ticketV2{ID: "upd"}, st.Set("Title", "x"), st.Upsert())
	require.NoError(t, err)
	require.NoError(t, db.Transact(ctx, func(tx *st.Tx) error {
		v2.TxPut(tx, ticketV2{ID: "txput"})
		v2.TxUpdate(tx, ticketV2{ID: "put"}, st.Set("Title", "y"))
		return nil
	}))
	require.NoError(t, db.BatchWrite(ctx, []st.BatchOp{st.BatchPut(v2, ticketV2{ID: "batch"})}))
	for _, id := range []string{"put", "create", "upd", "txput", "batch"} {
		assert.Equal(t, "3", revOf(rawItem(t, db, id)), id)
	}
}

// TestRevisionUpgradedOnEveryReadPath writes revision-0 (no attribute)
// and revision-1 items, and reads them with v2 through every read path.
func TestRevisionUpgradedOnEveryReadPath(t *testing.T) {
	t1, v1, t2, v2 := models(t)
	db1, db2 := localDBs(t, t1, t2)
	require.NoError(t, v1.Put(ctx, db1, ticketV1{ID: "a", Customer: "c1", Title: "A"}))
	_, err := db1.Client().PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(db1.TableName()), Item: map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "T#b"}, "SK": &types.AttributeValueMemberS{Value: "T"}, "_type": &types.AttributeValueMemberS{Value: "Ticket"},
		"ID": &types.AttributeValueMemberS{Value: "b"}, "Customer": &types.AttributeValueMemberS{Value: "c2"}}})
	require.NoError(t, err)
	want := map[string]ticketV2{"a": {ID: "a", CustomerID: "c1", Title: "A", Priority: 3}, "b": {ID: "b", CustomerID: "c2", Priority: 3}}

	for id, w := range want {
		got, err := v2.Get(ctx, db2, ticketV2{ID: id})
		require.NoError(t, err, "Get")
		assert.Equal(t, w, got, "Get")
		page, err := v2.Query(ctx, db2, ticketV2{ID: id})
		require.NoError(t, err, "Query")
		require.Len(t, page.Items, 1)
		assert.Equal(t, w, page.Items[0], "Query")
		raw := rawItem(t, db2, id)
		dec, err := v2.Decode(raw)
		require.NoError(t, err, "Entity.Decode")
		assert.Equal(t, w, dec, "Entity.Decode")
		anyv, err := t2.Decode(raw)
		require.NoError(t, err, "Table.Decode")
		assert.Equal(t, w, anyv, "Table.Decode")
		ch, err := stream.Decode(v2, stream.Record{Event: stream.EventInsert, SequenceNumber: "1", Keys: raw, NewImage: raw})
		require.NoError(t, err, "stream.Decode")
		assert.Equal(t, w, *ch.New, "stream.Decode")
	}
	got, err := v2.BatchGet(ctx, db2, []ticketV2{{ID: "a"}, {ID: "b"}})
	require.NoError(t, err, "BatchGet")
	require.Len(t, got, 2)
	for _, p := range got {
		require.NotNil(t, p)
		assert.Equal(t, want[p.ID], *p, "BatchGet")
	}
	tg := db2.TransactGet()
	ta, tb := v2.TxGet(tg, ticketV2{ID: "a"}), v2.TxGet(tg, ticketV2{ID: "b"})
	require.NoError(t, tg.Run(ctx))
	assert.Equal(t, want["a"], ta.Value(), "TransactGet")
	assert.Equal(t, want["b"], tb.Value(), "TransactGet")
	n := 0
	for v, err := range v2.Scan(ctx, db2) {
		require.NoError(t, err, "Entity.Scan")
		assert.Equal(t, want[v.ID], v, "Entity.Scan")
		n++
	}
	assert.Equal(t, 2, n)
	n = 0
	for it, err := range db2.Scan(ctx) {
		require.NoError(t, err, "DB.Scan")
		v := it.Value.(ticketV2)
		assert.Equal(t, want[v.ID], v, "DB.Scan")
		n++
	}
	assert.Equal(t, 2, n)
	// Reading upgrades, it does not write.
	assert.Equal(t, "1", revOf(rawItem(t, db2, "a")))
	assert.Equal(t, "none", revOf(rawItem(t, db2, "b")))
}

// TestRevisionRollingDeploy: once v2 wrote an item, v1 (old code still
// running) can neither read it silently nor overwrite or update it; v2 may
// not update an item it has not upgraded.
func TestRevisionRollingDeploy(t *testing.T) {
	t1, v1, t2, v2 := models(t)
	db1, db2 := localDBs(t, t1, t2)
	require.NoError(t, v2.Put(ctx, db2, ticketV2{ID: "n", CustomerID: "c1", Priority: 1}))

	_, err := v1.Get(ctx, db1, ticketV1{ID: "n"})
	var ne *revision.NewerError
	require.ErrorAs(t, err, &ne)
	assert.True(t, errors.Is(err, revision.ErrNewer))
	assert.Equal(t, 3, ne.Stored)
	assert.Equal(t, 1, ne.Current)
	assert.Contains(t, err.Error(), "revision 3")

	err = v1.Put(ctx, db1, ticketV1{ID: "n", Customer: "c9"})
	require.ErrorIs(t, err, st.ErrConditionFailed, "old code's Put of a newer item")
	_, err = v1.Update(ctx, db1, ticketV1{ID: "n"}, st.Set("Customer", "c9"))
	require.ErrorIs(t, err, st.ErrConditionFailed, "old code's Update of a newer item")
	got, err := v2.Get(ctx, db2, ticketV2{ID: "n"})
	require.NoError(t, err)
	assert.Equal(t, ticketV2{ID: "n", CustomerID: "c1", Priority: 1}, got, "untouched by old code")

	// v1 best-effort reads what it knows.
	b1 := st.MustTable("Desk")
	best := st.MustDefine[ticketV1](b1, "Ticket", st.Key("T#{ID}", "T"), revision.Current(1), revision.ReadNewer())
	old, err := best.Get(ctx, st.New(db1.Client(), b1, st.WithTableName(db1.TableName())), ticketV1{ID: "n"})
	require.NoError(t, err)
	assert.Equal(t, ticketV1{ID: "n"}, old)

	// An Update of an older item is refused; a Put of the upgraded value
	// (read through the upgraders) makes it current.
	require.NoError(t, v1.Put(ctx, db1, ticketV1{ID: "o", Customer: "c2"}))
	_, err = v2.Update(ctx, db2, ticketV2{ID: "o"}, st.Set("Title", "t"))
	require.ErrorIs(t, err, st.ErrConditionFailed, "Update of an item at an older revision")
	up, err := v2.Get(ctx, db2, ticketV2{ID: "o"})
	require.NoError(t, err)
	require.NoError(t, v2.Put(ctx, db2, up))
	_, err = v2.Update(ctx, db2, ticketV2{ID: "o"}, st.Set("Title", "t"))
	require.NoError(t, err)
	assert.Equal(t, "3", revOf(rawItem(t, db2, "o")))
	assert.Equal(t, "c2", rawItem(t, db2, "o")["CustomerID"].(*types.AttributeValueMemberS).Value)
}

// TestRevisionRollingDeployConcurrent: old and new writers race on the
// same items; once the new code wrote an item, no old write lands on it.
func TestRevisionRollingDeployConcurrent(t *testing.T) {
	t1, v1, t2, v2 := models(t)
	db1, db2 := localDBs(t, t1, t2)
	ids := []string{"1", "2", "3", "4"}
	// The old writers keep writing until the new ones are done, and a round
	// past that: without the revision condition, their last writes land.
	newDone := make(chan struct{})
	var oldWG, newWG sync.WaitGroup
	for w := 0; w < 2; w++ {
		oldWG.Add(1)
		go func() {
			defer oldWG.Done()
			for i, extra := 0, len(ids); extra > 0; i++ {
				select {
				case <-newDone:
					extra--
				default:
				}
				err := v1.Put(ctx, db1, ticketV1{ID: ids[i%len(ids)], Customer: "old"})
				if err != nil && !errors.Is(err, st.ErrConditionFailed) {
					t.Errorf("old writer: %v", err)
					return
				}
			}
		}()
		newWG.Add(1)
		go func() {
			defer newWG.Done()
			for i := 0; i < 10; i++ {
				if err := v2.Put(ctx, db2, ticketV2{ID: ids[i%len(ids)], CustomerID: "new", Priority: 1}); err != nil {
					t.Errorf("new writer: %v", err)
				}
			}
		}()
	}
	newWG.Wait()
	close(newDone)
	oldWG.Wait()
	for _, id := range ids {
		raw := rawItem(t, db2, id)
		assert.Equal(t, "3", revOf(raw), id)
		_, hasOld := raw["Customer"]
		assert.False(t, hasOld, "item %s: an old write landed after a new one", id)
		got, err := v2.Get(ctx, db2, ticketV2{ID: id})
		require.NoError(t, err)
		assert.Equal(t, "new", got.CustomerID)
	}
}

// TestRevisionProjectedReads: a read with Project carries the revision
// attribute, so that a current item is not taken for a revision-0 one and
// upgraded again (the upgrader gave a stored Priority 0 the default 3),
// and an older item is still upgraded.
func TestRevisionProjectedReads(t *testing.T) {
	t1, v1, t2, v2 := models(t)
	db1, db2 := localDBs(t, t1, t2)
	require.NoError(t, v2.Put(ctx, db2, ticketV2{ID: "cur", Title: "current", Priority: 0}))
	require.NoError(t, v1.Put(ctx, db1, ticketV1{ID: "old", Customer: "c1", Title: "old"}))
	byID := v2.Pattern("ByID").Partition("T#{ID}").Must()
	for id, want := range map[string]ticketV2{"cur": {ID: "cur"}, "old": {ID: "old", Priority: 3}} {
		page, err := v2.Query(ctx, db2, ticketV2{ID: id}, st.Project("Priority"))
		require.NoError(t, err)
		require.Len(t, page.Items, 1)
		assert.Equal(t, want, page.Items[0], id)
		got, err := byID.Get(ctx, db2, ticketV2{ID: id}, st.Project("Priority"))
		require.NoError(t, err)
		assert.Equal(t, want, got, id)
	}
}

// TestRevisionMigrationsRefuseNewerItems: old code that reads newer items
// best-effort (ReadNewer) still cannot write them, and a migration or a
// backfill is a write: it fails the item instead of storing the old
// revision and the old index keys over the new ones.
func TestRevisionMigrationsRefuseNewerItems(t *testing.T) {
	t1 := st.MustTable("Desk", st.WithGSI("GSI1"))
	v1 := st.MustDefine[ticketV1](t1, "Ticket", st.Key("T#{ID}", "T"), st.Index("GSI1", "C#{Customer}", "T#{ID}"),
		revision.Current(1), revision.ReadNewer())
	t2 := st.MustTable("Desk", st.WithGSI("GSI1"))
	v2 := st.MustDefine[ticketV2](t2, "Ticket", st.Key("T#{ID}", "T"), st.Index("GSI1", "C#{CustomerID}", "T#{ID}"),
		revision.Current(2), revision.UpgradeItem(1, renameCustomer))
	db1, db2 := localDBs(t, t1, t2)
	require.NoError(t, v2.Put(ctx, db2, ticketV2{ID: "a", CustomerID: "c9", Title: "new"}))
	before := rawItem(t, db2, "a")

	rep, err := migrate.Run(ctx, db1, v1, func(_ context.Context, v *ticketV1) error {
		v.Title = "rewritten by old code"
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, int64(1), rep.Failed)
	require.Len(t, rep.Failures, 1)
	assert.ErrorIs(t, rep.Failures[0].Err, revision.ErrNewer)
	rep, err = migrate.BackfillIndex(ctx, db1, v1, "GSI1")
	require.NoError(t, err)
	assert.Equal(t, int64(1), rep.Failed)
	assert.Equal(t, before, rawItem(t, db2, "a"), "the newer item is as v2 wrote it")
}
