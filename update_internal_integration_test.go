//go:build integration

package singletable

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
