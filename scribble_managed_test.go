package singletable_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/revision"
	"github.com/singletable/singletable/singletabletest"
)

// What managed features put into requests, under a Client that scribbles
// over every request once answered (scribbler, scribble_test.go).

type scrDoc struct {
	ID    string
	Title string
}

var (
	scrDocTable = st.MustTable("ScribbleDocs")
	scrDocs     = st.MustDefine[scrDoc](scrDocTable, "Doc", st.Key("DOC#{ID}", "DOC"), revision.Current(2))
)

// The shape revision a write stores and conditions on is each request's
// own: a Client that overwrote the revision of one request (the item's
// value, the condition's) changed no later one.
func TestClientMayModifyRevisions(t *testing.T) {
	mock := &singletabletest.Client{}
	s := &scribbler{inner: mock}
	db := st.New(s, scrDocTable)
	ctx := context.Background()
	for i := 0; i < 2; i++ {
		require.NoError(t, scrDocs.Put(ctx, db, scrDoc{ID: "d1", Title: "t"}))
		_, _ = scrDocs.Update(ctx, db, scrDoc{ID: "d1"}, st.Set("Title", "u")) // the mock's answer does not matter here
		require.NoError(t, db.Transact(ctx, func(tx *st.Tx) error {
			scrDocs.TxUpdate(tx, scrDoc{ID: "d2"}, st.Set("Title", "v"))
			return nil
		}))
	}
	sent := withoutTokens(s.requests())
	require.Len(t, sent, 6)
	assert.Equal(t, sent[:3], sent[3:], "the second round sends what the first did")
	for _, r := range sent {
		assert.NotContains(t, r, "987654321", "a request carries what the Client wrote over an earlier one")
	}
}

// A stale Current value's *StaleError names what the caller gave, not what
// the Client left in the request it was sent in.
func TestClientMayModifyCurrentStale(t *testing.T) {
	stored := map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "PROJ#p1"}, "SK": &types.AttributeValueMemberS{Value: "TASK#t1"},
		"_type": &types.AttributeValueMemberS{Value: "Task"}, "status": &types.AttributeValueMemberS{Value: "OPEN"},
		"priority": &types.AttributeValueMemberN{Value: "5"}, "due": &types.AttributeValueMemberS{Value: "2025-01-10"},
	}
	mock := &singletabletest.Client{UpdateItemFunc: func(context.Context, *dynamodb.UpdateItemInput) (*dynamodb.UpdateItemOutput, error) {
		return nil, &types.ConditionalCheckFailedException{Item: deepCopy(stored)}
	}}
	db := st.New(&scribbler{inner: mock}, cuTable)
	key := cuTask{Project: "p1", ID: "t1"}
	_, err := cuTasks.Update(context.Background(), db, key, st.Set("Assignee", "bob"), st.Current(cuFresh))
	var se *st.StaleError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "Priority", se.Field)
	assert.Equal(t, &types.AttributeValueMemberN{Value: "3"}, se.Given)
	assert.ErrorContains(t, err, "stale: the item holds Priority 5, not 3")
}
