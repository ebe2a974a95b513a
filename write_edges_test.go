package singletable_test

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/singletabletest"
)

// A table whose index sorts by the updated timestamp ("recently changed").
var rvTable = st.MustTable("ReviewWrites", st.WithGSI("GSI1"))

type rvDoc struct {
	ID      string    `dynamodbav:"id"`
	Owner   string    `dynamodbav:"owner"`
	Title   string    `dynamodbav:"title"`
	Updated time.Time `dynamodbav:"updated" singletable:"updated"`
}

var rvDocs = st.MustDefine[rvDoc](rvTable, "Doc",
	st.Key("DOC#{ID}", "DOC"),
	st.Index("GSI1", "OWNER#{Owner}", "{Updated:2006-01-02T15:04:05Z07:00}"),
)

// An update sets the updated timestamp, which the index's sort key reads:
// the index key must be recomputed (or the update refused), never left stale.
func TestUpdateRecomputesIndexKeyOnUpdatedTimestamp(t *testing.T) {
	db := st.New(&singletabletest.Client{}, rvTable, st.WithClock(st.FixedClock))

	// The update gives every field the index reads but the timestamp, which
	// the library sets itself: GSI1SK must follow the new timestamp.
	// An update that does not give Owner cannot recompute the key: refused.
	_, err := rvDocs.UpdateInput(db, rvDoc{ID: "d1"}, st.Set("Title", "y"))
	require.ErrorIs(t, err, st.ErrInvalidInput, "an update of Title alone would leave GSI1SK stale")
	assert.Contains(t, err.Error(), "also needs Owner")
	in, err := rvDocs.UpdateInput(db, rvDoc{ID: "d1"}, st.Set("Owner", "ann").Set("Title", "x"))
	require.NoError(t, err)
	var sk string
	for _, v := range in.ExpressionAttributeValues {
		if s, ok := v.(*types.AttributeValueMemberS); ok && s.Value == st.FixedClock().Format(time.RFC3339) {
			sk = s.Value
		}
	}
	names := map[string]bool{}
	for _, n := range in.ExpressionAttributeNames {
		names[n] = true
	}
	assert.True(t, names["GSI1SK"], "GSI1SK must be recomputed: %s", *in.UpdateExpression)
	assert.NotEmpty(t, sk, "GSI1SK must be the new timestamp: %v", in.ExpressionAttributeValues)
}

// Setting a unique field to a raw AttributeValue tells the request nothing
// about the new value, so the guard cannot be moved: it must be refused,
// not planned as a change to the key's (empty) value, which would delete
// the old guard and leave the new value unguarded.
func TestTxUpdateUniqueRawValueRefused(t *testing.T) {
	db := st.New(&singletabletest.Client{}, st.WShop, st.WithClock(st.FixedClock))
	_, err := db.TransactInput(func(tx *st.Tx) error {
		st.WUsers.TxUpdate(tx, st.WUser{ID: "u1", Email: "old@x"},
			st.Set("Email", &types.AttributeValueMemberS{Value: "new@x"}))
		return nil
	})
	require.ErrorIs(t, err, st.ErrInvalidInput)
	assert.Contains(t, err.Error(), "Email")
}

// Managed fields promoted through an exported embedded pointer.
type RvAudit struct {
	Version int64     `dynamodbav:"version" singletable:"version"`
	Created time.Time `dynamodbav:"created" singletable:"created"`
	Updated time.Time `dynamodbav:"updated" singletable:"updated"`
}

type rvNote struct {
	ID   string `dynamodbav:"id"`
	Mail string `dynamodbav:"mail" singletable:"unique"`
	*RvAudit
}

var rvNotes = st.MustDefine[rvNote](rvTable, "Note", st.Key("NOTE#{ID}", "NOTE"))

func TestWritesWithNilEmbeddedManagedFields(t *testing.T) {
	db := st.New(&singletabletest.Client{}, rvTable, st.WithClock(st.FixedClock))
	in, err := db.TransactInput(func(tx *st.Tx) error {
		rvNotes.TxPut(tx, rvNote{ID: "n1", Mail: "a@x"})
		rvNotes.TxUpdate(tx, rvNote{ID: "n2"}, st.Set("Mail", "b@x"))
		rvNotes.TxDelete(tx, rvNote{ID: "n3"})
		return nil
	})
	require.NoError(t, err)
	put := in.TransactItems[0].Put
	require.NotNil(t, put)
	assert.Equal(t, &types.AttributeValueMemberN{Value: "1"}, put.Item["version"], "Put of version 0 stores 1")
	assert.Contains(t, put.Item, "created")
	assert.Contains(t, put.Item, "updated")
}

type rvHidden struct {
	Version int64 `dynamodbav:"version" singletable:"version"`
}

type rvHiddenNote struct {
	ID string `dynamodbav:"id"`
	*rvHidden
}

func TestManagedFieldBehindUnexportedPointerRefused(t *testing.T) {
	_, err := st.Define[rvHiddenNote](rvTable, "HiddenNote", st.Key("HNOTE#{ID}", "NOTE"))
	require.ErrorIs(t, err, st.ErrInvalidModel)
}

// A version-checked Delete of a missing item fails with ErrNotFound (the
// stored version is not the one expected), whether or not the entity has
// unique fields.
func TestVersionedDeleteOfMissingItem(t *testing.T) {
	ctx := context.Background()
	mock := &singletabletest.Client{
		DeleteItemFunc: func(_ context.Context, in *dynamodb.DeleteItemInput) (*dynamodb.DeleteItemOutput, error) {
			// The condition fails: there is no such item.
			return nil, &types.ConditionalCheckFailedException{Message: aws.String("The conditional request failed")}
		},
	}
	db := st.New(mock, st.WShop, st.WithClock(st.FixedClock))
	err := st.WProducts.Delete(ctx, db, st.WProduct{ID: "p1", Version: 3})
	require.ErrorIs(t, err, st.ErrNotFound, "no unique fields")

	err = st.WUsers.Delete(ctx, db, st.WUser{ID: "u1", Version: 3})
	require.ErrorIs(t, err, st.ErrNotFound, "unique fields")
	for _, c := range mock.Calls() {
		assert.NotEqual(t, "TransactWriteItems", c.Op)
	}

	// Unversioned, without MustExist: deleting a missing item succeeds.
	require.NoError(t, st.WUsers.Delete(ctx, db, st.WUser{ID: "u1"}))
}

// DynamoDB adds to the version on every write, so an index that reads it
// would go stale with each one: the model refuses it.
func TestVersionFieldInIndexRefused(t *testing.T) {
	type doc struct {
		ID      string `dynamodbav:"id"`
		Version int64  `dynamodbav:"version" singletable:"version"`
	}
	table := st.MustTable("VersionIndexed", st.WithGSI("GSI1"))
	_, err := st.Define[doc](table, "Doc", st.Key("DOC#{ID}", "DOC"), st.Index("GSI1", "DOCS", "V#{Version:10}"))
	require.ErrorIs(t, err, st.ErrInvalidModel)
	assert.Contains(t, err.Error(), "index GSI1's key or When condition reads the version field")

	isNew := func(v any) bool { return v.(*doc).Version == 0 }
	_, err = st.Define[doc](table, "Doc", st.Key("DOC#{ID}", "DOC"),
		st.Index("GSI1", "NEW", "DOC#{ID}").When(func(d *doc) bool { return isNew(d) }, "Version"))
	require.ErrorIs(t, err, st.ErrInvalidModel, "a When condition on the version goes stale too")
}

// A partition template that starts with a placeholder could render the key
// of a unique-value guard item ("_unique#<Entity>#<attribute>#<value>")
// from a value; a write of such a key is refused before sending, so data
// can neither overwrite nor delete a guard.
func TestKeyInGuardNamespaceRefused(t *testing.T) {
	type node struct {
		Kind string `dynamodbav:"kind"`
		A    string `dynamodbav:"a"`
		B    string `dynamodbav:"b"`
		C    string `dynamodbav:"c"`
		Note string `dynamodbav:"note"`
	}
	table := st.MustTable("GuardForgery")
	nodes := st.MustDefine[node](table, "Node", st.Key("{Kind}#{A}#{B}#{C}", "{Kind}#{A}#{B}#{C}"))
	type account struct {
		ID    string `dynamodbav:"id"`
		Email string `dynamodbav:"email" singletable:"unique"`
	}
	st.MustDefine[account](table, "Account", st.Key("ACCOUNT#{ID}", "ACCOUNT"))

	mock := &singletabletest.Client{}
	db := st.New(mock, table)
	ctx := context.Background()
	forged := node{Kind: "_unique", A: "Account", B: "email", C: "ann@example.com"}

	err := nodes.Put(ctx, db, forged)
	require.ErrorIs(t, err, st.ErrInvalidKey)
	assert.Contains(t, err.Error(), `which is reserved for unique-value guard items`)
	require.ErrorIs(t, nodes.Delete(ctx, db, forged), st.ErrInvalidKey)
	_, err = nodes.Update(ctx, db, forged, st.Set("Note", "x"))
	require.ErrorIs(t, err, st.ErrInvalidKey)
	assert.Empty(t, mock.Calls(), "refused before sending")

	// Only the reserved word followed by the delimiter is refused.
	require.NoError(t, nodes.Put(ctx, db, node{Kind: "_uniqueness", A: "a", B: "b", C: "c"}))
	assert.Len(t, mock.Calls(), 1)
}

// Set(field, nil) stores NULL only where nil is a value of the field (a
// pointer, a map, a slice, an interface): in place of a string or a number,
// a NULL would read back as the zero value and match no condition on it.
func TestSetNilOnlyWhereNilIsAValue(t *testing.T) {
	db, mock := pureDB()
	_, err := st.WUsers.UpdateInput(db, st.WUser{ID: "u1"}, st.Set("Status", nil))
	require.ErrorIs(t, err, st.ErrInvalidInput)
	assert.Contains(t, err.Error(), `Set("Status"): the field is a string, which nil is not a value of`)
	_, err = st.WUsers.Update(context.Background(), db, st.WUser{ID: "u1"}, st.Set("Email", nil))
	require.ErrorIs(t, err, st.ErrInvalidInput, "a unique field would lose its guard")
	assert.Empty(t, mock.Calls())

	// A nil map is a value: on this omitempty field it removes the
	// attribute, as Put would leave it out.
	in, err := st.WUsers.UpdateInput(db, st.WUser{ID: "u1"}, st.Set("Attrs", nil))
	require.NoError(t, err)
	assert.Contains(t, *in.UpdateExpression, "REMOVE #n0 ")
	assert.Equal(t, "attrs", in.ExpressionAttributeNames["#n0"])
}
