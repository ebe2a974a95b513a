//go:build integration

package singletabletest_test

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/singletable/singletable"
	"github.com/singletable/singletable/singletabletest"
)

// LocalDB gives each test its own table on DynamoDB Local, and deletes it
// when the test ends.
func TestLocalDB(t *testing.T) {
	ctx := context.Background()
	var names []string
	for range 2 {
		t.Run("test", func(t *testing.T) {
			db := singletabletest.LocalDB(t, notesTable)
			require.NotEqual(t, notesTable.Name(), db.TableName(), "a fresh, uniquely named table")
			names = append(names, db.TableName())

			require.NoError(t, Notes.Put(ctx, db, Note{ID: "n1", Text: "hello"}))
			got, err := Notes.Get(ctx, db, Note{ID: "n1"})
			require.NoError(t, err)
			assert.Equal(t, Note{ID: "n1", Text: "hello"}, got)

			err = Notes.Create(ctx, db, Note{ID: "n1", Text: "again"})
			assert.ErrorIs(t, err, singletable.ErrAlreadyExists)
		})
	}
	require.Len(t, names, 2)
	assert.NotEqual(t, names[0], names[1])

	client, err := singletabletest.LocalClient(ctx)
	require.NoError(t, err)
	for _, name := range names {
		_, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: &name})
		var nf *types.ResourceNotFoundException
		assert.True(t, errors.As(err, &nf), "table %s is deleted when its test ends: %v", name, err)
	}
}
