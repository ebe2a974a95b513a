package singletable_test

// Helpers shared by the unit tests of package singletable_test.

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/testmodel"
	"github.com/singletable/singletable/singletabletest"
)

func strp(v string) *string { return &v }

var ctx = context.Background()

func mockDB() (*singletabletest.Client, *st.DB) {
	c := &singletabletest.Client{}
	return c, st.New(c, testmodel.Shop)
}

var (
	seedUser  = testmodel.ShopUser{ID: "u123", Name: "Ada", Email: "ada@example.com", CreatedAt: time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)}
	seedOrder = testmodel.ShopOrder{UserID: "u123", ID: "2024-001", Date: "2024-01-15", Status: "PENDING", Total: 59.5}
)

// mustInput returns a function that fails t on an error from building a
// request and otherwise passes the request on: must(e.GetInput(db, v)).
func mustInput(t *testing.T) func(v any, err error) any {
	return func(v any, err error) any {
		t.Helper()
		require.NoError(t, err)
		return v
	}
}
