package singletabletest

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/ddblocal"
)

// LocalClient returns a DynamoDB client for DynamoDB Local, for integration
// tests. The endpoint comes from AWS_ENDPOINT_URL_DYNAMODB (which the SDK
// honours natively); without it LocalClient fails, so that a test never
// reaches a real AWS account by accident. Unless the environment has them,
// dummy credentials and the region us-east-1 are used; optFns come after
// those defaults.
//
// The client also works around an SDK issue with DynamoDB Local: its error
// responses carry no X-Amz-Crc32 header, and the SDK's checksum step logs
// "response did not match expected checksum" for each of them. The
// replacement checks the checksum only when the header is present.
func LocalClient(ctx context.Context, optFns ...func(*config.LoadOptions) error) (*dynamodb.Client, error) {
	return ddblocal.Client(ctx, optFns...)
}

// clients holds one client per endpoint: building one loads the AWS
// config (files, environment), which a test's fresh table should not pay
// again.
var clients sync.Map // endpoint -> *dynamodb.Client

func sharedClient(ctx context.Context) (*dynamodb.Client, error) {
	endpoint := os.Getenv(ddblocal.EndpointEnv)
	if c, ok := clients.Load(endpoint); ok {
		return c.(*dynamodb.Client), nil
	}
	c, err := LocalClient(ctx)
	if err != nil {
		return nil, err
	}
	c2, _ := clients.LoadOrStore(endpoint, c)
	return c2.(*dynamodb.Client), nil
}

// LocalDB returns a DB for table on DynamoDB Local (see LocalClient), bound
// to a fresh table with a unique name, so that tests running in parallel
// never share data. The table is created (with its indexes and TTL) before
// LocalDB returns and deleted when the test ends. opts apply after the
// table name, so that WithClock, WithCursorKeys and the like can be given.
//
// Without DynamoDB Local the test fails rather than skips: an integration
// test that silently does not run would pass for the wrong reason. Start
// one from the package's TestMain with singletabletest/local.Main.
//
// A fresh table costs a few milliseconds on DynamoDB Local (docs/testing.md
// has the figures; `singletable-local bench` measures them on your
// machine), so every test can have its own, and run in parallel.
func LocalDB(tb testing.TB, table *singletable.Table, opts ...singletable.DBOption) *singletable.DB {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client, err := sharedClient(ctx)
	if err != nil {
		tb.Fatalf("singletabletest: DynamoDB Local: %v", err)
	}
	name := ddblocal.UniqueName(table.Name())
	opts = append([]singletable.DBOption{singletable.WithTableName(name)}, opts...)
	db := singletable.New(client, table, opts...)
	if err := db.EnsureTable(ctx); err != nil {
		tb.Fatalf("singletabletest: creating table %s on DynamoDB Local: %v", name, err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if _, err := client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: &name}); err != nil {
			tb.Errorf("singletabletest: deleting table %s: %v", name, err)
		}
	})
	return db
}
