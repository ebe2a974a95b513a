//go:build integration

package migrate_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/testmodel"
	"github.com/singletable/singletable/migrate"
	"github.com/singletable/singletable/singletabletest"
)

// memStore is a CheckpointStore in memory.
type memStore struct {
	mu    sync.Mutex
	pos   string
	saves int
}

func (s *memStore) Load(context.Context) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pos, nil
}

func (s *memStore) Save(_ context.Context, p string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pos, s.saves = p, s.saves+1
	return nil
}

// v2DB is the v2 model on the v1 table of db, its missing index added.
func v2DB(t *testing.T, ctx context.Context, db *st.DB) (*st.DB, *testmodel.MigModel) {
	t.Helper()
	m2 := testmodel.NewMigModel(t, true)
	db2 := st.New(db.Client(), m2.Table, st.WithTableName(db.TableName()))
	require.ErrorIs(t, db2.EnsureTable(ctx), st.ErrSchemaMismatch, "without AddMissingIndexes the index stays missing")
	require.NoError(t, db2.EnsureTable(ctx, st.AddMissingIndexes()))
	require.NoError(t, db2.EnsureTable(ctx), "the table now matches the model")
	return db2, m2
}

func ownerDocs(t *testing.T, ctx context.Context, db *st.DB, m *testmodel.MigModel, owner string) map[string]testmodel.MigDoc {
	t.Helper()
	out := map[string]testmodel.MigDoc{}
	for d, err := range m.ByOwner.All(ctx, db, testmodel.MigDoc{Owner: owner}) {
		require.NoError(t, err)
		out[d.ID] = testmodel.SortedTags(d)
	}
	return out
}

func TestIntegrationEnsureTableAddsIndexAndBackfill(t *testing.T) {
	ctx := context.Background()
	m1 := testmodel.NewMigModel(t, false)
	db1 := singletabletest.LocalDB(t, m1.Table)
	const n = 150
	testmodel.LoadDocs(t, ctx, db1, m1, n)
	db2, m2 := v2DB(t, ctx, db1)
	assert.Empty(t, ownerDocs(t, ctx, db2, m2, "o1"), "the items lack the new index's keys")

	// A dry run reports every item and changes nothing.
	var changes atomic.Int64
	rep, err := migrate.BackfillIndex(ctx, db2, m2.Docs, "GSI1", migrate.DryRun(), migrate.Segments(3),
		migrate.OnChange(func(c migrate.Change) {
			changes.Add(1)
			assert.Equal(t, []string{"GSI1PK", "GSI1SK"}, c.Attributes)
			assert.Nil(t, c.NewKey)
		}))
	require.NoError(t, err)
	assert.Equal(t, migrate.Report{Entity: "Doc", DryRun: true, Scanned: n, Changed: n, ConsumedCapacity: rep.ConsumedCapacity, Position: rep.Position}, *rep)
	assert.Equal(t, int64(n), changes.Load())
	assert.Empty(t, ownerDocs(t, ctx, db2, m2, "o1"), "a dry run writes nothing")

	rep, err = migrate.BackfillIndex(ctx, db2, m2.Docs, "GSI1", migrate.Segments(3), migrate.PageSize(20))
	require.NoError(t, err)
	assert.Equal(t, int64(n), rep.Scanned)
	assert.Equal(t, int64(n), rep.Changed)
	assert.Empty(t, rep.Failures)
	assert.Positive(t, rep.ConsumedCapacity.Total())
	total := 0
	for o := range 3 {
		got := ownerDocs(t, ctx, db2, m2, fmt.Sprint("o", o))
		total += len(got)
		for _, d := range got {
			assert.Equal(t, testmodel.MigTestDoc(d.N), d)
		}
	}
	assert.Equal(t, n, total)

	// Again: everything is in shape already.
	rep, err = migrate.BackfillIndex(ctx, db2, m2.Docs, "GSI1", migrate.Segments(2))
	require.NoError(t, err)
	assert.Equal(t, int64(n), rep.Skipped)
	assert.Zero(t, rep.Changed)

	_, err = migrate.BackfillIndex(ctx, db2, m2.Notes, "GSI1")
	assert.ErrorIs(t, err, st.ErrInvalidInput, "notes write no key into GSI1")
	_, err = migrate.BackfillIndex(ctx, db2, m2.Docs, "GSI9")
	assert.ErrorIs(t, err, st.ErrInvalidInput)
}

// TestIntegrationMigrateConcurrentWrites changes an item between the
// migration's read and its write: the migration's write must fail its
// condition, read the item again and migrate the new content.
func TestIntegrationMigrateConcurrentWrites(t *testing.T) {
	ctx := context.Background()
	m1 := testmodel.NewMigModel(t, false)
	db1 := singletabletest.LocalDB(t, m1.Table)
	testmodel.LoadDocs(t, ctx, db1, m1, 12)
	for i := range 5 {
		require.NoError(t, m1.VDocs.Put(ctx, db1, testmodel.MigVDoc{ID: testmodel.MigDocID(i), Owner: "o", Title: fmt.Sprint("v", i)}))
	}
	db2, m2 := v2DB(t, ctx, db1)
	target := testmodel.MigDocID(4)
	upper := func(_ context.Context, d *testmodel.MigDoc) error { d.Title = strings.ToUpper(d.Title); return nil }

	t.Run("all-attributes condition", func(t *testing.T) {
		var once sync.Once
		hook := migrate.BeforeWrite(func(ctx context.Context, key map[string]types.AttributeValue) {
			if key["PK"].(*types.AttributeValueMemberS).Value != "DOC#"+escapedID(target) {
				return
			}
			once.Do(func() {
				d := testmodel.MigTestDoc(4)
				d.Title = "changed meanwhile"
				require.NoError(t, m1.Docs.Put(ctx, db1, d))
			})
		})
		rep, err := migrate.Run(ctx, db2, m2.Docs, upper, hook)
		require.NoError(t, err)
		assert.Equal(t, int64(1), rep.Retried)
		assert.Equal(t, int64(12), rep.Changed)
		got, err := m2.Docs.Get(ctx, db2, testmodel.MigDoc{ID: target})
		require.NoError(t, err)
		assert.Equal(t, "CHANGED MEANWHILE", got.Title, "the change made meanwhile is migrated, not overwritten")
		assert.Len(t, ownerDocs(t, ctx, db2, m2, "o1"), 4)
	})

	t.Run("version condition", func(t *testing.T) {
		var once sync.Once
		hook := migrate.BeforeWrite(func(ctx context.Context, key map[string]types.AttributeValue) {
			if key["PK"].(*types.AttributeValueMemberS).Value != "VDOC#"+escapedID(target) {
				return
			}
			once.Do(func() {
				cur, err := m1.VDocs.Get(ctx, db1, testmodel.MigVDoc{ID: target})
				require.NoError(t, err)
				cur.Title = "changed meanwhile"
				require.NoError(t, m1.VDocs.Put(ctx, db1, cur))
			})
		})
		rep, err := migrate.Run(ctx, db2, m2.VDocs, func(_ context.Context, d *testmodel.MigVDoc) error {
			d.Title = strings.ToUpper(d.Title)
			return nil
		}, hook)
		require.NoError(t, err)
		assert.Equal(t, int64(1), rep.Retried)
		assert.Equal(t, int64(5), rep.Changed)
		got, err := m2.VDocs.Get(ctx, db2, testmodel.MigVDoc{ID: target})
		require.NoError(t, err)
		assert.Equal(t, "CHANGED MEANWHILE", got.Title)
		assert.Equal(t, int64(3), got.Version, "1 by the first Put, 2 by the concurrent one, 3 by the migration")
		var n int
		for _, err := range m2.VByOwner.All(ctx, db2, testmodel.MigVDoc{Owner: "o"}) {
			require.NoError(t, err)
			n++
		}
		assert.Equal(t, 5, n)
	})

	t.Run("retries run out", func(t *testing.T) {
		hook := migrate.BeforeWrite(func(ctx context.Context, key map[string]types.AttributeValue) {
			d := testmodel.MigTestDoc(1)
			d.Title = fmt.Sprint("other writer ", time.Now().UnixNano())
			require.NoError(t, m1.Docs.Put(ctx, db1, d))
		})
		rep, err := migrate.Run(ctx, db2, m2.Docs, func(_ context.Context, d *testmodel.MigDoc) error {
			if d.ID != testmodel.MigDocID(1) {
				return migrate.ErrSkipItem
			}
			d.Title = "migrated"
			return nil
		}, hook, migrate.MaxRetries(2))
		require.NoError(t, err)
		assert.Equal(t, int64(1), rep.Failed)
		assert.Equal(t, int64(2), rep.Retried)
		assert.Equal(t, int64(11), rep.Skipped)
		require.Len(t, rep.Failures, 1)
		assert.ErrorContains(t, rep.Failures[0].Err, "kept changing")
		got, err := m2.Docs.Get(ctx, db2, testmodel.MigDoc{ID: testmodel.MigDocID(1)})
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(got.Title, "other writer"), "the other writer's value stays: %q", got.Title)
	})

	t.Run("deleted meanwhile", func(t *testing.T) {
		hook := migrate.BeforeWrite(func(ctx context.Context, key map[string]types.AttributeValue) {
			require.NoError(t, m1.Docs.Delete(ctx, db1, testmodel.MigDoc{ID: testmodel.MigDocID(2)}))
		})
		rep, err := migrate.Run(ctx, db2, m2.Docs, func(_ context.Context, d *testmodel.MigDoc) error {
			if d.ID != testmodel.MigDocID(2) {
				return migrate.ErrSkipItem
			}
			d.Title = "resurrected?"
			return nil
		}, hook)
		require.NoError(t, err)
		assert.Equal(t, int64(12), rep.Skipped)
		_, err = m2.Docs.Get(ctx, db2, testmodel.MigDoc{ID: testmodel.MigDocID(2)})
		assert.ErrorIs(t, err, st.ErrNotFound, "a deleted item is not written back")
	})
}

// escapedID is testmodel.MigDocID(i) as the key holds it.
func escapedID(id string) string {
	return strings.NewReplacer("%", "%25", "#", "%23").Replace(id)
}

func TestIntegrationMigrateResume(t *testing.T) {
	ctx := context.Background()
	m1 := testmodel.NewMigModel(t, false)
	db1 := singletabletest.LocalDB(t, m1.Table)
	const n = 200
	testmodel.LoadDocs(t, ctx, db1, m1, n)
	db2, m2 := v2DB(t, ctx, db1)
	// An idempotent transform: it computes the target shape.
	upper := func(_ context.Context, d *testmodel.MigDoc) error { d.Title = strings.ToUpper(d.Title); return nil }

	store := &memStore{}
	cctx, cancel := context.WithCancel(ctx)
	var handled atomic.Int64
	rep1, err := migrate.Run(cctx, db2, m2.Docs, func(ctx context.Context, d *testmodel.MigDoc) error {
		if handled.Add(1) == n/2 {
			cancel() // the crash
		}
		return upper(ctx, d)
		// One segment at a time: no write is in flight when the context
		// is cancelled, so that the counts below are exact.
	}, migrate.Segments(3), migrate.Concurrency(1), migrate.PageSize(15), migrate.SaveCheckpoints(store, 0))
	require.ErrorIs(t, err, context.Canceled)
	require.NotEmpty(t, store.pos)
	assert.Equal(t, rep1.Position, store.pos)
	assert.Less(t, rep1.Changed, int64(n))

	rep2, err := migrate.Run(ctx, db2, m2.Docs, upper, migrate.Segments(3), migrate.PageSize(15), migrate.SaveCheckpoints(store, 0))
	require.NoError(t, err)
	assert.Empty(t, rep2.Failures)
	assert.Equal(t, int64(n), rep1.Changed+rep2.Changed, "every item changed once across the runs")
	assert.Less(t, rep2.Scanned, int64(n), "the resumed run does not read everything again")

	total := 0
	for o := range 3 {
		got := ownerDocs(t, ctx, db2, m2, fmt.Sprint("o", o))
		total += len(got)
		for _, d := range got {
			assert.Equal(t, fmt.Sprint("o", o), d.Owner)
			want := testmodel.MigTestDoc(d.N)
			want.Title = strings.ToUpper(want.Title)
			assert.Equal(t, want, d)
		}
	}
	assert.Equal(t, n, total)

	// A completed migration's store resumes to nothing.
	rep3, err := migrate.Run(ctx, db2, m2.Docs, upper, migrate.Segments(3), migrate.PageSize(15), migrate.SaveCheckpoints(store, 0))
	require.NoError(t, err)
	assert.Zero(t, rep3.Scanned)
}

// TestIntegrationMigrateMovesKeys changes the primary key template: each
// item moves to its new key in one transaction.
func TestIntegrationMigrateMovesKeys(t *testing.T) {
	ctx := context.Background()
	m1 := testmodel.NewMigModel(t, false)
	db1 := singletabletest.LocalDB(t, m1.Table)
	testmodel.LoadDocs(t, ctx, db1, m1, 9)

	t2, err := st.NewTable("MigDocs")
	require.NoError(t, err)
	moved := st.MustDefine[testmodel.MigDoc](t2, "Doc", st.Key("DOC#{Owner}#{ID}", "DOC"))
	db2 := st.New(db1.Client(), t2, st.WithTableName(db1.TableName()))
	rep, err := migrate.Run(ctx, db2, moved, func(context.Context, *testmodel.MigDoc) error { return nil })
	require.NoError(t, err)
	assert.Equal(t, int64(9), rep.Changed)
	assert.Empty(t, rep.Failures)
	for i := range 9 {
		got, err := moved.Get(ctx, db2, testmodel.MigDoc{ID: testmodel.MigDocID(i), Owner: testmodel.MigTestDoc(i).Owner})
		require.NoError(t, err)
		assert.Equal(t, testmodel.MigTestDoc(i), testmodel.SortedTags(got))
		_, err = m1.Docs.Get(ctx, db1, testmodel.MigDoc{ID: testmodel.MigDocID(i)})
		assert.ErrorIs(t, err, st.ErrNotFound, "the old item is gone")
	}
	out, err := db1.Client().(*dynamodb.Client).Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(db1.TableName()), Select: types.SelectCount})
	require.NoError(t, err)
	assert.Equal(t, int32(9+3), out.Count, "9 docs and 3 notes")
}

// unknownAttrs are attributes of every type that no model of the
// migration tests declares: written by other code, they must survive.
func unknownAttrs() map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		"legacyNote": &types.AttributeValueMemberS{Value: "kept"},
		"legacyN":    &types.AttributeValueMemberN{Value: "42"},
		"legacyB":    &types.AttributeValueMemberB{Value: []byte{1, 2}},
		"legacyBool": &types.AttributeValueMemberBOOL{Value: true},
		"legacyNull": &types.AttributeValueMemberNULL{Value: true},
		"legacyL":    &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberS{Value: "x"}}},
		"legacyM":    &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"k": &types.AttributeValueMemberN{Value: "1"}}},
		"legacySS":   &types.AttributeValueMemberSS{Value: []string{"a"}},
		"legacyNS":   &types.AttributeValueMemberNS{Value: []string{"7"}},
		"legacyBS":   &types.AttributeValueMemberBS{Value: [][]byte{{9}}},
	}
}

// addUnknown writes unknownAttrs into the stored item at pk/sk, as a raw
// UpdateItem of another service would.
func addUnknown(t *testing.T, ctx context.Context, db *st.DB, pk, sk string) {
	t.Helper()
	var sets []string
	names, values := map[string]string{}, map[string]types.AttributeValue{}
	i := 0
	for a, av := range unknownAttrs() {
		names[fmt.Sprint("#a", i)], values[fmt.Sprint(":v", i)] = a, av
		sets = append(sets, fmt.Sprintf("#a%d = :v%d", i, i))
		i++
	}
	_, err := db.Client().UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:        aws.String(db.TableName()),
		Key:              map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: pk}, "SK": &types.AttributeValueMemberS{Value: sk}},
		UpdateExpression: aws.String("SET " + strings.Join(sets, ", ")), ConditionExpression: aws.String("attribute_exists(PK)"),
		ExpressionAttributeNames: names, ExpressionAttributeValues: values,
	})
	require.NoError(t, err)
}

// assertUnknownKept reads the stored item at pk/sk raw and checks that
// every unknown attribute is there, as written.
func assertUnknownKept(t *testing.T, ctx context.Context, db *st.DB, pk, sk string) {
	t.Helper()
	out, err := db.Client().GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(db.TableName()), ConsistentRead: aws.Bool(true),
		Key: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: pk}, "SK": &types.AttributeValueMemberS{Value: sk}}})
	require.NoError(t, err)
	require.NotNil(t, out.Item, "item %s/%s", pk, sk)
	for a, want := range unknownAttrs() {
		assert.Equal(t, want, out.Item[a], "attribute %s of %s", a, pk)
	}
}

// TestIntegrationMigrateKeepsUnknownAttributes: a backfill, a migration
// in place and one that moves the key keep the attributes the struct does
// not name, of every type; and an in-shape item carrying them is skipped.
func TestIntegrationMigrateKeepsUnknownAttributes(t *testing.T) {
	ctx := context.Background()
	m1 := testmodel.NewMigModel(t, false)
	db1 := singletabletest.LocalDB(t, m1.Table)
	testmodel.LoadDocs(t, ctx, db1, m1, 3)
	for i := range 3 {
		addUnknown(t, ctx, db1, "DOC#"+escapedID(testmodel.MigDocID(i)), "DOC")
	}
	db2, m2 := v2DB(t, ctx, db1)

	rep, err := migrate.BackfillIndex(ctx, db2, m2.Docs, "GSI1")
	require.NoError(t, err)
	assert.Equal(t, int64(3), rep.Changed)
	for i := range 3 {
		assertUnknownKept(t, ctx, db2, "DOC#"+escapedID(testmodel.MigDocID(i)), "DOC")
	}
	rep, err = migrate.BackfillIndex(ctx, db2, m2.Docs, "GSI1")
	require.NoError(t, err)
	assert.Equal(t, int64(3), rep.Skipped, "unknown attributes are no change")

	rep, err = migrate.Run(ctx, db2, m2.Docs, func(_ context.Context, d *testmodel.MigDoc) error { d.Title += "!"; return nil })
	require.NoError(t, err)
	assert.Equal(t, int64(3), rep.Changed)
	for i := range 3 {
		assertUnknownKept(t, ctx, db2, "DOC#"+escapedID(testmodel.MigDocID(i)), "DOC")
	}

	t2, err := st.NewTable("MigDocs")
	require.NoError(t, err)
	moved := st.MustDefine[testmodel.MigDoc](t2, "Doc", st.Key("DOC#{Owner}#{ID}", "DOC"))
	db3 := st.New(db1.Client(), t2, st.WithTableName(db1.TableName()))
	rep, err = migrate.Run(ctx, db3, moved, func(context.Context, *testmodel.MigDoc) error { return nil })
	require.NoError(t, err)
	assert.Equal(t, int64(3), rep.Changed)
	assert.Empty(t, rep.Failures)
	for i := range 3 {
		assertUnknownKept(t, ctx, db3, "DOC#"+testmodel.MigTestDoc(i).Owner+"#"+escapedID(testmodel.MigDocID(i)), "DOC")
	}
}

// lsiTask is the entity of the LSI backfill: tasks of a list, sorted in
// the LSI by due date once v2 declares it (a task without one stays out).
type lsiTask struct {
	List, ID, Due, Title string
}

// BackfillIndex on a local secondary index: the table has the LSI from
// its creation (an LSI cannot be added later), v1 of the entity did not
// write its sort key, v2 does; the backfill writes it into every item that
// has a due date, leaves the others out (sparse), and the LSI then reads
// them, strongly consistently.
func TestIntegrationBackfillLocalIndex(t *testing.T) {
	ctx := context.Background()
	define := func(v2 bool) (*st.Table, *st.Entity[lsiTask]) {
		tbl := st.MustTable("MigLSI", st.WithLSI("ByDue"))
		opts := []st.EntityOption{st.Key("LIST#{List}", "TASK#{ID}")}
		if v2 {
			opts = append(opts, st.Index("ByDue", "LIST#{List}", "{Due}"))
		}
		return tbl, st.MustDefine[lsiTask](tbl, "Task", opts...)
	}
	t1, tasks1 := define(false)
	db1 := singletabletest.LocalDB(t, t1)
	const n = 12
	for i := range n {
		task := lsiTask{List: "l", ID: fmt.Sprintf("%02d", i), Title: fmt.Sprint("task ", i)}
		if i%4 != 0 {
			task.Due = fmt.Sprintf("2026-12-%02d", 28-i)
		}
		require.NoError(t, tasks1.Put(ctx, db1, task))
	}
	t2, tasks2 := define(true)
	db2 := st.New(db1.Client(), t2, st.WithTableName(db1.TableName()))
	require.NoError(t, db2.EnsureTable(ctx), "the table has the LSI already")
	byDue := tasks2.Pattern("ByDue").On("ByDue").Partition("LIST#{List}").Must()
	due := func() []string {
		var out []string
		for v, err := range byDue.All(ctx, db2, lsiTask{List: "l"}, st.ConsistentRead()) {
			require.NoError(t, err)
			out = append(out, v.Due)
		}
		return out
	}
	assert.Empty(t, due(), "v1 wrote no LSI sort key")

	var attrs [][]string
	rep, err := migrate.BackfillIndex(ctx, db2, tasks2, "ByDue", migrate.Segments(2),
		migrate.OnChange(func(c migrate.Change) { attrs = append(attrs, c.Attributes) }))
	require.NoError(t, err)
	assert.Equal(t, int64(n), rep.Scanned)
	assert.Equal(t, int64(n-n/4), rep.Changed, "the tasks with a due date")
	assert.Equal(t, int64(n/4), rep.Skipped, "a task without one stays out of the LSI")
	assert.Empty(t, rep.Failures)
	for _, a := range attrs {
		assert.Equal(t, []string{"ByDueSK"}, a)
	}
	got := due()
	require.Len(t, got, n-n/4)
	assert.IsNonDecreasing(t, got, "the LSI sorts the partition by due date")

	rep, err = migrate.BackfillIndex(ctx, db2, tasks2, "ByDue")
	require.NoError(t, err)
	assert.Equal(t, int64(n), rep.Skipped, "everything is in shape already")
}

// TestIntegrationMigrateResumeRetriesFailedItems: a page with a failed
// item does not move the checkpoint past it, so that running a
// checkpointed migration again until a run reports no failure migrates
// every item (the position used to count failed items as handled: the
// runs converged on "complete" with items never written).
func TestIntegrationMigrateResumeRetriesFailedItems(t *testing.T) {
	ctx := context.Background()
	m1 := testmodel.NewMigModel(t, false)
	db1 := singletabletest.LocalDB(t, m1.Table)
	const n = 200
	testmodel.LoadDocs(t, ctx, db1, m1, n)
	db2, m2 := v2DB(t, ctx, db1)
	upper := func(_ context.Context, d *testmodel.MigDoc) error { d.Title = strings.ToUpper(d.Title); return nil }

	store := &memStore{}
	var changed int64
	runs := 0
	for ; runs < 20; runs++ {
		// Every run fails some writes outright (a server error after the
		// SDK's retries) and stops at a cancelled write, as a crash.
		faulty := singletabletest.NewFaultClient(db2.Client(), singletabletest.Faults{
			Seed: uint64(runs + 1), Ops: []string{"PutItem"}, ServerError: 0.1, Cancel: 0.01})
		rep, err := migrate.Run(ctx, db2.WithClient(faulty), m2.Docs, upper,
			migrate.Segments(2), migrate.PageSize(20), migrate.SaveCheckpoints(store, 0))
		require.NotNil(t, rep)
		changed += rep.Changed
		if err == nil && rep.Failed == 0 {
			break
		}
		if err == nil {
			assert.NotEmpty(t, rep.Failures)
		}
	}
	require.Less(t, runs, 20, "the runs never reported success")
	assert.Equal(t, int64(n), changed, "every item changed once across the runs")
	total := 0
	for o := range 3 {
		got := ownerDocs(t, ctx, db2, m2, fmt.Sprint("o", o))
		total += len(got)
		for _, d := range got {
			want := testmodel.MigTestDoc(d.N)
			want.Title = strings.ToUpper(want.Title)
			assert.Equal(t, want, d, "item %d", d.N)
		}
	}
	assert.Equal(t, n, total, "every item is in the new index")

	// The successful run's position says complete; a fresh run changes
	// nothing.
	rep, err := migrate.Run(ctx, db2, m2.Docs, upper, migrate.Segments(2), migrate.PageSize(20), migrate.SaveCheckpoints(store, 0))
	require.NoError(t, err)
	assert.Zero(t, rep.Scanned)
	rep, err = migrate.Run(ctx, db2, m2.Docs, upper)
	require.NoError(t, err)
	assert.Equal(t, int64(n), rep.Skipped)
}

// TestIntegrationMigrateRetriesThrottledWrites: a write DynamoDB throttles
// past the SDK's retries is written again after a wait, not failed.
func TestIntegrationMigrateRetriesThrottledWrites(t *testing.T) {
	ctx := context.Background()
	m1 := testmodel.NewMigModel(t, false)
	db1 := singletabletest.LocalDB(t, m1.Table)
	const n = 60
	testmodel.LoadDocs(t, ctx, db1, m1, n)
	db2, m2 := v2DB(t, ctx, db1)
	faulty := singletabletest.NewFaultClient(db2.Client(), singletabletest.Faults{Seed: 7, Ops: []string{"PutItem"}, Throttle: 0.3})
	var mu sync.Mutex
	var waits []time.Duration
	rep, err := migrate.Run(ctx, db2.WithClient(faulty), m2.Docs, func(context.Context, *testmodel.MigDoc) error { return nil },
		migrate.Timing(time.Now, func(_ context.Context, d time.Duration) error {
			mu.Lock()
			defer mu.Unlock()
			waits = append(waits, d)
			return nil
		}))
	require.NoError(t, err)
	assert.Empty(t, rep.Failures)
	assert.Equal(t, int64(n), rep.Changed)
	throttled := 0
	for _, f := range faulty.Injected() {
		if f.Fault == "Throttle" {
			throttled++
		}
	}
	require.NotZero(t, throttled)
	assert.Len(t, waits, throttled, "one wait before each write again")
	assert.Contains(t, waits, 100*time.Millisecond)

	// A write throttled on every attempt fails, after 5 writes again.
	m3 := testmodel.NewMigModel(t, false)
	db3 := singletabletest.LocalDB(t, m3.Table)
	testmodel.LoadDocs(t, ctx, db3, m3, 1)
	db4, m4 := v2DB(t, ctx, db3)
	always := singletabletest.NewFaultClient(db4.Client(), singletabletest.Faults{Ops: []string{"PutItem"}, Throttle: 1})
	waits = nil
	rep, err = migrate.Run(ctx, db4.WithClient(always), m4.Docs, func(context.Context, *testmodel.MigDoc) error { return nil },
		migrate.Timing(time.Now, func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }))
	require.NoError(t, err)
	require.Len(t, rep.Failures, 1)
	var pte *types.ProvisionedThroughputExceededException
	assert.ErrorAs(t, rep.Failures[0].Err, &pte)
	assert.Len(t, always.Injected(), 6)
	assert.Equal(t, []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond, 1600 * time.Millisecond}, waits)
}
