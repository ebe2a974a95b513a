//go:build integration

package ddblocal

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"
)

// TestDynamoDBLocal runs against the DynamoDB Local that `make test` starts.
// It fails (does not skip) when AWS_ENDPOINT_URL_DYNAMODB is not set.
func TestDynamoDBLocal(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	logger := &captureLogger{}
	c, err := Client(ctx, config.WithLogger(logger))
	require.NoError(t, err)

	table := UniqueName("ddblocal-test")
	_, err = c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:   aws.String(table),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("PK"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("SK"), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("PK"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("SK"), KeyType: types.KeyTypeRange},
		},
	})
	require.NoError(t, err)
	deleted := false
	t.Cleanup(func() {
		if !deleted {
			_, _ = c.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(table)})
		}
	})
	require.NoError(t, dynamodb.NewTableExistsWaiter(c).Wait(ctx,
		&dynamodb.DescribeTableInput{TableName: aws.String(table)}, time.Minute))

	key := map[string]types.AttributeValue{"PK": str("CUSTOMER#1"), "SK": str("PROFILE")}
	item := map[string]types.AttributeValue{"PK": key["PK"], "SK": key["SK"], "Name": str("Ada")}
	_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item})
	require.NoError(t, err)

	got, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: key, ConsistentRead: aws.Bool(true)})
	require.NoError(t, err)
	require.Equal(t, item, got.Item)

	// Expected errors come back as typed errors, and (unlike with the SDK's
	// own CRC32 validator) log nothing: DynamoDB Local's error responses carry
	// no X-Amz-Crc32 header.
	_, err = c.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(table), Item: item,
		ConditionExpression: aws.String("attribute_not_exists(PK)"),
	})
	var condErr *types.ConditionalCheckFailedException
	require.ErrorAs(t, err, &condErr)

	_, err = c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{{
		Put: &types.Put{TableName: aws.String(table), Item: item, ConditionExpression: aws.String("attribute_not_exists(PK)")},
	}}})
	var txErr *types.TransactionCanceledException
	require.ErrorAs(t, err, &txErr)

	_, err = c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(table)})
	require.NoError(t, err)
	deleted = true

	_, err = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: key})
	var notFound *types.ResourceNotFoundException
	require.ErrorAs(t, err, &notFound)

	require.Empty(t, logger.Lines(), "the SDK logged something")
}
