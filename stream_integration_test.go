//go:build integration

package singletable_test

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/singletabletest"
)

func TestIntegrationEnsureTableStream(t *testing.T) {
	ctx := context.Background()
	plain := st.MustTable("StreamLater")
	db := singletabletest.LocalDB(t, plain) // created without a stream
	client, err := singletabletest.LocalClient(ctx)
	require.NoError(t, err)
	_, err = db.StreamARN(ctx)
	assert.ErrorIs(t, err, st.ErrInvalidInput, "no stream yet")

	withStream := st.MustTable("StreamLater", st.WithStream(st.StreamNewImage))
	sdb := st.New(client, withStream, st.WithTableName(db.TableName()))
	require.NoError(t, sdb.EnsureTable(ctx), "enables the stream on the existing table")
	out, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(db.TableName())})
	require.NoError(t, err)
	require.NotNil(t, out.Table.StreamSpecification)
	assert.True(t, aws.ToBool(out.Table.StreamSpecification.StreamEnabled))
	assert.Equal(t, types.StreamViewTypeNewImage, out.Table.StreamSpecification.StreamViewType)
	require.NoError(t, sdb.EnsureTable(ctx), "idempotent")
	arn, err := sdb.StreamARN(ctx)
	require.NoError(t, err)
	assert.NotEmpty(t, arn)

	other := st.MustTable("StreamLater", st.WithStream(st.StreamKeysOnly))
	err = st.New(client, other, st.WithTableName(db.TableName())).EnsureTable(ctx)
	var mismatch *st.SchemaMismatchError
	require.True(t, errors.As(err, &mismatch), "got %v", err)
	assert.Contains(t, mismatch.Differences[0], "NEW_IMAGE")
	require.NoError(t, db.EnsureTable(ctx), "a model without a stream leaves the table's alone")
}
