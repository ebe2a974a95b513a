package singletable_test

import (
	"context"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/golden"
)

// updatingAdmin is a fakeAdmin with UpdateTable: an index added is
// described CREATING once, then ACTIVE.
type updatingAdmin struct {
	fakeAdmin
	mu      sync.Mutex
	updates []*dynamodb.UpdateTableInput
	at      []int // the number of describes when each update came
}

func (u *updatingAdmin) UpdateTable(_ context.Context, in *dynamodb.UpdateTableInput, _ ...func(*dynamodb.Options)) (*dynamodb.UpdateTableOutput, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.updates = append(u.updates, in)
	u.fakeAdmin.mu.Lock()
	u.at = append(u.at, u.describes)
	u.fakeAdmin.mu.Unlock()
	return &dynamodb.UpdateTableOutput{}, nil
}

func TestAddIndexInput(t *testing.T) {
	tbl := st.MustTable("Idx", st.WithGSI("GSI1"), st.WithGSI("ByNum", st.IndexKeys("num", ""), st.KeysOnly()))
	type rec struct {
		ID  string `dynamodbav:"id"`
		Num int    `dynamodbav:"num"`
	}
	st.MustDefine[rec](tbl, "Rec", st.Key("REC#{ID}", "REC"), st.Index("GSI1", "G#{ID}", "R"))
	in, err := tbl.AddIndexInput("Idx-prod", "GSI1")
	require.NoError(t, err)
	golden.Request(t, "table/add_index", in)
	in, err = tbl.AddIndexInput("Idx-prod", "ByNum")
	require.NoError(t, err)
	golden.Request(t, "table/add_index_number_key", in)
	_, err = tbl.AddIndexInput("Idx-prod", "GSI9")
	assert.ErrorIs(t, err, st.ErrInvalidInput)

	prov := st.MustTable("Prov", st.WithProvisioned(5, 6), st.WithGSI("GSI1", st.IndexThroughput(2, 3)))
	in, err = prov.AddIndexInput("Prov", "GSI1")
	require.NoError(t, err)
	assert.Equal(t, &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(2), WriteCapacityUnits: aws.Int64(3)},
		in.GlobalSecondaryIndexUpdates[0].Create.ProvisionedThroughput)
}

func TestEnsureTableAddsMissingIndexes(t *testing.T) {
	v1 := st.MustTable("Idx", st.WithGSI("GSI1"))
	v2 := st.MustTable("Idx", st.WithGSI("GSI1"), st.WithGSI("GSI2"), st.WithGSI("GSI3"))
	newAdmin := func() *updatingAdmin {
		u := &updatingAdmin{}
		u.describe = func(n int) (*types.TableDescription, error) {
			u.mu.Lock()
			defer u.mu.Unlock()
			d := describedAs(v1.CreateTableInput("Idx"))
			all := describedAs(v2.CreateTableInput("Idx")).GlobalSecondaryIndexes
			for i := range u.updates {
				g := all[i+1]
				if n == u.at[i]+1 {
					g.IndexStatus = types.IndexStatusCreating // the first describe after it is added
				}
				d.GlobalSecondaryIndexes = append(d.GlobalSecondaryIndexes, g)
			}
			return d, nil
		}
		return u
	}

	u := newAdmin()
	err := st.New(nil, v2, st.WithAdminClient(u)).EnsureTable(t.Context())
	require.ErrorIs(t, err, st.ErrSchemaMismatch, "without the option, nothing is added")
	assert.ErrorContains(t, err, "index GSI2 is missing")
	assert.Empty(t, u.updates)

	require.NoError(t, st.New(nil, v2, st.WithAdminClient(u)).EnsureTable(t.Context(), st.AddMissingIndexes()))
	require.Len(t, u.updates, 2, "one UpdateTable per missing index")
	assert.Equal(t, "GSI2", aws.ToString(u.updates[0].GlobalSecondaryIndexUpdates[0].Create.IndexName))
	assert.Equal(t, "GSI3", aws.ToString(u.updates[1].GlobalSecondaryIndexUpdates[0].Create.IndexName))

	// Another difference: nothing is added.
	other := st.MustTable("Idx", st.WithKeys("pk", "sk"), st.WithGSI("GSI1"), st.WithGSI("GSI2"))
	u = newAdmin()
	err = st.New(nil, other, st.WithAdminClient(u)).EnsureTable(t.Context(), st.AddMissingIndexes())
	require.ErrorIs(t, err, st.ErrSchemaMismatch)
	assert.Empty(t, u.updates)

	// UpdateTable failing: the error says which index, and wraps the cause.
	plain := &fakeAdmin{describe: func(int) (*types.TableDescription, error) { return describedAs(v1.CreateTableInput("Idx")), nil }}
	err = st.New(nil, v2, st.WithAdminClient(plain)).EnsureTable(t.Context(), st.AddMissingIndexes())
	assert.ErrorIs(t, err, errUnexpectedUpdate)
	assert.ErrorContains(t, err, "adding index GSI2")
}

// EnsureTable checks everything before it changes anything: a TTL enabled
// on another attribute, or a stream of another view, fails it before the
// missing index is added, not after.
func TestEnsureTableAddsNothingOnAMismatch(t *testing.T) {
	v1 := st.MustTable("Idx", st.WithGSI("GSI1"), st.WithStream(st.StreamKeysOnly))
	for name, model := range map[string]*st.Table{
		"ttl":    st.MustTable("Idx", st.WithGSI("GSI1"), st.WithGSI("GSI2"), st.WithTTL("expires")),
		"stream": st.MustTable("Idx", st.WithGSI("GSI1"), st.WithGSI("GSI2"), st.WithStream(st.StreamNewImage)),
	} {
		t.Run(name, func(t *testing.T) {
			u := &updatingAdmin{}
			u.describe = func(int) (*types.TableDescription, error) {
				u.mu.Lock()
				defer u.mu.Unlock()
				d := describedAs(v1.CreateTableInput("Idx"))
				d.StreamSpecification = v1.CreateTableInput("Idx").StreamSpecification
				if len(u.updates) > 0 { // the index was added
					d.GlobalSecondaryIndexes = describedAs(model.CreateTableInput("Idx")).GlobalSecondaryIndexes
				}
				return d, nil
			}
			u.describeTTL = func(int) (*types.TimeToLiveDescription, error) {
				return &types.TimeToLiveDescription{TimeToLiveStatus: types.TimeToLiveStatusEnabled, AttributeName: aws.String("ttl")}, nil
			}
			err := st.New(nil, model, st.WithAdminClient(u)).EnsureTable(t.Context(), st.AddMissingIndexes())
			require.ErrorIs(t, err, st.ErrSchemaMismatch)
			assert.ErrorContains(t, err, name)
			assert.Empty(t, u.updates, "nothing changed")
			assert.Zero(t, u.ttlUpdates)
		})
	}
}
