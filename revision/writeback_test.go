package revision_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/observe"
	"github.com/singletable/singletable/revision"
	"github.com/singletable/singletable/singletabletest"
)

// card is revision 1 of an entity whose revision 0 stored the title as
// "Name".
type card struct {
	ID      string
	Owner   string
	Title   string
	Version int64
}

func renameName(item map[string]types.AttributeValue) error {
	if n, ok := item["Name"]; ok {
		item["Title"] = n
		delete(item, "Name")
	}
	return nil
}

// cards is the card entity, with write-back or without, and its patterns:
// by owner on an index projecting everything, and on a keys-only one.
func cards(writeBack bool) (*st.Entity[card], *st.Pattern[card], *st.Pattern[card]) {
	tb := st.MustTable("Cards", st.WithGSI("GSI1"), st.WithGSI("GSI2", st.KeysOnly()))
	opts := []st.EntityOption{st.Key("C#{ID}", "C"), st.Version("Version"), revision.Current(1), revision.UpgradeItem(0, renameName),
		st.Index("GSI1", "O#{Owner}", "C#{ID}"), st.Index("GSI2", "O#{Owner}", "C#{ID}")}
	if writeBack {
		opts = append(opts, revision.WriteBack())
	}
	e := st.MustDefine[card](tb, "Card", opts...)
	return e, e.Pattern("ByOwner").On("GSI1"), e.Pattern("KeysByOwner").On("GSI2")
}

// storedCard is card c as stored at revision rev (0: "Name", no _rev).
func storedCard(t *testing.T, e *st.Entity[card], c card, rev int) map[string]types.AttributeValue {
	t.Helper()
	in, err := e.PutInput(st.New(&singletabletest.Client{}, e.Table()), c)
	require.NoError(t, err)
	item := in.Item
	item["Version"] = &types.AttributeValueMemberN{Value: strconv.FormatInt(c.Version, 10)} // as c holds it, not as a Put bumps it
	if rev == 0 {
		item["Name"] = item["Title"]
		delete(item, "Title")
		delete(item, "_rev")
	}
	return item
}

func ops(c *singletabletest.Client) []string {
	var out []string
	for _, call := range c.Calls() {
		out = append(out, call.Op)
	}
	return out
}

// TestWriteBackRequests counts the requests of reads with write-back: a
// current item costs none more, an older one one conditioned PutItem of
// the upgraded item, and no read writes back without the option, through
// a keys-only index or with a projection; a lost condition does not fail
// the read, and another error reaches the observer only.
func TestWriteBackRequests(t *testing.T) {
	ctx := context.Background()
	e, byOwner, keys := cards(true)
	cur := card{ID: "a", Owner: "o", Title: "new", Version: 2}
	old := card{ID: "b", Owner: "o", Title: "old", Version: 5}
	var stored map[string]map[string]types.AttributeValue
	reset := func() {
		stored = map[string]map[string]types.AttributeValue{"a": storedCard(t, e, cur, 1), "b": storedCard(t, e, old, 0)}
	}
	client := &singletabletest.Client{
		GetItemFunc: func(_ context.Context, in *dynamodb.GetItemInput) (*dynamodb.GetItemOutput, error) {
			return &dynamodb.GetItemOutput{Item: stored[in.Key["PK"].(*types.AttributeValueMemberS).Value[2:]]}, nil
		},
		QueryFunc: func(context.Context, *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
			return &dynamodb.QueryOutput{Items: []map[string]types.AttributeValue{stored["a"], stored["b"]}, Count: 2}, nil
		},
	}
	var observed []observe.Request
	db := st.New(client, e.Table(), observe.With(func(r observe.Request) { observed = append(observed, r) }))

	reset()
	got, err := e.Get(ctx, db, card{ID: "a"})
	require.NoError(t, err)
	assert.Equal(t, cur, got)
	assert.Equal(t, []string{"GetItem"}, ops(client), "a current item: no write")

	client.Reset()
	got, err = e.Get(ctx, db, card{ID: "b"})
	require.NoError(t, err)
	assert.Equal(t, old, got)
	require.Equal(t, []string{"GetItem", "PutItem"}, ops(client), "an older item: one write back")
	put := client.Calls()[1].Input.(*dynamodb.PutItemInput)
	assert.Equal(t, storedCard(t, e, old, 1), put.Item, "the upgraded item, version kept, the renamed attribute gone")
	assert.Equal(t, "#n0 = :v0 AND attribute_not_exists(#n1)", *put.ConditionExpression)
	assert.Equal(t, map[string]string{"#n0": "Version", "#n1": "_rev"}, put.ExpressionAttributeNames)
	assert.Equal(t, &types.AttributeValueMemberN{Value: "5"}, put.ExpressionAttributeValues[":v0"])

	client.Reset()
	page, err := byOwner.Query(ctx, db, card{Owner: "o"})
	require.NoError(t, err)
	assert.Equal(t, []card{cur, old}, page.Items)
	assert.Equal(t, []string{"Query", "PutItem"}, ops(client), "a query: the older item only")
	client.Reset()
	var all []card
	for c, err := range byOwner.All(ctx, db, card{Owner: "o"}) {
		require.NoError(t, err)
		all = append(all, c)
	}
	assert.Equal(t, []card{cur, old}, all)
	assert.Equal(t, []string{"Query", "PutItem"}, ops(client), "All: the older item only")

	client.Reset()
	_, err = keys.Query(ctx, db, card{Owner: "o"})
	require.NoError(t, err)
	_, err = byOwner.Query(ctx, db, card{Owner: "o"}, st.Project("ID", "Title"))
	require.NoError(t, err)
	assert.Equal(t, []string{"Query", "Query"}, ops(client), "keys only, a projection: no write back")

	// A lost condition, or any failure, leaves the read as it was.
	client.PutItemFunc = func(context.Context, *dynamodb.PutItemInput) (*dynamodb.PutItemOutput, error) {
		return nil, &types.ConditionalCheckFailedException{Message: new(string)}
	}
	got, err = e.Get(ctx, db, card{ID: "b"})
	require.NoError(t, err)
	assert.Equal(t, old, got)
	boom := errors.New("boom")
	client.PutItemFunc = func(context.Context, *dynamodb.PutItemInput) (*dynamodb.PutItemOutput, error) { return nil, boom }
	observed = nil
	got, err = e.Get(ctx, db, card{ID: "b"})
	require.NoError(t, err)
	assert.Equal(t, old, got)
	require.Len(t, observed, 2)
	assert.Equal(t, "Card.WriteBack", observed[1].Op)
	assert.Equal(t, "PutItem", observed[1].Operation)
	assert.ErrorIs(t, observed[1].Err, boom)

	// Without the option, reads never write.
	plainE, plainByOwner, _ := cards(false)
	client.PutItemFunc = nil
	client.Reset()
	pdb := st.New(client, plainE.Table())
	got, err = plainE.Get(ctx, pdb, card{ID: "b"})
	require.NoError(t, err)
	assert.Equal(t, old, got)
	_, err = plainByOwner.Query(ctx, pdb, card{Owner: "o"})
	require.NoError(t, err)
	assert.Equal(t, []string{"GetItem", "Query"}, ops(client))
}

// TestRevisionRefusalNeedsNoRequest: an Update refused for the stored
// revision is a *revision.ConflictError naming both revisions, told from
// the item the failed write returned: one request, no read.
func TestRevisionRefusalNeedsNoRequest(t *testing.T) {
	ctx := context.Background()
	e, _, _ := cards(false)
	c := card{ID: "b", Owner: "o", Title: "t", Version: 5}
	var stored map[string]types.AttributeValue
	client := &singletabletest.Client{
		UpdateItemFunc: func(context.Context, *dynamodb.UpdateItemInput) (*dynamodb.UpdateItemOutput, error) {
			return nil, &types.ConditionalCheckFailedException{Message: new(string), Item: stored}
		},
		PutItemFunc: func(context.Context, *dynamodb.PutItemInput) (*dynamodb.PutItemOutput, error) {
			return nil, &types.ConditionalCheckFailedException{Message: new(string), Item: stored}
		},
	}
	db := st.New(client, e.Table())

	stored = storedCard(t, e, c, 0)
	_, err := e.Update(ctx, db, card{ID: "b"}, st.Set("Title", "u"))
	var ce *revision.ConflictError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, 0, ce.Stored)
	assert.Equal(t, 1, ce.Writer)
	assert.ErrorIs(t, err, revision.ErrOlder)
	assert.NotErrorIs(t, err, revision.ErrNewer)
	assert.ErrorIs(t, err, st.ErrConditionFailed, "still a failed condition")
	assert.Contains(t, err.Error(), "shape revision 0, older than the writer's 1")

	stored = storedCard(t, e, c, 1)
	stored["_rev"] = &types.AttributeValueMemberN{Value: "4"}
	_, err = e.Update(ctx, db, card{ID: "b"}, st.Set("Title", "u"))
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, 4, ce.Stored)
	assert.ErrorIs(t, err, revision.ErrNewer)
	assert.NotErrorIs(t, err, revision.ErrOlder)
	err = e.Put(ctx, db, c)
	assert.ErrorIs(t, err, revision.ErrNewer, "Put of a newer item")
	assert.Equal(t, []string{"UpdateItem", "UpdateItem", "PutItem"}, ops(client))

	// The revision is not why: a plain failed condition, as before.
	stored = storedCard(t, e, c, 1)
	_, err = e.Update(ctx, db, card{ID: "b"}, st.Set("Title", "u").If(st.Eq("Title", "x")))
	require.ErrorIs(t, err, st.ErrConditionFailed)
	assert.False(t, errors.As(err, &ce), "%v", err)
	stored = storedCard(t, e, c, 0)
	err = e.Put(ctx, db, c, st.If(st.Eq("Title", "x")))
	require.ErrorIs(t, err, st.ErrConditionFailed)
	assert.False(t, errors.As(err, &ce), "a Put of an older item is not refused for its revision: %v", err)
	err = e.Create(ctx, db, c)
	require.ErrorIs(t, err, st.ErrAlreadyExists)
	assert.False(t, errors.As(err, &ce), "Create checks no revision: %v", err)
}

// TestWriteBackInSheet: the sheet and lint say which entities write back.
func TestWriteBackInSheet(t *testing.T) {
	e, _, _ := cards(true)
	assert.Contains(t, e.Table().Sheet(), "Shape revisions: Card 1 (attribute _rev, written back on read).")
	found := false
	for _, is := range e.Table().Lint() {
		found = found || (is.Subject == "entity Card" && strings.Contains(is.Message, "written back on read"))
	}
	assert.True(t, found, "%v", e.Table().Lint())
}
