//go:build integration

package singletable_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/singletable/singletable"
	"github.com/singletable/singletable/singletabletest"
)

// A keys-only read decodes each item as the entity whose templates all
// parse its keys: a line is never an order with OrderID "o1#LINE#1".
func TestIntegrationKeysOnlyReadDecodesItsOwnEntity(t *testing.T) {
	tbl, orders, lines := koModel()
	both := tbl.Collection("CustomerOrdersAndLines", orders, lines).On("GSI1").Partition("CUST#{Customer}").Must()
	ordersOf := orders.Pattern("CustomerOrders").On("GSI1").Partition("CUST#{Customer}").Must()
	ctx := context.Background()
	db := singletabletest.LocalDB(t, tbl)
	require.NoError(t, orders.Put(ctx, db, koOrder{OrderID: "o1", Customer: "c1", Total: 5}))
	require.NoError(t, lines.Put(ctx, db, koLine{OrderID: "o1", Line: "1", Customer: "c1", Qty: 2}))

	res, err := both.Query(ctx, db, singletable.Values{"Customer": "c1"})
	require.NoError(t, err)
	assert.Empty(t, res.Unknown)
	assert.Equal(t, []koOrder{{OrderID: "o1", Customer: "c1"}}, orders.From(res))
	got := lines.From(res)
	require.Equal(t, []koLine{{OrderID: "o1", Line: "1", Customer: "c1"}}, got)
	full, err := lines.Get(ctx, db, got[0])
	require.NoError(t, err, "what came back is the line's key")
	assert.Equal(t, 2, full.Qty)

	// The order pattern reads the line too (its sort condition is
	// begins_with "ORDER#") and cannot tell it by type: its keys are not
	// an order's, so it is left out, as the index's ScanIndex and a type
	// filter would leave it out, never returned as an order.
	page, err := ordersOf.Query(ctx, db, koOrder{Customer: "c1"})
	require.NoError(t, err)
	assert.Equal(t, []koOrder{{OrderID: "o1", Customer: "c1"}}, page.Items)
}

type dayEvent struct {
	Stream string
	At     time.Time
}

type dayPing struct {
	Stream string
	ID     string
	At     time.Time
}

// A field that several keys of an item give is taken from the most precise
// one, whatever their order: the full time of "AT#{At}", not the day of
// "DAY#{At:2006-01-02}".
func TestIntegrationKeysOnlyTakesTheMostPreciseKey(t *testing.T) {
	tbl := singletable.MustTable("Precise", singletable.WithGSI("GSI1", singletable.KeysOnly()))
	events := singletable.MustDefine[dayEvent](tbl, "Event",
		singletable.Key("S#{Stream}", "AT#{At}"),
		singletable.Index("GSI1", "DAY#{At:2006-01-02}", "S#{Stream}"))
	pings := singletable.MustDefine[dayPing](tbl, "Ping",
		singletable.Key("P#{Stream}", "DAY#{At:2006-01-02}#{ID}"),
		singletable.Index("GSI1", "PING#{Stream}", "AT#{At}"))
	byDay := events.Pattern("EventsOfDay").On("GSI1").Partition("DAY#{At}").Must()
	pingsOf := pings.Pattern("PingsOf").On("GSI1").Partition("PING#{Stream}").Must()
	ctx := context.Background()
	db := singletabletest.LocalDB(t, tbl)
	at := time.Date(2026, 2, 14, 9, 30, 15, 123456789, time.UTC)
	require.NoError(t, events.Put(ctx, db, dayEvent{Stream: "s1", At: at}))
	require.NoError(t, pings.Put(ctx, db, dayPing{Stream: "s1", ID: "p1", At: at}))

	page, err := byDay.Query(ctx, db, dayEvent{At: at})
	require.NoError(t, err)
	require.Len(t, page.Items, 1)
	assert.True(t, at.Equal(page.Items[0].At), "got %v, want %v", page.Items[0].At, at)
	pp, err := pingsOf.Query(ctx, db, dayPing{Stream: "s1"})
	require.NoError(t, err)
	require.Len(t, pp.Items, 1)
	assert.True(t, at.Equal(pp.Items[0].At), "got %v, want %v", pp.Items[0].At, at)

	// What came back is the item's key: deleting it deletes the item.
	require.NoError(t, events.Delete(ctx, db, page.Items[0], singletable.MustExist()))
	_, err = events.Get(ctx, db, dayEvent{Stream: "s1", At: at})
	assert.ErrorIs(t, err, singletable.ErrNotFound)
	require.NoError(t, pings.Delete(ctx, db, pp.Items[0], singletable.MustExist()))
}

type task struct {
	List string
	Prio int
	ID   string
	Due  *time.Time
	Rank *int
}

// One zero-value rule: integers are values (priority 0 is written and can be
// queried), a nil pointer is absent (the item is not in the index), and a
// table key refuses an absent value.
func TestIntegrationZeroValueRule(t *testing.T) {
	tbl := singletable.MustTable("ZeroRule", singletable.WithGSI("GSI1", singletable.KeysOnly()), singletable.WithGSI("GSI2"))
	tasks := singletable.MustDefine[task](tbl, "Task",
		singletable.Key("LIST#{List}", "PRIO#{Prio:2}#{ID}"),
		singletable.Index("GSI1", "DUE#{List}", "{Due}#{ID}"),
		singletable.Index("GSI2", "RANK#{List}", "R#{Rank:3}#{ID}"))
	byPrio := tasks.Pattern("ByPrio").Partition("LIST#{List}").SortPrefix().Must()
	byDue := tasks.Pattern("ByDue").On("GSI1").Partition("DUE#{List}").Must()
	byRank := tasks.Pattern("ByRank").On("GSI2").Partition("RANK#{List}").SortPrefix().Must()
	ctx := context.Background()
	db := singletabletest.LocalDB(t, tbl)
	due := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	zero := 0
	for _, v := range []task{
		{List: "l", Prio: 0, ID: "a", Due: &due, Rank: &zero},
		{List: "l", Prio: 1, ID: "b"},
		{List: "l", Prio: 10, ID: "c"},
	} {
		require.NoError(t, tasks.Put(ctx, db, v))
	}
	ids := func(ts []task) (out []string) {
		for _, x := range ts {
			out = append(out, x.ID)
		}
		return out
	}
	page, err := byPrio.Query(ctx, db, task{List: "l"})
	require.NoError(t, err)
	assert.Equal(t, []string{"a"}, ids(page.Items), "priority 0 is a value")
	page, err = byPrio.Query(ctx, db, task{List: "l"}, singletable.SortFields(0))
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b", "c"}, ids(page.Items))

	page, err = byDue.Query(ctx, db, task{List: "l"})
	require.NoError(t, err)
	require.Equal(t, []string{"a"}, ids(page.Items), "a nil *time.Time leaves the item out of the index")
	require.NotNil(t, page.Items[0].Due, "parsed back from the keys-only index into the pointer")
	assert.True(t, due.Equal(*page.Items[0].Due))
	page, err = byRank.Query(ctx, db, task{List: "l", Rank: &zero})
	require.NoError(t, err)
	require.Equal(t, []string{"a"}, ids(page.Items), "a pointer to 0 is the value 0")
	assert.Equal(t, 0, *page.Items[0].Rank)

	// A pointer in a table key: nil is refused, 0 is a value.
	type slot struct{ N *int }
	slots := singletable.MustDefine[slot](tbl, "Slot", singletable.Key("SLOT", "N#{N:2}"))
	err = slots.Put(ctx, db, slot{})
	assert.ErrorIs(t, err, singletable.ErrInvalidKey)
	require.NoError(t, slots.Put(ctx, db, slot{N: &zero}))
	got, err := slots.Get(ctx, db, slot{N: &zero})
	require.NoError(t, err)
	assert.Equal(t, 0, *got.N)
}

// 18.13: SortFields(1) with PartialMatch reads every document whose ID
// starts with the given text, each Seq of it, and no other.
func TestIntegrationPartialMatchWithSortFields(t *testing.T) {
	type doc struct {
		ID  string
		Seq int
	}
	tbl := singletable.MustTable("PartialFieldsLocal")
	docs := singletable.MustDefine[doc](tbl, "Doc", singletable.Key("DOCS", "DOC#{ID}#{Seq:3}"))
	p := docs.Pattern("Docs").SortPrefix().Must()
	ctx := context.Background()
	db := singletabletest.LocalDB(t, tbl)
	for _, d := range []doc{{"d", 0}, {"d", 7}, {"da", 1}, {"e", 0}, {"c", 9}} {
		require.NoError(t, docs.Put(ctx, db, d))
	}
	page, err := p.Query(ctx, db, doc{ID: "d"}, singletable.SortFields(1), singletable.PartialMatch())
	require.NoError(t, err)
	assert.Equal(t, []doc{{"d", 0}, {"d", 7}, {"da", 1}}, page.Items)
	page, err = p.Query(ctx, db, doc{ID: "d"}, singletable.SortFields(1))
	require.NoError(t, err)
	assert.Equal(t, []doc{{"d", 0}, {"d", 7}}, page.Items, "without PartialMatch, ID is whole")
}

type txn struct {
	Account string
	At      time.Time
	Day     time.Time
	Amount  int
}

// PartialTime matches a month of a time.Time sort field: February's items
// and only them, the boundaries included.
func TestIntegrationPartialTimeMatchesAMonth(t *testing.T) {
	tbl := singletable.MustTable("TimePrefix", singletable.WithGSI("GSI1"))
	txns := singletable.MustDefine[txn](tbl, "Txn",
		singletable.Key("ACC#{Account}", "TRANSACTION#{At}"),
		singletable.Index("GSI1", "ACC#{Account}", "D#{Day:02-01-2006}#{At}"))
	p := txns.Pattern("TxnsOf").Partition("ACC#{Account}").SortPrefix().Must()
	ctx := context.Background()
	db := singletabletest.LocalDB(t, tbl)
	at := func(mo time.Month, d, h, mi, s, ns int) time.Time {
		return time.Date(2026, mo, d, h, mi, s, ns, time.UTC)
	}
	for i, tm := range []time.Time{
		at(1, 31, 23, 59, 59, 999999999), at(2, 1, 0, 0, 0, 0), at(2, 14, 9, 0, 0, 0),
		at(2, 28, 23, 59, 59, 999999999), at(3, 1, 0, 0, 0, 0), time.Date(2025, 2, 10, 0, 0, 0, 0, time.UTC),
	} {
		require.NoError(t, txns.Put(ctx, db, txn{Account: "a", At: tm, Day: tm, Amount: i}))
	}
	amounts := func(page *singletable.Page[txn]) (out []int) {
		for _, x := range page.Items {
			out = append(out, x.Amount)
		}
		return out
	}
	page, err := p.Query(ctx, db, txn{Account: "a", At: at(2, 20, 5, 0, 0, 0)}, singletable.PartialTime(singletable.Month))
	require.NoError(t, err)
	assert.Equal(t, []int{1, 2, 3}, amounts(page))
	in, err := p.QueryInput(db, txn{Account: "a", At: at(2, 20, 5, 0, 0, 0)}, singletable.PartialTime(singletable.Month))
	require.NoError(t, err)
	assert.Equal(t, "TRANSACTION#2026-02-", sv(in.ExpressionAttributeValues[":v1"]))

	page, err = p.Query(ctx, db, txn{Account: "a", At: at(2, 14, 9, 30, 0, 0)}, singletable.PartialTime(singletable.Hour))
	require.NoError(t, err)
	assert.Equal(t, []int{2}, amounts(page))
	page, err = p.Query(ctx, db, txn{Account: "a", At: at(7, 1, 0, 0, 0, 0)}, singletable.PartialTime(singletable.Year))
	require.NoError(t, err)
	assert.Equal(t, []int{0, 1, 2, 3, 4}, amounts(page))

	// A layout that does not begin with the year cannot give a month.
	mock := &singletabletest.Client{}
	mdb := singletable.New(mock, tbl)
	byDay := txns.Pattern("TxnsByDay").On("GSI1").Partition("ACC#{Account}").SortPrefix().Must()
	_, err = byDay.Query(ctx, mdb, txn{Account: "a", Day: at(2, 1, 0, 0, 0, 0)}, singletable.PartialTime(singletable.Month))
	assert.ErrorIs(t, err, singletable.ErrInvalidInput)
	_, err = byDay.Query(ctx, mdb, txn{Account: "a", Day: at(2, 1, 0, 0, 0, 0)}, singletable.PartialTime(singletable.Hour))
	assert.ErrorIs(t, err, singletable.ErrInvalidInput, "the layout has no hour")
	_, err = p.Query(ctx, mdb, txn{Account: "a", At: at(2, 1, 0, 0, 0, 0)}, singletable.PartialMatch())
	assert.ErrorIs(t, err, singletable.ErrInvalidInput, "PartialMatch takes a string")
	assert.Empty(t, mock.Calls())
	assert.False(t, errors.Is(err, singletable.ErrInvalidKey))
}

func TestIntegrationBoolKeyFields(t *testing.T) {
	tbl, flags, byState, byPinned := flagModel(t)
	db := singletabletest.LocalDB(t, tbl)
	ctx := t.Context()
	yes, no := true, false
	for _, f := range []Flag{
		{Name: "a", On: true, Pinned: &yes, Comment: "x"},
		{Name: "b", On: false, Pinned: &no},
		{Name: "c", On: false},
	} {
		require.NoError(t, flags.Put(ctx, db, f))
	}
	off, err := byState.Query(ctx, db, Flag{On: false})
	require.NoError(t, err)
	assert.Equal(t, []Flag{{Name: "b"}, {Name: "c"}}, off.Items, "keys-only: Name and On parsed back from the keys")
	on, err := byState.Query(ctx, db, Flag{On: true})
	require.NoError(t, err)
	assert.Equal(t, []Flag{{Name: "a", On: true}}, on.Items)

	unpinned, err := byPinned.Query(ctx, db, Flag{Pinned: &no})
	require.NoError(t, err)
	assert.Equal(t, []Flag{{Name: "b", Pinned: &no}}, unpinned.Items, "a pointer to false is the value false; nil is not in the index")
	_, err = byPinned.Query(ctx, db, Flag{})
	require.ErrorIs(t, err, singletable.ErrInvalidKey, "a nil partition value cannot be queried")
}
