package singletable_test

import (
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/singletabletest"
)

// Multi-attribute index keys: what Define and NewTable refuse, as the
// service would, and the reads refused before anything is sent.

type natOrder struct {
	Tenant   string  `dynamodbav:"tenant"`
	ID       string  `dynamodbav:"id"`
	Status   string  `dynamodbav:"status"`
	Priority int     `dynamodbav:"priority"`
	Open     bool    `dynamodbav:"open"`
	Tags     []int   `dynamodbav:"tags"`
	Score    float64 `dynamodbav:"score"`
}

func TestNativeKeyTableRefusals(t *testing.T) {
	for name, c := range map[string]struct {
		opts []st.TableOption
		want []string
	}{
		"five partition attributes": {[]st.TableOption{st.WithGSI("ByAll", st.IndexKeys("a,b,c,d,e", "s"))}, []string{"index ByAll", "partition key has 5 attributes", "allows 4"}},
		"five sort attributes":      {[]st.TableOption{st.WithGSI("ByAll", st.IndexKeys("p", "a,b,c,d,e"))}, []string{"index ByAll", "sort key has 5 attributes"}},
		"an empty attribute":        {[]st.TableOption{st.WithGSI("ByAll", st.IndexKeys("a,,b", "s"))}, []string{"index ByAll", "empty attribute"}},
		"an attribute twice":        {[]st.TableOption{st.WithGSI("ByAll", st.IndexKeys("a,b", "a"))}, []string{"index ByAll", `"a" is given twice`}},
		"the table's key":           {[]st.TableOption{st.WithGSI("ByAll", st.IndexKeys("PK,b", "s"))}, []string{"index ByAll", `"PK"`, "reserves"}},
		"a local index":             {[]st.TableOption{st.WithLSI("ByLocal", st.IndexKeys("", "a,b"))}, []string{"index ByLocal", "global secondary indexes"}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := st.NewTable("Natives", c.opts...)
			require.ErrorIs(t, err, st.ErrInvalidModel)
			var me *st.ModelError
			require.ErrorAs(t, err, &me)
			for _, w := range c.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
	// Several multi-attribute keys may share an attribute.
	_, err := st.NewTable("Natives", st.WithGSI("ByZone", st.IndexKeys("tenant,zone", "s")), st.WithGSI("ByTU", st.IndexKeys("tenant", "t,u")))
	require.NoError(t, err)
}

func TestNativeKeyDefineRefusals(t *testing.T) {
	type boolKey struct {
		Tenant string `dynamodbav:"tenant"`
		Open   bool   `dynamodbav:"status"`
	}
	type listKey struct {
		Tenant string `dynamodbav:"tenant"`
		Tags   []int  `dynamodbav:"priority"`
	}
	type numStatus struct {
		Tenant string `dynamodbav:"tenant"`
		Status int    `dynamodbav:"status"`
	}
	newTable := func() *st.Table {
		return st.MustTable("Natives", st.WithGSI("ByStatus", st.IndexKeys("tenant", "status,priority")))
	}
	check := func(t *testing.T, err error, field string, want ...string) {
		t.Helper()
		require.ErrorIs(t, err, st.ErrInvalidModel)
		var me *st.ModelError
		require.ErrorAs(t, err, &me)
		assert.Equal(t, field, me.Field)
		for _, w := range want {
			assert.Contains(t, err.Error(), w)
		}
	}
	_, err := st.Define[boolKey](newTable(), "A", st.Key("T#{Tenant}", "A"))
	check(t, err, "Open", "index ByStatus", `"status"`, "bool")
	_, err = st.Define[listKey](newTable(), "A", st.Key("T#{Tenant}", "A"))
	check(t, err, "Tags", "index ByStatus", `"priority"`)
	_, err = st.Define[natOrder](newTable(), "A", st.Key("T#{Tenant}", "A#{ID}"), st.Index("ByStatus", "{Tenant}", "{Status}"))
	check(t, err, "", "index ByStatus", "multi-attribute key", `leave Index("ByStatus", ...) out`)
	// A type another entity stores differently under the same attribute.
	tbl := newTable()
	st.MustDefine[natOrder](tbl, "Order", st.Key("T#{Tenant}", "O#{ID}"))
	_, err = st.Define[numStatus](tbl, "Other", st.Key("T#{Tenant}", "X"))
	require.ErrorIs(t, err, st.ErrInvalidModel)
	assert.Contains(t, err.Error(), "status")
}

func TestNativeKeyPatternRefusals(t *testing.T) {
	type tenantOnly struct {
		Tenant string `dynamodbav:"tenant"`
		Name   string `dynamodbav:"name"`
	}
	tbl := st.MustTable("Natives", st.WithGSI("ByStatus", st.IndexKeys("tenant", "priority,status")))
	orders := st.MustDefine[natOrder](tbl, "Order", st.Key("T#{Tenant}", "O#{ID}"))
	partial := st.MustDefine[tenantOnly](tbl, "Tenant", st.Key("T#{Tenant}", "TENANT"))
	for name, c := range map[string]struct {
		err  error
		want string
	}{
		"Partition":        {orders.Pattern("P1").On("ByStatus").Partition("{Tenant}").Err(), "leave Partition out"},
		"begins_with on N": {orders.Pattern("P2").On("ByStatus").SortBeginsWith("1").Err(), "field Priority"},
		"collection":       {tbl.Collection("C1", orders).On("ByStatus").Partition("{Tenant}").Err(), "collection"},
		"partial entity":   {partial.Pattern("P3").On("ByStatus").Err(), "stores no field as priority, status"},
	} {
		t.Run(name, func(t *testing.T) {
			require.ErrorIs(t, c.err, st.ErrInvalidModel)
			assert.Contains(t, c.err.Error(), c.want)
		})
	}
	// The partial entity's empty value under a key attribute is left out
	// (DynamoDB refuses an empty string in one), though it is not in the
	// index.
	mock := &singletabletest.Client{}
	db := st.New(mock, tbl)
	in, err := partial.PutInput(db, tenantOnly{Tenant: "", Name: "n"})
	require.Error(t, err, "the table key needs the tenant") // its table key reads it
	_ = in
}

// Bad params for a read of a multi-attribute index are refused before
// anything is sent.
func TestNativeKeyReadInputRefusals(t *testing.T) {
	tbl := st.MustTable("Natives", st.WithGSI("ByStatus", st.IndexKeys("tenant", "status,priority")))
	orders := st.MustDefine[natOrder](tbl, "Order", st.Key("T#{Tenant}", "O#{ID}"))
	exact := orders.Pattern("Exact").On("ByStatus").SortEquals().Must()
	prefix := orders.Pattern("Prefix").On("ByStatus").SortPrefix().Must()
	above := orders.Pattern("Above").On("ByStatus").SortGreaterThan().Must()
	between := orders.Pattern("Between").On("ByStatus").SortBetween().Must()
	mock := &singletabletest.Client{}
	db := st.New(mock, tbl)
	for name, c := range map[string]struct {
		run  func() error
		is   error
		want string
	}{
		"no partition value": {func() error { _, err := prefix.Query(ctx, db, natOrder{Status: "A"}); return err }, st.ErrInvalidKey, "Tenant"},
		"a gap":              {func() error { _, err := prefix.Query(ctx, db, natOrder{Tenant: "t", Priority: 3}); return err }, st.ErrInvalidInput, "not Status before it"},
		"SortEquals short":   {func() error { _, err := exact.Query(ctx, db, natOrder{Tenant: "t"}); return err }, st.ErrInvalidInput, "every sort field"},
		"comparison of none": {func() error { _, err := above.Query(ctx, db, natOrder{Tenant: "t"}, st.SortFields(0)); return err }, st.ErrInvalidInput, "needs a value for the sort field Status"},
		"PartialMatch on N": {func() error {
			_, err := prefix.Query(ctx, db, natOrder{Tenant: "t", Status: "A", Priority: 1}, st.PartialMatch())
			return err
		}, st.ErrInvalidInput, "Priority"},
		"PartialTime": {func() error {
			_, err := prefix.Query(ctx, db, natOrder{Tenant: "t"}, st.PartialTime(st.Day))
			return err
		}, st.ErrInvalidInput, "fields' own values"},
		"SortFields too many": {func() error {
			_, err := prefix.Query(ctx, db, natOrder{Tenant: "t"}, st.SortFields(3))
			return err
		}, st.ErrInvalidInput, "has 2 sort attributes"},
		"between differs early": {func() error {
			_, err := between.QueryBetween(ctx, db, natOrder{Tenant: "t", Status: "A", Priority: 1}, natOrder{Tenant: "t", Status: "B", Priority: 2})
			return err
		}, st.ErrInvalidInput, "differ in sort field Status"},
		"between reversed": {func() error {
			_, err := between.QueryBetween(ctx, db, natOrder{Tenant: "t", Status: "A", Priority: 10}, natOrder{Tenant: "t", Status: "A", Priority: 9})
			return err
		}, st.ErrInvalidInput, "above the upper bound"},
		"between of different lengths": {func() error {
			_, err := between.QueryBetween(ctx, db, natOrder{Tenant: "t", Status: "A", Priority: 1}, natOrder{Tenant: "t"})
			return err
		}, st.ErrInvalidInput, "same sort fields"},
	} {
		t.Run(name, func(t *testing.T) {
			err := c.run()
			require.Error(t, err)
			assert.True(t, errors.Is(err, c.is), "%v", err)
			assert.Contains(t, err.Error(), c.want)
		})
	}
	assert.Empty(t, mock.Calls(), "nothing was sent")
}

// The request: every partition attribute and sort equality by value, the
// condition on the last sort attribute given, numbers as numbers.
func TestNativeKeyQueryInput(t *testing.T) {
	tbl := st.MustTable("Natives", st.WithGSI("ByZone", st.IndexKeys("tenant,id", "status,priority")))
	orders := st.MustDefine[natOrder](tbl, "Order", st.Key("T#{Tenant}", "O#{ID}"))
	above := orders.Pattern("Above").On("ByZone").SortGreaterOrEqual().Must()
	db := st.New(&singletabletest.Client{}, tbl)
	in, err := above.QueryInput(db, natOrder{Tenant: "t", ID: "z", Status: "OPEN", Priority: 7})
	require.NoError(t, err)
	assert.Equal(t, "#n0 = :v0 AND #n1 = :v1 AND #n2 = :v2 AND #n3 >= :v3", *in.KeyConditionExpression)
	assert.Equal(t, map[string]string{"#n0": "tenant", "#n1": "id", "#n2": "status", "#n3": "priority", "#n4": "_type"}, in.ExpressionAttributeNames)
	assert.Equal(t, "ByZone", *in.IndexName)
	assert.Contains(t, orders.Pattern("Above2").On("ByZone").SortGreaterOrEqual().Must().KeyCondition(), "tenant = {tenant} AND id = {id}")
}

// Which sort fields a read's params give: up to the last one set. A
// trailing zero number is not set (reading by status alone needs no
// SortFields); a zero number before a set field, or where the read needs
// a value (a comparison or BETWEEN on the number alone, SortEquals), is
// the value 0; a non-nil pointer is set even to zero.
func TestNativeKeySortFieldsGiven(t *testing.T) {
	type ptrOrder struct {
		Tenant   string `dynamodbav:"tenant"`
		ID       string `dynamodbav:"id"`
		Status   string `dynamodbav:"status"`
		Priority *int   `dynamodbav:"priority"`
	}
	tbl := st.MustTable("Natives",
		st.WithGSI("ByStatus", st.IndexKeys("tenant", "status,priority")),
		st.WithGSI("ByPriority", st.IndexKeys("tenant", "priority,status")))
	orders := st.MustDefine[natOrder](tbl, "Order", st.Key("T#{Tenant}", "O#{ID}"))
	db := st.New(&singletabletest.Client{}, tbl)
	cond := func(t *testing.T, p *st.Pattern[natOrder], params natOrder, opts ...st.QueryOption) string {
		t.Helper()
		in, err := p.QueryInput(db, params, opts...)
		require.NoError(t, err)
		return *in.KeyConditionExpression
	}
	prefix := orders.Pattern("Prefix").On("ByStatus").SortPrefix().Must()
	assert.Equal(t, "#n0 = :v0 AND #n1 = :v1", cond(t, prefix, natOrder{Tenant: "t", Status: "OPEN"}), "status alone: the zero priority after it is not given")
	assert.Equal(t, "#n0 = :v0 AND #n1 = :v1 AND #n2 = :v2", cond(t, prefix, natOrder{Tenant: "t", Status: "OPEN"}, st.SortFields(2)), "SortFields(2): priority 0 asked for")
	assert.Equal(t, "#n0 = :v0 AND #n1 = :v1 AND #n2 = :v2", cond(t, prefix, natOrder{Tenant: "t", Status: "OPEN", Priority: 3}))

	byPrio := orders.Pattern("PrioPrefix").On("ByPriority").SortPrefix().Must()
	in, err := byPrio.QueryInput(db, natOrder{Tenant: "t", Status: "OPEN"})
	require.NoError(t, err)
	assert.Equal(t, "#n0 = :v0 AND #n1 = :v1 AND #n2 = :v2", *in.KeyConditionExpression, "a zero number before a set field is the value 0")
	assert.Equal(t, &types.AttributeValueMemberN{Value: "0"}, in.ExpressionAttributeValues[":v1"])
	assert.Equal(t, "#n0 = :v0", cond(t, byPrio, natOrder{Tenant: "t"}))

	above := orders.Pattern("PrioAbove").On("ByPriority").SortGreaterThan().Must()
	in, err = above.QueryInput(db, natOrder{Tenant: "t"})
	require.NoError(t, err)
	assert.Equal(t, "#n0 = :v0 AND #n1 > :v1", *in.KeyConditionExpression, "a comparison on the number alone: > 0")
	exact := orders.Pattern("Exact").On("ByStatus").SortEquals().Must()
	assert.Equal(t, "#n0 = :v0 AND #n1 = :v1 AND #n2 = :v2", cond(t, exact, natOrder{Tenant: "t", Status: "OPEN"}), "SortEquals: priority 0")
	between := orders.Pattern("Between").On("ByStatus").SortBetween().Must()
	bin, err := between.QueryBetweenInput(db, natOrder{Tenant: "t", Status: "OPEN"}, natOrder{Tenant: "t", Status: "OPEN", Priority: 9})
	require.NoError(t, err)
	assert.Equal(t, "#n0 = :v0 AND #n1 = :v1 AND #n2 BETWEEN :v2 AND :v3", *bin.KeyConditionExpression, "BETWEEN 0 AND 9 on priority")
	assert.Equal(t, &types.AttributeValueMemberN{Value: "0"}, bin.ExpressionAttributeValues[":v2"])

	ptrs := st.MustDefine[ptrOrder](tbl, "PtrOrder", st.Key("T#{Tenant}", "P#{ID}"))
	pp := ptrs.Pattern("PtrPrefix").On("ByStatus").SortPrefix().Must()
	zero := 0
	pin, err := pp.QueryInput(db, ptrOrder{Tenant: "t", Status: "OPEN", Priority: &zero})
	require.NoError(t, err)
	assert.Equal(t, "#n0 = :v0 AND #n1 = :v1 AND #n2 = :v2", *pin.KeyConditionExpression, "a pointer to 0 is set")
	pin, err = pp.QueryInput(db, ptrOrder{Tenant: "t", Status: "OPEN"})
	require.NoError(t, err)
	assert.Equal(t, "#n0 = :v0 AND #n1 = :v1", *pin.KeyConditionExpression)
}
