package singletable_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/singletabletest"
)

// skelItem is a model of this file's own, for updates whose values decide
// their request's shape: omitempty fields (a zero value skips the change,
// or removes the attribute), index keys from one field or two, a sparse
// index (no owner, no key), two indexes with When conditions (on a field
// whose every value is stored: only the indexes tell them apart), a small
// integer (range checks), a set and a list.
type skelItem struct {
	Queue  string   `dynamodbav:"queue"`
	ID     string   `dynamodbav:"id"`
	Status string   `dynamodbav:"status"`
	Prio   int      `dynamodbav:"prio"`
	Owner  string   `dynamodbav:"owner,omitempty"`
	Note   string   `dynamodbav:"note"`
	Nick   string   `dynamodbav:"nick,omitempty"`
	Count  int      `dynamodbav:"count"`
	Small  int8     `dynamodbav:"small"`
	Tags   []string `dynamodbav:"tags,stringset,omitempty"`
	List   []int    `dynamodbav:"list"`
	Flag   bool     `dynamodbav:"flag,omitempty"`
	Kind   string   `dynamodbav:"kind"`
	Alias  string   `dynamodbav:"alias,omitempty"`
	Level  string   `dynamodbav:"level"`
}

func skelModel() (*st.Entity[skelItem], *st.DB, *singletabletest.Client) {
	table := st.MustTable("Skel", st.WithGSI("GSI1"), st.WithGSI("GSI2"), st.WithGSI("GSI3"), st.WithGSI("GSI4"))
	e := st.MustDefine[skelItem](table, "Item",
		st.Key("Q#{Queue}", "I#{ID}"),
		st.Index("GSI1", "STATUS#{Status}", "{Prio}#{ID}"),
		st.Index("GSI2", "OWNER#{Owner}", "I#{ID}"),
		st.Index("GSI3", "KIND#{Kind}", "{ID}").When(st.Eq("Level", "hi")),
		st.Index("GSI4", "LEVEL#{Level}", "{ID}").When(st.Eq("Level", "lo")),
	)
	mock := &singletabletest.Client{UpdateItemFunc: func(_ context.Context, in *dynamodb.UpdateItemInput) (*dynamodb.UpdateItemOutput, error) {
		item := ticketItem(in)
		item[st.DefaultTypeAttribute] = &types.AttributeValueMemberS{Value: "Item"}
		return &dynamodb.UpdateItemOutput{Attributes: item}, nil
	}}
	return e, st.New(mock, table), mock
}

// skelChange adds one change to a field, its value drawn from a few
// (zero values among them, which change the request's shape).
type skelChange func(r *rand.Rand, c st.Changes) st.Changes

func skelPick[V any](r *rand.Rand, vs ...V) V { return vs[r.IntN(len(vs))] }

// skelChanges are the changes a case draws from, a few per field: a case
// takes at most one per field (two would be an error every time).
var skelChanges = [][]skelChange{
	{func(r *rand.Rand, c st.Changes) st.Changes { return c.Set("Status", skelPick(r, "", "OPEN", "DONE")) }},
	{
		func(r *rand.Rand, c st.Changes) st.Changes { return c.Set("Prio", skelPick(r, 0, 7, -3)) },
		func(r *rand.Rand, c st.Changes) st.Changes { return c.Increment("Prio", 1) }, // an index reads it: an error
	},
	{
		func(r *rand.Rand, c st.Changes) st.Changes { return c.Set("Owner", skelPick(r, "", "bob")) },
		func(_ *rand.Rand, c st.Changes) st.Changes { return c.Remove("Owner") },
	},
	{
		func(r *rand.Rand, c st.Changes) st.Changes { return c.Set("Note", skelPick(r, "", "n1")) },
		func(_ *rand.Rand, c st.Changes) st.Changes { return c.Remove("Note") },
		func(r *rand.Rand, c st.Changes) st.Changes { return c.SetIfNotExists("Note", skelPick(r, "", "x")) },
	},
	{
		func(r *rand.Rand, c st.Changes) st.Changes { return c.Set("Nick", skelPick(r, "", "nk")) },
		func(_ *rand.Rand, c st.Changes) st.Changes { return c.Remove("Nick") },
		func(r *rand.Rand, c st.Changes) st.Changes { return c.SetIfNotExists("Nick", skelPick(r, "", "nk")) },
	},
	{
		func(r *rand.Rand, c st.Changes) st.Changes { return c.Increment("Count", skelPick(r, 0, 3)) },
		func(r *rand.Rand, c st.Changes) st.Changes { return c.Decrement("Count", skelPick(r, 0, 2)) },
		func(r *rand.Rand, c st.Changes) st.Changes { return c.Set("Count", skelPick(r, 0, 5)) },
		func(r *rand.Rand, c st.Changes) st.Changes { return c.Add("Count", skelPick(r, 1, -1)) },
	},
	{
		func(r *rand.Rand, c st.Changes) st.Changes {
			return c.Increment("Small", skelPick[any](r, 1, 200, "x"))
		},
		func(r *rand.Rand, c st.Changes) st.Changes { return c.Set("Small", skelPick(r, int8(0), int8(3))) },
	},
	{
		func(r *rand.Rand, c st.Changes) st.Changes {
			return c.Add("Tags", skelPick(r, []string{"a"}, []string{"a", "b"}))
		},
		func(r *rand.Rand, c st.Changes) st.Changes { return c.DeleteFromSet("Tags", "a") },
		func(r *rand.Rand, c st.Changes) st.Changes {
			return c.Set("Tags", skelPick(r, []string{}, []string{"c"}))
		},
	},
	{
		func(r *rand.Rand, c st.Changes) st.Changes {
			return c.Append("List", skelPick(r, []int{1}, []int{1, 2}))
		},
		func(r *rand.Rand, c st.Changes) st.Changes { return c.Prepend("List", []int{0}) },
		func(r *rand.Rand, c st.Changes) st.Changes { return c.Set("List", skelPick(r, []int{}, []int{4})) },
		func(r *rand.Rand, c st.Changes) st.Changes { return c.Set("List[0]", 9) }, // below the field
	},
	{func(r *rand.Rand, c st.Changes) st.Changes { return c.Set("Flag", skelPick(r, false, true)) }},
	{func(r *rand.Rand, c st.Changes) st.Changes { return c.Set("Kind", skelPick(r, "", "a")) }},
	{func(r *rand.Rand, c st.Changes) st.Changes { return c.Set("Level", skelPick(r, "", "hi", "lo")) }},
	{
		func(r *rand.Rand, c st.Changes) st.Changes { return c.Set("Alias", skelPick(r, "", "al")) },
		func(r *rand.Rand, c st.Changes) st.Changes { return c.SetIfNotExists("Alias", skelPick(r, "", "al")) },
	},
	{func(r *rand.Rand, c st.Changes) st.Changes { return c.Set("Nope", 1) }}, // no such field: an error
}

// skelCase is an update drawn at random: which changes to which fields,
// and a condition (or none); values are drawn again on every call.
type skelCase struct {
	fields, ops []int
	cond        int
}

func drawCase(r *rand.Rand) skelCase {
	var c skelCase
	for _, f := range r.Perm(len(skelChanges) - 1)[:1+r.IntN(4)] {
		c.fields = append(c.fields, f)
		c.ops = append(c.ops, r.IntN(len(skelChanges[f])))
	}
	if r.IntN(20) == 0 {
		c.fields, c.ops = append(c.fields, len(skelChanges)-1), append(c.ops, 0)
	}
	c.cond = r.IntN(12)
	return c
}

// changes draws the case's values.
func (c skelCase) changes(r *rand.Rand) st.Changes {
	var ch st.Changes
	for i, f := range c.fields {
		ch = skelChanges[f][c.ops[i]](r, ch)
	}
	switch c.cond {
	case 1:
		ch = ch.If(st.Ne("Note", skelPick(r, "zz", "")))
	case 2:
		ch = ch.If(st.And(st.Eq("Status", skelPick(r, "OPEN", "")), st.Lt("Count", skelPick(r, 3, 10))))
	case 3:
		ch = ch.If(st.Or(st.Exists("Note"), st.Not(st.BeginsWith("Kind", skelPick(r, "a", "")))))
	case 4:
		ch = ch.If(st.Contains("Tags", skelPick(r, "a", "b")))
	case 5:
		ch = ch.If(st.IsType("Count", skelPick(r, st.TypeNumber, st.TypeString, "X")))
	case 6: // compared with another field: no shape
		ch = ch.If(st.Gt("Count", skelPick[any](r, st.FieldRef("Prio"), 2)))
	case 7: // Between, In and Size have none either
		ch = ch.If(st.Between("Count", 1, skelPick(r, 5, 0)))
	case 8: // a value DynamoDB does not order, or not of the field's type
		ch = ch.If(st.Lt("Count", skelPick[any](r, 3, true, "x", []string{"a"}, &types.AttributeValueMemberN{Value: "1"}, &types.AttributeValueMemberBOOL{Value: true})))
	case 9:
		ch = ch.If(st.And(st.In("Status", skelPick(r, "OPEN", "DONE")), st.Size("Tags").Gt(skelPick(r, 1, 2))))
	case 10:
		ch = ch.If(st.And(st.Ge("Prio", skelPick(r, 1, 2)), st.Ne("Owner", skelPick(r, "bob", "")), st.Le("Small", int8(4))))
	}
	return ch
}

// skelRun runs the cases (each several times, values drawn anew, so that
// a skeleton is kept and then taken) through skelRequests.
func skelRun(t *testing.T, seed uint64, cases []skelCase) (out []string, kept, refused int) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 1))
	var chs []st.Changes
	for _, c := range cases {
		for range 4 {
			chs = append(chs, c.changes(r))
		}
	}
	return skelRequests(t, chs)
}

// skelRequests sends each update in turn through Update, UpdateInput and
// TxUpdate (with a put beside it, as TransactInput builds it), on an
// entity of its own, and returns every request and error, in order, and
// how many skeletons the entity kept and refused.
func skelRequests(t *testing.T, chs []st.Changes) (out []string, kept, refused int) {
	t.Helper()
	e, db, mock := skelModel()
	ctx := context.Background()
	for i, ch := range chs {
		key := skelItem{Queue: "q", ID: fmt.Sprint("i", i)}
		mock.Reset()
		got, err := e.Update(ctx, db, key, ch)
		out = append(out, fmt.Sprintf("Update %d: %+v %v", i, got, err))
		for _, call := range mock.Calls() {
			out = append(out, requestText(t, call.Input))
		}
		in, err := e.UpdateInput(db, key, ch)
		out = append(out, fmt.Sprintf("UpdateInput: %v %s", err, requestText(t, in)))
		tin, err := db.TransactInput(func(tx *st.Tx) error {
			e.TxPut(tx, skelItem{Queue: "q", ID: "other"})
			e.TxUpdate(tx, key, ch)
			return nil
		}, st.IdempotencyToken("t"))
		out = append(out, fmt.Sprintf("TxUpdate: %v %s", err, requestText(t, tin)))
	}
	kept, refused = st.UpdateSkeletons(e)
	return out, kept, refused
}

// sameWithoutSkeletons checks that skelRequests builds the same requests
// with skeletons and without, and returns how many skeletons were kept.
func sameWithoutSkeletons(t *testing.T, with []string, build func() []string) {
	t.Helper()
	was := st.SetUpdateSkeletons(false)
	without := build()
	st.SetUpdateSkeletons(was)
	require.Equal(t, len(without), len(with))
	for i := range with {
		if with[i] != without[i] {
			// Not require.Equal: its diff of long lines takes minutes.
			t.Fatalf("request %d:\nwith skeletons:    %s\nwithout skeletons: %s", i, with[i], without[i])
		}
	}
}

// TestUpdateSkeletonSameRequests compares, over a few hundred updates of
// random shapes and values, the requests (and errors) built from
// skeletons with those the planner builds without them: byte for byte.
func TestUpdateSkeletonSameRequests(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 21))
	var cases []skelCase
	for range 120 {
		cases = append(cases, drawCase(r))
	}
	with, kept, refused := skelRun(t, 7, cases)
	sameWithoutSkeletons(t, with, func() []string { out, _, _ := skelRun(t, 7, cases); return out })
	// The comparison is of skeletons: many were kept and taken, and
	// none refused (that would be a skeleton building another request).
	assert.Greater(t, kept, 40)
	assert.Zero(t, refused)
}

// Updates of one shape whose values decide their requests differently,
// in the same number of values (what a skeleton key missing a decision
// would serve the wrong request to), one after another and each several
// times: the same requests as without skeletons.
func TestUpdateSkeletonDecisionsCollide(t *testing.T) {
	var chs []st.Changes
	add := func(variants ...st.Changes) {
		for range 3 {
			chs = append(chs, variants...)
		}
	}
	// An omitempty zero skips the change: which one.
	add(st.SetIfNotExists("Nick", "").SetIfNotExists("Alias", "al"), st.SetIfNotExists("Nick", "nk").SetIfNotExists("Alias", ""))
	// An omitempty zero removes the attribute: which one.
	add(st.Set("Nick", "").Set("Alias", "al"), st.Set("Nick", "nk").Set("Alias", ""))
	// An empty key field removes an index's keys: which index.
	add(st.Set("Status", "OPEN").Set("Prio", 1).Set("Owner", ""), st.Set("Status", "").Set("Prio", 1).Set("Owner", "bob"))
	// Sparse indexes' When conditions: which index's keys are set, which
	// removed.
	add(st.Set("Kind", "a").Set("Level", "hi"), st.Set("Kind", "a").Set("Level", "lo"))
	// A condition of the caller's, or none; a range check, or none.
	add(st.Set("Note", "n").Increment("Count", 1), st.Set("Note", "n").Increment("Count", 1).If(st.Exists("Note")),
		st.Set("Note", "n").Increment("Small", 1), st.Set("Note", "n").Increment("Small", 1).If(st.Exists("Note")))
	with, kept, refused := skelRequests(t, chs)
	sameWithoutSkeletons(t, with, func() []string { out, _, _ := skelRequests(t, chs); return out })
	assert.Greater(t, kept, 8)
	assert.Zero(t, refused)
}

// The caller's condition is part of a skeleton once its shape is known:
// conditions of one shape, kept and then taken, whose values the
// planner refuses in turn (a value DynamoDB does not order, one not of
// the field's type) or binds differently (raw values, set elements), and
// a condition without a shape (a field reference) between them: the same
// requests and errors as without skeletons.
func TestUpdateSkeletonConditionValues(t *testing.T) {
	base := func() st.Changes { return st.Set("Note", "n").Increment("Count", 1) }
	var chs []st.Changes
	for _, v := range []any{3, &types.AttributeValueMemberN{Value: "1"}, &types.AttributeValueMemberBOOL{Value: true},
		4, "x", &types.AttributeValueMemberS{Value: strings.Repeat("s", 400*1024)}, st.FieldRef("Prio"), 5} {
		chs = append(chs, base().If(st.Lt("Count", v)), base().If(st.Lt("Count", v)))
	}
	for _, v := range []any{"a", []string{"a"}, 7, "b"} {
		chs = append(chs, base().If(st.Contains("Tags", v)), base().If(st.Not(st.Contains("Tags", v))))
	}
	for _, typ := range []st.AttrType{st.TypeString, "X", st.TypeNumber} { // "X": no such type
		chs = append(chs, base().If(st.IsType("Note", typ)), base().If(st.IsType("Note", typ)))
	}
	// No value bound at all (a REMOVE, an omitempty zero that removes),
	// and a condition that binds none: no ExpressionAttributeValues,
	// which DynamoDB refuses empty (atk8 F2).
	for range 3 {
		chs = append(chs, st.Remove("Note").If(st.Exists("Kind")), st.Set("Nick", "").If(st.Not(st.Exists("Kind"))))
	}
	with, kept, refused := skelRequests(t, chs)
	sameWithoutSkeletons(t, with, func() []string { out, _, _ := skelRequests(t, chs); return out })
	assert.Equal(t, 8, kept) // Lt, Contains, Not(Contains), IsType S and N, the two REMOVEs; the update beside FieldRef's

	assert.Zero(t, refused)
	errs := 0
	for _, line := range with {
		if strings.HasPrefix(line, "Update ") && !strings.HasSuffix(line, "<nil>") {
			errs++
		}
	}
	assert.Equal(t, 6, errs, "BOOL and \"x\" in Lt, \"X\" in IsType, twice each")
}

// Conditions that differ in one part of their shape only (an operator,
// a junction, a negation, a function, a literal argument, a path), each
// kept as a skeleton and then taken, one after another: what a skeleton
// key missing that part would serve the wrong request to.
func TestUpdateSkeletonConditionShapesCollide(t *testing.T) {
	conds := []st.Cond{
		st.Lt("Count", 3), st.Le("Count", 3), st.Gt("Count", 3), st.Ge("Count", 3), st.Eq("Count", 3), st.Ne("Count", 3),
		st.Lt("Prio", 3), st.Lt("Small", int8(3)),
		st.And(st.Eq("Status", "a"), st.Eq("Note", "b")), st.Or(st.Eq("Status", "a"), st.Eq("Note", "b")),
		st.And(st.Eq("Status", "a"), st.Eq("Note", "b"), st.Eq("Kind", "c")),
		st.And(st.Eq("Status", "a"), st.Or(st.Eq("Note", "b"), st.Eq("Kind", "c"))),
		st.Or(st.And(st.Eq("Status", "a"), st.Eq("Note", "b")), st.Eq("Kind", "c")),
		// The same nodes in the same order, junctions of other arities.
		st.And(st.Or(st.Eq("Status", "a"), st.Eq("Note", "b")), st.Eq("Kind", "c"), st.Eq("Level", "d")),
		st.And(st.Or(st.Eq("Status", "a"), st.Eq("Note", "b"), st.Eq("Kind", "c")), st.Eq("Level", "d")),
		st.Not(st.Eq("Status", "a")), st.Eq("Status", "a"), st.Not(st.Not(st.Eq("Status", "a"))),
		st.Exists("Note"), st.NotExists("Note"), st.Exists("Kind"),
		st.BeginsWith("Note", "x"), st.Contains("Note", "x"), st.Contains("Tags", "x"),
		st.IsType("Note", st.TypeString), st.IsType("Note", st.TypeNumber), st.Contains("Note", st.TypeString),
	}
	var chs []st.Changes
	for range 3 {
		for _, c := range conds {
			chs = append(chs, st.Set("Note", "n").If(c))
		}
	}
	with, kept, refused := skelRequests(t, chs)
	sameWithoutSkeletons(t, with, func() []string { out, _, _ := skelRequests(t, chs); return out })
	assert.Equal(t, len(conds), kept)
	assert.Zero(t, refused)
}

// Conditions whose shapes data makes (which clauses a list of filters
// holds; a path below a field: a list index, a map key; as many clauses as
// a list has) fill at most half the skeletons' table: an update seen after
// them still keeps one, and one whose condition's shape finds no room
// takes the update's own skeleton, the condition rendered, as does a
// condition too long to shape: no more allocations than planning (atk8
// F1).
func TestUpdateSkeletonConditionsFromData(t *testing.T) {
	e, db, _ := skelModel()
	update := func(i int, ch st.Changes) {
		_, err := e.UpdateInput(db, skelItem{Queue: "q", ID: fmt.Sprint(i)}, ch)
		require.NoError(t, err)
	}
	fields := []string{"Status", "Note", "Kind", "Level", "Owner", "Nick", "Alias", "Count", "Prio"}
	filters := func(bits int) st.Cond { // Eq or Ne of each field, by bits
		var cs []st.Cond
		for j, f := range fields {
			var v any = "x"
			if f == "Count" || f == "Prio" {
				v = 1
			}
			if bits&(1<<j) != 0 {
				cs = append(cs, st.Eq(f, v))
			} else {
				cs = append(cs, st.Ne(f, v))
			}
		}
		return st.And(cs...)
	}
	for i := range 300 {
		for range 2 { // learn the shape, then keep its skeleton
			update(i, st.Set("Note", "n").If(filters(i)))
			update(i, st.Set("Note", "n").If(st.Eq(fmt.Sprintf("List[%d]", i), 1)))
		}
	}
	kept, refused := st.UpdateSkeletons(e)
	assert.Equal(t, st.MaxSharedForTest/2, kept, "conditions fill half the table (the update's own skeleton, for the list's, among them)")
	assert.Zero(t, refused)
	for i := range 3 {
		update(i, st.Set("Flag", true).Set("Alias", "al"))
	}
	kept, _ = st.UpdateSkeletons(e)
	assert.Equal(t, st.MaxSharedForTest/2+1, kept, "an update without a condition still keeps one")

	for _, c := range []st.Cond{filters(400), st.And(filters(1), filters(2), filters(3))} { // no room; too long
		ch := st.Set("Note", "n").If(c)
		update(0, ch)
		with := testing.AllocsPerRun(20, func() { update(0, ch) })
		was := st.SetUpdateSkeletons(false)
		without := testing.AllocsPerRun(20, func() { update(0, ch) })
		st.SetUpdateSkeletons(was)
		assert.LessOrEqual(t, with, without, "%v", c)
	}
	kept, refused = st.UpdateSkeletons(e)
	assert.Equal(t, st.MaxSharedForTest/2+1, kept)
	assert.Zero(t, refused)
}

// The cases above take skeletons (so the comparison is of them), and no
// shape is refused one (a refusal would mean the skeleton path builds
// another request than the planner's).
func TestUpdateSkeletonsKept(t *testing.T) {
	e, db, _ := skelModel()
	ctx := context.Background()
	for i := range 3 {
		_, err := e.Update(ctx, db, skelItem{Queue: "q", ID: fmt.Sprint(i)}, st.Set("Status", "OPEN").Set("Prio", 2).Set("Owner", "bob").If(st.Ne("Note", "x")))
		require.NoError(t, err)
		_, err = e.Update(ctx, db, skelItem{Queue: "q", ID: fmt.Sprint(i)}, st.Set("Status", "").Set("Prio", 1).Increment("Small", 1))
		require.NoError(t, err)
	}
	kept, refused := st.UpdateSkeletons(e)
	assert.Equal(t, 2, kept)
	assert.Zero(t, refused)
}

// requestText is the request v as the test compares it: every field,
// through pointers and interfaces (with their types), maps in key order.
func requestText(t *testing.T, v any) string {
	t.Helper()
	var b strings.Builder
	dump(&b, reflect.ValueOf(v))
	return b.String()
}

func dump(b *strings.Builder, v reflect.Value) {
	switch v.Kind() {
	case reflect.Invalid:
		b.WriteString("<nil>")
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		if v.Kind() == reflect.Interface {
			b.WriteString(v.Elem().Type().String())
		}
		dump(b, v.Elem())
	case reflect.Struct:
		b.WriteString("{")
		for i := range v.NumField() {
			if !v.Type().Field(i).IsExported() {
				continue
			}
			b.WriteString(v.Type().Field(i).Name + ":")
			dump(b, v.Field(i))
			b.WriteString(" ")
		}
		b.WriteString("}")
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			b.WriteString("nil")
			return
		}
		b.WriteString("[")
		for i := range v.Len() {
			dump(b, v.Index(i))
			b.WriteString(",")
		}
		b.WriteString("]")
	case reflect.Map:
		if v.IsNil() {
			b.WriteString("nilmap")
			return
		}
		keys := v.MapKeys()
		slices.SortFunc(keys, func(x, y reflect.Value) int { return strings.Compare(fmt.Sprint(x), fmt.Sprint(y)) })
		b.WriteString("map[")
		for _, k := range keys {
			fmt.Fprintf(b, "%v:", k)
			dump(b, v.MapIndex(k))
			b.WriteString(",")
		}
		b.WriteString("]")
	default:
		fmt.Fprintf(b, "%#v", v.Interface())
	}
}

// Goroutines updating one entity in shapes of their own and shared ones,
// its skeletons kept and taken meanwhile: each request is the one the
// planner builds (run with -race).
func TestUpdateSkeletonsConcurrent(t *testing.T) {
	chs := []st.Changes{
		st.Set("Note", "a").Set("Nick", ""), st.Set("Note", "a").Set("Nick", "n"),
		st.Set("Status", "OPEN").Set("Prio", 2).Set("Owner", "bob"), st.Set("Status", "").Set("Prio", 2).Set("Owner", ""),
		st.Set("Kind", "k").Set("Level", "hi").If(st.Exists("Note")), st.Set("Kind", "k").Set("Level", "lo"),
		st.Increment("Small", 1).Append("List", []int{1}),
	}
	was := st.SetUpdateSkeletons(false)
	want := make([]string, len(chs))
	{
		e, db, _ := skelModel()
		for i, ch := range chs {
			in, err := e.UpdateInput(db, skelItem{Queue: "q", ID: "x"}, ch)
			require.NoError(t, err)
			want[i] = requestText(t, in)
		}
	}
	st.SetUpdateSkeletons(was)
	e, db, _ := skelModel()
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range 50 {
				i := (g + n) % len(chs)
				in, err := e.UpdateInput(db, skelItem{Queue: "q", ID: "x"}, chs[i])
				if got := requestText(t, in); err != nil || got != want[i] {
					errs <- fmt.Sprintf("update %d: %v\n got %s\nwant %s", i, err, got, want[i])
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	kept, refused := st.UpdateSkeletons(e)
	assert.Positive(t, kept)
	assert.Zero(t, refused)
}
