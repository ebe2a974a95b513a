//go:build integration

package singletable_test

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/singletable/singletable"
	"github.com/singletable/singletable/singletabletest"
)

// The declarations that have an option form as well as a tag (Timestamps,
// Unique, Version), a renamed type attribute, and the change and size
// operators the other tests do not reach, on DynamoDB Local.

type Note struct {
	ID      string    `dynamodbav:"id"`
	Slug    string    `dynamodbav:"slug,omitempty"`
	Lines   []string  `dynamodbav:"lines"`
	Rev     int64     `dynamodbav:"rev"`
	Created time.Time `dynamodbav:"created"`
	Changed time.Time `dynamodbav:"changed"`
}

func TestIntegrationOptionFormsAndListOperators(t *testing.T) {
	tbl := singletable.MustTable("Notes", singletable.WithTypeAttribute("kind"))
	notes := singletable.MustDefine[Note](tbl, "Note",
		singletable.Key("NOTE#{ID}", "NOTE#{ID}"),
		singletable.Version("Rev"),
		singletable.Timestamps("Created", "Changed"),
		singletable.Unique("Slug"),
	)
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	now := t0
	db := singletabletest.LocalDB(t, tbl, singletable.WithClock(func() time.Time { return now }))
	ctx := t.Context()

	require.NoError(t, notes.Create(ctx, db, Note{ID: "n1", Slug: "hello", Lines: []string{"b"}}))
	err := notes.Create(ctx, db, Note{ID: "n2", Slug: "hello"})
	require.ErrorIs(t, err, singletable.ErrUniqueViolation, "Unique(...) guards the slug like the tag does")

	_, err = notes.Update(ctx, db, Note{ID: "n1"}, singletable.Append("Lines", []string{"x"}).Prepend("Lines", []string{"y"}))
	require.ErrorIs(t, err, singletable.ErrInvalidInput, "two changes to one attribute: DynamoDB would refuse the request")

	_, err = notes.Update(ctx, db, Note{ID: "n1"}, singletable.Append("Lines", []string{"c", "d"}).
		If(singletable.Size("Lines").Ne(0)).If(singletable.Size("Lines").Lt(2)))
	require.NoError(t, err)
	now = t0.Add(time.Hour)
	got, err := notes.Update(ctx, db, Note{ID: "n1"}, singletable.Prepend("Lines", []string{"a"}).If(singletable.Size("Lines").Ge(3)))
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b", "c", "d"}, got.Lines)
	assert.Equal(t, int64(3), got.Rev, "Version(...) bumps the version on each write")
	assert.Equal(t, t0, got.Created, "Timestamps(...): created is kept")
	assert.Equal(t, t0.Add(time.Hour), got.Changed, "Timestamps(...): updated is set")

	_, err = notes.Update(ctx, db, Note{ID: "n1"}, singletable.Append("Lines", []string{"e"}).If(singletable.Size("Lines").Lt(2)))
	require.ErrorIs(t, err, singletable.ErrConditionFailed, "Size(...).Lt(2) is false for four lines")

	raw, err := db.Client().GetItem(ctx, &dynamodb.GetItemInput{TableName: dbTableName(db),
		Key: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "NOTE#n1"}, "SK": &types.AttributeValueMemberS{Value: "NOTE#n1"}}})
	require.NoError(t, err)
	assert.Equal(t, &types.AttributeValueMemberS{Value: "Note"}, raw.Item["kind"], "WithTypeAttribute renames the type attribute")
	assert.NotContains(t, raw.Item, "_type")
}

func dbTableName(db *singletable.DB) *string { name := db.TableName(); return &name }
