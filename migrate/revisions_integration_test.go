//go:build integration

package migrate_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/migrate"
	"github.com/singletable/singletable/revision"
	"github.com/singletable/singletable/singletabletest"
)

// loadRevisions stores counts[r] tickets at each revision r (their IDs
// r-i), as older code (or a newer one) wrote them.
func loadRevisions(t *testing.T, ctx context.Context, db *st.DB, e *st.Entity[revTicket], counts map[int]int) {
	t.Helper()
	for rev, k := range counts {
		for i := range k {
			_, err := db.Client().PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(db.TableName()), Item: revItem(t, e, fmt.Sprintf("%d-%d", rev, i), rev)})
			require.NoError(t, err)
		}
	}
}

// storedRevisions counts the table's tickets by their stored revision
// attribute (0: none), and checks that no upgraded one kept the old
// customer attribute.
func storedRevisions(t *testing.T, ctx context.Context, db *st.DB) map[int]int64 {
	t.Helper()
	out, err := db.Client().Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(db.TableName()), ConsistentRead: aws.Bool(true)})
	require.NoError(t, err)
	got := map[int]int64{}
	for _, item := range out.Items {
		rev := 0
		if r, ok := item["_rev"].(*types.AttributeValueMemberN); ok {
			_, err := fmt.Sscan(r.Value, &rev)
			require.NoError(t, err)
		}
		if _, old := item["Customer"]; old && rev > 0 {
			t.Errorf("item %v at revision %d kept the old Customer attribute", item["PK"], rev)
		}
		got[rev]++
	}
	return got
}

// TestIntegrationUpgradeRevisions: a pass over items at revisions 0, 1, 2
// and a newer 3 upgrades the older ones, counts each revision before and
// after, reports the newer one, and a second pass finds nothing to do.
func TestIntegrationUpgradeRevisions(t *testing.T) {
	ctx := context.Background()
	e := revTickets()
	db := singletabletest.LocalDB(t, e.Table())
	loadRevisions(t, ctx, db, e, map[int]int{0: 5, 1: 4, 2: 3, 3: 1})

	dry, err := migrate.UpgradeRevisions(ctx, db, e, migrate.DryRun())
	require.NoError(t, err)
	assert.Equal(t, map[int]int64{0: 5, 1: 4, 2: 3, 3: 1}, storedRevisions(t, ctx, db), "a dry run writes nothing")
	assert.Equal(t, int64(9), dry.Changed)

	rep, err := migrate.UpgradeRevisions(ctx, db, e, migrate.Segments(2), migrate.PageSize(4))
	require.NoError(t, err)
	assert.Equal(t, map[int]int64{0: 5, 1: 4, 2: 3, 3: 1}, rep.RevisionsBefore)
	assert.Equal(t, map[int]int64{2: 12, 3: 1}, rep.RevisionsAfter)
	assert.Equal(t, [4]int64{13, 9, 3, 1}, [4]int64{rep.Scanned, rep.Changed, rep.Skipped, rep.Failed})
	require.Len(t, rep.Failures, 1)
	var ne *revision.NewerError
	require.ErrorAs(t, rep.Failures[0].Err, &ne)
	assert.Equal(t, [2]int{3, 2}, [2]int{ne.Stored, ne.Current})
	assert.Equal(t, map[int]int64{2: 12, 3: 1}, storedRevisions(t, ctx, db))
	got, err := e.Get(ctx, db, revTicket{ID: "0-1"})
	require.NoError(t, err)
	assert.Equal(t, revTicket{ID: "0-1", CustomerID: "c-0-1", Title: "t", Priority: 3}, got)

	again, err := migrate.UpgradeRevisions(ctx, db, e)
	require.NoError(t, err)
	assert.Equal(t, [3]int64{0, 12, 1}, [3]int64{again.Changed, again.Skipped, again.Failed})
}

// TestIntegrationUpgradeRevisionsResume: a pass that crashes half-way
// resumes from its checkpoint and upgrades each item once.
func TestIntegrationUpgradeRevisionsResume(t *testing.T) {
	ctx := context.Background()
	e := revTickets()
	db := singletabletest.LocalDB(t, e.Table())
	loadRevisions(t, ctx, db, e, map[int]int{0: 12, 1: 8, 2: 4})

	store := &memStore{}
	cctx, cancel := context.WithCancel(ctx)
	seen := 0
	// One segment at a time: no write is in flight when the context is
	// cancelled (before the write of the 10th change), so the counts are
	// exact.
	rep1, err := migrate.UpgradeRevisions(cctx, db, e, migrate.Segments(3), migrate.Concurrency(1), migrate.PageSize(3),
		migrate.SaveCheckpoints(store, 0), migrate.OnChange(func(migrate.Change) {
			if seen++; seen == 10 {
				cancel() // the crash
			}
		}))
	require.ErrorIs(t, err, context.Canceled)
	require.NotEmpty(t, store.pos)
	assert.Equal(t, int64(9), rep1.Changed)

	rep2, err := migrate.UpgradeRevisions(ctx, db, e, migrate.Segments(3), migrate.PageSize(3), migrate.SaveCheckpoints(store, 0))
	require.NoError(t, err)
	assert.Empty(t, rep2.Failures)
	assert.Equal(t, int64(20), rep1.Changed+rep2.Changed, "every older item upgraded once across the runs")
	assert.Less(t, rep2.Scanned, int64(24), "the resumed pass does not read everything again")
	assert.Equal(t, map[int]int64{2: 24}, storedRevisions(t, ctx, db))
}

// TestIntegrationUpgradeRevisionsConcurrentWriter: items changed between
// the pass's read and its write are read again: one that new code
// rewrote is left as written, one still old but changed is upgraded with
// its change.
func TestIntegrationUpgradeRevisionsConcurrentWriter(t *testing.T) {
	ctx := context.Background()
	e := revTickets()
	db := singletabletest.LocalDB(t, e.Table())
	loadRevisions(t, ctx, db, e, map[int]int{0: 2})

	rep, err := migrate.UpgradeRevisions(ctx, db, e, migrate.BeforeWrite(func(ctx context.Context, key map[string]types.AttributeValue) {
		switch key["PK"].(*types.AttributeValueMemberS).Value {
		case "T#0-0": // new code's Put of the item
			require.NoError(t, e.Put(ctx, db, revTicket{ID: "0-0", CustomerID: "new", Title: "put", Priority: 1}))
		case "T#0-1": // old code's change: still revision 0
			old := revItem(t, e, "0-1", 0)
			old["Title"] = s("changed")
			_, err := db.Client().PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(db.TableName()), Item: old})
			require.NoError(t, err)
		}
	}), migrate.MaxRetries(1))
	require.NoError(t, err)
	assert.Empty(t, rep.Failures)
	assert.Equal(t, [4]int64{1, 1, 2, 2}, [4]int64{rep.Changed, rep.Skipped, rep.Retried, rep.RevisionsAfter[2]}, "each item read again once")
	got, err := e.Get(ctx, db, revTicket{ID: "0-0"})
	require.NoError(t, err)
	assert.Equal(t, revTicket{ID: "0-0", CustomerID: "new", Title: "put", Priority: 1}, got, "new code's write stands")
	got, err = e.Get(ctx, db, revTicket{ID: "0-1"})
	require.NoError(t, err)
	assert.Equal(t, revTicket{ID: "0-1", CustomerID: "c-0-1", Title: "changed", Priority: 3}, got, "the change upgraded, not lost")
	assert.Equal(t, map[int]int64{2: 2}, storedRevisions(t, ctx, db))
}

// movedTicket is stored under a sort key its revision 2 renames.
type movedTicket struct {
	ID   string `dynamodbav:"id"`
	Name string `dynamodbav:"name"`
}

// TestIntegrationUpgradeRevisionsMovingKeys: an upgrade that moves each
// item to a new key counts each item once (the scan meeting a moved item
// again at its new key neither handles nor counts it), and a second pass
// finds them all current.
func TestIntegrationUpgradeRevisionsMovingKeys(t *testing.T) {
	ctx := context.Background()
	v1 := st.MustDefine[movedTicket](st.MustTable("Moves"), "K", st.Key("P", "K#{ID}"), revision.Current(1))
	v2 := st.MustDefine[movedTicket](st.MustTable("Moves"), "K", st.Key("P", "K2#{ID}"), revision.Current(2))
	db1 := singletabletest.LocalDB(t, v1.Table())
	db2 := st.New(db1.Client(), v2.Table(), st.WithTableName(db1.TableName()))
	for i := range 10 {
		require.NoError(t, v1.Create(ctx, db1, movedTicket{ID: fmt.Sprint(i), Name: "n"}))
	}

	rep, err := migrate.UpgradeRevisions(ctx, db2, v2, migrate.PageSize(3))
	require.NoError(t, err)
	assert.Equal(t, [4]int64{10, 10, 0, 0}, [4]int64{rep.Scanned, rep.Changed, rep.Skipped, rep.Failed})
	assert.Equal(t, map[int]int64{1: 10}, rep.RevisionsBefore)
	assert.Equal(t, map[int]int64{2: 10}, rep.RevisionsAfter)
	assert.Equal(t, map[int]int64{2: 10}, storedRevisions(t, ctx, db2))

	again, err := migrate.UpgradeRevisions(ctx, db2, v2)
	require.NoError(t, err)
	assert.Equal(t, [3]int64{0, 10, 0}, [3]int64{again.Changed, again.Skipped, again.Failed})
}
