//go:build integration

package singletable_test

// Updates and deletes write only the entity's own item (F7): another
// entity's item stored at the same key is neither changed, taken over nor
// deleted, and the write fails with an *EntityMismatchError.

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/ddblocal"
)

type twIssue struct {
	Repo   string `dynamodbav:"repo"`
	Number int    `dynamodbav:"number"`
	Status string `dynamodbav:"status"`
	Prio   int    `dynamodbav:"prio"`
}

func twModel(t *testing.T, typeAttr string) (*st.DB, *st.Entity[twIssue]) {
	t.Helper()
	opts := []st.TableOption{st.WithGSI("GSI1")}
	if typeAttr != "" {
		opts = append(opts, st.WithTypeAttribute(typeAttr))
	}
	tbl := st.MustTable("TypedWrites", opts...)
	issues := st.MustDefine[twIssue](tbl, "Issue", st.Key("REPO#{Repo}", "ISSUE#{Number:7}"),
		st.Index("GSI1", "STATUS#{Status}", "ISSUE#{Repo}#{Number:7}"))
	client, err := ddblocal.Client(t.Context())
	require.NoError(t, err)
	db := st.New(client, tbl, st.WithTableName(ddblocal.UniqueName("typed")))
	require.NoError(t, db.EnsureTable(t.Context()))
	t.Cleanup(func() { _ = db.DeleteTable(context.Background()) })
	return db, issues
}

func twKey(n string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "REPO#r"}, "SK": &types.AttributeValueMemberS{Value: "ISSUE#" + n}}
}

func twPut(t *testing.T, db *st.DB, n string, extra map[string]types.AttributeValue) map[string]types.AttributeValue {
	t.Helper()
	item := twKey(n)
	for k, v := range extra {
		item[k] = v
	}
	_, err := db.Client().PutItem(t.Context(), &dynamodb.PutItemInput{TableName: aws.String(db.TableName()), Item: item})
	require.NoError(t, err)
	return item
}

func twGet(t *testing.T, db *st.DB, n string) map[string]types.AttributeValue {
	t.Helper()
	out, err := db.Client().GetItem(t.Context(), &dynamodb.GetItemInput{TableName: aws.String(db.TableName()), Key: twKey(n), ConsistentRead: aws.Bool(true)})
	require.NoError(t, err)
	return out.Item
}

func requireMismatch(t *testing.T, err error, got string) {
	t.Helper()
	require.ErrorIs(t, err, st.ErrWrongEntity)
	var me *st.EntityMismatchError
	require.True(t, errors.As(err, &me), "%T %v", err, err)
	assert.Equal(t, "Issue", me.Want)
	assert.Equal(t, got, me.Got)
}

func TestWritesLeaveAnotherEntitysItem(t *testing.T) {
	for _, typeAttr := range []string{"", "_type,keys"} {
		t.Run("type "+typeAttr, func(t *testing.T) {
			db, issues := twModel(t, typeAttr)
			ctx := t.Context()
			other := map[string]types.AttributeValue{"_type": &types.AttributeValueMemberS{Value: "Other"}, "payload": &types.AttributeValueMemberS{Value: "precious"}}
			writes := []struct {
				name string
				do   func(key twIssue) error
			}{
				{"Update", func(k twIssue) error { _, err := issues.Update(ctx, db, k, st.Set("Status", "CLOSED")); return err }},
				{"Increment", func(k twIssue) error { _, err := issues.Update(ctx, db, k, st.Increment("Prio", 1)); return err }},
				{"Upsert", func(k twIssue) error {
					_, err := issues.Update(ctx, db, k, st.Set("Status", "CLOSED"), st.Upsert())
					return err
				}},
				{"TxUpdate", func(k twIssue) error {
					return db.Transact(ctx, func(tx *st.Tx) error { issues.TxUpdate(tx, k, st.Set("Status", "CLOSED")); return nil })
				}},
				{"TxUpsert", func(k twIssue) error {
					return db.Transact(ctx, func(tx *st.Tx) error {
						issues.TxUpdate(tx, k, st.Set("Status", "CLOSED"), st.Upsert())
						return nil
					})
				}},
				{"Delete", func(k twIssue) error { return issues.Delete(ctx, db, k) }},
				{"DeleteMustExist", func(k twIssue) error { return issues.Delete(ctx, db, k, st.MustExist()) }},
				{"TxDelete", func(k twIssue) error {
					return db.Transact(ctx, func(tx *st.Tx) error { issues.TxDelete(tx, k); return nil })
				}},
			}
			for i, w := range writes {
				n := 1 + i
				stored := twPut(t, db, pad7(n), other)
				err := w.do(twIssue{Repo: "r", Number: n})
				requireMismatch(t, err, "Other")
				assert.Equal(t, stored, twGet(t, db, pad7(n)), "%s: nothing written", w.name)
			}
			// On a typed table an item without the type attribute is no
			// entity's; read by its keys, it is the Issue its keys say.
			stored := twPut(t, db, "0000100", map[string]types.AttributeValue{"payload": &types.AttributeValueMemberS{Value: "x"}})
			_, err := issues.Update(ctx, db, twIssue{Repo: "r", Number: 100}, st.Set("Status", "OPEN"))
			if typeAttr == "" {
				requireMismatch(t, err, "")
				assert.Equal(t, stored, twGet(t, db, "0000100"))
				requireMismatch(t, issues.Delete(ctx, db, twIssue{Repo: "r", Number: 100}), "")
			} else {
				require.NoError(t, err)
				require.NoError(t, issues.Delete(ctx, db, twIssue{Repo: "r", Number: 100}, st.MustExist()))
				assert.Empty(t, twGet(t, db, "0000100"))
			}
			// The entity's own items, and missing ones, as before.
			_, err = issues.Update(ctx, db, twIssue{Repo: "r", Number: 200}, st.Set("Status", "OPEN"))
			require.ErrorIs(t, err, st.ErrNotFound)
			require.NoError(t, issues.Put(ctx, db, twIssue{Repo: "r", Number: 200, Status: "OPEN"}))
			v, err := issues.Update(ctx, db, twIssue{Repo: "r", Number: 200}, st.Increment("Prio", 2))
			require.NoError(t, err)
			assert.Equal(t, 2, v.Prio)
			_, err = issues.Update(ctx, db, twIssue{Repo: "r", Number: 201}, st.Set("Status", "NEW"), st.Upsert())
			require.NoError(t, err)
			require.NoError(t, issues.Delete(ctx, db, twIssue{Repo: "r", Number: 201}, st.MustExist()))
			require.NoError(t, issues.Delete(ctx, db, twIssue{Repo: "r", Number: 201}), "a missing item")
			require.ErrorIs(t, issues.Delete(ctx, db, twIssue{Repo: "r", Number: 201}, st.MustExist()), st.ErrNotFound)
		})
	}
}

func pad7(n int) string {
	s := "0000000" + itoa(n)
	return s[len(s)-7:]
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}
