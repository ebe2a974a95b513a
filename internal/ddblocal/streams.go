package ddblocal

import (
	"context"
	"os"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
)

// StreamsClient returns a DynamoDB Streams client for DynamoDB Local, which
// serves the Streams API on its DynamoDB endpoint: the SDK would look for
// AWS_ENDPOINT_URL_DYNAMODB_STREAMS, which the harness does not set.
func StreamsClient(ctx context.Context, optFns ...func(*config.LoadOptions) error) (*dynamodbstreams.Client, error) {
	cfg, err := Config(ctx, optFns...)
	if err != nil {
		return nil, err
	}
	endpoint := strings.TrimSpace(os.Getenv(EndpointEnv))
	return dynamodbstreams.NewFromConfig(cfg, func(o *dynamodbstreams.Options) { o.BaseEndpoint = aws.String(endpoint) }), nil
}
