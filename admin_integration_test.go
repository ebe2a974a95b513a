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

// A table whose TTL is enabled on another attribute than the model's differs
// from the model: EnsureTable says so with a *SchemaMismatchError (DynamoDB
// refuses to enable a second TTL attribute).
func TestEnsureTableTTLOnAnotherAttribute(t *testing.T) {
	ctx := context.Background()
	client, err := ddblocal.Client(ctx)
	require.NoError(t, err)
	name := ddblocal.UniqueName("ttl-other")
	model := st.MustTable("TTLOther", st.WithTTL("expires"))
	_, err = client.CreateTable(ctx, model.CreateTableInput(name))
	require.NoError(t, err)
	t.Cleanup(func() { _, _ = client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: &name}) })
	_, err = client.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
		TableName:               &name,
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("ttl"), Enabled: aws.Bool(true)},
	})
	require.NoError(t, err)

	err = st.New(client, model, st.WithTableName(name)).EnsureTable(ctx)
	var mismatch *st.SchemaMismatchError
	require.ErrorAs(t, err, &mismatch)
	assert.ErrorIs(t, err, st.ErrSchemaMismatch)
	assert.Contains(t, mismatch.Error(), "ttl")
	assert.Contains(t, mismatch.Error(), "expires")

	// With an index to add too: nothing is added, the mismatch comes first.
	withIndex := st.MustTable("TTLOther", st.WithTTL("expires"), st.WithGSI("GSI1"))
	err = st.New(client, withIndex, st.WithTableName(name)).EnsureTable(ctx, st.AddMissingIndexes())
	require.ErrorIs(t, err, st.ErrSchemaMismatch)
	out, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: &name})
	require.NoError(t, err)
	assert.Empty(t, out.Table.GlobalSecondaryIndexes, "no index was added")
}

// Concurrent EnsureTable calls on a missing table all succeed: one creates
// it, the others find it, and only one of them gets to enable TTL.
func TestEnsureTableConcurrently(t *testing.T) {
	ctx := context.Background()
	client, err := ddblocal.Client(ctx)
	require.NoError(t, err)
	name := ddblocal.UniqueName("ensure-race")
	model := st.MustTable("EnsureRace", st.WithGSI("GSI1"), st.WithTTL("expires"))
	db := st.New(client, model, st.WithTableName(name))
	t.Cleanup(func() { _, _ = client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: &name}) })
	errs := make(chan error, 8)
	for range cap(errs) {
		go func() { errs <- db.EnsureTable(ctx) }()
	}
	for range cap(errs) {
		assert.NoError(t, <-errs)
	}
}
