package singletabletest

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/bridge"
)

// Typed answers for the recording Client: its Func fields answer with
// DynamoDB items, and these build them from Go values through the entity,
// so that a test states what is stored, not how it is encoded.
//
//	mock.GetItemFunc = singletabletest.GetItemReturns(t, db, Notes, Note{ID: "n1", Text: "hi"})

// Item is v as a Put of it through entity e stores it in db's table: its
// keys, index keys, entity type and attributes. Managed fields are set as
// that Put sets them: a version one more than v's, timestamps from db's
// clock. It fails the test if v cannot be put.
func Item[T any](tb testing.TB, db *singletable.DB, e *singletable.Entity[T], v T) map[string]types.AttributeValue {
	tb.Helper()
	if db == nil || e == nil {
		tb.Fatalf("singletabletest.Item: a nil DB or entity")
	}
	in, err := e.PutInput(db, v)
	if err != nil {
		tb.Fatalf("singletabletest.Item: %v", err)
	}
	return in.Item
}

// Items is Item of each value.
func Items[T any](tb testing.TB, db *singletable.DB, e *singletable.Entity[T], vs ...T) []map[string]types.AttributeValue {
	tb.Helper()
	out := make([]map[string]types.AttributeValue, len(vs))
	for i, v := range vs {
		out[i] = Item(tb, db, e, v)
	}
	return out
}

// GetItemReturns answers every GetItem with v, stored through e (see Item).
func GetItemReturns[T any](tb testing.TB, db *singletable.DB, e *singletable.Entity[T], v T) func(context.Context, *dynamodb.GetItemInput) (*dynamodb.GetItemOutput, error) {
	tb.Helper()
	item := Item(tb, db, e, v)
	return func(context.Context, *dynamodb.GetItemInput) (*dynamodb.GetItemOutput, error) {
		return &dynamodb.GetItemOutput{Item: item}, nil
	}
}

// QueryReturns answers every Query with one last page of vs, stored
// through e (see Item), whatever the request's conditions.
func QueryReturns[T any](tb testing.TB, db *singletable.DB, e *singletable.Entity[T], vs ...T) func(context.Context, *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
	tb.Helper()
	items := Items(tb, db, e, vs...)
	return func(context.Context, *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
		return &dynamodb.QueryOutput{Items: items, Count: int32(len(items)), ScannedCount: int32(len(items))}, nil
	}
}

// ScanReturns answers every Scan with one last page of vs, stored through
// e (see Item).
func ScanReturns[T any](tb testing.TB, db *singletable.DB, e *singletable.Entity[T], vs ...T) func(context.Context, *dynamodb.ScanInput) (*dynamodb.ScanOutput, error) {
	tb.Helper()
	items := Items(tb, db, e, vs...)
	return func(context.Context, *dynamodb.ScanInput) (*dynamodb.ScanOutput, error) {
		return &dynamodb.ScanOutput{Items: items, Count: int32(len(items)), ScannedCount: int32(len(items))}, nil
	}
}

// UpdateItemReturns answers every UpdateItem with v, stored through e (see
// Item), as the item after the update: what Entity.Update decodes and
// returns.
func UpdateItemReturns[T any](tb testing.TB, db *singletable.DB, e *singletable.Entity[T], v T) func(context.Context, *dynamodb.UpdateItemInput) (*dynamodb.UpdateItemOutput, error) {
	tb.Helper()
	item := Item(tb, db, e, v)
	return func(context.Context, *dynamodb.UpdateItemInput) (*dynamodb.UpdateItemOutput, error) {
		return &dynamodb.UpdateItemOutput{Attributes: item}, nil
	}
}

// ConditionFailed is the error DynamoDB answers a write whose condition
// failed with: stored is the item as it is (nil when there is none), which
// the library reads to tell "already exists" or a version conflict from
// "not found" (see Client).
func ConditionFailed(stored map[string]types.AttributeValue) error {
	return &types.ConditionalCheckFailedException{Message: aws.String("The conditional request failed"), Item: stored}
}

// NoRetryDelay is a DB option for tests: the DB retries what a batch left
// unprocessed, or what was throttled, at once instead of after its
// exponential backoff, so a test of the retry path (with a FaultClient,
// say) does not wait. Everything else, the number of attempts included,
// is unchanged.
//
//	db := singletable.New(faulty, table, singletabletest.NoRetryDelay())
func NoRetryDelay() singletable.DBOption {
	return bridge.NoRetryDelay().(singletable.DBOption)
}
