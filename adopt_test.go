package singletable_test

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/singletabletest"
)

// A chat design: a bare timestamp sort key shares the room's partition with
// "Join:" keys. No timestamp starts with "J": lint reports nothing.
func TestLintBareTimestampBesideJoinKeys(t *testing.T) {
	type message struct {
		Room string
		At   time.Time
		Text string
	}
	type join struct{ Room, User string }
	tbl := st.MustTable("Chat", st.WithTypeAttribute("_type,keys"))
	st.MustDefine[message](tbl, "Message", st.Key("ROOM#{Room}", "{At}"))
	st.MustDefine[join](tbl, "Join", st.Key("ROOM#{Room}", "Join:{User}"))
	assert.Empty(t, tbl.Lint(), st.LintReport(tbl.Lint()))

	// A layout that starts with a month name can collide with "J{User}"
	// (User "an 2 15:04"): still reported.
	tbl = st.MustTable("Chat", st.WithTypeAttribute("_type,keys"))
	st.MustDefine[message](tbl, "Message", st.Key("ROOM#{Room}", "{At:Jan 2 15:04}"))
	st.MustDefine[join](tbl, "Join", st.Key("ROOM#{Room}", "J{User}"))
	issues := tbl.Lint()
	if assert.Len(t, issues, 1) {
		assert.Equal(t, st.LintError, issues[0].Severity)
	}
}

// An option of the type attribute other than keys and omit is a
// *ModelError naming it.
func TestAdoptTypeAttributeOptionRefused(t *testing.T) {
	_, err := st.NewTable("Bad", st.WithTypeAttribute("_type,nope"))
	var me *st.ModelError
	require.ErrorAs(t, err, &me)
	assert.Contains(t, err.Error(), "nope")
}

// adoptChatUnit is the chat design on a table read by its keys, on a
// recording client: a message's bare timestamp sort key shares the room's
// partition with "Join:" keys, so a message query reads the members too.
func adoptChatUnit(t *testing.T) (*singletabletest.Client, *st.DB, *st.Entity[adoptUnitMessage]) {
	t.Helper()
	tbl := st.MustTable("Chat", st.WithTypeAttribute("_type,keys"))
	msgs := st.MustDefine[adoptUnitMessage](tbl, "Message", st.Key("ROOM#{Room}", "{At:2006-01-02T15:04:05Z07:00}"))
	st.MustDefine[adoptUnitJoin](tbl, "Join", st.Key("ROOM#{Room}", "Join:{User}"))
	c := &singletabletest.Client{}
	return c, st.New(c, tbl), msgs
}

type adoptUnitMessage struct {
	Room  string
	At    time.Time
	Likes int
}

type adoptUnitJoin struct{ Room, User string }

func adoptUnitS(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

// All over a partition that holds another entity's untyped items skips
// them by their keys, as Query does (it used to panic on the first one),
// in one Query.
func TestAdoptAllSkipsOtherEntitiesByKeys(t *testing.T) {
	c, db, msgs := adoptChatUnit(t)
	c.QueryFunc = func(context.Context, *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
		return &dynamodb.QueryOutput{Items: []map[string]types.AttributeValue{
			{"PK": adoptUnitS("ROOM#r1"), "SK": adoptUnitS("2026-01-02T03:04:05Z"), "Room": adoptUnitS("r1")},
			{"PK": adoptUnitS("ROOM#r1"), "SK": adoptUnitS("Join:ann"), "Room": adoptUnitS("r1"), "User": adoptUnitS("ann")},
			{"PK": adoptUnitS("ROOM#r1"), "SK": adoptUnitS("2026-01-02T03:04:06Z"), "Room": adoptUnitS("r1")},
		}}, nil
	}
	var got []time.Time
	for m, err := range msgs.All(context.Background(), db, adoptUnitMessage{Room: "r1"}) {
		require.NoError(t, err)
		got = append(got, m.At)
	}
	assert.Len(t, got, 2, "the two messages, not the member")
	assert.Len(t, c.Calls(), 1)
}

// On a table read by its keys, the items the library wrote carry the type
// attribute: a read of another entity skips them by it, as it skips the
// untyped ones by their keys, in queries and scans, and so does a
// query of any entity over items of a type no entity declares (atkB F11:
// each failed the read with ErrWrongEntity).
func TestAdoptReadsSkipTypedItemsOfOthers(t *testing.T) {
	c, db, msgs := adoptChatUnit(t)
	items := []map[string]types.AttributeValue{
		{"PK": adoptUnitS("ROOM#r1"), "SK": adoptUnitS("2026-01-02T03:04:05Z"), "Room": adoptUnitS("r1")},
		{"PK": adoptUnitS("ROOM#r1"), "SK": adoptUnitS("Join:ann"), "Room": adoptUnitS("r1"), "User": adoptUnitS("ann")},
		{"PK": adoptUnitS("ROOM#r1"), "SK": adoptUnitS("Join:bob"), "Room": adoptUnitS("r1"), "User": adoptUnitS("bob"), "_type": adoptUnitS("Join")},
		{"PK": adoptUnitS("ROOM#r1"), "SK": adoptUnitS("2026-01-02T03:04:06Z"), "Room": adoptUnitS("r1"), "_type": adoptUnitS("Message")},
		{"PK": adoptUnitS("ROOM#r1"), "SK": adoptUnitS("2026-01-02T03:04:07Z"), "Room": adoptUnitS("r1"), "_type": adoptUnitS("Comment")},
	}
	c.QueryFunc = func(context.Context, *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
		return &dynamodb.QueryOutput{Items: items}, nil
	}
	c.ScanFunc = func(context.Context, *dynamodb.ScanInput) (*dynamodb.ScanOutput, error) {
		return &dynamodb.ScanOutput{Items: items}, nil
	}
	ctx := context.Background()
	page, err := msgs.Query(ctx, db, adoptUnitMessage{Room: "r1"})
	require.NoError(t, err)
	assert.Len(t, page.Items, 2, "the untyped message and the typed one")
	n := 0
	for _, err := range msgs.All(ctx, db, adoptUnitMessage{Room: "r1"}) {
		require.NoError(t, err)
		n++
	}
	assert.Equal(t, 2, n)
	n = 0
	for _, err := range msgs.Scan(ctx, db) {
		require.NoError(t, err)
		n++
	}
	assert.Equal(t, 2, n)
}

// An untyped item whose keys parse as one entity but whose attribute has the
// wrong type is a *DecodeError naming the attribute: the keys say which
// entity it is; its attributes do not make it of none.
func TestAdoptGarbageAttributeIsDecodeError(t *testing.T) {
	c, db, msgs := adoptChatUnit(t)
	c.GetItemFunc = func(context.Context, *dynamodb.GetItemInput) (*dynamodb.GetItemOutput, error) {
		return &dynamodb.GetItemOutput{Item: map[string]types.AttributeValue{
			"PK": adoptUnitS("ROOM#r1"), "SK": adoptUnitS("2026-01-02T03:04:05Z"), "Room": adoptUnitS("r1"), "Likes": adoptUnitS("many"),
		}}, nil
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	_, err := msgs.Get(context.Background(), db, adoptUnitMessage{Room: "r1", At: at})
	var de *st.DecodeError
	require.ErrorAs(t, err, &de)
	assert.Equal(t, "Likes", de.Attr)
	assert.Len(t, c.Calls(), 1)
}

// An item the other code writes that no template parses (a room's STATS
// counter) is not the entity's: a query and a scan of the entity skip it,
// as a typed table's type filter would, instead of failing on it.
func TestAdoptReadsSkipItemsOfNoEntity(t *testing.T) {
	c, db, msgs := adoptChatUnit(t)
	items := []map[string]types.AttributeValue{
		{"PK": adoptUnitS("ROOM#r1"), "SK": adoptUnitS("2026-01-02T03:04:05Z"), "Room": adoptUnitS("r1")},
		{"PK": adoptUnitS("ROOM#r1"), "SK": adoptUnitS("STATS"), "count": &types.AttributeValueMemberN{Value: "9"}},
		{"PK": adoptUnitS("ROOM#r1"), "SK": adoptUnitS("2026-01-02T03:04:06Z"), "Room": adoptUnitS("r1")},
	}
	c.QueryFunc = func(context.Context, *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
		return &dynamodb.QueryOutput{Items: items}, nil
	}
	c.ScanFunc = func(context.Context, *dynamodb.ScanInput) (*dynamodb.ScanOutput, error) {
		return &dynamodb.ScanOutput{Items: items}, nil
	}
	ctx := context.Background()
	page, err := msgs.Query(ctx, db, adoptUnitMessage{Room: "r1"})
	require.NoError(t, err)
	assert.Len(t, page.Items, 2)
	n := 0
	for _, err := range msgs.All(ctx, db, adoptUnitMessage{Room: "r1"}) {
		require.NoError(t, err)
		n++
	}
	assert.Equal(t, 2, n, "All")
	n = 0
	for _, err := range msgs.Scan(ctx, db) {
		require.NoError(t, err)
		n++
	}
	assert.Equal(t, 2, n, "Scan")
	assert.Len(t, c.Calls(), 3, "one request each")
}

// A scan of an index that carries the type attribute, on a table read by
// its keys: the untyped items of no entity (or of another) the index holds
// are left out by their keys, as a query of the index leaves them out, not
// yielded as zero values of the entity.
func TestAdoptIndexScanSkipsOthersByKeys(t *testing.T) {
	tbl := st.MustTable("Chat", st.WithTypeAttribute("_type,keys"), st.WithGSI("GSI1"))
	joins := st.MustDefine[adoptUnitJoin](tbl, "Join", st.Key("ROOM#{Room}", "Join:{User}"),
		st.Index("GSI1", "USER#{User}", "ROOM#{Room}"))
	scan := joins.Pattern("AllJoins").On("GSI1").ScanIndex().Must()
	c := &singletabletest.Client{ScanFunc: func(context.Context, *dynamodb.ScanInput) (*dynamodb.ScanOutput, error) {
		return &dynamodb.ScanOutput{Items: []map[string]types.AttributeValue{
			{"PK": adoptUnitS("ROOM#r1"), "SK": adoptUnitS("Join:ann"), "GSI1PK": adoptUnitS("USER#ann"), "GSI1SK": adoptUnitS("ROOM#r1"), "Room": adoptUnitS("r1"), "User": adoptUnitS("ann")},
			{"PK": adoptUnitS("INVITE#1"), "SK": adoptUnitS("INVITE"), "GSI1PK": adoptUnitS("USER#ann"), "GSI1SK": adoptUnitS("INVITE#1")},
		}}, nil
	}}
	var got []adoptUnitJoin
	for j, err := range scan.Scan(context.Background(), st.New(c, tbl)) {
		require.NoError(t, err)
		got = append(got, j)
	}
	assert.Equal(t, []adoptUnitJoin{{Room: "r1", User: "ann"}}, got)
	assert.Len(t, c.Calls(), 1)
}

// On a typed table, a pattern on an index that does not project the type
// (KEYS_ONLY) reads with no type filter: an entry whose keys are not the
// entity's (another application's item in the index) is left out, as the
// same index's ScanIndex leaves it out, not a failed page (atkB F15).
func TestKeysOnlyIndexQuerySkipsOthersEntries(t *testing.T) {
	type issue struct {
		Repo   string
		Number int
		Status string
	}
	tbl := st.MustTable("Typed", st.WithGSI("GSI2", st.KeysOnly()))
	issues := st.MustDefine[issue](tbl, "Issue", st.Key("REPO#{Repo}", "ISSUE#{Number:7}"),
		st.Index("GSI2", "STATUS#{Status}", "ISSUE#{Repo}#{Number:7}"))
	byStatus := issues.Pattern("IssuesByStatus").On("GSI2").Must()
	c := &singletabletest.Client{QueryFunc: func(context.Context, *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
		return &dynamodb.QueryOutput{Items: []map[string]types.AttributeValue{
			{"PK": adoptUnitS("X#0"), "SK": adoptUnitS("X"), "GSI2PK": adoptUnitS("STATUS#OPEN"), "GSI2SK": adoptUnitS("ISSUE#a")},
			{"PK": adoptUnitS("REPO#r"), "SK": adoptUnitS("ISSUE#0000003"), "GSI2PK": adoptUnitS("STATUS#OPEN"), "GSI2SK": adoptUnitS("ISSUE#r#0000003")},
		}}, nil
	}}
	db := st.New(c, tbl)
	page, err := byStatus.Query(context.Background(), db, issue{Status: "OPEN"})
	require.NoError(t, err)
	assert.Equal(t, []issue{{Repo: "r", Number: 3, Status: "OPEN"}}, page.Items)
	var got []issue
	for v, err := range byStatus.All(context.Background(), db, issue{Status: "OPEN"}) {
		require.NoError(t, err)
		got = append(got, v)
	}
	assert.Equal(t, page.Items, got)
}

// Under "_type,omit" the library writes no type attribute, but an item
// that carries one naming another type is another's: updates and deletes
// hold the item to the entity as under "_type,keys" (atkB2 A2: they
// wrote into it, and Update then reported ErrWrongEntity).
func TestOmitTableWritesHoldTheItemToTheEntity(t *testing.T) {
	type doc struct {
		ID string
		N  int
	}
	tbl := st.MustTable("Omit", st.WithTypeAttribute("_type,omit"))
	docs := st.MustDefine[doc](tbl, "Doc", st.Key("DOC#{ID}", "DOC"))
	other := map[string]types.AttributeValue{"PK": adoptUnitS("DOC#f"), "SK": adoptUnitS("DOC"), "_type": adoptUnitS("Other"), "N": &types.AttributeValueMemberN{Value: "5"}}
	c := &singletabletest.Client{UpdateItemFunc: func(_ context.Context, in *dynamodb.UpdateItemInput) (*dynamodb.UpdateItemOutput, error) {
		require.NotNil(t, in.ConditionExpression)
		assert.Contains(t, *in.ConditionExpression, "attribute_not_exists")
		assert.Contains(t, attrNames(in.ExpressionAttributeNames), "_type")
		return nil, &types.ConditionalCheckFailedException{Item: other}
	}}
	db := st.New(c, tbl)
	_, err := docs.Update(context.Background(), db, doc{ID: "f"}, st.Increment("N", 1))
	var em *st.EntityMismatchError
	require.ErrorAs(t, err, &em)
	assert.Equal(t, "Other", em.Got)
	in, err := docs.DeleteInput(db, doc{ID: "f"})
	require.NoError(t, err)
	assert.Contains(t, attrNames(in.ExpressionAttributeNames), "_type")
}

func attrNames(names map[string]string) []string {
	var out []string
	for _, n := range names {
		out = append(out, n)
	}
	return out
}
