package singletable_test

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/singletabletest"
)

// Writes of unique values that race other writers, or meet an absent or
// expired item, counted in requests against the recording Client.

// uniqueItem is v as a Put of it through e stores it (the item of its
// transaction: an entity with unique fields has no PutInput).
func uniqueItem[T any](t *testing.T, db *st.DB, e *st.Entity[T], v T) map[string]types.AttributeValue {
	t.Helper()
	in, err := db.TransactInput(func(tx *st.Tx) error { e.TxPut(tx, v); return nil })
	require.NoError(t, err)
	return in.TransactItems[0].Put.Item
}

// callOps lists the operations a recording Client was sent, in order.
func callOps(mock *singletabletest.Client) []string {
	var ops []string
	for _, c := range mock.Calls() {
		ops = append(ops, c.Op)
	}
	return ops
}

// getItems answers each GetItem with the next of items (nil: no item),
// the last one again once they run out.
func getItems(items ...map[string]types.AttributeValue) func(context.Context, *dynamodb.GetItemInput) (*dynamodb.GetItemOutput, error) {
	var n atomic.Int32
	return func(context.Context, *dynamodb.GetItemInput) (*dynamodb.GetItemOutput, error) {
		i := int(n.Add(1)) - 1
		if i >= len(items) {
			i = len(items) - 1
		}
		return &dynamodb.GetItemOutput{Item: items[i]}, nil
	}
}

// txAnswers answers each TransactWriteItems with the next of errs (nil:
// success), success once they run out.
func txAnswers(errs ...error) func(context.Context, *dynamodb.TransactWriteItemsInput) (*dynamodb.TransactWriteItemsOutput, error) {
	var n atomic.Int32
	return func(context.Context, *dynamodb.TransactWriteItemsInput) (*dynamodb.TransactWriteItemsOutput, error) {
		if i := int(n.Add(1)) - 1; i < len(errs) {
			return nil, errs[i]
		}
		return &dynamodb.TransactWriteItemsOutput{}, nil
	}
}

var (
	ccfNone = types.CancellationReason{Code: aws.String("None")}
)

func ccfWith(item map[string]types.AttributeValue) types.CancellationReason {
	return types.CancellationReason{Code: aws.String("ConditionalCheckFailed"), Item: item}
}

// condNames lists the attribute names a condition uses, of an action's
// names (which its update expression may share).
func condNames(cond *string, names map[string]string) []string {
	var out []string
	for _, tok := range regexp.MustCompile(`#\w+`).FindAllString(aws.ToString(cond), -1) {
		if n, ok := names[tok]; ok && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// An absent item holds no unique value in any scope: a TxDelete of it,
// and an upsert that sets a scoped unique value, are conditioned on the
// value (absent or zero) alone, as for a table-wide field; the scope is
// held only with a value (F1).
func TestScopedUniqueZeroValueHeldWithoutScope(t *testing.T) {
	mock := &singletabletest.Client{}
	db := st.New(mock, scopedTable)
	in, err := db.TransactInput(func(tx *st.Tx) error {
		scopedAgents.TxDelete(tx, scopedAgent{ID: "nobody", Tenant: "acme"})
		return nil
	})
	require.NoError(t, err)
	require.Len(t, in.TransactItems, 1, "no value, no guard")
	d := in.TransactItems[0].Delete
	// The item's own (absent or of the entity's type), then the value's.
	assert.Equal(t, "((attribute_not_exists(#n0)) OR (#n1 = :v0)) AND ((attribute_not_exists(#n2)) OR (#n2 = :v1))", aws.ToString(d.ConditionExpression))
	assert.Equal(t, []string{"PK", "_type", "email"}, condNames(d.ConditionExpression, d.ExpressionAttributeNames))

	// The upsert of a new agent with an email, in a transaction.
	in, err = db.TransactInput(func(tx *st.Tx) error {
		scopedAgents.TxUpdate(tx, scopedAgent{ID: "new"}, st.Set("Email", "a@x").Set("Tenant", "acme"), st.Upsert())
		return nil
	})
	require.NoError(t, err)
	require.Len(t, in.TransactItems, 2, "the item and the new guard")
	assert.NotContains(t, condNames(in.TransactItems[0].Update.ConditionExpression, in.TransactItems[0].Update.ExpressionAttributeNames), "tenant")

	// With a value, the scope is held too.
	in, err = db.TransactInput(func(tx *st.Tx) error {
		scopedAgents.TxDelete(tx, scopedAgent{ID: "a1", Tenant: "acme", Email: "a@x"})
		return nil
	})
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"PK", "_type", "email", "tenant"}, condNames(in.TransactItems[0].Delete.ConditionExpression, in.TransactItems[0].Delete.ExpressionAttributeNames))

	// Update's upsert reads the absent item, sends the transaction, and
	// reads the new item back.
	created := uniqueItem(t, db, scopedAgents, scopedAgent{ID: "new", Email: "a@x", Name: "A"})
	mock.GetItemFunc = getItems(nil, created)
	got, err := scopedAgents.Update(context.Background(), db, scopedAgent{ID: "new"}, st.Set("Email", "a@x").Set("Name", "A"), st.Upsert())
	require.NoError(t, err)
	assert.Equal(t, "a@x", got.Email)
	assert.Equal(t, []string{"GetItem", "TransactWriteItems", "GetItem"}, callOps(mock))
	tx := mock.Calls()[1].Input.(*dynamodb.TransactWriteItemsInput)
	require.Len(t, tx.TransactItems, 2)
	// The new guard takes the scope the item holds, zero here: held as
	// absent or zero, which an absent item is.
	assert.Contains(t, aws.ToString(tx.TransactItems[0].Update.ConditionExpression), "attribute_not_exists")
}

// Delete of an entity with unique fields reads the item, and when its
// transaction fails on an item changed meanwhile, reads it again and
// deletes what it holds now; an item deleted meanwhile is deleted (F2).
func TestDeleteUniqueRetriesChangedItem(t *testing.T) {
	ctx := context.Background()
	mock := &singletabletest.Client{}
	db := st.New(mock, scopedTable)
	a := uniqueItem(t, db, scopedAgents, scopedAgent{ID: "a1", Tenant: "acme", Email: "a@x"})
	b := uniqueItem(t, db, scopedAgents, scopedAgent{ID: "a1", Tenant: "acme", Email: "b@x"})
	key := scopedAgent{ID: "a1"}

	// The email changed between the read and the transaction.
	mock.GetItemFunc = getItems(a, b)
	mock.TransactWriteItemsFunc = txAnswers(singletabletest.TransactionCanceledBy(ccfWith(b), ccfNone))
	require.NoError(t, scopedAgents.Delete(ctx, db, key))
	assert.Equal(t, []string{"GetItem", "TransactWriteItems", "GetItem", "TransactWriteItems"}, callOps(mock))
	last := mock.Calls()[3].Input.(*dynamodb.TransactWriteItemsInput)
	require.Len(t, last.TransactItems, 2)
	assert.Equal(t, "_unique#Agent#email#tenant#acme#b@x", guardPK(t, last.TransactItems[1]))

	// Deleted between the read and the transaction: done, as a missing
	// item is; with MustExist, ErrNotFound.
	for _, mustExist := range []bool{false, true} {
		mock.Reset()
		mock.GetItemFunc = getItems(a, nil)
		mock.TransactWriteItemsFunc = txAnswers(singletabletest.TransactionCanceledBy(ccfWith(nil), ccfNone))
		var opts []st.DeleteOption
		if mustExist {
			opts = append(opts, st.MustExist())
		}
		err := scopedAgents.Delete(ctx, db, key, opts...)
		if mustExist {
			require.ErrorIs(t, err, st.ErrNotFound)
		} else {
			require.NoError(t, err)
		}
		assert.Equal(t, []string{"GetItem", "TransactWriteItems", "GetItem"}, callOps(mock))
	}

	// A condition of the caller's that fails on an unchanged item is
	// returned as it is: the failure returns the item, which shows
	// nothing changed, so no read follows (atkA2 N6).
	mock.Reset()
	mock.GetItemFunc = getItems(a)
	mock.TransactWriteItemsFunc = txAnswers(singletabletest.TransactionCanceledBy(ccfWith(a), ccfNone))
	err := scopedAgents.Delete(ctx, db, key, st.If(st.Eq("Name", "Ann")))
	require.ErrorIs(t, err, st.ErrConditionFailed)
	require.NotErrorIs(t, err, st.ErrReadChanged)
	assert.Equal(t, []string{"GetItem", "TransactWriteItems"}, callOps(mock))

	// Changed under every attempt: a *ReadChangedError after 4.
	mock.Reset()
	var n atomic.Int32
	mock.GetItemFunc = func(context.Context, *dynamodb.GetItemInput) (*dynamodb.GetItemOutput, error) {
		i := n.Add(1)
		return &dynamodb.GetItemOutput{Item: uniqueItem(t, db, scopedAgents, scopedAgent{ID: "a1", Tenant: "acme", Email: strings.Repeat("x", int(i)) + "@x"})}, nil
	}
	mock.TransactWriteItemsFunc = func(context.Context, *dynamodb.TransactWriteItemsInput) (*dynamodb.TransactWriteItemsOutput, error) {
		return nil, singletabletest.TransactionCanceledBy(ccfWith(nil), ccfNone)
	}
	err = scopedAgents.Delete(ctx, db, key)
	var rc *st.ReadChangedError
	require.ErrorAs(t, err, &rc)
	assert.Equal(t, 4, rc.Attempts)
	assert.Equal(t, []string{"Email", "Tenant"}, rc.Fields)
	assert.ErrorIs(t, err, st.ErrConditionFailed)
	assert.Contains(t, err.Error(), "attempts to delete the item")
	assert.Len(t, mock.Calls(), 9, "5 reads, 4 transactions")
}

// An Update naming a unique field whose value does not change moves no
// guard: one UpdateItem, whose item it returns, after the read (F3).
func TestUpdateUniqueUnchangedValueNoReadBack(t *testing.T) {
	mock := &singletabletest.Client{}
	db := st.New(mock, scopedTable)
	stored := scopedAgent{ID: "a1", Tenant: "acme", Email: "a@x", Name: "Ann"}
	mock.GetItemFunc = getItems(uniqueItem(t, db, scopedAgents, stored))
	after := uniqueItem(t, db, scopedAgents, scopedAgent{ID: "a1", Tenant: "acme", Email: "a@x", Name: "Anne"})
	mock.UpdateItemFunc = func(context.Context, *dynamodb.UpdateItemInput) (*dynamodb.UpdateItemOutput, error) {
		return &dynamodb.UpdateItemOutput{Attributes: after}, nil
	}
	got, err := scopedAgents.Update(context.Background(), db, scopedAgent{ID: "a1"}, st.Set("Email", "a@x").Set("Name", "Anne"))
	require.NoError(t, err)
	assert.Equal(t, "Anne", got.Name)
	assert.Equal(t, "a@x", got.Email)
	assert.Equal(t, []string{"GetItem", "UpdateItem"}, callOps(mock))
}

// A Put that moves guards, whose item is deleted between its two
// transactions, puts again as over no item: the item and its guards
// (F5).
func TestPutMovingGuardsItemDeletedMeanwhile(t *testing.T) {
	mock := &singletabletest.Client{}
	db := st.New(mock, scopedTable)
	stored := uniqueItem(t, db, scopedAgents, scopedAgent{ID: "a1", Tenant: "acme", Email: "a@x"})
	mock.TransactWriteItemsFunc = txAnswers(
		singletabletest.TransactionCanceledBy(ccfWith(stored), ccfNone),       // the item holds a@x
		singletabletest.TransactionCanceledBy(ccfWith(nil), ccfNone, ccfNone), // gone
	)
	require.NoError(t, scopedAgents.Put(context.Background(), db, scopedAgent{ID: "a1", Tenant: "acme", Email: "b@x"}))
	assert.Equal(t, []string{"TransactWriteItems", "TransactWriteItems", "TransactWriteItems"}, callOps(mock))
	moved := mock.Calls()[1].Input.(*dynamodb.TransactWriteItemsInput)
	require.Len(t, moved.TransactItems, 3, "the item, the old guard's delete, the new guard")
	last := mock.Calls()[2].Input.(*dynamodb.TransactWriteItemsInput)
	require.Len(t, last.TransactItems, 2, "the item and its guard, as over no item")
	assert.Equal(t, "_unique#Agent#email#tenant#acme#b@x", guardPK(t, last.TransactItems[1]))
	assert.Contains(t, aws.ToString(last.TransactItems[0].Put.ConditionExpression), "attribute_not_exists")

	// Gone again: the failure as it is, no more attempts.
	mock.Reset()
	mock.TransactWriteItemsFunc = txAnswers(
		singletabletest.TransactionCanceledBy(ccfWith(stored), ccfNone),
		singletabletest.TransactionCanceledBy(ccfWith(nil), ccfNone, ccfNone),
		singletabletest.TransactionCanceledBy(ccfWith(nil), ccfNone),
	)
	err := scopedAgents.Put(context.Background(), db, scopedAgent{ID: "a1", Tenant: "acme", Email: "b@x"}, st.If(st.Eq("Name", "Ann")))
	require.ErrorIs(t, err, st.ErrConditionFailed)
	assert.Len(t, mock.Calls(), 3)
}

// An invite whose email is unique per tenant, and that expires.
type expiringInvite struct {
	Code      string    `dynamodbav:"code"`
	Tenant    string    `dynamodbav:"tenant"`
	Email     string    `dynamodbav:"email"`
	ExpiresAt time.Time `dynamodbav:"ttl,unixtime"`
}

var (
	inviteTable = st.MustTable("UniqueInvites", st.WithTTL("ttl"))
	invites     = st.MustDefine[expiringInvite](inviteTable, "Invite", st.Key("INVITE#{Code}", "INVITE"),
		st.Unique("Email within Tenant"), st.Expires("ExpiresAt"))
)

// Delete of an item that has expired deletes it alone, on the condition
// that it still has: its guard is free, maybe another item's (F4).
func TestDeleteExpiredUniqueLeavesGuards(t *testing.T) {
	t0 := time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)
	now := t0
	mock := &singletabletest.Client{}
	db := st.New(mock, inviteTable, st.WithClock(func() time.Time { return now }))
	item := uniqueItem(t, db, invites, expiringInvite{Code: "old", Tenant: "t1", Email: "a@x", ExpiresAt: t0.Add(time.Hour)})
	mock.GetItemFunc = getItems(item)

	now = t0.Add(2 * time.Hour)
	require.NoError(t, invites.Delete(context.Background(), db, expiringInvite{Code: "old"}))
	assert.Equal(t, []string{"GetItem", "DeleteItem"}, callOps(mock))
	del := mock.Calls()[1].Input.(*dynamodb.DeleteItemInput)
	assert.Contains(t, aws.ToString(del.ConditionExpression), "<=", "still expired")
	assert.Contains(t, condNames(del.ConditionExpression, del.ExpressionAttributeNames), "ttl")

	// Live: the guard goes with it.
	mock.Reset()
	now = t0
	require.NoError(t, invites.Delete(context.Background(), db, expiringInvite{Code: "old"}))
	assert.Equal(t, []string{"GetItem", "TransactWriteItems"}, callOps(mock))
}
