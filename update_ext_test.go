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

func pureDB() (*st.DB, *singletabletest.Client) {
	mock := &singletabletest.Client{}
	return st.New(mock, st.WShop, st.WithClock(st.FixedClock)), mock
}

func TestUpdateEveryChangeGolden(t *testing.T) {
	db, _ := pureDB()
	in, err := st.WUsers.UpdateInput(db, st.WUser{ID: "u1"}, st.
		Set("Name", "Ann").
		Remove("Attrs").
		Add("Tags", "vip"). // one element into a string set
		Increment("Logins", 1).
		Append("Log", "login").
		SetIfNotExists("Address.City", "Oslo"),
	)
	require.NoError(t, err)
	golden.Assert(t, "write_update_changes", in)

	in, err = st.WUsers.UpdateInput(db, st.WUser{ID: "u1"},
		st.DeleteFromSet("Tags", []string{"old", "stale"}).Prepend("Log", []string{"a", "b"}).Decrement("Logins", 2).Set("Address.Zip", "0150"),
	)
	require.NoError(t, err)
	golden.Assert(t, "write_update_changes2", in)
}

func TestUpdateRecomputesIndexKeys(t *testing.T) {
	db, _ := pureDB()
	// User's GSI1 key is STATUS#{Status} / USER#{ID}: ID is in the key.
	in, err := st.WUsers.UpdateInput(db, st.WUser{ID: "u1"}, st.Set("Status", "BANNED"))
	require.NoError(t, err)
	assert.Contains(t, in.ExpressionAttributeNames, "#n1")
	assert.Equal(t, "GSI1PK", in.ExpressionAttributeNames["#n1"])
	golden.Assert(t, "write_update_index", in)

	// Order's sparse index leaves when Status stops being PENDING.
	in, err = st.WOrders.UpdateInput(db, st.WOrder{UserID: "u1", ID: "o1"}, st.Set("Status", "SHIPPED").Set("Date", "2024-01-15"))
	require.NoError(t, err)
	golden.Assert(t, "write_update_sparse_leave", in)
}

func TestUpdateErrorsBeforeSending(t *testing.T) {
	cases := []struct {
		name string
		run  func(db *st.DB) error
		want string
	}{
		{"index field needs other inputs", func(db *st.DB) error {
			_, err := st.WOrders.Update(context.Background(), db, st.WOrder{UserID: "u", ID: "o"}, st.Set("Status", "PENDING"), st.NoRead())
			return err
		}, "also needs Date"},
		{"computed change on an index field", func(db *st.DB) error {
			_, err := st.WProducts.Update(context.Background(), db, st.WProduct{ID: "p"}, st.SetIfNotExists("Category", "x"))
			return err
		}, `SetIfNotExists("Category"): index GSI1's key or condition reads Category`},
		{"computed change on a unique field", func(db *st.DB) error {
			_, err := st.WUsers.Update(context.Background(), db, st.WUser{ID: "u"}, st.SetIfNotExists("Email", "a@x"))
			return err
		}, "field Email is declared Unique"},
		{"primary key field", func(db *st.DB) error {
			_, err := st.WUsers.Update(context.Background(), db, st.WUser{ID: "u"}, st.Set("ID", "u2"))
			return err
		}, "part of the primary key"},
		{"version field", func(db *st.DB) error {
			_, err := st.WUsers.Update(context.Background(), db, st.WUser{ID: "u"}, st.Set("Version", 9))
			return err
		}, "managed by the library"},
		{"unknown field", func(db *st.DB) error {
			_, err := st.WUsers.Update(context.Background(), db, st.WUser{ID: "u"}, st.Set("Nmae", "x"))
			return err
		}, `no field "Nmae"`},
		{"overlapping paths", func(db *st.DB) error {
			_, err := st.WUsers.Update(context.Background(), db, st.WUser{ID: "u"}, st.Set("Address", st.WAddress{}).Set("Address.City", "x"))
			return err
		}, "overlap"},
		{"same field twice", func(db *st.DB) error {
			_, err := st.WUsers.Update(context.Background(), db, st.WUser{ID: "u"}, st.Set("Name", "a").Set("Name", "b"))
			return err
		}, "changed twice"},
		{"add on a nested path", func(db *st.DB) error {
			_, err := st.WUsers.Update(context.Background(), db, st.WUser{ID: "u"}, st.Add("Address.City", 1))
			return err
		}, "top-level attributes only"},
		{"add a string", func(db *st.DB) error {
			_, err := st.WUsers.Update(context.Background(), db, st.WUser{ID: "u"}, st.Add("Name", "x"))
			return err
		}, "takes a number or a set"},
		{"increment a string", func(db *st.DB) error {
			_, err := st.WUsers.Update(context.Background(), db, st.WUser{ID: "u"}, st.Increment("Name", "x"))
			return err
		}, "takes a number"},
		{"wrong value type", func(db *st.DB) error {
			_, err := st.WUsers.Update(context.Background(), db, st.WUser{ID: "u"}, st.Set("Logins", "many"))
			return err
		}, "field Logins is a int"},
		{"no change", func(db *st.DB) error {
			_, err := st.WUsers.Update(context.Background(), db, st.WUser{ID: "u"}, st.Changes{})
			return err
		}, "no change given"},
		{"missing key", func(db *st.DB) error {
			_, err := st.WUsers.Update(context.Background(), db, st.WUser{}, st.Set("Name", "x"))
			return err
		}, "field ID"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			db, mock := pureDB()
			err := tc.run(db)
			require.Error(t, err)
			assert.True(t, errors.Is(err, st.ErrInvalidInput) || errors.Is(err, st.ErrInvalidKey), "%v", err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Empty(t, mock.Calls(), "nothing may be sent")
		})
	}
}

func TestUpdateDecrementInventoryGolden(t *testing.T) {
	db, _ := pureDB()
	// The seed's inventory decrement: no version check (the key has version
	// 0), the version still goes up.
	in, err := st.WProducts.UpdateInput(db, st.WProduct{ID: "p1"}, st.Decrement("Inventory", 2).If(st.Ge("Inventory", 2)))
	require.NoError(t, err)
	golden.Assert(t, "write_update_decrement", in)
	// The seed's optimistic price update: the key carries the version read.
	in, err = st.WProducts.UpdateInput(db, st.WProduct{ID: "p1", Version: 3}, st.Set("Price", 12.5))
	require.NoError(t, err)
	assert.Equal(t, "(attribute_exists(#n2)) AND (#n1 = :v2)", *in.ConditionExpression)
	golden.Assert(t, "write_update_versioned", in)
}
