package singletable_test

import (
	"context"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/singletabletest"
)

// cacheTicket is a model of this file's own: an index key read from two
// fields, a sparse index, and an omitempty field whose zero value an
// update removes rather than sets.
type cacheTicket struct {
	Queue    string `dynamodbav:"queue"`
	ID       string `dynamodbav:"id"`
	Status   string `dynamodbav:"status"`
	Priority int    `dynamodbav:"priority"`
	Owner    string `dynamodbav:"owner,omitempty"`
	Note     string `dynamodbav:"note"`
}

func cacheModel(t *testing.T) (*st.Entity[cacheTicket], *st.DB, *singletabletest.Client) {
	t.Helper()
	table := st.MustTable("Cache", st.WithGSI("GSI1"), st.WithGSI("GSI2"))
	e := st.MustDefine[cacheTicket](table, "Ticket",
		st.Key("Q#{Queue}", "T#{ID}"),
		st.Index("GSI1", "STATUS#{Status}", "{Priority}#{ID}"),
		st.Index("GSI2", "OWNER#{Owner}", "T#{ID}"), // sparse: no owner, no key
	)
	// UpdateItem answers with the item as it is after: the key given,
	// which is all a test here reads back.
	mock := &singletabletest.Client{UpdateItemFunc: func(_ context.Context, in *dynamodb.UpdateItemInput) (*dynamodb.UpdateItemOutput, error) {
		return &dynamodb.UpdateItemOutput{Attributes: ticketItem(in)}, nil
	}}
	return e, st.New(mock, table), mock
}

func ticketItem(in *dynamodb.UpdateItemInput) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"PK": in.Key["PK"], "SK": in.Key["SK"], st.DefaultTypeAttribute: &types.AttributeValueMemberS{Value: "Ticket"}}
}

func sentUpdates(t *testing.T, mock *singletabletest.Client) []*dynamodb.UpdateItemInput {
	t.Helper()
	var out []*dynamodb.UpdateItemInput
	for _, c := range mock.Calls() {
		out = append(out, c.Input.(*dynamodb.UpdateItemInput))
	}
	return out
}

func sameMap[K comparable, V any](a, b map[K]V) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

// Updates of one shape share one update expression and one condition,
// whatever their values; the maps are each request's own.
func TestUpdateCacheOneShapeOnePlan(t *testing.T) {
	e, db, mock := cacheModel(t)
	ctx := context.Background()
	for i := range 5 {
		n := strconv.Itoa(i)
		_, err := e.Update(ctx, db, cacheTicket{Queue: "q#1", ID: "t" + n},
			st.Set("Status", "OPEN"+n).Set("Priority", i+1).If(st.Ne("Note", "x"+n)))
		require.NoError(t, err)
	}
	assert.Equal(t, 2, st.UpdateCacheLen(e), "one update expression and one condition")

	sent := sentUpdates(t, mock)
	require.Len(t, sent, 5)
	for i, in := range sent {
		n := strconv.Itoa(i)
		assert.Equal(t, "SET #n0 = :v0, #n1 = :v1, #n2 = :v2, #n3 = :v3", *in.UpdateExpression)
		assert.Equal(t, "((attribute_exists(#n4)) AND (#n5 = :v4)) AND (#n6 <> :v5)", *in.ConditionExpression)
		if i > 0 {
			assert.False(t, sameMap(sent[0].ExpressionAttributeNames, in.ExpressionAttributeNames), "a names map of its own")
		}
		assert.Equal(t, map[string]string{"#n0": "status", "#n1": "priority", "#n2": "GSI1PK", "#n3": "GSI1SK", "#n4": "PK", "#n5": "_type", "#n6": "note"},
			in.ExpressionAttributeNames)
		assert.Equal(t, map[string]types.AttributeValue{
			":v0": &types.AttributeValueMemberS{Value: "OPEN" + n},
			":v1": &types.AttributeValueMemberN{Value: strconv.Itoa(i + 1)},
			":v2": &types.AttributeValueMemberS{Value: "STATUS#OPEN" + n},
			":v3": &types.AttributeValueMemberS{Value: strconv.Itoa(i+1) + "#t" + n},
			":v4": &types.AttributeValueMemberS{Value: "Ticket"},
			":v5": &types.AttributeValueMemberS{Value: "x" + n},
		}, in.ExpressionAttributeValues)
		assert.Equal(t, "Q#q%231", in.Key["PK"].(*types.AttributeValueMemberS).Value, "the delimiter escaped")
		assert.Equal(t, "T#t"+n, in.Key["SK"].(*types.AttributeValueMemberS).Value, "the key is each request's own")
	}
}

// A value that changes the request's shape (an omitempty zero is a
// REMOVE, an empty index key field takes the item out of the sparse index)
// gets its own expression: the cache is keyed by what was built, never by
// the changes alone.
func TestUpdateCacheValueShapes(t *testing.T) {
	e, db, _ := cacheModel(t)
	key := cacheTicket{Queue: "q", ID: "t1"}
	cases := []struct {
		owner  string
		update string
	}{
		{"ann", "SET #n0 = :v0, #n1 = :v1, #n2 = :v2"},
		{"", "REMOVE #n0, #n1, #n2"},
		{"bob", "SET #n0 = :v0, #n1 = :v1, #n2 = :v2"},
		{"", "REMOVE #n0, #n1, #n2"},
	}
	for _, c := range cases {
		in, err := e.UpdateInput(db, key, st.Set("Owner", c.owner))
		require.NoError(t, err)
		assert.Equal(t, c.update, *in.UpdateExpression, "owner %q", c.owner)
		assert.Equal(t, map[string]string{"#n0": "owner", "#n1": "GSI2PK", "#n2": "GSI2SK", "#n3": "PK", "#n4": "_type"}, in.ExpressionAttributeNames)
		if c.owner != "" {
			assert.Equal(t, &types.AttributeValueMemberS{Value: "OWNER#" + c.owner}, in.ExpressionAttributeValues[":v1"])
		} else {
			assert.Len(t, in.ExpressionAttributeValues, 1, "the entity type only")
		}
	}
	assert.Equal(t, 4, st.UpdateCacheLen(e), "the SET, the REMOVE and their conditions (the entity type's value follows the update's values)")
}

// What UpdateInput and TransactInput return is the caller's to change:
// changing it changes no later request.
func TestUpdateCacheInputsAreCopies(t *testing.T) {
	e, db, mock := cacheModel(t)
	ch := st.Set("Note", "n")
	in, err := e.UpdateInput(db, cacheTicket{Queue: "q", ID: "t1"}, ch)
	require.NoError(t, err)
	in.ExpressionAttributeNames["#n0"] = "changed"
	delete(in.ExpressionAttributeNames, "#n1")

	tin, err := db.TransactInput(func(tx *st.Tx) error {
		e.TxUpdate(tx, cacheTicket{Queue: "q", ID: "t2"}, ch)
		return nil
	})
	require.NoError(t, err)
	tin.TransactItems[0].Update.ExpressionAttributeNames["#n0"] = "changed too"

	_, err = e.Update(context.Background(), db, cacheTicket{Queue: "q", ID: "t3"}, ch)
	require.NoError(t, err)
	sent := sentUpdates(t, mock)
	require.Len(t, sent, 1)
	assert.Equal(t, map[string]string{"#n0": "note", "#n1": "PK", "#n2": "_type"}, sent[0].ExpressionAttributeNames)
}

// Shapes made from data (here a condition on ever more values, after
// updates of two shapes) do not grow the cache past its bound, and each
// request is still right.
func TestUpdateCacheBounded(t *testing.T) {
	e, db, _ := cacheModel(t)
	var conds []st.Cond
	for i := range 150 {
		conds = append(conds, st.Ne("Note", "n"+strconv.Itoa(i)))
		for _, ch := range []st.Changes{st.Set("Note", "n"), st.Set("Owner", "o")} {
			in, err := e.UpdateInput(db, cacheTicket{Queue: "q", ID: "t"}, ch.If(st.And(conds...)))
			require.NoError(t, err)
			n := len(in.ExpressionAttributeValues)
			require.Equal(t, len(conds), strings.Count(*in.ConditionExpression, "<>"))
			require.Contains(t, *in.ConditionExpression, fmt.Sprintf("<> :v%d)", n-1))
			require.Equal(t, &types.AttributeValueMemberS{Value: "n" + strconv.Itoa(i)}, in.ExpressionAttributeValues[fmt.Sprintf(":v%d", n-1)])
		}
	}
	assert.Equal(t, 256, st.UpdateCacheLen(e), "full")
}

// Updates of several shapes from many goroutines: each request is the one
// its own changes make. Run it under the race detector too:
// go test -race -run TestUpdateCache .
func TestUpdateCacheConcurrent(t *testing.T) {
	e, db, mock := cacheModel(t)
	var mu sync.Mutex
	want := map[*dynamodb.UpdateItemInput]string{}
	mock.UpdateItemFunc = func(_ context.Context, in *dynamodb.UpdateItemInput) (*dynamodb.UpdateItemOutput, error) {
		mu.Lock()
		defer mu.Unlock()
		want[in] = *in.UpdateExpression
		return &dynamodb.UpdateItemOutput{Attributes: ticketItem(in)}, nil
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				n := strconv.Itoa(g*100 + i)
				var ch st.Changes
				switch i % 3 {
				case 0:
					ch = st.Set("Status", "S"+n).Set("Priority", i)
				case 1:
					ch = st.Set("Owner", "o"+n).Set("Note", n)
				default:
					ch = st.Set("Owner", "").Remove("Note")
				}
				if _, err := e.Update(context.Background(), db, cacheTicket{Queue: "q", ID: n}, ch); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	sent := sentUpdates(t, mock)
	require.Len(t, sent, 400)
	for _, in := range sent {
		id := in.Key["SK"].(*types.AttributeValueMemberS).Value[len("T#"):]
		n, err := strconv.Atoi(id)
		require.NoError(t, err)
		names, vals := in.ExpressionAttributeNames, in.ExpressionAttributeValues
		switch (n % 100) % 3 {
		case 0:
			assert.Equal(t, "SET #n0 = :v0, #n1 = :v1, #n2 = :v2, #n3 = :v3", *in.UpdateExpression)
			assert.Equal(t, "status", names["#n0"])
			assert.Equal(t, "S"+id, vals[":v0"].(*types.AttributeValueMemberS).Value)
			assert.Equal(t, "STATUS#S"+id, vals[":v2"].(*types.AttributeValueMemberS).Value)
			assert.Equal(t, strconv.Itoa(n%100)+"#"+id, vals[":v3"].(*types.AttributeValueMemberS).Value)
		case 1:
			assert.Equal(t, "SET #n0 = :v0, #n1 = :v1, #n2 = :v2, #n3 = :v3", *in.UpdateExpression)
			assert.Equal(t, "OWNER#o"+id, vals[":v2"].(*types.AttributeValueMemberS).Value)
			assert.Equal(t, id, vals[":v1"].(*types.AttributeValueMemberS).Value)
		default:
			assert.Equal(t, "REMOVE #n0, #n1, #n2, #n3", *in.UpdateExpression)
			assert.Equal(t, "note", names["#n1"])
			assert.Equal(t, map[string]types.AttributeValue{":v0": &types.AttributeValueMemberS{Value: "Ticket"}}, vals, "the entity type only")
		}
		assert.Equal(t, want[in], *in.UpdateExpression, "as the client saw it when sent")
	}
}
