package singletable_test

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/golden"
	"github.com/singletable/singletable/internal/testmodel"
	"github.com/singletable/singletable/singletabletest"
)

func readMockDB(s *testmodel.Seed) (*singletable.DB, *singletabletest.Client) {
	c := &singletabletest.Client{}
	return singletable.New(c, s.Table, singletable.WithCursorKeys([]byte("0123456789abcdef0123456789abcdef"))), c
}

// Every seed pattern: which operation it is, and the request it sends.
func TestPatternRequestsGolden(t *testing.T) {
	s := testmodel.NewSeed()
	db, client := readMockDB(s)
	type req struct {
		name string
		get  func() (any, error)
		op   string
	}
	cases := []req{
		{"GetUser", func() (any, error) { return s.GetUser.GetInput(db, testmodel.User{ID: "user_123"}) }, "GetItem"},
		{"ListUserOrders", func() (any, error) {
			return s.ListUserOrders.QueryInput(db, testmodel.Order{UserID: "user_123"}, singletable.Limit(10))
		}, "Query"},
		{"UserOrdersByDate", func() (any, error) {
			return s.UserOrdersByDate.QueryBetweenInput(db, testmodel.Order{UserID: "user_123", Date: "2026-01-01"}, testmodel.Order{Date: "2026-02-28"})
		}, "Query"},
		{"PendingOrders", func() (any, error) { return s.PendingOrders.QueryInput(db, testmodel.Order{}) }, "Query"},
		{"GetOrder", func() (any, error) { return s.GetOrder.GetInput(db, testmodel.OrderDetail{OrderID: "order_456"}) }, "GetItem"},
		{"ListOrderItems", func() (any, error) { return s.ListOrderItems.QueryInput(db, testmodel.OrderItem{OrderID: "order_456"}) }, "Query"},
		{"UserByEmail", func() (any, error) { return s.UserByEmail.QueryInput(db, testmodel.User{Email: "user@example.com"}) }, "Query"},
		{"UserTeams", func() (any, error) { return s.UserTeams.QueryInput(db, testmodel.Membership{UserID: "user_123"}) }, "Query"},
		{"TeamMembers", func() (any, error) { return s.TeamMembers.QueryInput(db, testmodel.Membership{TeamID: "team_456"}) }, "Query"},
		{"OrdersWithProduct", func() (any, error) { return s.OrdersWithProduct.QueryInput(db, testmodel.OrderItem{ProductID: "p1"}) }, "Query"},
		{"UserProfile", func() (any, error) {
			return s.UserProfile.QueryInput(db, singletable.Values{"UserID": "user_123"})
		}, "Query"},
		{"OrderWithItems", func() (any, error) {
			return s.OrderWithItems.QueryInput(db, singletable.Values{"OrderID": "order_456"}, singletable.ConsistentRead())
		}, "Query"},
	}
	ops := map[string]string{}
	for _, p := range []interface {
		Name() string
		Operation() string
	}{s.GetUser, s.ListUserOrders, s.UserOrdersByDate, s.PendingOrders, s.GetOrder, s.ListOrderItems, s.UserByEmail, s.UserTeams, s.TeamMembers, s.OrdersWithProduct} {
		ops[p.Name()] = p.Operation()
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in, err := c.get()
			require.NoError(t, err)
			if op, ok := ops[c.name]; ok {
				assert.Equal(t, c.op, op)
			}
			golden.Request(t, "pattern/"+c.name, in)
		})
	}
	assert.Empty(t, client.Calls(), "building requests sends nothing")
}

// Each sort operator on "ORDER#{Date}#{ID}", with partial and complete
// params: prefix-safe bounds.
func TestSortOperatorsGolden(t *testing.T) {
	s := testmodel.NewSeed()
	db, _ := readMockDB(s)
	o := s.Orders
	pats := map[string]*singletable.Pattern[testmodel.Order]{
		"eq":      o.Pattern("Eq").On("GSI1").Partition("STATUS#PENDING").SortEquals().Must(),
		"prefix":  o.Pattern("Prefix").Partition("USER#{UserID}").SortPrefix().Must(),
		"between": s.UserOrdersByDate,
		"lt":      o.Pattern("Lt").Partition("USER#{UserID}").SortLessThan().Must(),
		"le":      o.Pattern("Le").Partition("USER#{UserID}").SortLessOrEqual().Must(),
		"gt":      o.Pattern("Gt").Partition("USER#{UserID}").SortGreaterThan().Must(),
		"ge":      o.Pattern("Ge").Partition("USER#{UserID}").SortGreaterOrEqual().Must(),
	}
	day := testmodel.Order{UserID: "u1", Date: "2026-01-15"}
	full := testmodel.Order{UserID: "u1", Date: "2026-01-15", ID: "o1"}
	type kc struct{ cond, a, b string }
	checkInput := func(t *testing.T, in *dynamodb.QueryInput, err error, want kc) {
		t.Helper()
		require.NoError(t, err)
		assert.Equal(t, want.cond, *in.KeyConditionExpression)
		assert.Equal(t, want.a, sv(in.ExpressionAttributeValues[":v1"]))
		if want.b != "" {
			assert.Equal(t, want.b, sv(in.ExpressionAttributeValues[":v2"]))
		}
	}
	check := func(t *testing.T, p *singletable.Pattern[testmodel.Order], params testmodel.Order, want kc, opts ...singletable.QueryOption) {
		t.Helper()
		in, err := p.QueryInput(db, params, opts...)
		checkInput(t, in, err, want)
	}
	between := func(t *testing.T, from, to testmodel.Order, want kc) {
		t.Helper()
		in, err := pats["between"].QueryBetweenInput(db, from, to)
		checkInput(t, in, err, want)
	}
	t.Run("eq", func(t *testing.T) {
		check(t, pats["eq"], full, kc{"#n0 = :v0 AND #n1 = :v1", "ORDER#2026-01-15#o1", ""})
		g := o.Pattern("EqOnTable").Partition("USER#{UserID}").SortEquals().Must()
		assert.Equal(t, "GetItem", g.Operation(), "keys given whole on the table: GetItem")
		gin, err := g.GetInput(db, full)
		require.NoError(t, err)
		golden.Request(t, "pattern/sort_eq_getitem", gin)
		_, err = pats["eq"].QueryInput(db, day)
		assert.ErrorIs(t, err, singletable.ErrInvalidKey, "SortEquals needs every sort field")
	})
	t.Run("prefix", func(t *testing.T) {
		check(t, pats["prefix"], day, kc{"#n0 = :v0 AND begins_with(#n1, :v1)", "ORDER#2026-01-15#", ""})
		check(t, pats["prefix"], full, kc{"#n0 = :v0 AND #n1 = :v1", "ORDER#2026-01-15#o1", ""})
		check(t, pats["prefix"], testmodel.Order{UserID: "u1"}, kc{"#n0 = :v0 AND begins_with(#n1, :v1)", "ORDER#", ""})
		check(t, pats["prefix"], testmodel.Order{UserID: "u1", Date: "2026-01"}, kc{"#n0 = :v0 AND begins_with(#n1, :v1)", "ORDER#2026-01", ""}, singletable.PartialMatch())
		check(t, pats["prefix"], full, kc{"#n0 = :v0 AND begins_with(#n1, :v1)", "ORDER#2026-01-15#o1", ""}, singletable.PartialMatch())
	})
	t.Run("between", func(t *testing.T) {
		// A partial upper bound includes every key on that date: ORDER#2026-01-31$ is
		// the first string after every "ORDER#2026-01-31#...".
		between(t, testmodel.Order{UserID: "u1", Date: "2026-01-01"}, testmodel.Order{Date: "2026-01-31"},
			kc{"#n0 = :v0 AND #n1 BETWEEN :v1 AND :v2", "ORDER#2026-01-01#", "ORDER#2026-01-31$"})
		between(t, full, testmodel.Order{Date: "2026-01-15", ID: "o9"},
			kc{"#n0 = :v0 AND #n1 BETWEEN :v1 AND :v2", "ORDER#2026-01-15#o1", "ORDER#2026-01-15#o9"})
		between(t, testmodel.Order{UserID: "u1"}, testmodel.Order{}, kc{"#n0 = :v0 AND #n1 BETWEEN :v1 AND :v2", "ORDER#", "ORDER$"})
		_, err := pats["between"].QueryBetweenInput(db, testmodel.Order{UserID: "u1", Date: "2026-02-01"}, testmodel.Order{Date: "2026-01-01"})
		assert.ErrorIs(t, err, singletable.ErrInvalidInput, "lower bound above upper bound")
		_, err = pats["between"].QueryInput(db, day)
		assert.ErrorIs(t, err, singletable.ErrInvalidInput, "SortBetween read with QueryInput")
	})
	t.Run("lt", func(t *testing.T) {
		check(t, pats["lt"], day, kc{"#n0 = :v0 AND #n1 < :v1", "ORDER#2026-01-15#", ""})
		check(t, pats["lt"], full, kc{"#n0 = :v0 AND #n1 < :v1", "ORDER#2026-01-15#o1", ""})
	})
	t.Run("le", func(t *testing.T) {
		check(t, pats["le"], day, kc{"#n0 = :v0 AND #n1 < :v1", "ORDER#2026-01-15$", ""})
		check(t, pats["le"], full, kc{"#n0 = :v0 AND #n1 <= :v1", "ORDER#2026-01-15#o1", ""})
	})
	t.Run("gt", func(t *testing.T) {
		check(t, pats["gt"], day, kc{"#n0 = :v0 AND #n1 >= :v1", "ORDER#2026-01-15$", ""})
		check(t, pats["gt"], full, kc{"#n0 = :v0 AND #n1 > :v1", "ORDER#2026-01-15#o1", ""})
	})
	t.Run("ge", func(t *testing.T) {
		check(t, pats["ge"], day, kc{"#n0 = :v0 AND #n1 >= :v1", "ORDER#2026-01-15#", ""})
		check(t, pats["ge"], full, kc{"#n0 = :v0 AND #n1 >= :v1", "ORDER#2026-01-15#o1", ""})
		_, err := pats["ge"].QueryInput(db, testmodel.Order{UserID: "u1"})
		assert.ErrorIs(t, err, singletable.ErrInvalidInput, "a comparison needs its first sort field")
	})
	for name, p := range pats {
		if name == "between" {
			continue
		}
		t.Run("golden_"+name, func(t *testing.T) {
			params := day
			if name == "eq" {
				params = full
			}
			in, err := p.QueryInput(db, params)
			require.NoError(t, err)
			golden.Request(t, "pattern/sort_"+name, in)
		})
	}
}

// A begins_with from params never matches a longer value: ID 1 is not ID 10.
func TestSortPrefixIsPrefixSafe(t *testing.T) {
	tbl := singletable.MustTable("Lines")
	type Line struct {
		OrderID string
		N       int `dynamodbav:"n"`
		Sub     string
	}
	lines := singletable.MustDefine[Line](tbl, "Line", singletable.Key("ORDER#{OrderID}", "LINE#{N:4}#{Sub}"))
	p := lines.Pattern("Lines").SortPrefix().Must()
	db := singletable.New(&singletabletest.Client{}, tbl)
	in, err := p.QueryInput(db, Line{OrderID: "1", N: 1})
	require.NoError(t, err)
	assert.Equal(t, "LINE#0001#", sv(in.ExpressionAttributeValues[":v1"]))

	type Doc struct {
		ID   string
		Path string
		Rev  string
	}
	docs := singletable.MustDefine[Doc](tbl, "Doc", singletable.Key("DOC#{ID}", "V#{Path}#{Rev}"))
	dp := docs.Pattern("DocPath").SortPrefix().Must()
	in, err = dp.QueryInput(db, Doc{ID: "d", Path: "1"})
	require.NoError(t, err)
	assert.Equal(t, "V#1#", sv(in.ExpressionAttributeValues[":v1"]), "Path 1 must not match Path 10")
	in, err = dp.QueryInput(db, Doc{ID: "d", Path: "1"}, singletable.PartialMatch())
	require.NoError(t, err)
	assert.Equal(t, "V#1", sv(in.ExpressionAttributeValues[":v1"]), "asked for: Path 1 matches 10")
	// Values cannot forge a prefix: the delimiter in a value is escaped.
	in, err = dp.QueryInput(db, Doc{ID: "d", Path: "1#2"})
	require.NoError(t, err)
	assert.Equal(t, "V#1%232#", sv(in.ExpressionAttributeValues[":v1"]))
	_, err = p.QueryInput(db, Line{OrderID: "1", N: 1}, singletable.PartialMatch())
	assert.ErrorIs(t, err, singletable.ErrInvalidInput, "an integer cannot match partially")
}

func TestPatternDeclarationErrors(t *testing.T) {
	s := testmodel.NewSeed()
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"unknown index", s.Orders.Pattern("A").On("GSI9").Err(), "index GSI9 is not declared"},
		{"entity writes no key into index", s.OrderDetails.Pattern("B").On("GSI1").Err(), "writes no key into index GSI1"},
		{"partition does not match", s.Orders.Pattern("C").Partition("CUSTOMER#{UserID}").Err(), "no index serves partition"},
		{"partition with wrong field", s.Orders.Pattern("D").Partition("USER#{ID}").Err(), "no index serves partition"},
		{"partition on index does not match", s.Orders.Pattern("E").On("GSI1").Partition("USER#{UserID}").Err(), "does not match what entity Order writes into GSI1PK"},
		{"unknown field", s.Orders.Pattern("F").Partition("USER#{Nope}").Err(), "no index serves"},
		{"literal with delimiter", s.Orders.Pattern("G").On("GSI1").Partition("STATUS#PEN#DING").Err(), "does not match"},
		{"sort prefix not written", s.Orders.Pattern("H").Partition("USER#{UserID}").SortBeginsWith("TEAM#").Err(), `no sort key written by Order's "ORDER#{Date}#{ID}" starts with "TEAM#"`},
		{"sort given twice", s.Orders.Pattern("I").SortPrefix().SortEquals().Err(), "the sort condition is given 2 times"},
		{"duplicate name", s.Orders.Pattern("ListUserOrders").Err(), "already declared"},
		{"typed sort on a collection", s.Table.Collection("J", s.Users, s.Orders).Partition("USER#{UserID}").Err(), ""},
		{"collection member writes no index key", s.Table.Collection("K", s.Users, s.OrderDetails).On("GSI1").Partition("EMAIL#{Email}").Err(), "writes no key into index GSI1"},
		{"collection partition shapes differ", s.Table.Collection("L", s.Users, s.OrderItems).Partition("USER#{UserID}").Err(), "does not match what entity OrderItem writes"},
		{"empty name", s.Orders.Pattern("").Err(), "the name is empty"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.want == "" {
				assert.NoError(t, c.err)
				return
			}
			require.Error(t, c.err)
			assert.ErrorIs(t, c.err, singletable.ErrInvalidModel)
			var me *singletable.ModelError
			require.ErrorAs(t, c.err, &me)
			assert.Contains(t, me.Error(), c.want)
		})
	}
	assert.Panics(t, func() { s.Orders.Pattern("M").On("GSI9").Must() })

	// Builder order does not matter: the whole declaration is validated each step.
	p := s.Orders.Pattern("N").Partition("STATUS#PENDING").On("GSI1")
	assert.NoError(t, p.Err())
	assert.Equal(t, "GSI1", p.Index())
	// Without On, the one index whose partition template fits is chosen.
	q := s.Users.Pattern("O").Partition("EMAIL#{Email}")
	require.NoError(t, q.Err())
	assert.Equal(t, "GSI1", q.Index())

	// A collection's sort condition can only be a literal prefix.
	c := s.Table.Collection("P", s.Users, s.Orders).Partition("USER#{UserID}").SortBeginsWith("ZZZ")
	assert.ErrorIs(t, c.Err(), singletable.ErrInvalidModel)
	err := s.Table.Collection("Q").Partition("USER#{UserID}").Err()
	assert.ErrorIs(t, err, singletable.ErrInvalidModel, "no members")

	// A declaration error is returned by the query, and nothing is sent.
	db, client := readMockDB(s)
	bad := s.Orders.Pattern("R").On("GSI9")
	_, err = bad.Query(t.Context(), db, testmodel.Order{})
	assert.ErrorIs(t, err, singletable.ErrInvalidModel)
	for range bad.All(t.Context(), db, testmodel.Order{}) {
	}
	assert.Empty(t, client.Calls())
}

func TestSortOnIndexWithoutSortKey(t *testing.T) {
	tbl := singletable.MustTable("Flat", singletable.WithGSI("ByName", singletable.IndexKeys("NamePK", "")))
	type Thing struct{ ID, Name string }
	things := singletable.MustDefine[Thing](tbl, "Thing", singletable.Key("T#{ID}", "T"), singletable.Index("ByName", "NAME#{Name}", ""))
	err := things.Pattern("ByName").On("ByName").SortPrefix().Err()
	require.ErrorIs(t, err, singletable.ErrInvalidModel)
	assert.Contains(t, err.Error(), "index ByName has no sort key")
	assert.NoError(t, things.Pattern("ByName2").On("ByName").Err())
}

func TestQueryOptionErrorsSendNothing(t *testing.T) {
	s := testmodel.NewSeed()
	db, client := readMockDB(s)
	ctx := t.Context()
	cases := []struct {
		name string
		run  func() error
	}{
		{"ConsistentRead on a GSI", func() error {
			_, err := s.PendingOrders.Query(ctx, db, testmodel.Order{}, singletable.ConsistentRead())
			return err
		}},
		{"Limit negative", func() error {
			_, err := s.ListUserOrders.Query(ctx, db, testmodel.Order{UserID: "u"}, singletable.Limit(-1))
			return err
		}},
		{"QueryBetween on a begins_with pattern", func() error {
			_, err := s.ListUserOrders.QueryBetween(ctx, db, testmodel.Order{UserID: "u"}, testmodel.Order{})
			return err
		}},
		{"filter on an unknown field", func() error {
			_, err := s.ListUserOrders.Query(ctx, db, testmodel.Order{UserID: "u"}, singletable.Filter(singletable.Eq("Nope", 1)))
			return err
		}},
		{"filter on an attribute a KEYS_ONLY index lacks", func() error {
			_, err := s.TeamMembers.Query(ctx, db, testmodel.Membership{TeamID: "t"}, singletable.Filter(singletable.Eq("Role", "admin")))
			return err
		}},
		{"project a field a KEYS_ONLY index lacks", func() error {
			_, err := s.TeamMembers.Query(ctx, db, testmodel.Membership{TeamID: "t"}, singletable.Project("Role"))
			return err
		}},
		{"FetchFull on the table", func() error {
			_, err := s.ListUserOrders.Query(ctx, db, testmodel.Order{UserID: "u"}, singletable.FetchFull())
			return err
		}},
		{"a fixed partition value contradicted", func() error {
			_, err := s.PendingOrders.Query(ctx, db, testmodel.Order{Status: "SHIPPED"})
			return err
		}},
		{"missing partition field", func() error {
			_, err := s.ListUserOrders.Query(ctx, db, testmodel.Order{})
			return err
		}},
		{"Filter on a GetItem pattern", func() error {
			_, err := s.GetUser.Query(ctx, db, testmodel.User{ID: "u"}, singletable.Filter(singletable.Eq("Name", "x")))
			return err
		}},
		{"Ascending and Descending", func() error {
			_, err := s.ListUserOrders.Query(ctx, db, testmodel.Order{UserID: "u"}, singletable.Ascending(), singletable.Descending())
			return err
		}},
		{"collection: unknown label", func() error {
			_, err := s.UserProfile.Query(ctx, db, singletable.Values{"UserId": "u"})
			return err
		}},
		{"another table's DB", func() error {
			other := testmodel.NewSeed()
			_, err := s.ListUserOrders.Query(ctx, singletable.New(client, other.Table), testmodel.Order{UserID: "u"})
			return err
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			client.Reset()
			err := c.run()
			require.Error(t, err)
			assert.True(t, errors.Is(err, singletable.ErrInvalidInput) || errors.Is(err, singletable.ErrInvalidKey), "got %v", err)
			assert.Empty(t, client.Calls(), "no request may be sent")
		})
	}
	// Allowed on the table: a strongly consistent read.
	in, err := s.ListUserOrders.QueryInput(db, testmodel.Order{UserID: "u"}, singletable.ConsistentRead(), singletable.Ascending())
	require.NoError(t, err)
	assert.True(t, *in.ConsistentRead)
	assert.Nil(t, in.ScanIndexForward, "Ascending overrides the declared Descending")
	_ = dynamodb.QueryInput{}
}

func sv(av any) string {
	if s, ok := av.(*types.AttributeValueMemberS); ok {
		return s.Value
	}
	return ""
}

// An INCLUDE index: no entity-type filter unless the type is included;
// filters and projections only on what it carries; fields recovered from
// the keys.
func TestIncludeProjection(t *testing.T) {
	tbl := singletable.MustTable("Included", singletable.WithGSI("GSI1", singletable.Include("status", "total")))
	orders := singletable.MustDefine[testmodel.Order](tbl, "Order",
		singletable.Key("USER#{UserID}", "ORDER#{Date}#{ID}"),
		singletable.Index("GSI1", "STATUS#{Status}", "ORDER#{Date}#{ID}"),
	)
	byStatus := orders.Pattern("ByStatus").On("GSI1").Partition("STATUS#{Status}").Must()
	client := &singletabletest.Client{}
	db := singletable.New(client, tbl)
	in, err := byStatus.QueryInput(db, testmodel.Order{Status: "PENDING"}, singletable.Filter(singletable.Gt("Total", 10)))
	require.NoError(t, err)
	assert.Equal(t, "#n2 > :v2", *in.FilterExpression, "no type filter: the index does not carry _type")
	_, err = byStatus.QueryInput(db, testmodel.Order{Status: "PENDING"}, singletable.Filter(singletable.Eq("Address", "x")))
	assert.ErrorIs(t, err, singletable.ErrInvalidInput)
	_, err = byStatus.QueryInput(db, testmodel.Order{Status: "PENDING"}, singletable.Project("Address"))
	assert.ErrorIs(t, err, singletable.ErrInvalidInput)
	in, err = byStatus.QueryInput(db, testmodel.Order{Status: "PENDING"}, singletable.Project("Total", "UserID"))
	require.NoError(t, err, "UserID is recovered from the table key")
	golden.Request(t, "pattern/include_project", in)

	client.QueryFunc = func(context.Context, *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
		return &dynamodb.QueryOutput{Items: []map[string]types.AttributeValue{{
			"PK": s("USER#u1"), "SK": s("ORDER#2026-01-01#o1"), "GSI1PK": s("STATUS#PENDING"), "GSI1SK": s("ORDER#2026-01-01#o1"),
			"status": s("PENDING"), "total": &types.AttributeValueMemberN{Value: "20"},
		}}}, nil
	}
	page, err := byStatus.Query(t.Context(), db, testmodel.Order{Status: "PENDING"})
	require.NoError(t, err)
	assert.Equal(t, []testmodel.Order{{UserID: "u1", ID: "o1", Date: "2026-01-01", Status: "PENDING", Total: 20}}, page.Items)
}

// A GetItem pattern with a fixed partition value renders the whole key
// with it.
func TestGetPatternWithFixedValue(t *testing.T) {
	m := testmodel.NewSeed()
	admin := m.Users.Pattern("Admin").Partition("USER#admin").SortEquals().Must()
	assert.Equal(t, "GetItem", admin.Operation())
	db, _ := readMockDB(m)
	in, err := admin.GetInput(db, testmodel.User{})
	require.NoError(t, err)
	assert.Equal(t, "USER#admin", sv(in.Key["PK"]))
	assert.Equal(t, "#METADATA#admin", sv(in.Key["SK"]))
}

func TestPatternRefusesNonCanonicalFixedValue(t *testing.T) {
	tbl := singletable.MustTable("Canon")
	type Job struct {
		Queue int
		ID    string
	}
	jobs := singletable.MustDefine[Job](tbl, "Job", singletable.Key("QUEUE#{Queue:4}", "JOB#{ID}"))
	assert.ErrorIs(t, jobs.Pattern("Queue5").Partition("QUEUE#5").Err(), singletable.ErrInvalidModel,
		"Queue 5 is written QUEUE#0005: a read of QUEUE#5 finds nothing")
	assert.NoError(t, jobs.Pattern("Queue5Padded").Partition("QUEUE#0005").Err())
}
