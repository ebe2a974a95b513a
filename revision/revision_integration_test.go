//go:build integration

package revision_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
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

// The models of a rolling deploy that adds an index: v1 (revision 1)
// keeps a ticket's customer and its unique email but knows no index; v2
// (revision 2) lists tickets by customer in GSI1. v1's Update of a
// customer on an item v2 wrote would leave GSI1 under the old customer
// (the helpdesk report), and a refused write must not move a
// guard either.
type agentTicketV1 struct {
	ID         string
	CustomerID string
	Email      string
}

type agentTicketV2 struct {
	ID         string
	CustomerID string
	Email      string
	Priority   int
}

func indexedModels() (*st.Table, *st.Entity[agentTicketV1], *st.Table, *st.Entity[agentTicketV2], *st.Pattern[agentTicketV2]) {
	t1 := st.MustTable("Desk")
	v1 := st.MustDefine[agentTicketV1](t1, "Ticket", st.Key("T#{ID}", "T"), st.Unique("Email"), revision.Current(1))
	t2 := st.MustTable("Desk", st.WithGSI("GSI1"))
	v2 := st.MustDefine[agentTicketV2](t2, "Ticket", st.Key("T#{ID}", "T"), st.Unique("Email"),
		st.Index("GSI1", "CUST#{CustomerID}", "T#{ID}"), revision.Current(2),
		revision.Upgrade(1, func(v *agentTicketV2) error {
			if v.Priority == 0 {
				v.Priority = 3
			}
			return nil
		}))
	return t1, v1, t2, v2, v2.Pattern("ByCustomer").On("GSI1").Partition("CUST#{CustomerID}").Must()
}

// raceErr reports whether err is what a write racing other writers may
// get: refused by a condition (a newer revision, an email moved since the
// Update read it) or a transaction conflict. A real service retries.
func raceErr(err error) bool {
	return err == nil || errors.Is(err, st.ErrConditionFailed) || errors.Is(err, st.ErrTransactionConflict) || errors.Is(err, st.ErrReadChanged)
}

// TestRevisionRollingDeployIndexAndGuard: v1 and v2 writers race on the
// same tickets, both moving their customer and their unique email (a
// guard item each), v2 also writing GSI1's keys. At the end every ticket
// is at revision 2, GSI1 lists each under its stored customer and nowhere
// else, and the guard items are exactly the stored emails, each naming its
// ticket: no v1 write landed on an item v2 wrote, and no refused write
// moved a guard.
func TestRevisionRollingDeployIndexAndGuard(t *testing.T) {
	t1, v1, t2, v2, byCustomer := indexedModels()
	client, err := ddblocal.Client(ctx)
	require.NoError(t, err)
	name := ddblocal.UniqueName("rev")
	db2 := st.New(client, t2, st.WithTableName(name))
	require.NoError(t, db2.EnsureTable(ctx))
	t.Cleanup(func() { _ = db2.DeleteTable(ctx) })
	db1 := st.New(client, t1, st.WithTableName(name))
	ids := []string{"1", "2", "3", "4"}
	for _, id := range ids {
		require.NoError(t, v1.Create(ctx, db1, agentTicketV1{ID: id, CustomerID: "old-0", Email: "o0-" + id + "@x"}))
	}

	newDone := make(chan struct{})
	var oldWG, newWG sync.WaitGroup
	for w := range 2 {
		oldWG.Add(1)
		go func() { // v1: moves the customer, and every other time the email, until a round past the end of v2's writes
			defer oldWG.Done()
			for i, extra := 0, len(ids); extra > 0; i++ {
				select {
				case <-newDone:
					extra--
				default:
				}
				id := ids[i%len(ids)]
				ch := st.Set("CustomerID", fmt.Sprintf("old-%d", w))
				if i%2 == 1 {
					ch = ch.Set("Email", fmt.Sprintf("o%d.%d-%s@x", w, i, id))
				}
				_, err := v1.Update(ctx, db1, agentTicketV1{ID: id}, ch)
				// An Update that moves a guard reads the item first: a newer
				// one is refused there. Only the write's condition refuses
				// one that sets the customer alone (the report).
				if !raceErr(err) && !errors.Is(err, revision.ErrNewer) {
					t.Errorf("v1 writer: %v", err)
					return
				}
			}
		}()
		newWG.Add(1)
		go func() { // v2: the same, upgrading an older item first (read, Put)
			defer newWG.Done()
			for i := range 3 * len(ids) {
				id := ids[i%len(ids)]
				for {
					_, err := v2.Update(ctx, db2, agentTicketV2{ID: id},
						st.Set("CustomerID", fmt.Sprintf("new-%d", w)).Set("Email", fmt.Sprintf("n%d.%d-%s@x", w, i, id)))
					if err == nil {
						break
					}
					if !raceErr(err) {
						t.Errorf("v2 writer: %v", err)
						return
					}
					up, err := v2.Get(ctx, db2, agentTicketV2{ID: id})
					if err != nil {
						t.Errorf("v2 writer's read: %v", err)
						return
					}
					if err := v2.Put(ctx, db2, up); !raceErr(err) {
						t.Errorf("v2 writer's upgrade: %v", err)
						return
					}
				}
			}
		}()
	}
	newWG.Wait()
	close(newDone)
	oldWG.Wait()

	// The stored state, raw: each ticket's customer, email and index key;
	// the guard items and the ticket each names.
	stored := map[string]map[string]types.AttributeValue{}
	guards := map[string]string{} // guard key → owner PK
	scan, err := client.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(name), ConsistentRead: aws.Bool(true)})
	require.NoError(t, err)
	require.Empty(t, scan.LastEvaluatedKey, "one page holds this table")
	for _, item := range scan.Items {
		pk := item["PK"].(*types.AttributeValueMemberS).Value
		if owner, ok := item["_ownerPK"].(*types.AttributeValueMemberS); ok {
			guards[pk] = owner.Value
			continue
		}
		stored[pk] = item
	}
	require.Len(t, stored, len(ids))
	wantGuards := map[string]string{}
	wantIndex := map[string][]string{}
	for _, id := range ids {
		item := stored["T#"+id]
		s := func(a string) string {
			v, _ := item[a].(*types.AttributeValueMemberS)
			require.NotNil(t, v, "ticket %s has no %s: %v", id, a, item)
			return v.Value
		}
		assert.Equal(t, "2", revOf(item), "ticket %s: a v1 write landed after v2's", id)
		customer := s("CustomerID")
		assert.True(t, strings.HasPrefix(customer, "new-"), "ticket %s: customer %q written by v1 after v2", id, customer)
		assert.Equal(t, "CUST#"+customer, s("GSI1PK"), "ticket %s: its GSI1 key is stale", id)
		wantIndex[customer] = append(wantIndex[customer], id)
		wantGuards["_unique#Ticket#Email#"+s("Email")] = "T#" + id
	}
	assert.Equal(t, wantGuards, guards, "the guard items are exactly the stored emails, each naming its ticket")
	for _, customer := range []string{"old-0", "old-1", "new-0", "new-1"} {
		var got []string
		for v, err := range byCustomer.All(ctx, db2, agentTicketV2{CustomerID: customer}) {
			require.NoError(t, err)
			assert.Equal(t, 3, v.Priority, "read through GSI1 in revision 2's shape")
			got = append(got, v.ID)
		}
		assert.Equal(t, wantIndex[customer], got, "GSI1 under %s", customer)
	}
}

// TestRevisionFetchFullUpgrades: a read of a keys-only index with
// FetchFull decodes whole items, which are upgraded like any other, a
// revision-0 one (no revision attribute) too; without FetchFull the index
// item is partial and decoded as it is.
func TestRevisionFetchFullUpgrades(t *testing.T) {
	t1 := st.MustTable("Desk", st.WithGSI("GSI1", st.KeysOnly()))
	v1 := st.MustDefine[ticketV1](t1, "Ticket", st.Key("T#{ID}", "T"), st.Index("GSI1", "C#{Customer}", "T#{ID}"), revision.Current(1))
	t2 := st.MustTable("Desk", st.WithGSI("GSI1", st.KeysOnly()))
	v2 := st.MustDefine[ticketV2](t2, "Ticket", st.Key("T#{ID}", "T"), st.Index("GSI1", "C#{CustomerID}", "T#{ID}"), revision.Current(3),
		revision.UpgradeItem(1, renameCustomer),
		revision.Upgrade(2, func(v *ticketV2) error {
			if v.Priority == 0 {
				v.Priority = 3
			}
			return nil
		}))
	byCustomer := v2.Pattern("ByCustomer").On("GSI1").Partition("C#{CustomerID}").Must()
	db1, db2 := localDBs(t, t1, t2)
	require.NoError(t, v1.Put(ctx, db1, ticketV1{ID: "a", Customer: "c1", Title: "A"}))
	_, err := db1.Client().PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(db1.TableName()), Item: map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "T#b"}, "SK": &types.AttributeValueMemberS{Value: "T"}, "_type": &types.AttributeValueMemberS{Value: "Ticket"},
		"GSI1PK": &types.AttributeValueMemberS{Value: "C#c1"}, "GSI1SK": &types.AttributeValueMemberS{Value: "T#b"},
		"ID": &types.AttributeValueMemberS{Value: "b"}, "Customer": &types.AttributeValueMemberS{Value: "c1"}}})
	require.NoError(t, err)

	page, err := byCustomer.Query(ctx, db2, ticketV2{CustomerID: "c1"}, st.FetchFull())
	require.NoError(t, err)
	assert.Equal(t, []ticketV2{{ID: "a", CustomerID: "c1", Title: "A", Priority: 3}, {ID: "b", CustomerID: "c1", Priority: 3}}, page.Items,
		"revision 1 and revision 0 (no attribute), fetched whole")
	page, err = byCustomer.Query(ctx, db2, ticketV2{CustomerID: "c1"})
	require.NoError(t, err)
	assert.Equal(t, []ticketV2{{ID: "a", CustomerID: "c1"}, {ID: "b", CustomerID: "c1"}}, page.Items, "the keys alone, as they are")
}

// An upgrade that changes a unique value: the pass cannot move guards and
// an Update of an older item is refused, so the item is upgraded by a read
// and a Put, which must move the guard of the value as stored (not as the
// upgrade read it).
func TestRevisionPutMovesGuardOfUpgradedValue(t *testing.T) {
	type user struct {
		ID    string
		Email string `singletable:"unique"`
	}
	t1 := st.MustTable("Desk")
	v1 := st.MustDefine[user](t1, "User", st.Key("T#{ID}", "T"), revision.Current(1))
	t2 := st.MustTable("Desk")
	v2 := st.MustDefine[user](t2, "User", st.Key("T#{ID}", "T"), revision.Current(2),
		revision.Upgrade(1, func(u *user) error { u.Email = strings.ToLower(u.Email); return nil }))
	db1, db2 := localDBs(t, t1, t2)
	require.NoError(t, v1.Create(ctx, db1, user{ID: "1", Email: "Ann@X"}))

	rep, err := migrate.UpgradeRevisions(ctx, db2, v2)
	require.NoError(t, err)
	require.Len(t, rep.Failures, 1)
	assert.ErrorIs(t, rep.Failures[0].Err, st.ErrInvalidInput)
	assert.Contains(t, rep.Failures[0].Err.Error(), "read it (which upgrades it) and Put it", "the pass says how to upgrade it: an Update of an older item is refused")
	_, err = v2.Update(ctx, db2, user{ID: "1"}, st.Set("Email", "ann@x"))
	require.ErrorIs(t, err, revision.ErrOlder)

	u, err := v2.Get(ctx, db2, user{ID: "1"})
	require.NoError(t, err)
	require.Equal(t, "ann@x", u.Email)
	require.NoError(t, v2.Put(ctx, db2, u), "a Put of the upgraded value moves the guard of the stored one")
	assert.Equal(t, "2", revOf(rawItem(t, db2, "1")))
	assert.Equal(t, []string{"T#1", "_unique#User#Email#ann@x"}, partitions(t, db2), "the guard moved with the value")
	require.NoError(t, v1.Create(ctx, db1, user{ID: "2", Email: "Ann@X"}), "the old value is free again")
}

// partitions are the partition keys of the table's items, sorted.
func partitions(t *testing.T, db *st.DB) []string {
	t.Helper()
	out, err := db.Client().Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(db.TableName()), ConsistentRead: aws.Bool(true)})
	require.NoError(t, err)
	var pks []string
	for _, item := range out.Items {
		pks = append(pks, item["PK"].(*types.AttributeValueMemberS).Value)
	}
	slices.Sort(pks)
	return pks
}
