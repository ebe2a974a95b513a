//go:build integration

package singletable_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/singletabletest"
)

var (
	cuByStatus   = cuTasks.Pattern("CuByStatus").On("GSI1").Partition("PROJ#{Project}#{Status}").Must()
	cuByAssignee = cuTasks.Pattern("CuByAssignee").On("GSI2").Partition("ASSIGNEE#{Assignee}").Must()
)

func cuRaw(t *testing.T, db *st.DB) map[string]types.AttributeValue {
	t.Helper()
	out, err := db.Client().GetItem(context.Background(), &dynamodb.GetItemInput{
		TableName: aws.String(db.TableName()), ConsistentRead: aws.Bool(true),
		Key: map[string]types.AttributeValue{
			"PK": &types.AttributeValueMemberS{Value: "PROJ#p1"}, "SK": &types.AttributeValueMemberS{Value: "TASK#t1"},
		},
	})
	require.NoError(t, err)
	return out.Item
}

func cuIDs(t *testing.T, p *st.Pattern[cuTask], db *st.DB, params cuTask) []string {
	t.Helper()
	page, err := p.Query(context.Background(), db, params)
	require.NoError(t, err)
	var ids []string
	for _, it := range page.Items {
		ids = append(ids, it.ID+"/"+it.Assignee)
	}
	return ids
}

// Issue 19.2: a transaction updates one field of two index keys given the
// item as the caller holds it; a stale copy cancels it with the field
// named, and writes nothing; Update does likewise without a read.
func TestTxUpdateCurrentIndexKeys(t *testing.T) {
	ctx := context.Background()
	db := singletabletest.LocalDB(t, cuTable)
	key := cuTask{Project: "p1", ID: "t1"}
	require.NoError(t, cuTasks.Put(ctx, db, cuFresh))
	fresh, err := cuTasks.Get(ctx, db, key)
	require.NoError(t, err)

	err = db.Transact(ctx, func(tx *st.Tx) error {
		cuTasks.TxUpdate(tx, key, st.Set("Assignee", "bob"), st.Current(fresh))
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"t1/bob"}, cuIDs(t, cuByAssignee, db, cuTask{Assignee: "bob"}))
	assert.Empty(t, cuIDs(t, cuByAssignee, db, cuTask{Assignee: "ann"}))
	assert.Equal(t, []string{"t1/bob"}, cuIDs(t, cuByStatus, db, cuTask{Project: "p1", Status: "OPEN"}))
	item := cuRaw(t, db)
	assert.Equal(t, "bob#03#t1", urS(item, "GSI1SK"))
	assert.Equal(t, "D#2025-01-10#t1", urS(item, "GSI2SK"))
	assert.Equal(t, "OPEN#bob", urS(item, "GSI3PK"))

	// Another writer changes Priority: the copy is stale.
	stale := fresh
	stale.Assignee = "bob"
	_, err = cuTasks.Update(ctx, db, key, st.Set("Priority", 5))
	require.NoError(t, err)
	before := cuRaw(t, db)

	err = db.Transact(ctx, func(tx *st.Tx) error {
		cuTasks.TxUpdate(tx, key, st.Set("Assignee", "carl"), st.Current(stale))
		return nil
	})
	var se *st.StaleError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "Priority", se.Field)
	var te *st.TxError
	require.ErrorAs(t, err, &te)
	require.Len(t, te.Actions, 1)
	assert.ErrorContains(t, err, "stale: the item holds Priority 5, not 3")
	assert.Equal(t, before, cuRaw(t, db), "nothing written")

	_, err = cuTasks.Update(ctx, db, key, st.Set("Assignee", "carl"), st.Current(stale))
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "Priority", se.Field)
	assert.ErrorIs(t, err, st.ErrConditionFailed)
	assert.Equal(t, before, cuRaw(t, db), "nothing written")
	assert.Empty(t, cuIDs(t, cuByAssignee, db, cuTask{Assignee: "carl"}))

	// A fresh copy: Update sends it, the keys follow.
	fresh, err = cuTasks.Get(ctx, db, key)
	require.NoError(t, err)
	got, err := cuTasks.Update(ctx, db, key, st.Set("Assignee", "carl"), st.Current(&fresh))
	require.NoError(t, err)
	assert.Equal(t, "carl", got.Assignee)
	assert.Equal(t, "carl#05#t1", urS(cuRaw(t, db), "GSI1SK"))
	assert.Equal(t, []string{"t1/carl"}, cuIDs(t, cuByAssignee, db, cuTask{Assignee: "carl"}))
}

// A field the copy leaves out is conditioned absent: a copy without Due
// fails once the item has one.
func TestUpdateCurrentAbsentField(t *testing.T) {
	ctx := context.Background()
	db := singletabletest.LocalDB(t, cuTable)
	key := cuTask{Project: "p1", ID: "t1"}
	require.NoError(t, cuTasks.Put(ctx, db, cuFresh))
	noDue := cuFresh
	noDue.Due = ""
	_, err := cuTasks.Update(ctx, db, key, st.Set("Assignee", "bob"), st.Current(noDue))
	var se *st.StaleError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "Due", se.Field)
	assert.Nil(t, se.Given)
	assert.Equal(t, "ann", urS(cuRaw(t, db), "assignee"))
}
