package singletable_test

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/testmodel"
	"github.com/singletable/singletable/singletabletest"
)

// 19.6: a DB derived with WithClient keeps every setting of the original
// but the client: a cursor issued by one resumes on the other, the table
// name is the same, and the original still sends through its own client.
func TestWithClientKeepsCursorKeysAndTableName(t *testing.T) {
	sh := testmodel.NewSeed()
	for name, opts := range map[string][]st.DBOption{
		"secret key":  {st.WithCursorKeys([]byte("0123456789abcdef0123456789abcdef")), st.WithTableName("Other")},
		"derived key": {st.WithTableName("Other")},
	} {
		t.Run(name, func(t *testing.T) {
			orig := &singletabletest.Client{QueryFunc: orderPages(20)}
			db := st.New(orig, sh.Table, opts...)
			wrapped := &singletabletest.Client{QueryFunc: orderPages(20)}
			derived := db.WithClient(wrapped)
			ctx := t.Context()
			params := testmodel.Order{UserID: "u1", Date: "2025-12-01"}
			upTo := testmodel.Order{Date: "2026-01-31"}
			page, err := sh.UserOrdersByDate.QueryBetween(ctx, db, params, upTo, st.Limit(3))
			require.NoError(t, err)
			require.NotEmpty(t, page.Cursor)

			_, err = sh.UserOrdersByDate.QueryBetween(ctx, derived, params, upTo, st.Limit(3), st.After(page.Cursor))
			require.NoError(t, err, "a cursor of the original resumes on the derived DB")
			require.Len(t, wrapped.Calls(), 1)
			in := wrapped.Calls()[0].Input.(*dynamodb.QueryInput)
			assert.NotEmpty(t, in.ExclusiveStartKey)
			assert.Equal(t, "Other", *in.TableName)
			assert.Len(t, orig.Calls(), 1, "the derived DB sends nothing through the original's client")

			assert.Same(t, orig, db.Client(), "the original is unchanged")
			assert.Same(t, wrapped, derived.Client())
			assert.Equal(t, "Other", derived.TableName())
		})
	}
}

// 19.6: the derived DB judges expiry by the original's clock: an item that
// expired a second before the clock's now is not found on either, though
// by the wall clock (years before) it has not expired.
func TestWithClientKeepsTheClock(t *testing.T) {
	ctx := context.Background()
	db := ttlDB(&singletabletest.Client{})
	s := ttlSession{User: "u1", ID: "s1", ExpiresAt: ttlNow.Add(-time.Second)}
	in, err := ttlSessions.PutInput(db, s)
	require.NoError(t, err)
	wrapped := &singletabletest.Client{GetItemFunc: func(context.Context, *dynamodb.GetItemInput) (*dynamodb.GetItemOutput, error) {
		return &dynamodb.GetItemOutput{Item: in.Item}, nil
	}}
	derived := db.WithClient(wrapped)
	_, err = ttlSessions.Get(ctx, derived, ttlSession{User: "u1", ID: "s1"})
	require.ErrorIs(t, err, st.ErrNotFound, "expired by the DB's clock")
	require.Len(t, wrapped.Calls(), 1)
	// A fresh DB over the same client judges by the wall clock.
	_, err = ttlSessions.Get(ctx, st.New(wrapped, ttlTable), ttlSession{User: "u1", ID: "s1"})
	require.NoError(t, err)
	// Writes read the same clock: an expiry an hour after ttlNow.
	put, err := ttlSessions.PutInput(derived, ttlSession{User: "u1", ID: "s2"})
	require.NoError(t, err)
	assert.Equal(t, nAttr(ttlNow.Add(time.Hour).Unix()), put.Item["ttl"])
}
