package singletable_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/golden"
	"github.com/singletable/singletable/singletabletest"
)

func TestConditionOver4KBFailsBeforeSending(t *testing.T) {
	mock := &singletabletest.Client{}
	db := st.New(mock, st.WShop)
	var cs []st.Cond
	for i := 0; i < 100; i++ {
		cs = append(cs, st.In("Status", "A", "B", "C", "D", "E", "F", "G", "H", "I", "J"))
	}
	var pcs []st.Cond
	for i := 0; i < 100; i++ {
		pcs = append(pcs, st.In("Name", "A", "B", "C", "D", "E", "F", "G", "H", "I", "J"))
	}
	_, err := st.WUsers.Update(context.Background(), db, st.WUser{ID: "u1"}, st.Set("Name", "x").If(st.And(cs...)))
	require.Error(t, err)
	assert.True(t, errors.Is(err, st.ErrTooLarge), "%v", err)
	assert.True(t, errors.Is(err, st.ErrInvalidInput), "%v", err)
	assert.Contains(t, err.Error(), "DynamoDB allows 4096")
	assert.Contains(t, err.Error(), "User.Update")
	assert.Empty(t, mock.Calls())

	err = st.WUsers.Delete(context.Background(), db, st.WUser{ID: "u1"}, st.If(st.And(cs...)))
	assert.True(t, errors.Is(err, st.ErrTooLarge), "%v", err)
	err = db.Transact(context.Background(), func(tx *st.Tx) error {
		st.WProducts.TxCheck(tx, st.WProduct{ID: "p1"}, st.And(pcs...))
		return nil
	})
	assert.True(t, errors.Is(err, st.ErrTooLarge), "%v", err)
	assert.Empty(t, mock.Calls())
}

func TestConditionUnknownFieldFailsBeforeSending(t *testing.T) {
	mock := &singletabletest.Client{}
	db := st.New(mock, st.WShop)
	err := st.WOrders.Put(context.Background(), db, st.WOrder{UserID: "u", ID: "o"}, st.If(st.Eq("Totl", 3)))
	require.ErrorIs(t, err, st.ErrInvalidInput)
	assert.Contains(t, err.Error(), `entity Order has no field "Totl"`)
	assert.Empty(t, mock.Calls())
}

func TestConditionGolden(t *testing.T) {
	db := st.New(&singletabletest.Client{}, st.WShop, st.WithClock(st.FixedClock))
	in, err := st.WOrders.PutInput(db, st.WOrder{UserID: "u1", ID: "o1", Date: "2024-01-15", Status: "PENDING", Total: 30},
		st.If(st.Or(st.NotExists("ID"), st.And(st.Eq("Status", "PENDING"), st.Between("Total", 0, 100), st.In("Date", "2024-01-15", "2024-01-16"),
			st.BeginsWith("Date", "2024-"), st.Not(st.Size("Status").Eq(0)), st.IsType("Total", st.TypeNumber)))))
	require.NoError(t, err)
	golden.Request(t, "put/condition", in)
}
