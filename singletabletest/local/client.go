package local

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"

	"github.com/singletable/singletable/internal/ddblocal"
)

// ChecksumFix is a client option for dynamodb.NewFromConfig that keeps the
// SDK from logging
//
//	WARN failed to close HTTP response body, this may affect connection reuse: response did not match expected checksum, 0, N
//
// for every error DynamoDB Local (or another dev server) answers: their
// error responses carry no X-Amz-Crc32 header, and the SDK's check then
// compares the body's CRC32 with 0 (aws/aws-sdk-go-v2#3545). With the
// option the check runs only when the header is there: responses that
// carry one are checked as before, and a mismatch is still logged.
// Harmless against DynamoDB itself, which always sends the header.
//
//	cfg, err := config.LoadDefaultConfig(ctx) // AWS_ENDPOINT_URL_DYNAMODB=http://localhost:8000
//	client := dynamodb.NewFromConfig(cfg, local.ChecksumFix)
func ChecksumFix(o *dynamodb.Options) { ddblocal.ChecksumFix(o) }

// Client returns a DynamoDB client for the DynamoDB Local that
// AWS_ENDPOINT_URL_DYNAMODB points at (Main and Ensure set it), with
// ChecksumFix. Without that variable it fails, so that nothing reaches a
// real AWS account by accident. Unless the environment has them, dummy
// credentials and the region us-east-1 are used; optFns come after those
// defaults.
func Client(ctx context.Context, optFns ...func(*config.LoadOptions) error) (*dynamodb.Client, error) {
	return ddblocal.Client(ctx, optFns...)
}

// StreamsClient returns a DynamoDB Streams client for the same DynamoDB
// Local, which serves the Streams API on its DynamoDB endpoint (the SDK
// would look for AWS_ENDPOINT_URL_DYNAMODB_STREAMS instead). Pass it to
// package stream's readers, or use it in a dev server.
func StreamsClient(ctx context.Context, optFns ...func(*config.LoadOptions) error) (*dynamodbstreams.Client, error) {
	return ddblocal.StreamsClient(ctx, optFns...)
}
