//go:build integration

package singletable_test

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/singletabletest"
)

// A member of a tenant, whose email is unique within the tenant, a key
// field.
type scopedMember struct {
	Tenant string `dynamodbav:"tenant"`
	ID     string `dynamodbav:"id"`
	Email  string `dynamodbav:"email" singletable:"unique within Tenant"`
}

var scopedMembers = st.MustDefine[scopedMember](scopedTable, "Member", st.Key("TENANT#{Tenant}", "MEMBER#{ID}"))

// beforeTx runs hook once, before the nth TransactWriteItems it forwards:
// another writer between a write's read (or first transaction) and its
// transaction.
type beforeTx struct {
	st.Client
	n, at int
	hook  func()
}

func (c *beforeTx) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, o ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	if c.n++; c.n == c.at && c.hook != nil {
		c.hook()
	}
	return c.Client.TransactWriteItems(ctx, in, o...)
}

// On DynamoDB Local: unique writes over an absent item, or racing another
// writer, end as the caller asked, and leave each guard to its item
// (F1, F2, F5).
func TestIntegrationUniqueWritesRacing(t *testing.T) {
	plain := singletabletest.LocalDB(t, scopedTable)
	ctx := t.Context()

	// F1: a TxDelete of no item, an upsert of a new one with its email.
	require.NoError(t, plain.Transact(ctx, func(tx *st.Tx) error {
		scopedAgents.TxDelete(tx, scopedAgent{ID: "nobody", Tenant: "acme"})
		return nil
	}))
	require.NoError(t, plain.Transact(ctx, func(tx *st.Tx) error {
		scopedAgents.TxUpdate(tx, scopedAgent{ID: "u1"}, st.Set("Email", "u1@x").Set("Tenant", "acme"), st.Upsert())
		return nil
	}))
	got, err := scopedAgents.Update(ctx, plain, scopedAgent{ID: "u2"}, st.Set("Email", "u2@x").Set("Name", "U"), st.Upsert())
	require.NoError(t, err)
	assert.Equal(t, "u2@x", got.Email)

	// The same with a scope that is a key field, which the upsert stores.
	require.NoError(t, plain.Transact(ctx, func(tx *st.Tx) error {
		scopedMembers.TxUpdate(tx, scopedMember{Tenant: "acme", ID: "m1"}, st.Set("Email", "m1@x"), st.Upsert())
		return nil
	}))
	_, err = scopedMembers.Update(ctx, plain, scopedMember{Tenant: "acme", ID: "m2"}, st.Set("Email", "m2@x"), st.Upsert())
	require.NoError(t, err)
	for _, id := range []string{"m1", "m2"} {
		_, err = scopedMembers.Update(ctx, plain, scopedMember{Tenant: "acme", ID: id}, st.Set("Email", id+"b@x"))
		require.NoError(t, err)
		require.NoError(t, scopedMembers.Delete(ctx, plain, scopedMember{Tenant: "acme", ID: id}))
	}
	// A scope given in the key that the upsert does not store is refused.
	require.ErrorIs(t, plain.Transact(ctx, func(tx *st.Tx) error {
		scopedAgents.TxUpdate(tx, scopedAgent{ID: "u3", Tenant: "acme"}, st.Set("Email", "u3@x"), st.Upsert())
		return nil
	}), st.ErrConditionFailed)

	// F2: the email changes, then the item goes, between Delete's read
	// and its transaction.
	c := &beforeTx{Client: plain.Client(), at: 1}
	db := plain.WithClient(c)
	c.hook = func() {
		_, err := scopedAgents.Update(ctx, plain, scopedAgent{ID: "u1"}, st.Set("Email", "u1b@x"))
		require.NoError(t, err)
	}
	require.NoError(t, scopedAgents.Delete(ctx, db, scopedAgent{ID: "u1"}))
	c.n, c.hook = 0, func() { require.NoError(t, scopedAgents.Delete(ctx, plain, scopedAgent{ID: "u2"})) }
	require.NoError(t, scopedAgents.Delete(ctx, db, scopedAgent{ID: "u2"}))

	// F5: the item goes between Put's two transactions.
	require.NoError(t, scopedAgents.Create(ctx, plain, scopedAgent{ID: "p1", Tenant: "acme", Email: "p@x"}))
	c.n, c.at = 0, 2
	c.hook = func() { require.NoError(t, scopedAgents.Delete(ctx, plain, scopedAgent{ID: "p1"})) }
	require.NoError(t, scopedAgents.Put(ctx, db, scopedAgent{ID: "p1", Tenant: "acme", Email: "q@x"}))

	assert.Equal(t, map[string]string{
		"AGENT#p1":                            "Agent",
		"_unique#Agent#email#tenant#acme#q@x": "AGENT#p1",
	}, storedItems(t, plain))
}

// On DynamoDB Local: an expired invite whose email another invite has
// claimed since is deleted, and the other's guard left alone (F4).
func TestIntegrationDeleteExpiredReclaimedUnique(t *testing.T) {
	t0 := time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)
	now := t0
	db := singletabletest.LocalDB(t, inviteTable, st.WithClock(func() time.Time { return now }))
	ctx := t.Context()
	require.NoError(t, invites.Create(ctx, db, expiringInvite{Code: "old", Tenant: "t1", Email: "a@x", ExpiresAt: t0.Add(time.Hour)}))
	now = t0.Add(2 * time.Hour)
	require.NoError(t, invites.Create(ctx, db, expiringInvite{Code: "new", Tenant: "t1", Email: "a@x", ExpiresAt: t0.Add(5 * time.Hour)}))
	require.NoError(t, invites.Delete(ctx, db, expiringInvite{Code: "old"}))
	assert.Equal(t, map[string]string{
		"INVITE#new":                         "Invite",
		"_unique#Invite#email#tenant#t1#a@x": "INVITE#new",
	}, storedItems(t, db))
	// A live one goes with its guard.
	require.NoError(t, invites.Delete(ctx, db, expiringInvite{Code: "new"}))
	assert.Empty(t, storedItems(t, db))
}
