//go:build integration

package singletable_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/testmodel"
)

// On DynamoDB Local: a SortBetween query pages through its range with the
// same bounds, and its cursor given with other bounds, which DynamoDB
// refuses (ValidationException), is refused before sending.
func TestIntegrationCursorWithOtherSortBounds(t *testing.T) {
	m, db, rc := readLocalDB(t)
	ctx := t.Context()
	var want []string
	for day := 1; day <= 20; day++ {
		o := testmodel.Order{UserID: "u1", ID: fmt.Sprintf("o%02d", day), Date: fmt.Sprintf("2026-01-%02d", day), Status: "SHIPPED"}
		require.NoError(t, m.Orders.Put(ctx, db, o))
		if day >= 3 && day <= 17 {
			want = append(want, o.ID)
		}
	}
	from, to := testmodel.Order{UserID: "u1", Date: "2026-01-03"}, testmodel.Order{Date: "2026-01-17"}
	var got, cursors []string
	cursor := ""
	for pages := 0; ; pages++ {
		require.Less(t, pages, 20)
		page, err := m.UserOrdersByDate.QueryBetween(ctx, db, from, to, singletable.Limit(4), singletable.After(cursor))
		require.NoError(t, err)
		got = append(got, orderIDs(page.Items)...)
		if page.Cursor == "" {
			break
		}
		cursor = page.Cursor
		cursors = append(cursors, cursor)
	}
	assert.Equal(t, want, got, "the same bounds page through the range")

	// The second page's cursor is after 2026-01-10: outside these bounds.
	sent := rc.sent()
	for _, q := range []func() error{
		func() error {
			_, err := m.UserOrdersByDate.QueryBetween(ctx, db, from, testmodel.Order{Date: "2026-01-05"}, singletable.After(cursors[1]))
			return err
		},
		func() error {
			_, err := m.UserOrdersByDate.QueryBetween(ctx, db, testmodel.Order{UserID: "u1", Date: "2026-01-15"}, to, singletable.After(cursors[1]))
			return err
		},
	} {
		err := q()
		require.ErrorIs(t, err, singletable.ErrInvalidCursor)
		var ce *singletable.CursorError
		require.ErrorAs(t, err, &ce)
	}
	assert.Equal(t, sent, rc.sent(), "nothing was sent")
}
