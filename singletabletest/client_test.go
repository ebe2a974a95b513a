package singletabletest_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/singletable/singletable"
	"github.com/singletable/singletable/singletabletest"
)

type versioned struct {
	ID      string `dynamodbav:"id"`
	Note    string `dynamodbav:"note"`
	Version int64  `dynamodbav:"v" singletable:"version"`
}

// A scripted failed condition means what Client's godoc says: with the
// stored item it exists, without one it does not.
func TestClientScriptedConditionFailures(t *testing.T) {
	ctx := context.Background()
	tbl := singletable.MustTable("Scripted")
	items := singletable.MustDefine[versioned](tbl, "V", singletable.Key("V#{ID}", "V"))
	mock := &singletabletest.Client{}
	db := singletable.New(mock, tbl)
	in, err := items.PutInput(db, versioned{ID: "a", Version: 2})
	require.NoError(t, err)
	stored := in.Item // version 3, as a Put at version 2 stores
	failed := func(item map[string]types.AttributeValue) error {
		return &types.ConditionalCheckFailedException{Message: new(string), Item: item}
	}
	mock.PutItemFunc = func(context.Context, *dynamodb.PutItemInput) (*dynamodb.PutItemOutput, error) {
		return nil, failed(stored)
	}
	mock.UpdateItemFunc = func(context.Context, *dynamodb.UpdateItemInput) (*dynamodb.UpdateItemOutput, error) {
		return nil, failed(nil)
	}
	mock.DeleteItemFunc = func(context.Context, *dynamodb.DeleteItemInput) (*dynamodb.DeleteItemOutput, error) {
		return nil, failed(nil)
	}

	assert.ErrorIs(t, items.Create(ctx, db, versioned{ID: "a"}), singletable.ErrAlreadyExists)
	var vc *singletable.VersionConflictError
	require.ErrorAs(t, items.Put(ctx, db, versioned{ID: "a", Version: 1}), &vc)
	assert.Equal(t, int64(3), vc.Actual)
	_, err = items.Update(ctx, db, versioned{ID: "a"}, singletable.Set("Note", "n"))
	assert.ErrorIs(t, err, singletable.ErrNotFound)
	assert.ErrorIs(t, items.Delete(ctx, db, versioned{ID: "a"}, singletable.MustExist()), singletable.ErrNotFound)
}
