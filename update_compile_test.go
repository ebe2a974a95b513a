package singletable_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/singletabletest"
)

// shapeDoc is a model of this file's own, with a branch for every
// value-dependent decision of an update: an index key read from two fields
// (GSI1), a sparse index keyed on an omitempty field (GSI2), a When
// condition (GSI3), an index on the updated timestamp (GSI4, so that every
// update adds a change of its own), a version, nested structs, lists, sets
// and numbers.
type shapeDoc struct {
	Tenant  string              `dynamodbav:"tenant"`
	ID      string              `dynamodbav:"id"`
	Status  string              `dynamodbav:"status"`
	Rank    int                 `dynamodbav:"rank"`
	Owner   string              `dynamodbav:"owner,omitempty"`
	Note    string              `dynamodbav:"note,omitempty"`
	Tags    map[string]struct{} `dynamodbav:"tags,stringset,omitempty"`
	Log     []string            `dynamodbav:"log"`
	Count   int                 `dynamodbav:"count"`
	Addr    shapeAddr           `dynamodbav:"addr"`
	Ver     int                 `dynamodbav:"v"`
	Created time.Time           `dynamodbav:"created"`
	Updated time.Time           `dynamodbav:"updated"`
}

type shapeAddr struct {
	City string `dynamodbav:"city,omitempty"`
	Zip  string `dynamodbav:"zip"`
}

var shapeClock = time.Date(2025, 6, 7, 8, 9, 10, 0, time.UTC)

// shapeModel defines the model afresh: an entity whose updates share
// nothing yet.
func shapeModel() (*st.Entity[shapeDoc], *st.DB) {
	table := st.MustTable("Shapes", st.WithGSI("GSI1"), st.WithGSI("GSI2"), st.WithGSI("GSI3"), st.WithGSI("GSI4"))
	e := st.MustDefine[shapeDoc](table, "Doc",
		st.Key("T#{Tenant}", "D#{ID}"),
		st.Index("GSI1", "STATUS#{Status}", "{Rank}#{ID}"),
		st.Index("GSI2", "OWNER#{Owner}", "D#{ID}"),
		st.Index("GSI3", "HOT#{Tenant}", "{Rank}#{ID}").When(st.Eq("Status", "HOT")),
		st.Index("GSI4", "RECENT#{Tenant}", "{Updated}"),
		st.Version("Ver"), st.Timestamps("Created", "Updated"),
	)
	mock := &singletabletest.Client{}
	return e, st.New(mock, table, st.WithClock(func() time.Time { return shapeClock }))
}

type shapeCase struct {
	name string
	key  shapeDoc
	ch   st.Changes
	opts []st.UpdateOption
}

func shapeCases() []shapeCase {
	k := shapeDoc{Tenant: "t#1", ID: "d1"}
	kv := shapeDoc{Tenant: "t", ID: "d#2", Ver: 3}
	raw := &types.AttributeValueMemberS{Value: "raw"}
	return []shapeCase{
		{"index set", k, st.Set("Status", "OPEN").Set("Rank", 2), nil},
		{"index set, When true", k, st.Set("Status", "HOT").Set("Rank", 7), nil},
		{"index key field empty, When false", k, st.Set("Status", "").Set("Rank", 0), nil},
		{"index set, another value type", kv, st.Set("Status", "OPEN").Set("Rank", int64(9)), nil},
		{"lossy value", k, st.Set("Status", "OPEN").Set("Rank", 1.5), nil},
		{"sparse index set", k, st.Set("Owner", "ann"), nil},
		{"omitempty zero: REMOVE, sparse index left", k, st.Set("Owner", ""), nil},
		{"read needed, When false: GSI3 left", k, st.Set("Status", "OPEN"), nil},
		{"read needed, When true", k, st.Set("Status", "HOT"), nil},
		{"read needed, NoRead", k, st.Set("Status", "OPEN"), []st.UpdateOption{st.NoRead()}},
		{"upsert", k, st.Set("Note", "n"), []st.UpdateOption{st.Upsert()}},
		{"upsert, index", k, st.Set("Status", "OPEN").Set("Rank", 1), []st.UpdateOption{st.Upsert()}},
		{"upsert, omitempty zero", k, st.Set("Owner", ""), []st.UpdateOption{st.Upsert()}},
		{"nested", k, st.Set("Addr.City", "Oslo").Remove("Addr.Zip"), nil},
		{"nested omitempty zero", k, st.Set("Addr.City", "").Remove("Addr.Zip"), nil},
		{"whole struct", k, st.Set("Addr", shapeAddr{Zip: "0150"}), nil},
		{"computed", k, st.Increment("Count", 2).Append("Log", "a").SetIfNotExists("Note", "x"), nil},
		{"computed, zero SetIfNotExists skipped", k, st.Decrement("Count", 1).Prepend("Log", []string{"a", "b"}).SetIfNotExists("Note", ""), nil},
		{"sets", k, st.Add("Tags", "x").Remove("Note"), nil},
		{"sets delete", k, st.DeleteFromSet("Tags", map[string]struct{}{"x": {}}).Add("Count", 1), nil},
		{"sets delete one", k, st.DeleteFromSet("Tags", "x").Add("Count", 1), nil},
		{"condition", k, st.Set("Note", "n").If(st.Eq("Status", "OPEN")), nil},
		{"condition, other value", k, st.Set("Note", "m").If(st.Eq("Status", "SHUT")), nil},
		{"version", kv, st.Set("Note", "n"), nil},
		{"raw value", k, st.Set("Note", raw), nil},
		{"raw value on an index field", k, st.Set("Status", raw).Set("Rank", 1), nil},
		{"nil on a string", k, st.Set("Status", nil).Set("Rank", 1), nil},
		{"nil on a set", k, st.Set("Tags", nil), nil},
		{"no such field", k, st.Set("Nope", 1), nil},
		{"key field", k, st.Set("ID", "x"), nil},
		{"twice", k, st.Set("Note", "a").Set("Note", "b"), nil},
		{"computed index field", k, st.Increment("Rank", 1), nil},
		{"nested Add", k, st.Add("Addr.Zip", 1), nil},
		{"wrong type", k, st.Set("Rank", "high").Set("Status", "OPEN"), nil},
		{"empty key field", shapeDoc{Tenant: "t"}, st.Set("Note", "n"), nil},
	}
}

// updateResult is what UpdateInput and TransactInput make of a case, as
// one comparable value.
func updateResult(e *st.Entity[shapeDoc], db *st.DB, c shapeCase) [2]any {
	var out [2]any
	if in, err := e.UpdateInput(db, c.key, c.ch, c.opts...); err != nil {
		out[0] = "error: " + err.Error()
	} else {
		out[0] = in
	}
	if in, err := db.TransactInput(func(tx *st.Tx) error {
		e.TxUpdate(tx, c.key, c.ch, c.opts...)
		return nil
	}); err != nil {
		out[1] = "error: " + err.Error()
	} else {
		in.ClientRequestToken = nil // random
		out[1] = in
	}
	return out
}

// An update whose shape was resolved before (by updates of the same shape
// with other values: every case runs twice, in both orders, on one entity)
// is the request a first update of that shape makes, byte for byte, errors
// included; and index keys rendered from the values given are those a
// struct built for them gives.
func TestUpdateShapeCachedEqualsPlanned(t *testing.T) {
	warm, warmDB := shapeModel()
	cases := shapeCases()
	compared := 0
	for round := range 3 {
		for i := range cases {
			c := cases[i]
			if round == 1 {
				c = cases[len(cases)-1-i]
			}
			cold, coldDB := shapeModel()
			want := updateResult(cold, coldDB, c)
			got := updateResult(warm, warmDB, c)
			assert.Equal(t, want, got, "round %d: %s", round, c.name)
			if round == 0 {
				t.Logf("%s: %v", c.name, describeResult(want[0]))
			}

			fromValues, fromStruct, err := st.UpdateIndexKeysBothWays(warm, warmDB, c.key, c.ch, c.opts...)
			if err == nil {
				assert.Equal(t, fromStruct, fromValues, c.name)
				compared += len(fromValues)
			}
		}
	}
	assert.Greater(t, compared, 3*10, "index keys rendered both ways")
	assert.Greater(t, st.UpdateShapes(warm), 15, "shapes resolved once and shared")
}

func describeResult(r any) string {
	in, ok := r.(*dynamodb.UpdateItemInput)
	if !ok {
		return fmt.Sprint(r)
	}
	return fmt.Sprintf("%s | %s | %v", *in.UpdateExpression, valueOr(in.ConditionExpression), in.ExpressionAttributeNames)
}

func valueOr(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// The cases' requests hold what each branch must give (so that the
// comparison above compares something): a REMOVE for an omitempty zero, a
// sparse index left, a When condition's index set and left, a read needed.
func TestUpdateShapeBranches(t *testing.T) {
	e, db := shapeModel()
	byName := map[string]shapeCase{}
	for _, c := range shapeCases() {
		byName[c.name] = c
	}
	expr := func(name string) string {
		c := byName[name]
		in, err := e.UpdateInput(db, c.key, c.ch, c.opts...)
		if err != nil {
			return "error: " + err.Error()
		}
		return describeResult(in)
	}
	assert.Contains(t, expr("index set, When true"), "GSI3PK")
	assert.Contains(t, expr("index set, When true"), "SET")
	assert.Contains(t, expr("index key field empty, When false"), "REMOVE")
	assert.Contains(t, expr("omitempty zero: REMOVE, sparse index left"), "REMOVE #n0, #n")
	assert.Contains(t, expr("read needed, When true"), "error: ")
	assert.Contains(t, expr("read needed, NoRead"), "error: ")
	assert.Contains(t, expr("nested omitempty zero"), "REMOVE #n0.#n1, #n0.#n2")
	assert.Contains(t, expr("computed, zero SetIfNotExists skipped"), "list_append")
	assert.NotContains(t, expr("computed, zero SetIfNotExists skipped"), "note")
	assert.Contains(t, expr("version"), "#n")
	for _, name := range []string{"lossy value", "nil on a string", "no such field", "key field", "twice", "computed index field", "nested Add", "wrong type", "empty key field"} {
		assert.Contains(t, expr(name), "error: ", name)
	}

	// An update that reads first plans again with what it read (a plan
	// with a read is never cached): the second request is conditioned on
	// the fields read.
	mock := &singletabletest.Client{
		GetItemFunc: func(_ context.Context, in *dynamodb.GetItemInput) (*dynamodb.GetItemOutput, error) {
			return &dynamodb.GetItemOutput{Item: map[string]types.AttributeValue{
				"PK": in.Key["PK"], "SK": in.Key["SK"], st.DefaultTypeAttribute: &types.AttributeValueMemberS{Value: "Doc"},
				"rank": &types.AttributeValueMemberN{Value: "4"},
			}}, nil
		},
		UpdateItemFunc: func(_ context.Context, in *dynamodb.UpdateItemInput) (*dynamodb.UpdateItemOutput, error) {
			return &dynamodb.UpdateItemOutput{Attributes: map[string]types.AttributeValue{
				"PK": in.Key["PK"], "SK": in.Key["SK"], st.DefaultTypeAttribute: &types.AttributeValueMemberS{Value: "Doc"},
			}}, nil
		},
	}
	rdb := st.New(mock, db.Table(), st.WithClock(func() time.Time { return shapeClock }))
	for range 2 {
		_, err := e.Update(context.Background(), rdb, byName["read needed, When true"].key, byName["read needed, When true"].ch)
		require.NoError(t, err)
	}
	var updates []*dynamodb.UpdateItemInput
	for _, c := range mock.Calls() {
		if in, ok := c.Input.(*dynamodb.UpdateItemInput); ok {
			updates = append(updates, in)
		}
	}
	require.Len(t, updates, 2)
	for _, in := range updates {
		assert.Contains(t, *in.ConditionExpression, "=", "conditioned on the rank read")
		assert.Contains(t, in.ExpressionAttributeValues, ":v0")
		assert.Contains(t, describeResult(in), "GSI3PK")
		assert.Contains(t, describeResult(in), "GSI1PK")
	}
	assert.Equal(t, updates[0], updates[1])
}

// A Changes is a value: Changes extended from one base (one after
// another, or at once from many goroutines) each hold the base's changes
// and their own, never another's. Run it under the race detector too.
func TestChangesExtendedFromOneBase(t *testing.T) {
	e, db := shapeModel()
	key := shapeDoc{Tenant: "t", ID: "d"}
	names := func(ch st.Changes) map[string]bool {
		in, err := e.UpdateInput(db, key, ch)
		require.NoError(t, err)
		out := map[string]bool{}
		for _, n := range in.ExpressionAttributeNames {
			out[n] = true
		}
		return out
	}
	for _, base := range []st.Changes{st.Set("Note", "n"), st.Set("Note", "n").Increment("Count", 1), st.Set("Note", "n").Increment("Count", 1).Append("Log", "x")} {
		fields := []string{"Owner", "Addr"}
		extended := []st.Changes{base.Set("Owner", "o"), base.Set("Addr", shapeAddr{Zip: "z"})}
		extended = append(extended, extended[0].Remove("Tags"), extended[1].Remove("Tags"))
		fields = append(fields, "Owner", "Addr")
		baseNames := names(base)
		for i, ch := range extended {
			got := names(ch)
			for n := range baseNames {
				assert.True(t, got[n], "%d: base field %s", i, n)
			}
			assert.Equal(t, fields[i] == "Owner", got["owner"], "%d", i)
			assert.Equal(t, fields[i] == "Addr", got["addr"], "%d", i)
			assert.Equal(t, i >= 2, got["tags"], "%d", i)
		}
		assert.Equal(t, baseNames, names(base), "the base unchanged")

		var wg sync.WaitGroup
		results := make([]st.Changes, 16)
		for g := range results {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if g%2 == 0 {
					results[g] = base.Set("Owner", fmt.Sprint("o", g))
				} else {
					results[g] = base.Set("Status", fmt.Sprint("s", g)).Set("Rank", g)
				}
			}()
		}
		wg.Wait()
		for g, ch := range results {
			in, err := e.UpdateInput(db, key, ch)
			require.NoError(t, err)
			want := fmt.Sprint("o", g)
			if g%2 == 1 {
				want = fmt.Sprint("s", g)
			}
			found := false
			for _, v := range in.ExpressionAttributeValues {
				if s, ok := v.(*types.AttributeValueMemberS); ok && s.Value == want {
					found = true
				}
			}
			assert.True(t, found, "goroutine %d's own value", g)
			got := names(ch)
			assert.Equal(t, g%2 == 0, got["owner"], "%d", g)
			assert.Equal(t, g%2 == 1, got["status"], "%d", g)
		}
	}
}
