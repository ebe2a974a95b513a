//go:build integration

package singletable_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/soak"
	"github.com/singletable/singletable/singletabletest"
)

// storedItems lists the table's items as stored, by partition key: the
// guards ("_unique#...") mapped to their owner's partition key, the other
// items to their type.
func storedItems(t *testing.T, db *st.DB) map[string]string {
	t.Helper()
	res, err := db.Client().Scan(t.Context(), &dynamodb.ScanInput{TableName: aws.String(db.TableName()), ConsistentRead: aws.Bool(true)})
	require.NoError(t, err)
	out := map[string]string{}
	for _, item := range res.Items {
		pk, _ := sOf(item, "PK")
		typ, _ := sOf(item, "_type")
		if typ == "_unique" {
			typ, _ = sOf(item, "_ownerPK")
		}
		out[pk] = typ
	}
	return out
}

// On DynamoDB Local: an email unique per tenant. Two tenants hold the same
// one; a second claim within a tenant fails and writes nothing; moving the
// agent to another tenant, or changing the email, moves the guard; Delete
// removes it.
func TestIntegrationScopedUnique(t *testing.T) {
	db := singletabletest.LocalDB(t, scopedTable)
	ctx := t.Context()
	require.NoError(t, scopedAgents.Create(ctx, db, scopedAgent{ID: "a1", Tenant: "acme", Email: "ann@x.com"}))
	require.NoError(t, scopedAgents.Create(ctx, db, scopedAgent{ID: "a2", Tenant: "globex", Email: "ann@x.com"}), "another tenant")
	// Delimiters in the tenant and the email make different guards.
	require.NoError(t, scopedAgents.Create(ctx, db, scopedAgent{ID: "d1", Tenant: "a#b", Email: "c"}))
	require.NoError(t, scopedAgents.Create(ctx, db, scopedAgent{ID: "d2", Tenant: "a", Email: "b#c"}))
	want := map[string]string{
		"AGENT#a1": "Agent", "AGENT#a2": "Agent", "AGENT#d1": "Agent", "AGENT#d2": "Agent",
		"_unique#Agent#email#tenant#acme#ann@x.com":   "AGENT#a1",
		"_unique#Agent#email#tenant#globex#ann@x.com": "AGENT#a2",
		"_unique#Agent#email#tenant#a%23b#c":          "AGENT#d1",
		"_unique#Agent#email#tenant#a#b%23c":          "AGENT#d2",
	}
	require.Equal(t, want, storedItems(t, db))

	// A second claim within a tenant: by Create, Put and Update.
	for name, claim := range map[string]func() error{
		"Create": func() error {
			return scopedAgents.Create(ctx, db, scopedAgent{ID: "a3", Tenant: "acme", Email: "ann@x.com"})
		},
		"Put": func() error {
			return scopedAgents.Put(ctx, db, scopedAgent{ID: "a3", Tenant: "acme", Email: "ann@x.com"})
		},
		"Update": func() error {
			_, err := scopedAgents.Update(ctx, db, scopedAgent{ID: "a2"}, st.Set("Tenant", "acme"))
			return err
		},
	} {
		err := claim()
		require.ErrorIs(t, err, st.ErrUniqueViolation, name)
		var uv *st.UniqueViolationError
		require.ErrorAs(t, err, &uv, name)
		assert.Equal(t, "Email", uv.Field, name)
		assert.Equal(t, "ann@x.com", uv.Value, name)
		assert.Equal(t, "Tenant", uv.Scope, name)
		assert.Equal(t, "acme", uv.ScopeValue, name)
		assert.Contains(t, err.Error(), `Email "ann@x.com" within Tenant "acme" is already taken by another Agent`, name)
		assert.Equal(t, want, storedItems(t, db), "%s wrote nothing", name)
	}

	// Moving a2 to another tenant moves its guard; so does a new email.
	got, err := scopedAgents.Update(ctx, db, scopedAgent{ID: "a2"}, st.Set("Tenant", "initech"))
	require.NoError(t, err)
	assert.Equal(t, "initech", got.Tenant)
	delete(want, "_unique#Agent#email#tenant#globex#ann@x.com")
	want["_unique#Agent#email#tenant#initech#ann@x.com"] = "AGENT#a2"
	require.Equal(t, want, storedItems(t, db))
	_, err = scopedAgents.Update(ctx, db, scopedAgent{ID: "a2"}, st.Set("Email", "bob@x.com"))
	require.NoError(t, err)
	delete(want, "_unique#Agent#email#tenant#initech#ann@x.com")
	want["_unique#Agent#email#tenant#initech#bob@x.com"] = "AGENT#a2"
	require.Equal(t, want, storedItems(t, db))
	// Both at once, by a transaction that names the values held.
	require.NoError(t, db.Transact(ctx, func(tx *st.Tx) error {
		scopedAgents.TxUpdate(tx, scopedAgent{ID: "a2", Tenant: "initech", Email: "bob@x.com"}, st.Set("Tenant", "acme").Set("Email", "cy@x.com"))
		return nil
	}))
	delete(want, "_unique#Agent#email#tenant#initech#bob@x.com")
	want["_unique#Agent#email#tenant#acme#cy@x.com"] = "AGENT#a2"
	require.Equal(t, want, storedItems(t, db))

	// Put replacing the item keeps its guard, and moves it to a new scope
	// (TestIntegrationPutMovesUniqueGuards has the rest).
	require.NoError(t, scopedAgents.Put(ctx, db, scopedAgent{ID: "a2", Tenant: "acme", Email: "cy@x.com", Name: "Cy"}))
	require.Equal(t, want, storedItems(t, db))
	require.NoError(t, scopedAgents.Put(ctx, db, scopedAgent{ID: "a2", Tenant: "globex", Email: "cy@x.com"}))
	delete(want, "_unique#Agent#email#tenant#acme#cy@x.com")
	want["_unique#Agent#email#tenant#globex#cy@x.com"] = "AGENT#a2"
	require.Equal(t, want, storedItems(t, db))

	require.NoError(t, scopedAgents.Delete(ctx, db, scopedAgent{ID: "a2"}))
	delete(want, "_unique#Agent#email#tenant#globex#cy@x.com")
	delete(want, "AGENT#a2")
	require.Equal(t, want, storedItems(t, db))
}

// On DynamoDB Local: several writers claim one email in one tenant at once
// (each retrying a transaction conflict); exactly one wins, and one guard
// and one item are stored per round. SINGLETABLE_SOAK=1 (make soak) runs
// more rounds of more writers.
func TestIntegrationScopedUniqueConcurrentClaims(t *testing.T) {
	rounds, writers := soak.Size(1, 20), soak.Size(6, 16)
	for round := range rounds {
		scopedClaimRound(t, round, writers)
	}
}

// scopedClaimRound is one round of TestIntegrationScopedUniqueConcurrentClaims
// on a fresh table.
func scopedClaimRound(t *testing.T, round, writers int) {
	db := singletabletest.LocalDB(t, scopedTable)
	ctx := t.Context()
	errs := make([]error, writers)
	var wg sync.WaitGroup
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := scopedAgent{ID: fmt.Sprint("w", i), Tenant: "acme", Email: "ann@x.com"}
			for {
				errs[i] = scopedAgents.Create(ctx, db, a)
				if !errors.Is(errs[i], st.ErrTransactionConflict) || errors.Is(errs[i], st.ErrUniqueViolation) {
					return
				}
			}
		}()
	}
	wg.Wait()
	won := 0
	for i, err := range errs {
		if err == nil {
			won++
			continue
		}
		require.ErrorIs(t, err, st.ErrUniqueViolation, "round %d, writer %d", round, i)
	}
	assert.Equal(t, 1, won, "round %d", round)
	stored := storedItems(t, db)
	assert.Len(t, stored, 2, "one agent and its guard: %v", stored)
	assert.Contains(t, stored, "_unique#Agent#email#tenant#acme#ann@x.com")
}
