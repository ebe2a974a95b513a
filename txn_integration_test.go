//go:build integration

package singletable_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/singletabletest"
)

// A retry under the caller's IdempotencyToken must be the same request. An
// entity with timestamps stamps each build anew, so a rebuilt retry is a
// different request: DynamoDB refuses it (ErrTokenReused) and writes
// nothing; the same request again is accepted and not applied twice.
func TestTransactTokenReusedForAnotherRequest(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	db := singletabletest.LocalDB(t, st.WShop, st.WithClock(func() time.Time { return now }))
	build := func(tx *st.Tx) error {
		st.WUsers.TxPut(tx, st.WUser{ID: "u1", Email: "u1@example.com", Name: "Ann"})
		return nil
	}
	// Tokens are the account's, for 10 minutes: each run needs its own.
	tok := fmt.Sprintf("retry-%d", time.Now().UnixNano())
	token := st.IdempotencyToken(tok)
	require.NoError(t, db.Transact(ctx, build, token))
	require.NoError(t, db.Transact(ctx, build, token), "the same request again: accepted")
	u, err := st.WUsers.Get(ctx, db, st.WUser{ID: "u1"})
	require.NoError(t, err)
	assert.Equal(t, int64(1), u.Version, "applied once")

	now = now.Add(time.Second) // a rebuilt retry stamps another time
	err = db.Transact(ctx, build, token)
	require.ErrorIs(t, err, st.ErrTokenReused)
	var mismatch *types.IdempotentParameterMismatchException
	assert.ErrorAs(t, err, &mismatch, "the SDK error stays reachable")
	assert.Contains(t, err.Error(), fmt.Sprintf("token %q", tok))
	u, err = st.WUsers.Get(ctx, db, st.WUser{ID: "u1"})
	require.NoError(t, err)
	assert.Equal(t, int64(1), u.Version, "nothing written")
}
