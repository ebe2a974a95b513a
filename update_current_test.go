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
	"github.com/singletable/singletable/internal/golden"
	"github.com/singletable/singletable/singletabletest"
)

// The model of issue 19.2: Assignee is in two index keys, which also read
// Status, Priority and Due; a sparse index's When reads Status.

var cuTable = st.MustTable("CurrentRule", st.WithGSI("GSI1"), st.WithGSI("GSI2"), st.WithGSI("GSI3"))

type cuTask struct {
	Project  string `dynamodbav:"project"`
	ID       string `dynamodbav:"id"`
	Status   string `dynamodbav:"status"`
	Priority int    `dynamodbav:"priority"`
	Assignee string `dynamodbav:"assignee"`
	Due      string `dynamodbav:"due,omitempty"`
	Title    string `dynamodbav:"title,omitempty"`
}

var cuTasks = st.MustDefine[cuTask](cuTable, "Task",
	st.Key("PROJ#{Project}", "TASK#{ID}"),
	st.Index("GSI1", "PROJ#{Project}#{Status}", "{Assignee}#{Priority:2}#{ID}"),
	st.Index("GSI2", "ASSIGNEE#{Assignee}", "D#{Due}#{ID}"),
	st.Index("GSI3", "OPEN#{Assignee}", "{ID}").When(st.Ne("Status", "DONE")),
)

var cuFresh = cuTask{Project: "p1", ID: "t1", Status: "OPEN", Priority: 3, Assignee: "ann", Due: "2025-01-10", Title: "x"}

// Current gives what a read would: one UpdateItem, no GetItem, its index
// keys from the value given and its condition on those fields as given.
func TestUpdateCurrentSendsOneRequest(t *testing.T) {
	mock := &singletabletest.Client{UpdateItemFunc: typed("Task")}
	db := st.New(mock, cuTable)
	_, err := cuTasks.Update(context.Background(), db, cuTask{Project: "p1", ID: "t1"}, st.Set("Assignee", "bob"), st.Current(cuFresh))
	require.NoError(t, err)
	calls := mock.Calls()
	require.Len(t, calls, 1, "no read")
	upd, ok := calls[0].Input.(*dynamodb.UpdateItemInput)
	require.True(t, ok, "the one request is the UpdateItem")
	vals := map[string]string{}
	for k, v := range upd.ExpressionAttributeValues {
		if s, ok := v.(*types.AttributeValueMemberS); ok {
			vals[s.Value] = k
		}
		if n, ok := v.(*types.AttributeValueMemberN); ok {
			vals["N"+n.Value] = k
		}
	}
	assert.Contains(t, vals, "bob#03#t1", "GSI1SK from the Priority given")
	assert.Contains(t, vals, "D#2025-01-10#t1", "GSI2SK from the Due given")
	assert.Contains(t, vals, "OPEN#bob", "in the sparse index by the Status given")
	cond := aws.ToString(upd.ConditionExpression)
	for _, v := range []string{"OPEN", "N3", "2025-01-10"} {
		assert.Contains(t, cond, vals[v], "conditioned on %s as given", v)
	}
	assert.Equal(t, types.ReturnValuesOnConditionCheckFailureAllOld, upd.ReturnValuesOnConditionCheckFailure)

	// A pointer to the value does the same; a field the value leaves out
	// (omitempty Due) is conditioned absent.
	mock.Reset()
	noDue := cuFresh
	noDue.Due = ""
	_, err = cuTasks.Update(context.Background(), db, cuTask{Project: "p1", ID: "t1"}, st.Set("Assignee", "bob"), st.Current(&noDue))
	require.NoError(t, err)
	require.Len(t, mock.Calls(), 1)
	assert.Contains(t, aws.ToString(mock.Calls()[0].Input.(*dynamodb.UpdateItemInput).ConditionExpression), "attribute_not_exists")

	// An update that needs nothing of the value sends no condition on it.
	mock.Reset()
	_, err = cuTasks.Update(context.Background(), db, cuTask{Project: "p1", ID: "t1"}, st.Set("Title", "y"), st.Current(cuFresh))
	require.NoError(t, err)
	require.Len(t, mock.Calls(), 1)
	assert.Equal(t, "(attribute_exists(#n1)) AND (#n2 = :v1)", aws.ToString(mock.Calls()[0].Input.(*dynamodb.UpdateItemInput).ConditionExpression))
}

// The When condition's field comes from the value given too: a Status
// that takes the item out of the sparse index removes its keys, on the
// condition that Status is still so.
func TestUpdateCurrentWhen(t *testing.T) {
	mock := &singletabletest.Client{UpdateItemFunc: typed("Ticket")}
	db := st.New(mock, urTable)
	_, err := urTickets.Update(context.Background(), db, urTicket{ID: "t1"}, st.Set("Owner", "bob"), st.Current(urTicket{ID: "t1", Owner: "ann", Status: "DONE"}))
	require.NoError(t, err)
	require.Len(t, mock.Calls(), 1)
	upd := mock.Calls()[0].Input.(*dynamodb.UpdateItemInput)
	assert.Equal(t, "SET #n0 = :v0 REMOVE #n1, #n2", aws.ToString(upd.UpdateExpression))
	assert.Equal(t, "((attribute_exists(#n3)) AND (#n4 = :v1)) AND (#n5 = :v2)", aws.ToString(upd.ConditionExpression))
	assert.Equal(t, "status", upd.ExpressionAttributeNames["#n5"])
	assert.Equal(t, &types.AttributeValueMemberS{Value: "DONE"}, upd.ExpressionAttributeValues[":v2"])
}

// A value of another type or another item is refused before anything is
// sent, by Update, UpdateInput and TxUpdate alike.
func TestUpdateCurrentRefused(t *testing.T) {
	mock := &singletabletest.Client{}
	db := st.New(mock, cuTable)
	key := cuTask{Project: "p1", ID: "t1"}
	other := cuFresh
	other.ID = "t2"
	var nilTask *cuTask
	for name, c := range map[string]struct {
		opt  st.UpdateOption
		want string
	}{
		"type":      {st.Current(urTicket{ID: "t1"}), "Current: the value is a singletable_test.urTicket, not a singletable_test.cuTask"},
		"key":       {st.Current(other), "Current: the value is the item {PK=PROJ#p1 SK=TASK#t2}, not the item updated {PK=PROJ#p1 SK=TASK#t1}"},
		"nil":       {st.Current(nilTask), "Current: the value is a nil pointer"},
		"untyped":   {st.Current[any](nil), "Current: the value is a <nil>"},
		"no change": {st.Current(other), "Current: the value is the item"},
	} {
		ch := st.Set("Assignee", "bob")
		if name == "no change" {
			ch = st.Set("Title", "y") // needs nothing of the value: still checked
		}
		_, err := cuTasks.Update(context.Background(), db, key, ch, c.opt)
		assert.ErrorIs(t, err, st.ErrInvalidInput, name)
		assert.ErrorContains(t, err, c.want, name)
		_, err = cuTasks.UpdateInput(db, key, ch, c.opt)
		assert.ErrorContains(t, err, c.want, name)
		err = db.Transact(context.Background(), func(tx *st.Tx) error {
			cuTasks.TxUpdate(tx, key, ch, c.opt)
			return nil
		})
		assert.ErrorIs(t, err, st.ErrInvalidInput, name)
		assert.ErrorContains(t, err, c.want, name)
	}
	assert.Empty(t, mock.Calls())
}

// A stale value fails the write with a *StaleError naming the field whose
// stored value differs (from the item the failed condition returns).
func TestUpdateCurrentStaleNamesField(t *testing.T) {
	stored := map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "PROJ#p1"}, "SK": &types.AttributeValueMemberS{Value: "TASK#t1"},
		"_type": &types.AttributeValueMemberS{Value: "Task"}, "status": &types.AttributeValueMemberS{Value: "OPEN"},
		"priority": &types.AttributeValueMemberN{Value: "5"}, "due": &types.AttributeValueMemberS{Value: "2025-01-10"},
	}
	mock := &singletabletest.Client{UpdateItemFunc: func(context.Context, *dynamodb.UpdateItemInput) (*dynamodb.UpdateItemOutput, error) {
		return nil, &types.ConditionalCheckFailedException{Item: stored}
	}}
	db := st.New(mock, cuTable)
	_, err := cuTasks.Update(context.Background(), db, cuTask{Project: "p1", ID: "t1"}, st.Set("Assignee", "bob"), st.Current(cuFresh))
	var se *st.StaleError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "Priority", se.Field)
	assert.Equal(t, &types.AttributeValueMemberN{Value: "3"}, se.Given)
	assert.ErrorIs(t, err, st.ErrConditionFailed)
	assert.ErrorContains(t, err, "stale: the item holds Priority 5, not 3")
	assert.Len(t, mock.Calls(), 1, "not read and sent again")
}

// The requests of an update given Current, built without a network.
func TestUpdateCurrentGolden(t *testing.T) {
	db := st.New(&singletabletest.Client{}, cuTable)
	key := cuTask{Project: "p1", ID: "t1"}
	in, err := cuTasks.UpdateInput(db, key, st.Set("Assignee", "bob"), st.Current(cuFresh))
	require.NoError(t, err)
	golden.Request(t, "update/current", in)

	tx, err := db.TransactInput(func(tx *st.Tx) error {
		cuTasks.TxUpdate(tx, key, st.Set("Assignee", "bob"), st.Current(cuFresh))
		return nil
	}, st.IdempotencyToken("golden-token"))
	require.NoError(t, err)
	golden.Request(t, "txn/update_current", tx)
}
