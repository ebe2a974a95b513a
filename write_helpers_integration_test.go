package singletable

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// localClient returns a client for DynamoDB Local. Integration tests fail,
// never skip, when it is not configured: run them through the harness
// (scripts/dynamodb-local.sh run -- go test ./...) or set
// AWS_ENDPOINT_URL_DYNAMODB yourself.
func localClient(t testing.TB) *dynamodb.Client {
	t.Helper()
	if os.Getenv("AWS_ENDPOINT_URL_DYNAMODB") == "" {
		t.Fatal("integration test: AWS_ENDPOINT_URL_DYNAMODB is not set; start DynamoDB Local (make test does)")
	}
	for k, v := range map[string]string{"AWS_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "local", "AWS_SECRET_ACCESS_KEY": "local"} {
		if os.Getenv(k) == "" {
			t.Setenv(k, v)
		}
	}
	cfg, err := config.LoadDefaultConfig(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// DynamoDB Local's gzip answers fail the SDK's CRC32 check: skip it.
	return dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) { o.DisableValidateResponseChecksum = true })
}

// localDB binds table to a fresh uniquely named table on DynamoDB Local,
// deleted when the test ends.
func localDB(t testing.TB, table *Table, client Client, opts ...DBOption) *DB {
	t.Helper()
	c := localClient(t)
	if client == nil {
		client = c
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "wt-" + hex.EncodeToString(b[:])
	opts = append([]DBOption{WithTableName(name), WithAdminClient(c)}, opts...)
	db := New(client, table, opts...)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := db.EnsureTable(ctx); err != nil {
		t.Fatalf("creating table %s on DynamoDB Local: %v", name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_, _ = c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: &name})
	})
	return db
}
