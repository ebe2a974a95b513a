package singletable_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/golden"
	"github.com/singletable/singletable/singletabletest"
)

func lsiMockDB(t *testing.T) (*lsiModel, *singletabletest.Client, *st.DB) {
	m := newLSIModel(t)
	c := &singletabletest.Client{}
	return m, c, st.New(c, m.Table)
}

func TestLSIDeclaration(t *testing.T) {
	m := newLSIModel(t)
	golden.Request(t, "table/lsi", m.Table.CreateTableInput("LSIShop"))
	ix, ok := m.Table.LSI("OpenByDate")
	require.True(t, ok)
	assert.True(t, ix.Local())
	assert.Equal(t, "PK", ix.PartitionKey(), "an LSI's partition key is the table's")
	assert.Equal(t, "OpenByDateSK", ix.SortKey())
	assert.Equal(t, types.ProjectionTypeKeysOnly, ix.Projection())
	assert.Len(t, m.Table.LSIs(), 2)
	assert.Len(t, m.Table.GSIs(), 1, "GSIs lists the global ones only")
	_, isGSI := m.Table.GSI("ByAmount")
	assert.False(t, isGSI)

	for name, c := range map[string]struct {
		opts []st.TableOption
		want string
	}{
		"no table sort key":   {[]st.TableOption{st.WithKeys("PK", ""), st.WithLSI("LS1")}, "needs a table with a sort key"},
		"other partition key": {[]st.TableOption{st.WithLSI("LS1", st.IndexKeys("GPK", "LS1SK"))}, "its partition key is the table's (PK), not GPK"},
		"table sort key":      {[]st.TableOption{st.WithLSI("LS1", st.IndexKeys("", "SK"))}, "is a key of the table"},
		"throughput":          {[]st.TableOption{st.WithProvisioned(5, 5), st.WithLSI("LS1", st.IndexThroughput(1, 1))}, "IndexThroughput does not apply"},
		"name of a GSI":       {[]st.TableOption{st.WithGSI("LS1"), st.WithLSI("LS1")}, "index LS1 is declared twice"},
		"shared sort key":     {[]st.TableOption{st.WithLSI("LS1", st.IndexKeys("", "X")), st.WithLSI("LS2", st.IndexKeys("", "X"))}, `attribute "X" is used both`},
		"six": {[]st.TableOption{st.WithLSI("LS1"), st.WithLSI("LS2"), st.WithLSI("LS3"), st.WithLSI("LS4"), st.WithLSI("LS5"), st.WithLSI("LS6")},
			"6 local secondary indexes declared; DynamoDB allows 5"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := st.NewTable("T1x", c.opts...)
			require.ErrorIs(t, err, st.ErrInvalidModel)
			assert.Contains(t, err.Error(), c.want)
		})
	}
	// An entity's LSI partition template is its own table partition template.
	_, err := st.Define[lsiOrder](m.Table, "Order2", st.Key("C2#{CustomerID}", "O#{ID}"), st.Index("ByAmount", "OTHER#{CustomerID}", "A#{ID}"))
	require.ErrorIs(t, err, st.ErrInvalidModel)
	assert.Contains(t, err.Error(), `declare it as "C2#{CustomerID}"`)
}

// ConsistentRead is allowed on an LSI, and still refused on a GSI before
// anything is sent.
func TestLSIConsistentRead(t *testing.T) {
	m, c, db := lsiMockDB(t)
	in, err := m.ByAmount.QueryInput(db, lsiOrder{CustomerID: "c1", Amount: 100}, st.ConsistentRead())
	require.NoError(t, err)
	assert.True(t, aws.ToBool(in.ConsistentRead))
	assert.Equal(t, "ByAmount", aws.ToString(in.IndexName))
	golden.Request(t, "query/lsi_consistent", in)

	_, err = m.FlaggedByCust.Query(ctx, db, lsiOrder{CustomerID: "c1"}, st.ConsistentRead())
	require.ErrorIs(t, err, st.ErrInvalidInput)
	assert.Contains(t, err.Error(), "global secondary index")
	_, err = m.FlaggedScan.ScanInput(db, st.ConsistentRead())
	require.ErrorIs(t, err, st.ErrInvalidInput)
	assert.Empty(t, c.Calls())
}

func TestIndexScanDeclaration(t *testing.T) {
	m, c, db := lsiMockDB(t)
	assert.Equal(t, "Scan", m.FlaggedScan.Operation())
	for name, p := range map[string]*st.Pattern[lsiOrder]{
		"no index":   m.Orders.Pattern("ScanNoIndex").ScanIndex(),
		"partition":  m.Orders.Pattern("ScanPart").On("Flagged").Partition("FLAGGED#{CustomerID}").ScanIndex(),
		"sort":       m.Orders.Pattern("ScanSort").On("ByAmount").SortGreaterThan().ScanIndex(),
		"descending": m.Orders.Pattern("ScanDesc").On("ByAmount").Descending().ScanIndex(),
	} {
		assert.ErrorIs(t, p.Err(), st.ErrInvalidModel, name)
	}
	_, err := m.FlaggedScan.Query(ctx, db, lsiOrder{CustomerID: "c1"})
	require.ErrorIs(t, err, st.ErrInvalidInput)
	assert.Contains(t, err.Error(), "read it with Scan")
	for _, err := range m.FlaggedByCust.Scan(ctx, db) {
		require.ErrorIs(t, err, st.ErrInvalidInput)
	}
	_, err = m.OpenScan.ScanInput(db, st.Filter(st.Eq("Amount", 3)))
	require.ErrorIs(t, err, st.ErrInvalidInput, "a filter on what a keys-only index does not carry matches nothing")
	assert.Empty(t, c.Calls())

	in, err := m.FlaggedScan.ScanInput(db, st.Segments(3), st.PageSize(10), st.Filter(st.Gt("Amount", 5)))
	require.NoError(t, err)
	golden.Request(t, "scan/index_segments", in)
	in, err = m.OpenScan.ScanInput(db, st.ConsistentRead())
	require.NoError(t, err, "an LSI serves a consistent scan")
	assert.Nil(t, in.FilterExpression, "a keys-only index carries no type to filter on")
	golden.Request(t, "scan/lsi_keys_only", in)
}

func TestLintAndSheetKnowLSIsAndIndexScans(t *testing.T) {
	m := newLSIModel(t)
	report := st.LintReport(m.Table.Lint())
	for _, ix := range []string{"ByAmount", "OpenByDate"} {
		assert.Contains(t, report, "info: index "+ix+": a local secondary index limits every item collection of table LSIShop")
	}
	assert.Contains(t, report, "warning: pattern AllByAmount: scans index ByAmount, which holds every Order item")
	assert.NotContains(t, report, "pattern AllFlagged:", "the Flagged index is sparse (When)")
	assert.NotContains(t, report, "pattern AllOpen:", "the OpenByDate index is sparse (When)")
	golden.Markdown(t, "sheet/lsi", m.Table.Sheet())
}

// Table.Decode and a keys-only LSI's query decode the fields in its keys.
func TestLSIKeysOnlyDecode(t *testing.T) {
	m, c, db := lsiMockDB(t)
	item := map[string]types.AttributeValue{
		"PK":           &types.AttributeValueMemberS{Value: "CUST#c1"},
		"SK":           &types.AttributeValueMemberS{Value: "ACT#2024-01-05#ORDER#o1"},
		"OpenByDateSK": &types.AttributeValueMemberS{Value: "OPEN#2024-01-05#o1"},
	}
	v, err := m.Table.Decode(item)
	require.NoError(t, err)
	assert.Equal(t, lsiOrder{CustomerID: "c1", ID: "o1", Date: "2024-01-05"}, v)
	c.QueryFunc = func(context.Context, *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
		return &dynamodb.QueryOutput{Items: []map[string]types.AttributeValue{item}}, nil
	}
	page, err := m.OpenOrders.Query(ctx, db, lsiOrder{CustomerID: "c1"})
	require.NoError(t, err)
	assert.Equal(t, []lsiOrder{{CustomerID: "c1", ID: "o1", Date: "2024-01-05"}}, page.Items)
}

// Each sort condition of a ranged collection, from typed bounds; a bound
// stops at the delimiter after its last value, so it covers every member.
func TestRangedCollectionConditions(t *testing.T) {
	m, c, db := lsiMockDB(t)
	values := st.Values{"CustomerID": "c1"}
	jan5 := lsiOrder{Date: "2024-01-05"}
	for _, tc := range []struct {
		c    *st.Collection
		cond string
		vals []string
	}{
		{m.ActivityFrom, "#n1 >= :v1", []string{"ACT#2024-01-05#"}},
		{m.ActivityAfter, "#n1 >= :v1", []string{"ACT#2024-01-05$"}},
		{m.ActivityBefore, "#n1 < :v1", []string{"ACT#2024-01-05#"}},
		{m.ActivityUntil, "#n1 < :v1", []string{"ACT#2024-01-05$"}},
		{m.ActivityDay, "begins_with(#n1, :v1)", []string{"ACT#2024-01-05#"}},
	} {
		in, err := tc.c.QueryBoundInput(db, values, jan5)
		require.NoError(t, err, tc.c.Name())
		assert.Contains(t, aws.ToString(in.KeyConditionExpression), tc.cond, tc.c.Name())
		assert.Equal(t, tc.vals[0], in.ExpressionAttributeValues[":v1"].(*types.AttributeValueMemberS).Value, tc.c.Name())
	}
	in, err := m.ActivityRange.QueryBetweenInput(db, values, lsiOrder{Date: "2024-01-01"}, &lsiOrder{Date: "2024-01-31"})
	require.NoError(t, err)
	golden.Request(t, "query/collection_between", in)
	in, err = m.ActivityDay.QueryBoundInput(db, values, lsiReturn{Date: "2024-01-05", ID: "r1"})
	require.NoError(t, err)
	assert.Contains(t, aws.ToString(in.KeyConditionExpression), "#n1 = :v1", "a whole key is equality")

	for name, call := range map[string]func() error{
		"Query on a ranged collection": func() error { _, err := m.ActivityRange.Query(ctx, db, values); return err },
		"QueryBound on SortBetween":    func() error { _, err := m.ActivityRange.QueryBound(ctx, db, values, jan5); return err },
		"QueryBetween on a bound":      func() error { _, err := m.ActivityFrom.QueryBetween(ctx, db, values, jan5, jan5); return err },
		"QueryBound on no range":       func() error { _, err := m.Activity.QueryBound(ctx, db, values, jan5); return err },
		"bound of no member":           func() error { _, err := m.ActivityFrom.QueryBound(ctx, db, values, "2024-01-05"); return err },
		"bounds of two members": func() error {
			_, err := m.ActivityRange.QueryBetween(ctx, db, values, jan5, lsiReturn{Date: "2024-01-06"})
			return err
		},
		"lower above upper": func() error {
			_, err := m.ActivityRange.QueryBetween(ctx, db, values, lsiOrder{Date: "2024-02-01"}, jan5)
			return err
		},
		"a comparison needs a value": func() error { _, err := m.ActivityFrom.QueryBound(ctx, db, values, lsiOrder{}); return err },
	} {
		assert.ErrorIs(t, call(), st.ErrInvalidInput, name)
	}
	assert.Empty(t, c.Calls(), "nothing is sent for a refused read")
}

// A range over a member's sort template that does not sort as text is
// refused at declaration, for every member.
func TestRangedCollectionRefusesUnorderedTemplates(t *testing.T) {
	tbl := st.MustTable("RangeOrder")
	type n struct {
		P string `dynamodbav:"p"`
		N int    `dynamodbav:"n"`
	}
	type s struct {
		P string `dynamodbav:"p"`
		D string `dynamodbav:"d"`
	}
	a := st.MustDefine[s](tbl, "S", st.Key("P#{P}", "S#{D}"))
	b := st.MustDefine[n](tbl, "N", st.Key("P#{P}", "N#{N}"))
	err := tbl.Collection("Both", a, b).Partition("P#{P}").SortGreaterThan().Err()
	require.ErrorIs(t, err, st.ErrInvalidModel)
	assert.True(t, strings.Contains(err.Error(), "without zero padding"), err.Error())
}
