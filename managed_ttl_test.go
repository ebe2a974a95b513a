package singletable_test

// Unique values on an entity that expires: the guard items carry the
// item's expiry, so that DynamoDB's time to live deletes them with it, and
// every write that sets the expiry keeps them in step.

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/singletabletest"
)

type uqInvite struct {
	Team  string    `dynamodbav:"team"`
	Code  string    `dynamodbav:"code"`
	Email string    `dynamodbav:"email"`
	Note  string    `dynamodbav:"note"`
	Exp   time.Time `dynamodbav:"ttl,unixtime"`
}

var (
	uqTable   = st.MustTable("Invites", st.WithTTL("ttl"))
	uqInvites = st.MustDefine[uqInvite](uqTable, "Invite", st.Key("TEAM#{Team}", "INV#{Code}"),
		st.Unique("Email"), st.Expires("Exp"), st.ExpiresAfter(24*time.Hour))
)

// uqGuards are the guard items a transaction puts, by guard key, and the
// keys of those it deletes.
func uqGuards(t *testing.T, in *dynamodb.TransactWriteItemsInput) (puts map[string]map[string]types.AttributeValue, deletes []string) {
	t.Helper()
	puts = map[string]map[string]types.AttributeValue{}
	for _, it := range in.TransactItems {
		switch {
		case it.Put != nil && it.Put.Item["_type"].(*types.AttributeValueMemberS).Value == "_unique":
			puts[it.Put.Item["PK"].(*types.AttributeValueMemberS).Value] = it.Put.Item
		case it.Delete != nil:
			deletes = append(deletes, it.Delete.Key["PK"].(*types.AttributeValueMemberS).Value)
		}
	}
	return puts, deletes
}

func epoch(t time.Time) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(t.Unix(), 10)}
}

func TestUniqueGuardsCarryTheExpiry(t *testing.T) {
	db := st.New(&singletabletest.Client{}, uqTable, st.WithClock(func() time.Time { return ttlNow }))
	given := ttlNow.Add(time.Hour)
	for name, v := range map[string]uqInvite{
		"ExpiresAfter":  {Team: "t1", Code: "c1", Email: "a@x"},
		"a given value": {Team: "t1", Code: "c1", Email: "a@x", Exp: given},
	} {
		t.Run(name, func(t *testing.T) {
			want := epoch(ttlNow.Add(24 * time.Hour))
			if !v.Exp.IsZero() {
				want = epoch(given)
			}
			for _, create := range []bool{false, true} {
				in, err := db.TransactInput(func(tx *st.Tx) error {
					if create {
						uqInvites.TxCreate(tx, v)
					} else {
						uqInvites.TxPut(tx, v)
					}
					return nil
				})
				require.NoError(t, err)
				puts, _ := uqGuards(t, in)
				require.Len(t, puts, 1)
				for _, g := range puts {
					assert.Equal(t, want, g["ttl"], "the guard expires with its item")
				}
			}
		})
	}
}

// Update reads the item (strongly consistent) and moves or refreshes its
// guards with the expiry the item has after the update.
func TestUniqueGuardsFollowUpdates(t *testing.T) {
	stored := map[string]types.AttributeValue{"PK": s("TEAM#t1"), "SK": s("INV#c1"), "_type": s("Invite"),
		"team": s("t1"), "code": s("c1"), "email": s("a@x"), "note": s(""), "ttl": epoch(ttlNow.Add(time.Hour))}
	run := func(t *testing.T, ch st.Changes, opts ...st.UpdateOption) (*dynamodb.TransactWriteItemsInput, error) {
		t.Helper()
		var sent *dynamodb.TransactWriteItemsInput
		c := &singletabletest.Client{
			GetItemFunc: func(_ context.Context, in *dynamodb.GetItemInput) (*dynamodb.GetItemOutput, error) {
				return &dynamodb.GetItemOutput{Item: stored}, nil
			},
			TransactWriteItemsFunc: func(_ context.Context, in *dynamodb.TransactWriteItemsInput) (*dynamodb.TransactWriteItemsOutput, error) {
				sent = in
				return &dynamodb.TransactWriteItemsOutput{}, nil
			},
			UpdateItemFunc: func(context.Context, *dynamodb.UpdateItemInput) (*dynamodb.UpdateItemOutput, error) {
				return &dynamodb.UpdateItemOutput{Attributes: stored}, nil
			},
		}
		db := st.New(c, uqTable, st.WithClock(func() time.Time { return ttlNow }))
		_, err := uqInvites.Update(context.Background(), db, uqInvite{Team: "t1", Code: "c1"}, ch, opts...)
		return sent, err
	}
	later := ttlNow.Add(48 * time.Hour)

	t.Run("a new value takes the stored expiry", func(t *testing.T) {
		in, err := run(t, st.Set("Email", "b@x"))
		require.NoError(t, err)
		puts, deletes := uqGuards(t, in)
		require.Len(t, puts, 1)
		for _, g := range puts {
			assert.Equal(t, epoch(ttlNow.Add(time.Hour)), g["ttl"])
		}
		assert.Len(t, deletes, 1)
		assert.Contains(t, in.TransactItems[0].Update.ExpressionAttributeValues, ":v2", "the stored expiry is held")
		up := in.TransactItems[0].Update
		var ttlName string
		for n, attr := range up.ExpressionAttributeNames {
			if attr == "ttl" {
				ttlName = n
			}
		}
		require.NotEmpty(t, ttlName, "the update names the expiry")
		assert.Contains(t, *up.ConditionExpression, ttlName+" = ", "the condition holds the stored expiry")
		assert.Contains(t, slices.Collect(maps.Values(up.ExpressionAttributeValues)), epoch(ttlNow.Add(time.Hour)))
	})
	t.Run("a new expiry refreshes the guard", func(t *testing.T) {
		in, err := run(t, st.Set("Exp", later))
		require.NoError(t, err)
		puts, deletes := uqGuards(t, in)
		require.Len(t, puts, 1, "the same value's guard, put again")
		for _, g := range puts {
			assert.Equal(t, epoch(later), g["ttl"])
		}
		assert.Empty(t, deletes)
	})
	t.Run("both at once", func(t *testing.T) {
		in, err := run(t, st.Set("Email", "b@x").Set("Exp", later))
		require.NoError(t, err)
		puts, deletes := uqGuards(t, in)
		require.Len(t, puts, 1)
		for _, g := range puts {
			assert.Equal(t, epoch(later), g["ttl"])
		}
		assert.Len(t, deletes, 1)
	})
	t.Run("no expiry any more", func(t *testing.T) {
		in, err := run(t, st.Remove("Exp"))
		require.NoError(t, err)
		puts, _ := uqGuards(t, in)
		require.Len(t, puts, 1)
		for _, g := range puts {
			assert.NotContains(t, g, "ttl", "the guard lives as long as its item")
		}
	})
	t.Run("another field leaves the guards alone", func(t *testing.T) {
		in, err := run(t, st.Set("Note", "hi"))
		require.NoError(t, err)
		assert.Nil(t, in, "a plain UpdateItem, no transaction")
	})
	t.Run("arithmetic on the expiry", func(t *testing.T) {
		_, err := run(t, st.Increment("Exp", 60))
		require.ErrorIs(t, err, st.ErrInvalidInput)
	})
}

// TxUpdate reads nothing, so it cannot learn the expiry the guards carry.
func TestUniqueGuardsTxUpdateRefused(t *testing.T) {
	db := st.New(&singletabletest.Client{}, uqTable, st.WithClock(func() time.Time { return ttlNow }))
	for _, ch := range []st.Changes{st.Set("Email", "b@x"), st.Set("Exp", ttlNow.Add(time.Hour))} {
		_, err := db.TransactInput(func(tx *st.Tx) error {
			uqInvites.TxUpdate(tx, uqInvite{Team: "t1", Code: "c1", Email: "a@x"}, ch)
			return nil
		})
		require.ErrorIs(t, err, st.ErrInvalidInput)
		assert.Contains(t, err.Error(), "use Update")
	}
	_, err := db.TransactInput(func(tx *st.Tx) error {
		uqInvites.TxUpdate(tx, uqInvite{Team: "t1", Code: "c1"}, st.Set("Note", "hi"))
		return nil
	})
	require.NoError(t, err, "other fields are fine")
}
