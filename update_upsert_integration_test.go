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
	"github.com/singletable/singletable/internal/ddblocal"
)

type upsertDoc struct {
	ID     string `dynamodbav:"id"`
	Status string `dynamodbav:"status"`
	Count  int    `dynamodbav:"count"`
	Note   string `dynamodbav:"note,omitempty"`
}

// Issue 18.5 on DynamoDB Local: after Remove("Status"), an upsert of
// another field leaves status absent (NotExists still holds) in one
// request; an upsert that creates the item stores every zero value Put
// would, in two.
func TestUpsertOfExistingItemAddsNothingUnnamed(t *testing.T) {
	ctx := context.Background()
	table := st.MustTable("Upserts")
	docs := st.MustDefine[upsertDoc](table, "Doc", st.Key("DOC#{ID}", "DOC"))
	client, err := ddblocal.Client(ctx)
	require.NoError(t, err)
	cc := &countingClient{Client: client}
	db := st.New(cc, table, st.WithTableName(ddblocal.UniqueName("upserts")))
	require.NoError(t, db.EnsureTable(ctx))
	t.Cleanup(func() { _ = db.DeleteTable(ctx) })
	raw := func(id string) map[string]any {
		out, err := client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(db.TableName()),
			Key: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "DOC#" + id}, "SK": &types.AttributeValueMemberS{Value: "DOC"}}})
		require.NoError(t, err)
		names := map[string]any{}
		for k := range out.Item {
			names[k] = true
		}
		return names
	}

	require.NoError(t, docs.Put(ctx, db, upsertDoc{ID: "d1", Status: "OPEN", Count: 2}))
	_, err = docs.Update(ctx, db, upsertDoc{ID: "d1"}, st.Remove("Status"))
	require.NoError(t, err)
	before := cc.count()
	_, err = docs.Update(ctx, db, upsertDoc{ID: "d1"}, st.Set("Note", "x"), st.Upsert())
	require.NoError(t, err)
	assert.Equal(t, 1, cc.count()-before, "an existing item: one request")
	assert.NotContains(t, raw("d1"), "status", "the upsert brought back no status")
	_, err = docs.Update(ctx, db, upsertDoc{ID: "d1"}, st.Set("Count", 3).If(st.NotExists("Status")))
	require.NoError(t, err, "NotExists(Status) still holds")

	before = cc.count()
	got, err := docs.Update(ctx, db, upsertDoc{ID: "d2"}, st.Set("Note", "y"), st.Upsert())
	require.NoError(t, err)
	assert.Equal(t, 2, cc.count()-before, "a new item: the update, then the creation")
	assert.Equal(t, upsertDoc{ID: "d2", Note: "y"}, got)
	assert.Subset(t, raw("d2"), map[string]any{"status": true, "count": true, "note": true, "id": true},
		"a created item holds what Put stores")
}
