//go:build integration

package migrate_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/migrate"
	"github.com/singletable/singletable/singletabletest"
)

// scopeGuards maps the table's guard items' partition keys to their
// owners' partition keys.
func scopeGuards(t *testing.T, db *st.DB) map[string]string {
	t.Helper()
	res, err := db.Client().Scan(t.Context(), &dynamodb.ScanInput{TableName: aws.String(db.TableName()), ConsistentRead: aws.Bool(true)})
	require.NoError(t, err)
	out := map[string]string{}
	for _, item := range res.Items {
		if item["_type"].(*types.AttributeValueMemberS).Value == "_unique" {
			out[item["PK"].(*types.AttributeValueMemberS).Value] = item["_ownerPK"].(*types.AttributeValueMemberS).Value
		}
	}
	return out
}

// On DynamoDB Local: agents written while emails were unique table-wide
// get their guards moved to the per-tenant form. A dry run writes
// nothing; a run that crashes half way resumes from its checkpoint; an
// email the new model let another agent of the tenant take is reported,
// and so is a guard no agent holds.
func TestIntegrationScopeUnique(t *testing.T) {
	ctx := context.Background()
	v1 := scopeModel(false)
	db1 := singletabletest.LocalDB(t, v1.Table())
	const n = 30
	want := map[string]string{}
	for i := range n {
		a := scopeAgent{ID: fmt.Sprint("a", i), Tenant: fmt.Sprint("t", i%3), Email: fmt.Sprintf("u%d@x.com", i)}
		require.NoError(t, v1.Create(ctx, db1, a))
		if i != 0 {
			want[fmt.Sprintf("_unique#Agent#email#tenant#%s#%s", a.Tenant, a.Email)] = "AGENT#" + a.ID
		}
	}
	// A guard no item holds.
	_, err := db1.Client().PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(db1.TableName()), Item: map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "_unique#Agent#email#ghost@x.com"}, "SK": &types.AttributeValueMemberS{Value: "_unique#Agent#email#ghost@x.com"},
		"_type": &types.AttributeValueMemberS{Value: "_unique"}, "_ownerPK": &types.AttributeValueMemberS{Value: "AGENT#ghost"}, "_ownerSK": &types.AttributeValueMemberS{Value: "AGENT"},
	}})
	require.NoError(t, err)

	v2 := scopeModel(true)
	db2 := st.New(db1.Client(), v2.Table(), st.WithTableName(db1.TableName()))
	// The new model sees no scoped guard of a0's email yet: another agent
	// of its tenant takes it.
	require.NoError(t, v2.Create(ctx, db2, scopeAgent{ID: "new", Tenant: "t0", Email: "u0@x.com"}))
	want["_unique#Agent#email#tenant#t0#u0@x.com"] = "AGENT#new"
	want["_unique#Agent#email#u0@x.com"] = "AGENT#a0" // a0's stays: it cannot move
	want["_unique#Agent#email#ghost@x.com"] = "AGENT#ghost"
	before := scopeGuards(t, db2)

	dry, err := migrate.ScopeUnique(ctx, db2, v2, "Email", migrate.DryRun())
	require.NoError(t, err)
	assert.Equal(t, int64(n+1), dry.Scanned)
	assert.Equal(t, int64(n-1), dry.Changed)
	assert.Equal(t, int64(1), dry.Skipped, "the new agent's guard is scoped already")
	assert.Equal(t, int64(1), dry.Failed)
	assert.Equal(t, int64(1), dry.Orphans)
	assert.Equal(t, before, scopeGuards(t, db2), "a dry run writes nothing")

	// The crash: the context ends half way, after a checkpoint, before a
	// move's write.
	store := &memStore{}
	cctx, cancel := context.WithCancel(ctx)
	changes := 0
	rep1, err := migrate.ScopeUnique(cctx, db2, v2, "Email", migrate.Segments(3), migrate.Concurrency(1), migrate.PageSize(4),
		migrate.SaveCheckpoints(store, 0), migrate.BeforeWrite(func(context.Context, map[string]types.AttributeValue) {
			if changes++; changes == n/2 {
				cancel()
			}
		}))
	require.ErrorIs(t, err, context.Canceled)
	require.NotEmpty(t, store.pos)
	assert.Less(t, rep1.Changed, int64(n-1))

	rep2, err := migrate.ScopeUnique(ctx, db2, v2, "Email", migrate.Segments(3), migrate.PageSize(4), migrate.SaveCheckpoints(store, 0))
	require.NoError(t, err)
	assert.Less(t, rep2.Scanned, int64(n+1), "the resumed run does not read everything again")
	assert.Equal(t, int64(n-1), rep1.Changed+rep2.Changed, "every agent's guard moved once across the runs")
	assert.Equal(t, int64(1), rep2.Orphans)
	var uv *st.UniqueViolationError
	var orphans int
	for _, f := range append(rep1.Failures, rep2.Failures...) {
		switch {
		case errors.As(f.Err, &uv):
			assert.Equal(t, "Tenant", uv.Scope)
			assert.Equal(t, "t0", uv.ScopeValue)
			assert.Equal(t, "u0@x.com", uv.Value)
		default:
			require.ErrorIs(t, f.Err, migrate.ErrOrphanGuard)
			orphans++
		}
	}
	assert.Equal(t, 1, orphans)
	assert.Equal(t, want, scopeGuards(t, db2))

	// Every move is done: another run changes nothing.
	rep3, err := migrate.ScopeUnique(ctx, db2, v2, "Email")
	require.NoError(t, err)
	assert.Zero(t, rep3.Changed)
	assert.Equal(t, want, scopeGuards(t, db2))

	// The moved guards hold: a second claim within a tenant fails.
	require.ErrorIs(t, v2.Create(ctx, db2, scopeAgent{ID: "dup", Tenant: "t1", Email: "u1@x.com"}), st.ErrUniqueViolation)
}

// TestIntegrationScopeUniqueOnChangeOnlyForMoves: OnChange is called for
// the guards a run moves, not for every item it tries: a second run,
// which finds every guard moved, reports no change.
func TestIntegrationScopeUniqueOnChangeOnlyForMoves(t *testing.T) {
	ctx := context.Background()
	v1 := scopeModel(false)
	db1 := singletabletest.LocalDB(t, v1.Table())
	for i := range 4 {
		require.NoError(t, v1.Create(ctx, db1, scopeAgent{ID: fmt.Sprint("a", i), Tenant: "t", Email: fmt.Sprintf("u%d@x.com", i)}))
	}
	v2 := scopeModel(true)
	db2 := st.New(db1.Client(), v2.Table(), st.WithTableName(db1.TableName()))
	for run, want := range []int64{4, 0} {
		var changes []string
		var mu sync.Mutex
		rep, err := migrate.ScopeUnique(ctx, db2, v2, "Email", migrate.OnChange(func(c migrate.Change) {
			mu.Lock()
			defer mu.Unlock()
			changes = append(changes, c.Key["PK"].(*types.AttributeValueMemberS).Value)
		}))
		require.NoError(t, err)
		assert.Equal(t, want, rep.Changed, "run %d", run)
		assert.Len(t, changes, int(want), "run %d: OnChange for each moved guard only", run)
	}
}
