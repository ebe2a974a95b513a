package migrate_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/capacity"
	"github.com/singletable/singletable/internal/golden"
	"github.com/singletable/singletable/internal/testmodel"
	"github.com/singletable/singletable/migrate"
	"github.com/singletable/singletable/singletabletest"
)

// storedItem is d as the v1 model stores it (no index keys).
func storedItem(t *testing.T, typ, pk, sk string, v any) map[string]types.AttributeValue {
	t.Helper()
	item, err := attributevalue.MarshalMap(v)
	require.NoError(t, err)
	item["PK"] = &types.AttributeValueMemberS{Value: pk}
	item["SK"] = &types.AttributeValueMemberS{Value: sk}
	item["_type"] = &types.AttributeValueMemberS{Value: typ}
	return item
}

// scanOnce answers the first Scan of each segment with items, and the
// rest with nothing.
func scanOnce(items ...map[string]types.AttributeValue) func(context.Context, *dynamodb.ScanInput) (*dynamodb.ScanOutput, error) {
	return func(_ context.Context, in *dynamodb.ScanInput) (*dynamodb.ScanOutput, error) {
		if aws.ToInt32(in.Segment) != 0 {
			return &dynamodb.ScanOutput{}, nil
		}
		return &dynamodb.ScanOutput{Items: items, ScannedCount: int32(len(items)),
			ConsumedCapacity: &types.ConsumedCapacity{CapacityUnits: aws.Float64(0.5)}}, nil
	}
}

func calls(c *singletabletest.Client, op string) []any {
	var out []any
	for _, call := range c.Calls() {
		if call.Op == op {
			out = append(out, call.Input)
		}
	}
	return out
}

func TestMigrateRequests(t *testing.T) {
	ctx := context.Background()
	m := testmodel.NewMigModel(t, true)
	doc := testmodel.MigDoc{ID: "d#1", Owner: "o1", Title: "t", Tags: []string{"a"}, N: 1}
	vdoc := testmodel.MigVDoc{ID: "v1", Owner: "o1", Title: "t", Version: 4}

	t.Run("all attributes", func(t *testing.T) {
		client := &singletabletest.Client{ScanFunc: scanOnce(storedItem(t, "Doc", "DOC#d%231", "DOC", doc))}
		db := st.New(client, m.Table, st.WithTableName("Docs"))
		rep, err := migrate.BackfillIndex(ctx, db, m.Docs, "GSI1")
		require.NoError(t, err)
		assert.Equal(t, int64(1), rep.Changed)
		golden.Request(t, "migrate/scan", calls(client, "Scan")[0])
		golden.Request(t, "migrate/put_all_attributes", calls(client, "PutItem")[0])
	})

	t.Run("version", func(t *testing.T) {
		client := &singletabletest.Client{ScanFunc: scanOnce(storedItem(t, "VDoc", "VDOC#v1", "VDOC", vdoc))}
		db := st.New(client, m.Table, st.WithTableName("Docs"))
		rep, err := migrate.BackfillIndex(ctx, db, m.VDocs, "GSI1")
		require.NoError(t, err)
		assert.Equal(t, int64(1), rep.Changed)
		golden.Request(t, "migrate/put_version", calls(client, "PutItem")[0])
	})

	t.Run("move", func(t *testing.T) {
		t2, err := st.NewTable("MigDocs")
		require.NoError(t, err)
		moved := st.MustDefine[testmodel.MigDoc](t2, "Doc", st.Key("DOC#{Owner}#{ID}", "DOC"))
		client := &singletabletest.Client{ScanFunc: scanOnce(storedItem(t, "Doc", "DOC#d%231", "DOC", doc))}
		db := st.New(client, t2, st.WithTableName("Docs"))
		var changes []migrate.Change
		rep, err := migrate.Run(ctx, db, moved, func(context.Context, *testmodel.MigDoc) error { return nil },
			migrate.OnChange(func(c migrate.Change) { changes = append(changes, c) }))
		require.NoError(t, err)
		assert.Equal(t, int64(1), rep.Changed)
		require.Len(t, changes, 1)
		assert.Equal(t, "DOC#o1#d%231", changes[0].NewKey["PK"].(*types.AttributeValueMemberS).Value)
		assert.Equal(t, []string{"PK"}, changes[0].Attributes)
		golden.Request(t, "migrate/move", calls(client, "TransactWriteItems")[0])
	})

	t.Run("dry run and skips send no write", func(t *testing.T) {
		inShape := storedItem(t, "Doc", "DOC#d%232", "DOC", testmodel.MigDoc{ID: "d#2", Owner: "o2"})
		inShape["GSI1PK"] = &types.AttributeValueMemberS{Value: "OWNER#o2"}
		inShape["GSI1SK"] = &types.AttributeValueMemberS{Value: "DOC#d%232"}
		client := &singletabletest.Client{ScanFunc: scanOnce(storedItem(t, "Doc", "DOC#d%231", "DOC", doc), inShape)}
		db := st.New(client, m.Table)
		rep, err := migrate.BackfillIndex(ctx, db, m.Docs, "GSI1", migrate.DryRun())
		require.NoError(t, err)
		assert.Equal(t, migrate.Report{Entity: "Doc", DryRun: true, Scanned: 2, Changed: 1, Skipped: 1, ConsumedCapacity: rep.ConsumedCapacity, Position: rep.Position}, *rep)
		assert.Equal(t, capacity.Units{Read: 0.5}, rep.ConsumedCapacity.Units)
		assert.Empty(t, calls(client, "PutItem"))
	})

	t.Run("unknown attributes are no change, and are carried", func(t *testing.T) {
		inShape := storedItem(t, "Doc", "DOC#d%232", "DOC", testmodel.MigDoc{ID: "d#2", Owner: "o2"})
		inShape["GSI1PK"] = &types.AttributeValueMemberS{Value: "OWNER#o2"}
		inShape["GSI1SK"] = &types.AttributeValueMemberS{Value: "DOC#d%232"}
		stale := storedItem(t, "Doc", "DOC#d%231", "DOC", doc)
		for _, item := range []map[string]types.AttributeValue{inShape, stale} {
			item["legacyNote"] = &types.AttributeValueMemberS{Value: "kept"}
			item["GSI9PK"] = &types.AttributeValueMemberS{Value: "another index's key"}
		}
		client := &singletabletest.Client{ScanFunc: scanOnce(inShape, stale)}
		db := st.New(client, m.Table)
		rep, err := migrate.BackfillIndex(ctx, db, m.Docs, "GSI1")
		require.NoError(t, err)
		assert.Equal(t, int64(1), rep.Skipped, "the in-shape item is not rewritten")
		assert.Equal(t, int64(1), rep.Changed)
		puts := calls(client, "PutItem")
		require.Len(t, puts, 1)
		put := puts[0].(*dynamodb.PutItemInput)
		assert.Equal(t, "DOC#d%231", put.Item["PK"].(*types.AttributeValueMemberS).Value)
		assert.Equal(t, stale["legacyNote"], put.Item["legacyNote"])
		assert.Equal(t, stale["GSI9PK"], put.Item["GSI9PK"])
	})

	t.Run("a key its attributes disagree with is not moved", func(t *testing.T) {
		// Stored at d#1's key, its id attribute says d#9 (other code
		// wrote it): a backfill must not move it to d#9's key (atkB F12).
		disagrees := storedItem(t, "Doc", "DOC#d%231", "DOC", testmodel.MigDoc{ID: "d#9", Owner: "o1", Title: "t"})
		client := &singletabletest.Client{ScanFunc: scanOnce(disagrees)}
		db := st.New(client, m.Table)
		rep, err := migrate.BackfillIndex(ctx, db, m.Docs, "GSI1")
		require.NoError(t, err)
		assert.Equal(t, int64(1), rep.Failed)
		require.Len(t, rep.Failures, 1)
		var de *st.DecodeError
		require.ErrorAs(t, rep.Failures[0].Err, &de)
		assert.Contains(t, de.Error(), "disagree with its key")
		assert.Empty(t, calls(client, "PutItem"))
		assert.Empty(t, calls(client, "TransactWriteItems"))
	})

	t.Run("transform errors and unique values", func(t *testing.T) {
		client := &singletabletest.Client{ScanFunc: scanOnce(storedItem(t, "Doc", "DOC#d%231", "DOC", doc))}
		db := st.New(client, m.Table)
		boom := errors.New("boom")
		rep, err := migrate.Run(ctx, db, m.Docs, func(context.Context, *testmodel.MigDoc) error { return boom })
		require.NoError(t, err)
		assert.Equal(t, int64(1), rep.Failed)
		require.Len(t, rep.Failures, 1)
		assert.ErrorIs(t, rep.Failures[0].Err, boom)
		assert.Empty(t, calls(client, "PutItem"))
	})
}

func TestMigrateUniqueFieldsStay(t *testing.T) {
	type acct struct {
		ID    string `dynamodbav:"id"`
		Email string `dynamodbav:"email" singletable:"unique"`
	}
	tbl, err := st.NewTable("Accts")
	require.NoError(t, err)
	e := st.MustDefine[acct](tbl, "Acct", st.Key("ACCT#{ID}", "ACCT"))
	client := &singletabletest.Client{ScanFunc: scanOnce(storedItem(t, "Acct", "ACCT#1", "ACCT", acct{ID: "1", Email: "a@x"}))}
	db := st.New(client, tbl)
	rep, err := migrate.Run(context.Background(), db, e, func(_ context.Context, a *acct) error { a.Email = "b@x"; return nil })
	require.NoError(t, err)
	require.Len(t, rep.Failures, 1)
	assert.ErrorIs(t, rep.Failures[0].Err, st.ErrInvalidInput)
	assert.ErrorContains(t, rep.Failures[0].Err, "unique Email")
	assert.Empty(t, calls(client, "PutItem"))
}

// fakeTime is a clock that only the limiter's sleeps move.
type fakeTime struct {
	mu    sync.Mutex
	now   time.Time
	slept time.Duration
	waits int
}

func (f *fakeTime) Now() time.Time { f.mu.Lock(); defer f.mu.Unlock(); return f.now }

func (f *fakeTime) Sleep(_ context.Context, d time.Duration) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now, f.slept, f.waits = f.now.Add(d), f.slept+d, f.waits+1
	return nil
}

func TestMigrateRateLimits(t *testing.T) {
	m := testmodel.NewMigModel(t, true)
	var items []map[string]types.AttributeValue
	for i := range 10 {
		items = append(items, storedItem(t, "Doc", fmt.Sprintf("DOC#%d", i), "DOC", testmodel.MigDoc{ID: fmt.Sprint(i), Owner: "o"}))
	}

	t.Run("items per second", func(t *testing.T) {
		client := &singletabletest.Client{ScanFunc: scanOnce(items...)}
		db := st.New(client, m.Table)
		clock := &fakeTime{now: time.Unix(1e9, 0)}
		rep, err := migrate.BackfillIndex(context.Background(), db, m.Docs, "GSI1", migrate.RateLimit(5), migrate.Timing(clock.Now, clock.Sleep))
		require.NoError(t, err)
		assert.Equal(t, int64(10), rep.Changed)
		// The first item goes at once, each other 1/5 s after the one before.
		assert.Equal(t, 9*200*time.Millisecond, clock.slept)
		assert.Equal(t, 9, clock.waits)
	})

	t.Run("capacity units per second", func(t *testing.T) {
		client := &singletabletest.Client{ScanFunc: scanOnce(items...),
			PutItemFunc: func(context.Context, *dynamodb.PutItemInput) (*dynamodb.PutItemOutput, error) {
				return &dynamodb.PutItemOutput{ConsumedCapacity: &types.ConsumedCapacity{CapacityUnits: aws.Float64(2)}}, nil
			}}
		db := st.New(client, m.Table)
		clock := &fakeTime{now: time.Unix(1e9, 0)}
		rep, err := migrate.BackfillIndex(context.Background(), db, m.Docs, "GSI1", migrate.CapacityLimit(4), migrate.Timing(clock.Now, clock.Sleep))
		require.NoError(t, err)
		assert.Equal(t, 20.5, rep.ConsumedCapacity.Total())
		assert.Equal(t, 20.0, rep.ConsumedCapacity.Write, "the puts' units are writes")
		// 0.5 units of scan, then 10 writes of 2: each reservation waits
		// for the units before it, 20.5 units at 4 a second less the last
		// write's own 2 units' share.
		assert.Equal(t, time.Duration((20.5-2)/4*float64(time.Second)), clock.slept)
	})

	t.Run("bad options", func(t *testing.T) {
		client := &singletabletest.Client{}
		db := st.New(client, m.Table)
		// Each names the option at fault, and nothing is sent. A zero or
		// nil setting is an error, never taken as the default.
		for name, o := range map[string]migrate.Option{
			"RateLimit(-1)":                     migrate.RateLimit(-1),
			"RateLimit(0)":                      migrate.RateLimit(0),
			"CapacityLimit(-2)":                 migrate.CapacityLimit(-2),
			"CapacityLimit(0)":                  migrate.CapacityLimit(0),
			"RateLimit(+Inf)":                   migrate.RateLimit(math.Inf(1)),
			"CapacityLimit(+Inf)":               migrate.CapacityLimit(math.Inf(1)),
			"MaxRetries(-1)":                    migrate.MaxRetries(-1),
			"SaveCheckpoints":                   migrate.SaveCheckpoints(migrate.FileCheckpoint(t.TempDir()+"/pos"), -time.Second),
			"SaveCheckpoints: the store is nil": migrate.SaveCheckpoints(nil, 0),
			"Segments(0)":                       migrate.Segments(0),
			"Segments(1000001)":                 migrate.Segments(1000001),
			"PageSize(-1)":                      migrate.PageSize(-1),
			"PageSize(0)":                       migrate.PageSize(0),
			"Concurrency(-1)":                   migrate.Concurrency(-1),
			"Concurrency(0)":                    migrate.Concurrency(0),
			"OnProgress(nil)":                   migrate.OnProgress(nil),
			"OnChange(nil)":                     migrate.OnChange(nil),
			"a nil option":                      nil,
		} {
			_, err := migrate.BackfillIndex(context.Background(), db, m.Docs, "GSI1", o)
			assert.ErrorIs(t, err, st.ErrInvalidInput, name)
			assert.ErrorContains(t, err, name)
			_, err = migrate.Run(context.Background(), db, m.Docs, func(context.Context, *testmodel.MigDoc) error { return nil }, o)
			assert.ErrorContains(t, err, name)
		}
		_, err := migrate.Run(context.Background(), db, m.Docs, nil)
		assert.ErrorIs(t, err, st.ErrInvalidInput)
		_, err = migrate.Run[testmodel.MigDoc](context.Background(), db, nil, func(context.Context, *testmodel.MigDoc) error { return nil })
		assert.ErrorIs(t, err, st.ErrInvalidInput)
		_, err = migrate.BackfillIndex(context.Background(), nil, m.Docs, "GSI1")
		assert.ErrorIs(t, err, st.ErrInvalidInput)
		assert.Empty(t, client.Calls(), "nothing is sent")
	})
}

// A cancelled migration's report accounts for every item it counts as
// scanned: an item whose write the cancellation cut short is unfinished,
// in none of the counts (a resumed migration reads it again).
func TestMigrateCancelledReportAddsUp(t *testing.T) {
	m := testmodel.NewMigModel(t, true)
	var items []map[string]types.AttributeValue
	for i := range 3 {
		items = append(items, storedItem(t, "Doc", fmt.Sprintf("DOC#%d", i), "DOC", testmodel.MigDoc{ID: fmt.Sprint(i), Owner: "o"}))
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	puts := 0
	client := &singletabletest.Client{ScanFunc: scanOnce(items...),
		PutItemFunc: func(ctx context.Context, _ *dynamodb.PutItemInput) (*dynamodb.PutItemOutput, error) {
			// The second write is cancelled in flight, as the SDK
			// returns a cancelled request.
			if puts++; puts == 2 {
				cancel()
				return nil, ctx.Err()
			}
			return &dynamodb.PutItemOutput{}, nil
		}}
	db := st.New(client, m.Table)
	rep, err := migrate.BackfillIndex(ctx, db, m.Docs, "GSI1")
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, 2, len(calls(client, "PutItem")), "the third item is not started")
	assert.Equal(t, int64(1), rep.Changed)
	assert.Equal(t, rep.Changed+rep.Skipped+rep.Failed, rep.Scanned, "Scanned is the sum of the outcomes: %+v", rep)
}

func TestMigrateFileCheckpoint(t *testing.T) {
	ctx := context.Background()
	store := migrate.FileCheckpoint(t.TempDir() + "/pos")
	got, err := store.Load(ctx)
	require.NoError(t, err)
	assert.Empty(t, got, "nothing saved yet")
	require.NoError(t, store.Save(ctx, "a.b"))
	require.NoError(t, store.Save(ctx, "c.d"))
	got, err = store.Load(ctx)
	require.NoError(t, err)
	assert.Equal(t, "c.d", got)
	assert.Error(t, migrate.FileCheckpoint(t.TempDir()+"/missing/dir/pos").Save(ctx, "x"))
}
