package singletable_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
)

// An empty IdempotencyToken is refused (DynamoDB wants 1 to 36
// characters) rather than silently replaced by a fresh random token, which
// would make a caller's retry of a logical transaction apply it twice.
func TestTransactEmptyIdempotencyTokenRefused(t *testing.T) {
	db, mock := pureDB()
	build := func(tx *st.Tx) error {
		st.WOrders.TxPut(tx, st.WOrder{UserID: "u1", ID: "o1"})
		return nil
	}
	err := db.Transact(context.Background(), build, st.IdempotencyToken(""))
	require.ErrorIs(t, err, st.ErrInvalidInput)
	assert.Contains(t, err.Error(), "IdempotencyToken")
	_, err = db.TransactInput(build, st.IdempotencyToken(""))
	require.ErrorIs(t, err, st.ErrInvalidInput)
	assert.Empty(t, mock.Calls(), "nothing may be sent")
}
