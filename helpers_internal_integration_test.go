//go:build integration

package singletable

// Helpers shared by the integration tests inside package singletable.

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/singletable/singletable/internal/ddblocal"
)

// localClient returns a client for DynamoDB Local. Integration tests fail,
// never skip, when it is not configured: run them with make test (or
// scripts/dynamodb-local.sh run -- go test -tags integration ./...).
func localClient(t testing.TB) *dynamodb.Client {
	t.Helper()
	c, err := ddblocal.Client(context.Background())
	if err != nil {
		t.Fatalf("integration test needs DynamoDB Local: %v", err)
	}
	return c
}

// localDB binds table to a fresh uniquely named table on DynamoDB Local,
// deleted when the test ends. client (nil for the plain one) is the client
// the DB sends its requests through, such as a fault-injecting wrapper.
func localDB(t testing.TB, table *Table, client Client, opts ...DBOption) *DB {
	t.Helper()
	c := localClient(t)
	if client == nil {
		client = c
	}
	name := ddblocal.UniqueName("write")
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

func mustKey(t *testing.T, u WUser) map[string]types.AttributeValue {
	k, err := WUsers.m.Key(reflect.ValueOf(&u).Elem())
	require.NoError(t, err)
	return k
}

func strVal(v types.AttributeValue) string {
	s, _ := v.(*types.AttributeValueMemberS)
	if s == nil {
		return ""
	}
	return s.Value
}

func typeOf(item map[string]types.AttributeValue) string { return strVal(item[DefaultTypeAttribute]) }
