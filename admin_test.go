package singletable_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
)

// fakeAdmin is an AdminClient whose answers the test scripts. describe is
// called with the number of DescribeTable calls so far (1 for the first).
type fakeAdmin struct {
	mu          sync.Mutex
	describe    func(n int) (*types.TableDescription, error)
	create      func() error
	describeTTL func(n int) (*types.TimeToLiveDescription, error)
	updateTTL   func(in *dynamodb.UpdateTimeToLiveInput) error

	describes, creates, ttlDescribes, ttlUpdates int
}

func (f *fakeAdmin) CreateTable(ctx context.Context, in *dynamodb.CreateTableInput, _ ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error) {
	f.mu.Lock()
	f.creates++
	f.mu.Unlock()
	if f.create != nil {
		if err := f.create(); err != nil {
			return nil, err
		}
	}
	return &dynamodb.CreateTableOutput{}, nil
}

func (f *fakeAdmin) DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, _ ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f.mu.Lock()
	f.describes++
	n := f.describes
	f.mu.Unlock()
	d, err := f.describe(n)
	if err != nil {
		return nil, err
	}
	return &dynamodb.DescribeTableOutput{Table: d}, nil
}

func (f *fakeAdmin) DeleteTable(ctx context.Context, in *dynamodb.DeleteTableInput, _ ...func(*dynamodb.Options)) (*dynamodb.DeleteTableOutput, error) {
	return &dynamodb.DeleteTableOutput{}, nil
}

func (f *fakeAdmin) UpdateTimeToLive(ctx context.Context, in *dynamodb.UpdateTimeToLiveInput, _ ...func(*dynamodb.Options)) (*dynamodb.UpdateTimeToLiveOutput, error) {
	f.mu.Lock()
	f.ttlUpdates++
	f.mu.Unlock()
	if f.updateTTL != nil {
		if err := f.updateTTL(in); err != nil {
			return nil, err
		}
	}
	return &dynamodb.UpdateTimeToLiveOutput{}, nil
}

// UpdateTable fails: tests that expect one use updatingAdmin.
func (f *fakeAdmin) UpdateTable(ctx context.Context, in *dynamodb.UpdateTableInput, _ ...func(*dynamodb.Options)) (*dynamodb.UpdateTableOutput, error) {
	return nil, errUnexpectedUpdate
}

var errUnexpectedUpdate = errors.New("fakeAdmin: UpdateTable not expected")

func (f *fakeAdmin) DescribeTimeToLive(ctx context.Context, in *dynamodb.DescribeTimeToLiveInput, _ ...func(*dynamodb.Options)) (*dynamodb.DescribeTimeToLiveOutput, error) {
	f.mu.Lock()
	f.ttlDescribes++
	n := f.ttlDescribes
	f.mu.Unlock()
	if f.describeTTL == nil {
		return &dynamodb.DescribeTimeToLiveOutput{TimeToLiveDescription: &types.TimeToLiveDescription{TimeToLiveStatus: types.TimeToLiveStatusDisabled}}, nil
	}
	d, err := f.describeTTL(n)
	if err != nil {
		return nil, err
	}
	return &dynamodb.DescribeTimeToLiveOutput{TimeToLiveDescription: d}, nil
}

// describedAs is the description of an ACTIVE table created from in, with
// every index ACTIVE.
func describedAs(in *dynamodb.CreateTableInput) *types.TableDescription {
	d := &types.TableDescription{
		TableName:            in.TableName,
		TableStatus:          types.TableStatusActive,
		KeySchema:            in.KeySchema,
		AttributeDefinitions: in.AttributeDefinitions,
	}
	for _, g := range in.GlobalSecondaryIndexes {
		d.GlobalSecondaryIndexes = append(d.GlobalSecondaryIndexes, types.GlobalSecondaryIndexDescription{
			IndexName:   g.IndexName,
			KeySchema:   g.KeySchema,
			Projection:  &types.Projection{ProjectionType: g.Projection.ProjectionType, NonKeyAttributes: append([]string(nil), g.Projection.NonKeyAttributes...)},
			IndexStatus: types.IndexStatusActive,
		})
	}
	return d
}

func notFound() error {
	return &types.ResourceNotFoundException{Message: aws.String("Requested resource not found")}
}

func fakeDB(tb *st.Table, f *fakeAdmin) *st.DB {
	return st.New(nil, tb, st.WithAdminClient(f))
}

// An existing index whose INCLUDE projection carries other attributes than
// the model's is a schema mismatch; the same attributes in another order are
// not.
func TestEnsureTableComparesIncludedAttributes(t *testing.T) {
	model := st.MustTable("Incl", st.WithGSI("GSI1", st.Include("a", "b")))

	other := describedAs(st.MustTable("Incl", st.WithGSI("GSI1", st.Include("a", "c"))).CreateTableInput("Incl"))
	err := fakeDB(model, &fakeAdmin{describe: func(int) (*types.TableDescription, error) { return other, nil }}).EnsureTable(t.Context())
	require.ErrorIs(t, err, st.ErrSchemaMismatch)
	assert.ErrorContains(t, err, "GSI1")

	reordered := describedAs(st.MustTable("Incl", st.WithGSI("GSI1", st.Include("b", "a"))).CreateTableInput("Incl"))
	err = fakeDB(model, &fakeAdmin{describe: func(int) (*types.TableDescription, error) { return reordered, nil }}).EnsureTable(t.Context())
	assert.NoError(t, err)
}

// An existing table that is ACTIVE while one of its indexes is still being
// created (backfilled) is not ready: EnsureTable waits for the index.
func TestEnsureTableWaitsForIndexes(t *testing.T) {
	model := st.MustTable("Idx", st.WithGSI("GSI1"), st.WithGSI("GSI2"))
	f := &fakeAdmin{describe: func(n int) (*types.TableDescription, error) {
		d := describedAs(model.CreateTableInput("Idx"))
		if n < 3 {
			d.GlobalSecondaryIndexes[1].IndexStatus = types.IndexStatusCreating
			d.GlobalSecondaryIndexes[1].Backfilling = aws.Bool(true)
		}
		return d, nil
	}}
	require.NoError(t, fakeDB(model, f).EnsureTable(t.Context()))
	assert.GreaterOrEqual(t, f.describes, 3, "EnsureTable returned while GSI2 was CREATING")
}

// Cancelling the context stops the wait at once, and the error says so.
func TestEnsureTableWaitHonoursCancel(t *testing.T) {
	model := st.MustTable("Idx", st.WithGSI("GSI1"))
	ctx, cancel := context.WithCancel(t.Context())
	f := &fakeAdmin{describe: func(n int) (*types.TableDescription, error) {
		d := describedAs(model.CreateTableInput("Idx"))
		d.TableStatus = types.TableStatusUpdating
		if n == 2 {
			cancel()
		}
		return d, nil
	}}
	err := fakeDB(model, f).EnsureTable(ctx)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, 2, f.describes, "no DescribeTable after the cancel")
}

// A table that is being deleted is gone soon: EnsureTable waits for the
// deletion and creates the table again, rather than waiting for it to come
// back ACTIVE (it never does) until the wait times out.
func TestEnsureTableRecreatesADeletingTable(t *testing.T) {
	model := st.MustTable("Del", st.WithGSI("GSI1"))
	var created bool
	var mu sync.Mutex
	f := &fakeAdmin{
		describe: func(n int) (*types.TableDescription, error) {
			mu.Lock()
			defer mu.Unlock()
			switch {
			case created:
				return describedAs(model.CreateTableInput("Del")), nil
			case n == 1:
				d := describedAs(model.CreateTableInput("Del"))
				d.TableStatus = types.TableStatusDeleting
				return d, nil
			default:
				return nil, notFound()
			}
		},
		create: func() error { mu.Lock(); created = true; mu.Unlock(); return nil },
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	require.NoError(t, fakeDB(model, f).EnsureTable(ctx))
	assert.Equal(t, 1, f.creates)
}

// EnsureTable that loses the race to create the table checks the table the
// winner created, like any existing table.
func TestEnsureTableChecksAConcurrentlyCreatedTable(t *testing.T) {
	model := st.MustTable("Race", st.WithGSI("GSI1"))
	theirs := describedAs(st.MustTable("Race", st.WithKeys("id", "")).CreateTableInput("Race"))
	f := &fakeAdmin{
		describe: func(n int) (*types.TableDescription, error) {
			if n == 1 {
				return nil, notFound()
			}
			return theirs, nil
		},
		create: func() error {
			return &types.ResourceInUseException{Message: aws.String("Table already exists: Race")}
		},
	}
	err := fakeDB(model, f).EnsureTable(t.Context())
	var mismatch *st.SchemaMismatchError
	require.ErrorAs(t, err, &mismatch)
	assert.NotEmpty(t, mismatch.Differences)
}

// TTL enabled by a concurrent EnsureTable between DescribeTimeToLive and
// UpdateTimeToLive (which DynamoDB then refuses) is TTL enabled.
func TestEnsureTableTTLEnabledConcurrently(t *testing.T) {
	model := st.MustTable("TTLRace", st.WithTTL("expires"))
	f := &fakeAdmin{
		describe: func(int) (*types.TableDescription, error) { return describedAs(model.CreateTableInput("TTLRace")), nil },
		describeTTL: func(n int) (*types.TimeToLiveDescription, error) {
			if n == 1 {
				return &types.TimeToLiveDescription{TimeToLiveStatus: types.TimeToLiveStatusDisabled}, nil
			}
			return &types.TimeToLiveDescription{AttributeName: aws.String("expires"), TimeToLiveStatus: types.TimeToLiveStatusEnabled}, nil
		},
		updateTTL: func(*dynamodb.UpdateTimeToLiveInput) error {
			return &smithy.GenericAPIError{Code: "ValidationException", Message: "TimeToLive is already enabled"}
		},
	}
	require.NoError(t, fakeDB(model, f).EnsureTable(t.Context()))
	assert.Equal(t, 1, f.ttlUpdates)
}

// An index the model declares that the table is deleting is as good as
// missing: EnsureTable reports it rather than returning a table whose index
// is about to disappear.
func TestEnsureTableIndexBeingDeleted(t *testing.T) {
	model := st.MustTable("IdxDel", st.WithGSI("GSI1"))
	f := &fakeAdmin{describe: func(int) (*types.TableDescription, error) {
		d := describedAs(model.CreateTableInput("IdxDel"))
		d.GlobalSecondaryIndexes[0].IndexStatus = types.IndexStatusDeleting
		return d, nil
	}}
	err := fakeDB(model, f).EnsureTable(t.Context())
	require.ErrorIs(t, err, st.ErrSchemaMismatch)
	assert.ErrorContains(t, err, "GSI1")
}
