//go:build integration

package singletable

import (
	"github.com/singletable/singletable/internal/model"

	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// guards counts the unique-value guard items in the table.
func guards(t *testing.T, db *DB) map[string]string {
	t.Helper()
	res, err := localClient(t).Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String(db.TableName()), ConsistentRead: aws.Bool(true)})
	require.NoError(t, err)
	out := map[string]string{}
	for _, item := range res.Items {
		if typeOf(item) == model.GuardType {
			out[strVal(item["PK"])] = strVal(item[guardOwnerPK])
		}
	}
	return out
}

func TestIntegrationUniqueLifecycle(t *testing.T) {
	ctx := context.Background()
	db := localDB(t, WShop, nil, WithClock(FixedClock))
	require.NoError(t, WUsers.Create(ctx, db, WUser{ID: "u1", Email: "ann@x.com", Name: "Ann"}))
	require.NoError(t, WUsers.Create(ctx, db, WUser{ID: "u2", Email: "bob@x.com", Name: "Bob"}))
	require.NoError(t, WUsers.Create(ctx, db, WUser{ID: "u3", Name: "No email"}), "empty values are not guarded")
	assert.Equal(t, map[string]string{"_unique#User#email#ann@x.com": "USER#u1", "_unique#User#email#bob@x.com": "USER#u2"}, guards(t, db))

	// Two users can never hold the same email.
	err := WUsers.Create(ctx, db, WUser{ID: "u4", Email: "ann@x.com"})
	var uv *UniqueViolationError
	require.ErrorAs(t, err, &uv)
	assert.Equal(t, "Email", uv.Field)
	assert.Equal(t, "ann@x.com", uv.Value)
	assert.Equal(t, "USER#u1", strVal(uv.Owner["PK"]))
	assert.ErrorIs(t, err, ErrAlreadyExists)
	_, err = WUsers.Get(ctx, db, WUser{ID: "u4"})
	assert.ErrorIs(t, err, ErrNotFound, "the clash left no user behind")
	_, err = WUsers.Update(ctx, db, WUser{ID: "u2"}, Set("Email", "ann@x.com"))
	assert.ErrorIs(t, err, ErrUniqueViolation)
	u3, err := WUsers.Update(ctx, db, WUser{ID: "u3"}, Set("Email", "bob@x.com"))
	assert.ErrorIs(t, err, ErrUniqueViolation, "%+v", u3)

	// Update moves the guard; Put of the same value keeps it.
	u1, err := WUsers.Update(ctx, db, WUser{ID: "u1"}, Set("Email", "ann@y.com").Set("Name", "Ann B"))
	require.NoError(t, err)
	assert.Equal(t, "ann@y.com", u1.Email)
	assert.Equal(t, "Ann B", u1.Name)
	u1.Name = "Ann C"
	require.NoError(t, WUsers.Put(ctx, db, u1))
	u1.Version++
	// Put of a changed value moves the guard too; a stale version still
	// refuses it.
	u1.Email = "ann@z.com"
	stale := u1
	stale.Version--
	require.ErrorIs(t, WUsers.Put(ctx, db, stale), ErrVersionConflict)
	require.NoError(t, WUsers.Put(ctx, db, u1))
	// Remove frees the value.
	_, err = WUsers.Update(ctx, db, WUser{ID: "u2"}, Remove("Email"))
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"_unique#User#email#ann@z.com": "USER#u1"}, guards(t, db))
	require.NoError(t, WUsers.Create(ctx, db, WUser{ID: "u5", Email: "ann@x.com"}), "the old value is free")
	require.NoError(t, WUsers.Create(ctx, db, WUser{ID: "u6", Email: "bob@x.com"}), "the removed value is free")

	// A transaction whose TxUpdate names a wrong old value is cancelled.
	err = db.Transact(ctx, func(tx *Tx) error {
		WUsers.TxUpdate(tx, WUser{ID: "u1", Email: "wrong@x.com"}, Set("Email", "new@x.com"))
		return nil
	})
	require.ErrorIs(t, err, ErrConditionFailed)
	assert.Contains(t, err.Error(), `the item holds unique Email "ann@z.com", not "wrong@x.com" as expected`)

	// Delete removes the item and its guard, leaving no orphan.
	require.NoError(t, WUsers.Delete(ctx, db, WUser{ID: "u1"}))
	require.NoError(t, WUsers.Delete(ctx, db, WUser{ID: "u5"}))
	require.NoError(t, WUsers.Delete(ctx, db, WUser{ID: "u6"}))
	require.NoError(t, WUsers.Delete(ctx, db, WUser{ID: "nobody"}), "deleting a missing item succeeds")
	assert.ErrorIs(t, WUsers.Delete(ctx, db, WUser{ID: "nobody"}, MustExist()), ErrNotFound)
	assert.Empty(t, guards(t, db))
}

func TestIntegrationVersionsAndTimestamps(t *testing.T) {
	ctx := context.Background()
	now := WClock
	db := localDB(t, WShop, nil, WithClock(func() time.Time { return now }))
	require.NoError(t, WUsers.Create(ctx, db, WUser{ID: "u1", Email: "a@x.com"}))
	u, err := WUsers.Get(ctx, db, WUser{ID: "u1"})
	require.NoError(t, err)
	assert.Equal(t, int64(1), u.Version)
	assert.Equal(t, WClock, u.Created)
	assert.Equal(t, WClock, u.Updated)

	now = WClock.Add(time.Hour)
	u2, err := WUsers.Update(ctx, db, u, Set("Name", "Ann"))
	require.NoError(t, err)
	assert.Equal(t, int64(2), u2.Version)
	assert.Equal(t, WClock, u2.Created, "created is never overwritten")
	assert.Equal(t, now, u2.Updated)

	// Stale Update, Put and Delete are refused.
	_, err = WUsers.Update(ctx, db, u, Set("Name", "Bob"))
	assert.ErrorIs(t, err, ErrVersionConflict)
	u.Name = "Bob"
	assert.ErrorIs(t, WUsers.Put(ctx, db, u), ErrVersionConflict)
	assert.ErrorIs(t, WUsers.Delete(ctx, db, u), ErrVersionConflict)
	// Put of version 0 means "new": refused for an existing item.
	assert.ErrorIs(t, WProducts.Put(ctx, db, WProduct{ID: "p", Name: "x", Category: "c"}), nil)
	err = WProducts.Put(ctx, db, WProduct{ID: "p", Name: "y", Category: "c"})
	assert.ErrorIs(t, err, ErrVersionConflict)
	// Current versions pass.
	require.NoError(t, WProducts.Put(ctx, db, WProduct{ID: "p", Name: "y", Category: "c", Version: 1}))
	p, err := WProducts.Get(ctx, db, WProduct{ID: "p"})
	require.NoError(t, err)
	assert.Equal(t, WProduct{ID: "p", Name: "y", Category: "c", Version: 2}, p)
	require.NoError(t, WProducts.Delete(ctx, db, p))

	// Upsert creates a versioned, timestamped item.
	c, err := WUsers.Update(ctx, db, WUser{ID: "u9"}, Set("Name", "New"), Upsert())
	require.NoError(t, err)
	assert.Equal(t, int64(1), c.Version)
	assert.Equal(t, now, c.Created)
}
