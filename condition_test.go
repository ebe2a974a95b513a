package singletable_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
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

// Every expression has one limit and one error: a Filter over 4 KB is the
// same *LimitError (ErrTooLarge and ErrInvalidInput) as a write condition
// or an update expression, with nothing sent; and the limit applies to the
// whole filter the query sends (the entity type's and the caller's).
func TestExpressionLimitIsOneRule(t *testing.T) {
	conds := func(n int) st.Cond {
		cs := make([]st.Cond, n)
		for i := range cs {
			cs[i] = st.Ne("Note", fmt.Sprint(i))
		}
		return st.And(cs...)
	}
	client := &singletabletest.Client{}
	db := st.New(client, vlTable)
	key := vlDoc{ID: "d1"}
	checkLimit := func(t *testing.T, what string, err error) {
		t.Helper()
		require.ErrorIs(t, err, st.ErrTooLarge, what)
		require.ErrorIs(t, err, st.ErrInvalidInput, what)
		var le *st.LimitError
		require.ErrorAs(t, err, &le, what)
		assert.Contains(t, err.Error(), "4096", what)
	}
	huge := conds(400)
	_, err := vlByID.Query(ctx, db, key, st.Filter(huge))
	checkLimit(t, "Filter", err)
	checkLimit(t, "If", vlDocs.Put(ctx, db, key, st.If(huge)))
	_, err = vlDocs.Update(ctx, db, key, st.Set("Note", "x").If(huge))
	checkLimit(t, "Update If", err)
	var sets st.Changes
	for i := range 300 {
		sets = sets.Set(fmt.Sprintf("Names.k%d", i), "x")
	}
	_, err = vlDocs.Update(ctx, db, key, sets)
	checkLimit(t, "update expression", err)
	assert.Empty(t, client.Calls(), "nothing is sent")

	// The first filter too long for the query, with the entity type's
	// filter joined to it, is refused the same way; the one before it fits.
	for n := 1; ; n++ {
		in, err := vlByID.QueryInput(db, key, st.Filter(conds(n)))
		if err != nil {
			checkLimit(t, fmt.Sprintf("Filter of %d conditions", n), err)
			break
		}
		require.LessOrEqual(t, len(*in.FilterExpression), 4096)
		require.Less(t, n, 1000)
	}
}

// DynamoDB orders strings, numbers and binary values only, and refuses a
// BETWEEN whose bounds are of two types or reversed (ValidationException):
// each is refused before sending, whichever operation the condition is on.
func TestConditionOrderingsDynamoDBRefusesFailBeforeSending(t *testing.T) {
	type doc struct {
		ID    string
		Flag  bool
		Tags  []string
		Score float64
		Name  string
		Blob  []byte
		Attrs map[string]any
	}
	table := st.MustTable("Orderings")
	docs := st.MustDefine[doc](table, "Doc", st.Key("DOC#{ID}", "DOC"))
	all := docs.Pattern("All")
	mock := &singletabletest.Client{}
	db := st.New(mock, table)
	ctx := context.Background()
	key := doc{ID: "d1"}
	for _, tc := range []struct {
		cond st.Cond
		want string
	}{
		{st.Lt("Flag", true), `Lt("Flag"): DynamoDB orders strings, numbers and binary values only, and refuses < with a boolean (BOOL)`},
		{st.Ge("Tags", []string{"a"}), `Ge("Tags"): DynamoDB orders strings, numbers and binary values only, and refuses >= with a list (L)`},
		{st.Gt("Attrs", map[string]any{}), `Gt("Attrs")`},
		{st.Le("Attrs.x", nil), `Le("Attrs.x")`},
		{st.Between("Flag", false, true), `Between("Flag"): DynamoDB orders strings, numbers and binary values only, and refuses BETWEEN with a boolean (BOOL)`},
		{st.Between("Score", 5, 1), `Between("Score"): the lower bound 5 is above the upper bound 1, which DynamoDB refuses`},
		{st.Between("Score", &types.AttributeValueMemberN{Value: "1E2"}, 99), `the lower bound 1E2 is above the upper bound 99`},
		{st.Between("Name", "b", "a"), `the lower bound "b" is above the upper bound "a"`},
		{st.Between("Blob", []byte{2}, []byte{1}), `the lower bound 02 is above the upper bound 01`},
		{st.Between("Attrs.x", 1, "5"), `Between("Attrs.x"): the bounds are a number (N) and a string (S); DynamoDB takes two of one type`},
	} {
		_, err := docs.Update(ctx, db, key, st.Set("Name", "x").If(tc.cond))
		require.ErrorIs(t, err, st.ErrInvalidInput, "%v", tc.want)
		assert.Contains(t, err.Error(), tc.want)
		err = docs.Delete(ctx, db, key, st.If(tc.cond))
		require.ErrorIs(t, err, st.ErrInvalidInput, "%v", tc.want)
		_, err = all.Query(ctx, db, key, st.Filter(tc.cond))
		require.ErrorIs(t, err, st.ErrInvalidInput, "%v", tc.want)
	}
	assert.Empty(t, mock.Calls())

	// What DynamoDB takes still passes: equal bounds, numbers equal in value,
	// a FieldRef bound (known only to the service), Eq on any type.
	for _, c := range []st.Cond{
		st.Between("Score", 1, 1), st.Between("Score", &types.AttributeValueMemberN{Value: "1.0"}, 1), st.Between("Score", st.FieldRef("Score"), 1),
		st.Between("Name", "a", "b"), st.Eq("Flag", true), st.Ne("Tags", []string{"a"}), st.Lt("Blob", []byte{1}),
	} {
		_, err := docs.UpdateInput(db, key, st.Set("Name", "x").If(c))
		require.NoError(t, err, "%v", c)
	}
}

// selfEncoded stores itself as one string ("1.2"): DynamoDB sees no parts.
type selfEncoded struct{ Major, Minor int }

func (v selfEncoded) MarshalDynamoDBAttributeValue() (types.AttributeValue, error) {
	return &types.AttributeValueMemberS{Value: fmt.Sprintf("%d.%d", v.Major, v.Minor)}, nil
}

type partlessDevice struct {
	ID       string      `dynamodbav:"id"`
	Firmware selfEncoded `dynamodbav:"fw"`
	Secret   []byte      `dynamodbav:"secret"`
	Labels   []string    `dynamodbav:"labels,stringset"`
	Ports    []int       `dynamodbav:"ports,numberset"`
	Keys     [][]byte    `dynamodbav:"keys"`
	Tags     []string    `dynamodbav:"tags"`
	Meta     map[string]selfEncoded
	Note     string
}

// A path below a value stored as neither a map nor a list (a Marshaler's
// own encoding, a binary, a set) names nothing: a filter or condition
// there silently never held (a filter returned no items, a condition
// failed as "does not hold") and DynamoDB refused an update there ("The
// document path provided in the update expression is invalid"). It is an
// ErrInvalidInput before sending; paths into lists and maps still work.
func TestConditionPathBelowPartlessValueFailsBeforeSending(t *testing.T) {
	tbl := st.MustTable("Partless")
	devices := st.MustDefine[partlessDevice](tbl, "Device", st.Key("D#{ID}", "D"))
	mock := &singletabletest.Client{}
	db := st.New(mock, tbl)
	key := partlessDevice{ID: "d1"}
	for _, path := range []string{"Firmware.Major", "Secret[0]", "Labels[0]", "Ports[1]", "Keys[0]", "Meta.a.Major"} {
		_, err := devices.Query(ctx, db, key, st.Filter(st.Eq(path, 1)))
		require.ErrorIs(t, err, st.ErrInvalidInput, path)
		assert.Contains(t, err.Error(), "has no parts a path can name", path)
		_, err = devices.Update(ctx, db, key, st.Set("Note", "x").If(st.Exists(path)))
		require.ErrorIs(t, err, st.ErrInvalidInput, path)
		_, err = devices.Update(ctx, db, key, st.Set(path, 1))
		require.ErrorIs(t, err, st.ErrInvalidInput, path)
	}
	assert.Empty(t, mock.Calls())

	_, err := devices.QueryInput(db, key, st.Filter(st.And(st.Eq("Tags[0]", "a"), st.Exists("Meta.a"))))
	require.NoError(t, err, "a list's element and a map's value are parts")
}
