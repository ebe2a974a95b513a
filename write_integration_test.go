//go:build integration

package singletable

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
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
		if typeOf(item) == guardType {
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
	// Put may not change a unique value: that is Update's job.
	u1.Email = "ann@z.com"
	err = WUsers.Put(ctx, db, u1)
	require.ErrorIs(t, err, ErrConditionFailed)
	assert.Contains(t, err.Error(), `Put would change unique Email from "ann@y.com" to "ann@z.com"`)
	// Remove frees the value.
	_, err = WUsers.Update(ctx, db, WUser{ID: "u2"}, Remove("Email"))
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"_unique#User#email#ann@y.com": "USER#u1"}, guards(t, db))
	require.NoError(t, WUsers.Create(ctx, db, WUser{ID: "u5", Email: "ann@x.com"}), "the old value is free")
	require.NoError(t, WUsers.Create(ctx, db, WUser{ID: "u6", Email: "bob@x.com"}), "the removed value is free")

	// A transaction whose TxUpdate names a wrong old value is cancelled.
	err = db.Transact(ctx, func(tx *Tx) error {
		WUsers.TxUpdate(tx, WUser{ID: "u1", Email: "wrong@x.com"}, Set("Email", "new@x.com"))
		return nil
	})
	require.ErrorIs(t, err, ErrConditionFailed)
	assert.Contains(t, err.Error(), `the item holds unique Email "ann@y.com", not "wrong@x.com" as expected`)

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

func TestIntegrationConditionsAndUpdates(t *testing.T) {
	ctx := context.Background()
	db := localDB(t, WShop, nil, WithClock(FixedClock))
	u := WUser{ID: "u1", Email: "a@x.com", Name: "Ann", Status: "ACTIVE", Tags: []string{"a", "b"}, Log: []string{"created"},
		Logins: 3, Address: WAddress{City: "Oslo", Zip: "0150"}, Attrs: map[string]string{"color": "red"}}
	require.NoError(t, WUsers.Create(ctx, db, u))
	holds := []Cond{
		Eq("Name", "Ann"), Ne("Name", "Bob"), Lt("Logins", 4), Le("Logins", 3), Gt("Logins", 2), Ge("Logins", 3),
		Between("Logins", 1, 5), In("Status", "ACTIVE", "NEW"), BeginsWith("Email", "a@"), Contains("Name", "nn"),
		Contains("Tags", "a"), Exists("Address.Zip"), NotExists("Attrs.size"), IsType("Tags", TypeStringSet),
		Size("Tags").Eq(2), Eq("Address.City", "Oslo"), Eq("Log[0]", "created"), Eq("Attrs.color", "red"),
		Lt("Logins", FieldRef("Version")), And(Eq("Name", "Ann"), Or(Eq("Status", "X"), Not(Eq("Status", "Y")))),
	}
	for _, c := range holds {
		_, err := WUsers.Update(ctx, db, WUser{ID: "u1"}, Increment("Logins", 0).If(c))
		assert.NoError(t, err, "condition %s should hold", describeCond(WUsers.m, c))
	}
	fails := []Cond{Eq("Name", "Bob"), Gt("Logins", 3), Contains("Tags", "z"), Size("Tags").Gt(2), Eq("Address.Zip", "x"), NotExists("Email")}
	for _, c := range fails {
		_, err := WUsers.Update(ctx, db, WUser{ID: "u1"}, Increment("Logins", 0).If(c))
		require.ErrorIs(t, err, ErrConditionFailed, "condition %s should fail", describeCond(WUsers.m, c))
		assert.Contains(t, err.Error(), "the condition "+describeCond(WUsers.m, c)+" does not hold")
	}

	got, err := WUsers.Update(ctx, db, WUser{ID: "u1"},
		Add("Tags", "c").Append("Log", "login").Prepend("Log", "first"),
	)
	require.Error(t, err, "Append and Prepend on one list overlap")
	got, err = WUsers.Update(ctx, db, WUser{ID: "u1"},
		Add("Tags", "c").Append("Log", []string{"x", "y"}).Increment("Logins", 2).Set("Address.City", "Bergen").SetIfNotExists("Name", "ignored").Remove("Attrs"),
	)
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"a", "b", "c"}, got.Tags)
	assert.Equal(t, []string{"created", "x", "y"}, got.Log)
	assert.Equal(t, 5, got.Logins)
	assert.Equal(t, WAddress{City: "Bergen", Zip: "0150"}, got.Address)
	assert.Equal(t, "Ann", got.Name)
	assert.Empty(t, got.Attrs)
	got, err = WUsers.Update(ctx, db, WUser{ID: "u1"}, DeleteFromSet("Tags", "a").Prepend("Log", "first").Decrement("Logins", 5).Set("Status", "BANNED"))
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"b", "c"}, got.Tags)
	assert.Equal(t, []string{"first", "created", "x", "y"}, got.Log)
	assert.Equal(t, 0, got.Logins)
	// The index key followed the status.
	item, err := localClient(t).GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(db.TableName()), Key: mustKey(t, WUser{ID: "u1"})})
	require.NoError(t, err)
	assert.Equal(t, "STATUS#BANNED", strVal(item.Item["GSI1PK"]))
}

func mustKey(t *testing.T, u WUser) map[string]types.AttributeValue {
	k, err := WUsers.m.key(reflect.ValueOf(&u).Elem())
	require.NoError(t, err)
	return k
}

func strVal(v types.AttributeValue) string {
	s, _ := v.(*types.AttributeValueMemberS)
	if s == nil {
		return ""
	}
	return s.Value
}

func typeOf(item map[string]types.AttributeValue) string { return strVal(item[DefaultTypeAttribute]) }

func TestIntegrationTransactGetAndBatchGet(t *testing.T) {
	ctx := context.Background()
	db := localDB(t, WShop, nil)
	require.NoError(t, db.BatchWrite(ctx, []BatchOp{
		BatchPut(WProducts, WProduct{ID: "p1", Name: "Pen", Category: "office", Inventory: 3}, WProduct{ID: "p2", Name: "Ink", Category: "office"}),
		BatchPut(WOrders, WOrder{UserID: "u1", ID: "o1", Status: "PENDING", Date: "2024-01-15"}),
	}))
	tg := db.TransactGet()
	p1 := WProducts.TxGet(tg, WProduct{ID: "p1"})
	o1 := WOrders.TxGet(tg, WOrder{UserID: "u1", ID: "o1"})
	missing := WProducts.TxGet(tg, WProduct{ID: "nope"})
	require.NoError(t, tg.Run(ctx))
	p, err := p1.Get()
	require.NoError(t, err)
	assert.Equal(t, 3, p.Inventory)
	assert.Equal(t, int64(1), p.Version, "BatchPut stores version+1")
	assert.Equal(t, "PENDING", o1.Value().Status)
	assert.False(t, missing.Found())

	got, err := WProducts.BatchGet(ctx, db, []WProduct{{ID: "p2"}, {ID: "nope"}, {ID: "p1"}})
	require.NoError(t, err)
	require.Len(t, got, 3)
	assert.Equal(t, "Ink", got[0].Name)
	assert.Nil(t, got[1])
	assert.Equal(t, "Pen", got[2].Name)

	require.NoError(t, db.BatchWrite(ctx, []BatchOp{BatchDelete(WProducts, WProduct{ID: "p1"}, WProduct{ID: "p2"})}))
	got, err = WProducts.BatchGet(ctx, db, []WProduct{{ID: "p1"}, {ID: "p2"}}, ConsistentRead())
	require.NoError(t, err)
	assert.Equal(t, []*WProduct{nil, nil}, got)
}
