package singletable_test

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/singletabletest"
)

// Untyped items of an adopted table decode the same way on every read
// path: the keys say whose item it is, the key fields are parsed back from
// them, and the attributes the item carries are laid over them (a wrong
// one is that entity's *DecodeError, not an item of no entity).

// A published design's repos and issues (Alex DeBrie's GitHub model),
// adopted: written by other code, without the type attribute.
type adoptRepo struct {
	Owner string `dynamodbav:"owner"`
	Name  string `dynamodbav:"name"`
	Stars int    `dynamodbav:"stars"`
}

type adoptIssue struct {
	Owner  string `dynamodbav:"owner"`
	Repo   string `dynamodbav:"repo"`
	Number int    `dynamodbav:"number"`
	Title  string `dynamodbav:"title"`
	Prio   int    `dynamodbav:"prio"`
}

type adoptGitHub struct {
	t      *st.Table
	repos  *st.Entity[adoptRepo]
	issues *st.Entity[adoptIssue]
	page   *st.Collection // a repo and its issues
}

func newAdoptGitHub(t *testing.T) adoptGitHub {
	t.Helper()
	tbl := st.MustTable("GitHub", st.WithTypeAttribute("_type,keys"), st.WithGSI("GSI1"))
	g := adoptGitHub{t: tbl}
	g.repos = st.MustDefine[adoptRepo](tbl, "Repo", st.Key("REPO#{Owner}#{Name}", "REPO#{Owner}#{Name}"))
	g.issues = st.MustDefine[adoptIssue](tbl, "Issue", st.Key("REPO#{Owner}#{Repo}", "ISSUE#{Number:7}"),
		st.Index("GSI1", "PRIO#{Prio}", "ISSUE#{Owner}#{Repo}#{Number:7}"))
	g.page = tbl.Collection("RepoPage", g.repos, g.issues).Partition("REPO#{Owner}#{Name}").Must()
	return g
}

type adoptItem = map[string]types.AttributeValue

// answerAll makes c answer every read with items: Get and BatchGet and
// TransactGet with the item of the key asked for.
func answerAll(c *singletabletest.Client, items []adoptItem) {
	find := func(key adoptItem) adoptItem {
		for _, it := range items {
			if it["PK"].(*types.AttributeValueMemberS).Value == key["PK"].(*types.AttributeValueMemberS).Value &&
				it["SK"].(*types.AttributeValueMemberS).Value == key["SK"].(*types.AttributeValueMemberS).Value {
				return it
			}
		}
		return nil
	}
	c.GetItemFunc = func(_ context.Context, in *dynamodb.GetItemInput) (*dynamodb.GetItemOutput, error) {
		return &dynamodb.GetItemOutput{Item: find(in.Key)}, nil
	}
	c.BatchGetItemFunc = func(_ context.Context, in *dynamodb.BatchGetItemInput) (*dynamodb.BatchGetItemOutput, error) {
		out := map[string][]adoptItem{}
		for name, ka := range in.RequestItems {
			for _, k := range ka.Keys {
				if it := find(k); it != nil {
					out[name] = append(out[name], it)
				}
			}
		}
		return &dynamodb.BatchGetItemOutput{Responses: out}, nil
	}
	c.TransactGetItemsFunc = func(_ context.Context, in *dynamodb.TransactGetItemsInput) (*dynamodb.TransactGetItemsOutput, error) {
		out := &dynamodb.TransactGetItemsOutput{}
		for _, g := range in.TransactItems {
			out.Responses = append(out.Responses, types.ItemResponse{Item: find(g.Get.Key)})
		}
		return out, nil
	}
	c.QueryFunc = func(context.Context, *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
		return &dynamodb.QueryOutput{Items: items}, nil
	}
	c.ScanFunc = func(context.Context, *dynamodb.ScanInput) (*dynamodb.ScanOutput, error) {
		return &dynamodb.ScanOutput{Items: items}, nil
	}
}

// F1: items that lack the attributes of their own key fields (keys only, or
// keys and a title) read back with those fields parsed from their keys on
// every path, as Decode has them: not as zero values, whose key would be
// another item's.
func TestAdoptKeyFieldsParsedBackOnEveryReadPath(t *testing.T) {
	g := newAdoptGitHub(t)
	items := []adoptItem{
		{"PK": adoptUnitS("REPO#o#r"), "SK": adoptUnitS("ISSUE#0000003")},
		{"PK": adoptUnitS("REPO#o#r"), "SK": adoptUnitS("ISSUE#0000004"), "title": adoptUnitS("only title")},
		{"PK": adoptUnitS("REPO#o#r"), "SK": adoptUnitS("REPO#o#r"), "stars": &types.AttributeValueMemberN{Value: "5"}},
	}
	want := []adoptIssue{{Owner: "o", Repo: "r", Number: 3}, {Owner: "o", Repo: "r", Number: 4, Title: "only title"}}
	wantRepo := adoptRepo{Owner: "o", Name: "r", Stars: 5}
	c := &singletabletest.Client{}
	answerAll(c, items)
	db := st.New(c, g.t)
	ctx := context.Background()

	for i, w := range want {
		v, err := g.issues.Decode(items[i])
		require.NoError(t, err)
		assert.Equal(t, w, v, "Entity.Decode")
		a, err := g.t.Decode(items[i])
		require.NoError(t, err)
		assert.Equal(t, w, a, "Table.Decode")

		v, err = g.issues.Get(ctx, db, adoptIssue{Owner: "o", Repo: "r", Number: w.Number})
		require.NoError(t, err)
		assert.Equal(t, w, v, "Get")

		tg := db.TransactGet()
		tv := g.issues.TxGet(tg, adoptIssue{Owner: "o", Repo: "r", Number: w.Number})
		require.NoError(t, tg.Run(ctx))
		assert.Equal(t, w, tv.Value(), "TxGet")
	}
	r, err := g.repos.Get(ctx, db, adoptRepo{Owner: "o", Name: "r"})
	require.NoError(t, err)
	assert.Equal(t, wantRepo, r, "Get of the repo")

	page, err := g.issues.Query(ctx, db, adoptIssue{Owner: "o", Repo: "r"}, st.SortFields(0))
	require.NoError(t, err)
	assert.Equal(t, want, page.Items, "Query")

	var got []adoptIssue
	for v, err := range g.issues.All(ctx, db, adoptIssue{Owner: "o", Repo: "r"}, st.SortFields(0)) {
		require.NoError(t, err)
		got = append(got, v)
	}
	assert.Equal(t, want, got, "All")

	got = nil
	for v, err := range g.issues.Scan(ctx, db) {
		require.NoError(t, err)
		got = append(got, v)
	}
	assert.Equal(t, want, got, "Entity.Scan")

	bg, err := g.issues.BatchGet(ctx, db, want)
	require.NoError(t, err)
	require.Len(t, bg, 2)
	for i := range want {
		require.NotNil(t, bg[i])
		assert.Equal(t, want[i], *bg[i], "BatchGet")
	}

	res, err := g.page.Query(ctx, db, st.Values{"Owner": "o", "Name": "r"})
	require.NoError(t, err)
	assert.Equal(t, want, g.issues.From(res), "collection Query")
	assert.Equal(t, []adoptRepo{wantRepo}, g.repos.From(res), "collection Query")
	assert.Empty(t, res.Unknown)
	var anys []any
	for v, err := range g.page.All(ctx, db, st.Values{"Owner": "o", "Name": "r"}) {
		require.NoError(t, err)
		anys = append(anys, v)
	}
	assert.Equal(t, []any{want[0], want[1], wantRepo}, anys, "collection All")

	anys = nil
	for it, err := range db.Scan(ctx) {
		require.NoError(t, err)
		anys = append(anys, it.Value)
	}
	assert.Equal(t, []any{want[0], want[1], wantRepo}, anys, "DB.Scan")
}

// An untyped item that carries its attributes still reads them, over the
// keys: nothing changes for the items the library or the other code wrote
// whole.
func TestAdoptAttributesLaidOverKeys(t *testing.T) {
	g := newAdoptGitHub(t)
	item := adoptItem{"PK": adoptUnitS("REPO#o#r"), "SK": adoptUnitS("ISSUE#0000005"), "owner": adoptUnitS("o"), "repo": adoptUnitS("r"),
		"number": &types.AttributeValueMemberN{Value: "5"}, "title": adoptUnitS("t"), "prio": &types.AttributeValueMemberN{Value: "2"}}
	c := &singletabletest.Client{}
	answerAll(c, []adoptItem{item})
	v, err := g.issues.Get(context.Background(), st.New(c, g.t), adoptIssue{Owner: "o", Repo: "r", Number: 5})
	require.NoError(t, err)
	assert.Equal(t, adoptIssue{Owner: "o", Repo: "r", Number: 5, Title: "t", Prio: 2}, v)
}

// F2: an item whose keys parse as an Issue but whose attribute has the
// wrong type is the Issue's, and fails to decode with a *DecodeError naming
// the attribute on every path: Table.Decode and EntityOf, DB.Scan,
// collections (Query and All), as on the entity's own reads; never an item
// of no entity.
func TestAdoptWrongAttributeIsTheEntitysDecodeError(t *testing.T) {
	g := newAdoptGitHub(t)
	bad := []adoptItem{
		{"PK": adoptUnitS("REPO#o#r"), "SK": adoptUnitS("ISSUE#0000002"), "owner": adoptUnitS("o"), "repo": adoptUnitS("r"),
			"number": &types.AttributeValueMemberN{Value: "2"}, "prio": adoptUnitS("high")},
		{"PK": adoptUnitS("REPO#o#r"), "SK": adoptUnitS("ISSUE#0000002"), "prio": &types.AttributeValueMemberN{Value: "2.5"}},
		{"PK": adoptUnitS("REPO#o#r"), "SK": adoptUnitS("ISSUE#0000002"), "prio": &types.AttributeValueMemberN{Value: "99999999999999999999999"}},
		{"PK": adoptUnitS("REPO#o#r"), "SK": adoptUnitS("ISSUE#0000002"), "title": &types.AttributeValueMemberL{}},
	}
	wantAttr := []string{"prio", "prio", "prio", "title"}
	isDecodeError := func(t *testing.T, err error, attr, what string) {
		t.Helper()
		var de *st.DecodeError
		require.ErrorAs(t, err, &de, what)
		assert.Equal(t, attr, de.Attr, what)
		assert.Equal(t, "Issue", de.Entity, what)
		assert.False(t, errors.Is(err, st.ErrWrongEntity), "%s: not an item of no entity: %v", what, err)
	}
	ctx := context.Background()
	for i, item := range bad {
		_, err := g.t.Decode(item)
		isDecodeError(t, err, wantAttr[i], "Table.Decode")
		name, err := g.t.EntityOf(item)
		require.NoError(t, err)
		assert.Equal(t, "Issue", name, "EntityOf: the keys decide")

		c := &singletabletest.Client{}
		answerAll(c, []adoptItem{item})
		db := st.New(c, g.t)
		n := 0
		for it, err := range db.Scan(ctx) {
			n++
			isDecodeError(t, err, wantAttr[i], "DB.Scan")
			assert.False(t, it.Known())
		}
		assert.Equal(t, 1, n, "DB.Scan yields the item's error")

		_, err = g.page.Query(ctx, db, st.Values{"Owner": "o", "Name": "r"})
		isDecodeError(t, err, wantAttr[i], "collection Query")
		n = 0
		for _, err := range g.page.All(ctx, db, st.Values{"Owner": "o", "Name": "r"}) {
			n++
			isDecodeError(t, err, wantAttr[i], "collection All")
		}
		assert.Equal(t, 1, n, "collection All yields the item's error")

		_, err = g.issues.Get(ctx, db, adoptIssue{Owner: "o", Repo: "r", Number: 2})
		isDecodeError(t, err, wantAttr[i], "Get")
	}

	// Keys no entity parses are still of no entity.
	stray := adoptItem{"PK": adoptUnitS("REPO#o#r"), "SK": adoptUnitS("ISSUE#abc"), "prio": adoptUnitS("high")}
	_, err := g.t.Decode(stray)
	var unknown *st.UnknownEntityError
	require.ErrorAs(t, err, &unknown)
	c := &singletabletest.Client{}
	answerAll(c, []adoptItem{stray})
	res, err := g.page.Query(ctx, st.New(c, g.t), st.Values{"Owner": "o", "Name": "r"})
	require.NoError(t, err)
	assert.Len(t, res.Unknown, 1)
}
