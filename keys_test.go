package singletable_test

import (
	"context"
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
	assert.Zero(t, len(res.Items))
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

// 18.13: SortFields and PartialMatch compose. With SortFields(1) the last
// given field is ID (not Seq, an integer and so always a value), and
// PartialMatch makes it a prefix: no literal after it.
func TestPartialMatchTakesSortFields(t *testing.T) {
	tbl := singletable.MustTable("PartialFields")
	docs := singletable.MustDefine[seqDoc](tbl, "Doc", singletable.Key("DOCS", "DOC#{ID}#{Seq:3}"))
	p := docs.Pattern("Docs").SortPrefix().Must()
	mock := &singletabletest.Client{}
	db := singletable.New(mock, tbl)
	mock.QueryFunc = queryReturning()
	_, err := p.Query(context.Background(), db, seqDoc{ID: "d"}, singletable.SortFields(1), singletable.PartialMatch())
	require.NoError(t, err)
	require.Len(t, mock.Calls(), 1)
	in := mock.Calls()[0].Input.(*dynamodb.QueryInput)
	assert.Contains(t, *in.KeyConditionExpression, "begins_with")
	assert.Equal(t, "DOC#d", sv(in.ExpressionAttributeValues[":v1"]))

	// Without SortFields, the last given field is Seq: refused, naming it.
	_, err = p.Query(context.Background(), db, seqDoc{ID: "d"}, singletable.PartialMatch())
	assert.ErrorIs(t, err, singletable.ErrInvalidInput)
	assert.Contains(t, err.Error(), "Seq")
	// SortFields still checks the fields against n.
	_, err = p.Query(context.Background(), db, seqDoc{ID: "d", Seq: 2}, singletable.SortFields(1), singletable.PartialMatch())
	assert.ErrorIs(t, err, singletable.ErrInvalidInput)
	_, err = p.Query(context.Background(), db, seqDoc{}, singletable.SortFields(1), singletable.PartialMatch())
	assert.ErrorIs(t, err, singletable.ErrInvalidInput)
	assert.Len(t, mock.Calls(), 1)
}

// 18.15: PartialTime on a pattern that is not a SortPrefix is refused
// naming PartialTime, the option the caller used.
func TestPartialTimeRefusalNamesPartialTime(t *testing.T) {
	tbl := singletable.MustTable("PartialName")
	type ev struct {
		S  string
		At time.Time
	}
	evs := singletable.MustDefine[ev](tbl, "Ev", singletable.Key("S#{S}", "AT#{At}"))
	mock := &singletabletest.Client{}
	db := singletable.New(mock, tbl)
	at := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	between := evs.Pattern("Between").SortBetween().Must()
	_, err := between.QueryBetween(context.Background(), db, ev{S: "s", At: at}, ev{S: "s", At: at}, singletable.PartialTime(singletable.Month))
	assert.ErrorIs(t, err, singletable.ErrInvalidInput)
	assert.Contains(t, err.Error(), "PartialTime(Month) applies to SortPrefix patterns only")
	_, err = between.QueryBetween(context.Background(), db, ev{S: "s", At: at}, ev{S: "s", At: at}, singletable.PartialMatch())
	assert.Contains(t, err.Error(), "PartialMatch applies to SortPrefix patterns only")
	all := evs.Pattern("All").Partition("S#{S}").Must()
	_, err = all.Query(context.Background(), db, ev{S: "s"}, singletable.PartialTime(singletable.Day))
	assert.ErrorIs(t, err, singletable.ErrInvalidInput)
	assert.Contains(t, err.Error(), "PartialTime(Day)")
	assert.NotContains(t, err.Error(), "PartialMatch")
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

// 18.16: lint does not warn about an index over a created or updated
// timestamp: every write fills it, so no item leaves the index by it.
func TestLintQuietOnManagedTimestampIndexes(t *testing.T) {
	tbl := singletable.MustTable("ManagedIdx", singletable.WithGSI("GSI1"), singletable.WithGSI("GSI2"), singletable.WithGSI("GSI3"))
	type post struct {
		ID      string
		Created time.Time `singletable:"created"`
		Edited  time.Time
		Seen    time.Time
	}
	singletable.MustDefine[post](tbl, "Post", singletable.Key("POST#{ID}", "POST"),
		singletable.Timestamps("", "Edited"),
		singletable.Index("GSI1", "NEW", "{Created}#{ID}"),
		singletable.Index("GSI2", "EDITED", "{Edited}#{ID}"),
		singletable.Index("GSI3", "SEEN", "{Seen}#{ID}"))
	report := singletable.LintReport(tbl.Lint())
	assert.NotContains(t, report, "field Created", report)
	assert.NotContains(t, report, "field Edited", report)
	assert.Contains(t, report, "uses the time.Time field Seen", report, "an unmanaged time still warns")
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
		singletable.Index("GSI3", "CLOSED", "{Closed}").When(singletable.Gt("Closed", time.Time{})))
	sheet := tbl.Sheet()
	assert.Contains(t, sheet, "`AT` sparse by absence of At |")
	assert.Contains(t, sheet, "`DUE` sparse by absence of Due, Email |")
	report := singletable.LintReport(tbl.Lint())
	assert.Contains(t, report, "warning: entity Ev: index GSI1 key \"AT\" / \"{At}#{ID}\" uses the time.Time field At", report)
	assert.NotContains(t, report, "field Due", report)
	assert.NotContains(t, report, "field Email", report)
	assert.NotContains(t, report, "field Closed", report)
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

// Feature flags keyed by whether they are on: a bool in a key is always a
// value ("false" is not absent), and parses back from a keys-only index.
type Flag struct {
	Name    string `dynamodbav:"name"`
	On      bool   `dynamodbav:"on"`
	Pinned  *bool  `dynamodbav:"pinned,omitempty"`
	Comment string `dynamodbav:"comment"`
}

func flagModel(t *testing.T) (*singletable.Table, *singletable.Entity[Flag], *singletable.Pattern[Flag], *singletable.Pattern[Flag]) {
	t.Helper()
	tbl := singletable.MustTable("Flags", singletable.WithGSI("GSI1", singletable.KeysOnly()), singletable.WithGSI("GSI2"))
	flags := singletable.MustDefine[Flag](tbl, "Flag",
		singletable.Key("FLAG#{Name}", "FLAG#{Name}"),
		singletable.Index("GSI1", "ON#{On}", "FLAG#{Name}"),
		singletable.Index("GSI2", "PINNED#{Pinned}", "FLAG#{Name}"), // sparse: nil is absent
	)
	byState := flags.Pattern("FlagsByState").On("GSI1").Partition("ON#{On}").Must()
	byPinned := flags.Pattern("FlagsByPinned").On("GSI2").Partition("PINNED#{Pinned}").Must()
	return tbl, flags, byState, byPinned
}

func TestBoolKeyFields(t *testing.T) {
	tbl, flags, byState, _ := flagModel(t)
	db := singletable.New(&singletabletest.Client{}, tbl)

	in, err := flags.PutInput(db, Flag{Name: "dark-mode"})
	require.NoError(t, err)
	assert.Equal(t, &types.AttributeValueMemberS{Value: "ON#false"}, in.Item["GSI1PK"], "false is a value, not absent")
	assert.NotContains(t, in.Item, "GSI2PK", "a nil *bool is absent: the item is not in GSI2")

	q, err := byState.QueryInput(db, Flag{})
	require.NoError(t, err)
	assert.Equal(t, &types.AttributeValueMemberS{Value: "ON#false"}, q.ExpressionAttributeValues[":v0"])

	_, err = singletable.Define[struct {
		ID string
		B  bool
	}](singletable.MustTable("Bools"), "E", singletable.Key("E#{ID}", "B#{B:2}"))
	require.ErrorIs(t, err, singletable.ErrInvalidModel, "a bool takes no format")
}
