package singletable_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/singletable/singletable"
	"github.com/singletable/singletable/singletabletest"
)

// Regression tests for the key rules of docs/rules.md: keys parsed back
// from keys-only reads, the zero-value rule, sort prefixes and time
// prefixes.

type koOrder struct {
	OrderID  string
	Customer string
	Total    int
}

type koLine struct {
	OrderID  string
	Line     string
	Customer string
	Qty      int
}

// koModel is an order and its lines, both in a KEYS_ONLY index: the line's
// keys start with the order's ("ORDER#o1" / "ORDER#o1#LINE#1").
func koModel() (*singletable.Table, *singletable.Entity[koOrder], *singletable.Entity[koLine]) {
	tbl := singletable.MustTable("KeysOnlyOwn", singletable.WithGSI("GSI1", singletable.KeysOnly()))
	orders := singletable.MustDefine[koOrder](tbl, "Order",
		singletable.Key("ORDER#{OrderID}", "ORDER#{OrderID}"),
		singletable.Index("GSI1", "CUST#{Customer}", "ORDER#{OrderID}"))
	lines := singletable.MustDefine[koLine](tbl, "Line",
		singletable.Key("ORDER#{OrderID}", "ORDER#{OrderID}#LINE#{Line}"),
		singletable.Index("GSI1", "CUST#{Customer}", "ORDER#{OrderID}#LINE#{Line}"))
	return tbl, orders, lines
}

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
	// begins_with "ORDER#") and cannot tell it by type: it says so rather
	// than return it as an order.
	_, err = ordersOf.Query(ctx, db, koOrder{Customer: "c1"})
	assert.ErrorIs(t, err, singletable.ErrWrongEntity)
}

// Lint tells the truth about that model: the two entities' keys cannot
// collide (a value never holds the delimiter), the collection is sound, and
// the order pattern over the keys-only index does read lines it cannot tell
// apart.
func TestLintKeysOnlyPrefixModel(t *testing.T) {
	tbl, orders, lines := koModel()
	tbl.Collection("CustomerOrdersAndLines", orders, lines).On("GSI1").Partition("CUST#{Customer}").Must()
	orders.Pattern("CustomerOrders").On("GSI1").Partition("CUST#{Customer}").Must()
	report := singletable.LintReport(tbl.Lint())
	assert.NotContains(t, report, "collide", report)
	assert.NotContains(t, report, "collection CustomerOrdersAndLines", report)
	assert.Contains(t, report, "error: pattern CustomerOrders: its key condition", report)
	assert.Contains(t, report, "also matches Line items", report)
}

// In a collection over a keys-only index, an item that no member's
// templates parse is Unknown (never decoded as the first member).
func TestKeysOnlyCollectionReportsForeignKeys(t *testing.T) {
	tbl, orders, lines := koModel()
	both := tbl.Collection("C", orders, lines).On("GSI1").Partition("CUST#{Customer}").Must()
	mock := &singletabletest.Client{}
	db := singletable.New(mock, tbl)
	mock.QueryFunc = queryReturning(
		map[string]string{"PK": "ORDER#o1", "SK": "ORDER#o1#X#2", "GSI1PK": "CUST#c1", "GSI1SK": "ORDER#o1#X#2"})
	res, err := both.Query(context.Background(), db, singletable.Values{"Customer": "c1"})
	require.NoError(t, err)
	assert.Len(t, res.Unknown, 1)
	assert.Zero(t, res.Len())
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

type seqDoc struct {
	ID  string
	Seq int
}

// SortPrefix never drops a sort field the caller gave, and 0 is a value.
func TestSortPrefixKeepsGivenFields(t *testing.T) {
	tbl := singletable.MustTable("SortPrefixRules")
	docs := singletable.MustDefine[seqDoc](tbl, "Doc", singletable.Key("DOCS", "DOC#{ID}#{Seq:3}"))
	p := docs.Pattern("Docs").SortPrefix().Must()
	mock := &singletabletest.Client{}
	db := singletable.New(mock, tbl)
	cond := func(params seqDoc, opts ...singletable.QueryOption) (string, string) {
		t.Helper()
		in, err := p.QueryInput(db, params, opts...)
		require.NoError(t, err)
		return *in.KeyConditionExpression, sv(in.ExpressionAttributeValues[":v1"])
	}

	_, err := p.Query(context.Background(), db, seqDoc{Seq: 5})
	var ie *singletable.InputError
	require.ErrorAs(t, err, &ie, "Seq 5 after a missing ID must not read every document")
	assert.Contains(t, err.Error(), "Seq")
	assert.Contains(t, err.Error(), "ID")
	assert.Empty(t, mock.Calls())

	expr, v := cond(seqDoc{ID: "d1"})
	assert.Contains(t, expr, " = ", "Seq 0 is a value: the full key")
	assert.Equal(t, "DOC#d1#000", v)
	expr, v = cond(seqDoc{ID: "d1"}, singletable.SortFields(1))
	assert.Contains(t, expr, "begins_with")
	assert.Equal(t, "DOC#d1#", v)
	_, v = cond(seqDoc{}, singletable.SortFields(0))
	assert.Equal(t, "DOC#", v)
	_, v = cond(seqDoc{})
	assert.Equal(t, "DOC#", v, "nothing given: the zero Seq after the missing ID is not a value given")

	for _, c := range []struct {
		params seqDoc
		n      int
	}{{seqDoc{ID: "d1", Seq: 5}, 1}, {seqDoc{}, 1}, {seqDoc{ID: "d1"}, 3}} {
		_, err = p.Query(context.Background(), db, c.params, singletable.SortFields(c.n))
		assert.ErrorIs(t, err, singletable.ErrInvalidInput, "%+v SortFields(%d)", c.params, c.n)
	}
	assert.Empty(t, mock.Calls())
}

// A sort-key condition value over 1024 bytes is refused like a partition
// value over 2048: a *KeyError, nothing sent.
func TestSortConditionOverKeyLimitSendsNothing(t *testing.T) {
	tbl := singletable.MustTable("SortLimit")
	docs := singletable.MustDefine[seqDoc](tbl, "Doc", singletable.Key("DOCS", "DOC#{ID}#{Seq:3}"))
	long := strings.Repeat("x", 1020)
	mock := &singletabletest.Client{}
	db := singletable.New(mock, tbl)
	for name, run := range map[string]func() error{
		"prefix": func() error {
			_, err := docs.Pattern("P").SortPrefix().Must().Query(context.Background(), db, seqDoc{ID: long}, singletable.SortFields(1))
			return err
		},
		"between": func() error {
			_, err := docs.Pattern("B").SortBetween().Must().QueryBetween(context.Background(), db, seqDoc{ID: "a"}, seqDoc{ID: long}, singletable.SortFields(1))
			return err
		},
		"greater": func() error {
			_, err := docs.Pattern("G").SortGreaterThan().Must().Query(context.Background(), db, seqDoc{ID: long, Seq: 1})
			return err
		},
	} {
		err := run()
		var ke *singletable.KeyError
		require.ErrorAs(t, err, &ke, name)
		assert.ErrorIs(t, err, singletable.ErrInvalidKey, name)
		assert.Equal(t, "SK", ke.Attr, name)
	}
	assert.Empty(t, mock.Calls())
	err := docs.Pattern("L").SortBeginsWith("DOC#" + long + "x").Err()
	assert.ErrorIs(t, err, singletable.ErrInvalidModel, "a declared prefix over the limit")
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

// The sheet says which indexes are sparse by absence, and lint warns about
// a zero time that would silently leave an index (not about pointers,
// which say so in their type, nor when a When declares the index sparse).
func TestSheetAndLintOnAbsentIndexValues(t *testing.T) {
	tbl := singletable.MustTable("Absent", singletable.WithGSI("GSI1"), singletable.WithGSI("GSI2"), singletable.WithGSI("GSI3"))
	type ev struct {
		ID     string
		At     time.Time
		Due    *time.Time
		Closed time.Time
		Email  string
	}
	singletable.MustDefine[ev](tbl, "Ev", singletable.Key("EV#{ID}", "EV"),
		singletable.Index("GSI1", "AT", "{At}#{ID}"),
		singletable.Index("GSI2", "DUE", "{Due}#{Email}"),
		singletable.Index("GSI3", "CLOSED", "{Closed}").When(func(e *ev) bool { return !e.Closed.IsZero() }, "Closed"))
	sheet := tbl.Sheet()
	assert.Contains(t, sheet, "`AT` sparse by absence of At |")
	assert.Contains(t, sheet, "`DUE` sparse by absence of Due, Email |")
	report := singletable.LintReport(tbl.Lint())
	assert.Contains(t, report, "warning: entity Ev: index GSI1 key \"AT\" / \"{At}#{ID}\" uses the time.Time field At", report)
	assert.NotContains(t, report, "field Due", report)
	assert.NotContains(t, report, "field Email", report)
	assert.NotContains(t, report, "field Closed", report)
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

// queryReturning answers every Query with the items, string attributes only.
func queryReturning(items ...map[string]string) func(context.Context, *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
	return func(context.Context, *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
		out := &dynamodb.QueryOutput{}
		for _, it := range items {
			m := map[string]types.AttributeValue{}
			for k, v := range it {
				m[k] = &types.AttributeValueMemberS{Value: v}
			}
			out.Items = append(out.Items, m)
		}
		out.Count, out.ScannedCount = int32(len(out.Items)), int32(len(out.Items))
		return out, nil
	}
}
