//go:build integration

package singletable_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/singletabletest"
)

// The adjacency list's inverted index: a GSI keyed (SK, PK). Every entity
// is in it with its own table keys, nothing extra is written, and it reads
// both ways on DynamoDB Local, keys-only included.
type invMember struct {
	UserID  string `dynamodbav:"userId"`
	GroupID string `dynamodbav:"groupId"`
	Role    string `dynamodbav:"role"`
	Joined  string `dynamodbav:"joined"`
}

type invInvite struct {
	Email   string `dynamodbav:"email"`
	GroupID string `dynamodbav:"groupId"`
}

func TestInvertedIndexOnDynamoDBLocal(t *testing.T) {
	ctx := context.Background()
	tbl := st.MustTable("Adjacency",
		st.WithGSI("Inverted", st.IndexKeys("SK", "PK"), st.KeysOnly()),
		st.WithGSI("InvertedAll", st.IndexKeys("SK", "PK")),
		st.WithGSI("ByGroupDate", st.IndexKeys("SK", "JoinedSK")), // mixed: the table's SK, an own sort key
	)
	members := st.MustDefine[invMember](tbl, "Member", st.Key("USER#{UserID}", "GROUP#{GroupID}"),
		st.Index("ByGroupDate", "GROUP#{GroupID}", "JOINED#{Joined}"))
	invites := st.MustDefine[invInvite](tbl, "Invite", st.Key("INVITE#{Email}", "GROUP#{GroupID}"))
	groupMembers := members.Pattern("GroupMembers").On("Inverted").Partition("GROUP#{GroupID}").Must()
	groupUsers := members.Pattern("GroupUsersFrom").On("Inverted").Partition("GROUP#{GroupID}").SortGreaterOrEqual().Must()
	userGroups := members.Pattern("UserGroups").Partition("USER#{UserID}").SortBeginsWith("GROUP#").Must()
	byDate := members.Pattern("GroupByDate").On("ByGroupDate").Partition("GROUP#{GroupID}").SortGreaterOrEqual().Must()
	group := tbl.Collection("Group", members, invites).On("InvertedAll").Partition("GROUP#{GroupID}").Must()

	// CreateTable declares each attribute once.
	in := tbl.CreateTableInput("x")
	var names []string
	for _, d := range in.AttributeDefinitions {
		names = append(names, aws.ToString(d.AttributeName))
	}
	assert.ElementsMatch(t, []string{"PK", "SK", "JoinedSK"}, names)

	db := singletabletest.LocalDB(t, tbl)
	require.NoError(t, db.EnsureTable(ctx), "EnsureTable agrees with the table it created")

	// A Put writes the table keys, the own sort key of the mixed index, and nothing else.
	putIn, err := members.PutInput(db, invMember{UserID: "u1", GroupID: "g1", Role: "admin", Joined: "2026-01"})
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"PK", "SK", "_type", "JoinedSK", "userId", "groupId", "role", "joined"}, keysOf(putIn.Item))

	for _, m := range []invMember{
		{UserID: "u1", GroupID: "g1", Role: "admin", Joined: "2026-01"},
		{UserID: "u2", GroupID: "g1", Role: "member", Joined: "2026-02"},
		{UserID: "u2", GroupID: "g2", Role: "member", Joined: "2026-03"},
	} {
		require.NoError(t, members.Put(ctx, db, m))
	}
	require.NoError(t, invites.Put(ctx, db, invInvite{Email: "c@x", GroupID: "g1"}))

	// Group to users, through the keys-only index: both fields from the keys.
	page, err := groupMembers.Query(ctx, db, invMember{GroupID: "g1"})
	require.NoError(t, err)
	require.Len(t, page.Items, 2)
	assert.Equal(t, invMember{UserID: "u1", GroupID: "g1"}, page.Items[0])
	assert.Equal(t, invMember{UserID: "u2", GroupID: "g1"}, page.Items[1])

	// A sort condition on the index's sort key, the table's PK.
	page, err = groupUsers.Query(ctx, db, invMember{GroupID: "g1", UserID: "u2"})
	require.NoError(t, err)
	require.Len(t, page.Items, 1)
	assert.Equal(t, "u2", page.Items[0].UserID)

	// User to groups, on the table.
	page, err = userGroups.Query(ctx, db, invMember{UserID: "u2"})
	require.NoError(t, err)
	require.Len(t, page.Items, 2)
	assert.Equal(t, "g1", page.Items[0].GroupID)
	assert.Equal(t, "g2", page.Items[1].GroupID)

	// A collection of the group's members and invites, on the inverted index.
	res, err := group.Query(ctx, db, st.Values{"GroupID": "g1"})
	require.NoError(t, err)
	assert.Len(t, members.From(res), 2)
	require.Len(t, invites.From(res), 1)
	assert.Equal(t, "c@x", invites.From(res)[0].Email)
	assert.Empty(t, res.Unknown)

	// An update needs no recompute of the derived index; the mixed index's
	// own key is recomputed from the changed field.
	updIn, err := members.UpdateInput(db, invMember{UserID: "u1", GroupID: "g1"}, st.Set("Role", "owner"))
	require.NoError(t, err)
	assert.NotContains(t, aws.ToString(updIn.UpdateExpression), "#SK")
	_, err = members.Update(ctx, db, invMember{UserID: "u1", GroupID: "g1"}, st.Set("Role", "owner"))
	require.NoError(t, err)
	_, err = members.Update(ctx, db, invMember{UserID: "u1", GroupID: "g1"}, st.Set("Joined", "2026-05"))
	require.NoError(t, err)
	page, err = byDate.Query(ctx, db, invMember{GroupID: "g1", Joined: "2026-04"})
	require.NoError(t, err)
	require.Len(t, page.Items, 1)
	assert.Equal(t, invMember{UserID: "u1", GroupID: "g1", Role: "owner", Joined: "2026-05"}, page.Items[0])
}

func keysOf(item map[string]types.AttributeValue) []string {
	var out []string
	for k := range item {
		out = append(out, k)
	}
	return out
}

// An index keyed on a field's own attribute: no copy is stored, the
// attribute's type is the field's, an empty value is absent (DynamoDB
// refuses an empty string in an index key) on every write path.
type emPerson struct {
	ID    string `dynamodbav:"id"`
	Email string `dynamodbav:"email"`
	Age   int    `dynamodbav:"age"`
	Name  string `dynamodbav:"name"`
}

func TestFieldAttributeIndexOnDynamoDBLocal(t *testing.T) {
	ctx := context.Background()
	tbl := st.MustTable("People",
		st.WithGSI("ByEmail", st.IndexKeys("email", ""), st.KeysOnly()),
		st.WithGSI("ByAge", st.IndexKeys("age", "")),
	)
	people := st.MustDefine[emPerson](tbl, "Person", st.Key("PERSON#{ID}", "PROFILE"),
		st.Index("ByEmail", "{Email}", "")) // declared explicitly; ByAge is derived
	byEmail := people.Pattern("ByEmail").On("ByEmail").Partition("{Email}").Must()
	byAge := people.Pattern("ByAge").On("ByAge").Partition("{Age}").Must()

	types_ := map[string]types.ScalarAttributeType{}
	for _, d := range tbl.CreateTableInput("x").AttributeDefinitions {
		types_[aws.ToString(d.AttributeName)] = d.AttributeType
	}
	assert.Equal(t, map[string]types.ScalarAttributeType{"PK": "S", "SK": "S", "email": "S", "age": "N"}, types_)

	db := singletabletest.LocalDB(t, tbl)
	client, err := singletabletest.LocalClient(ctx)
	require.NoError(t, err)

	// The service rule the library follows: an empty string in an index key is refused.
	_, err = client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(db.TableName()), Item: map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "raw"}, "SK": &types.AttributeValueMemberS{Value: "raw"},
		"email": &types.AttributeValueMemberS{Value: ""},
	}})
	require.Error(t, err, "DynamoDB refuses an empty string in an index key attribute")

	a := emPerson{ID: "p1", Email: "a#1@x", Age: 0, Name: "Ann"}
	putIn, err := people.PutInput(db, a)
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"PK", "SK", "_type", "id", "email", "age", "name"}, keysOf(putIn.Item), "no copy of the field")
	require.NoError(t, people.Put(ctx, db, a))

	// Keys-only read: Email from its own attribute (not escaped), ID from the table key.
	page, err := byEmail.Query(ctx, db, emPerson{Email: "a#1@x"})
	require.NoError(t, err)
	require.Len(t, page.Items, 1)
	assert.Equal(t, emPerson{ID: "p1", Email: "a#1@x"}, page.Items[0])
	// A number attribute: age 0 is a value, queried as N.
	agePage, err := byAge.Query(ctx, db, emPerson{Age: 0})
	require.NoError(t, err)
	require.Len(t, agePage.Items, 1)
	assert.Equal(t, a, agePage.Items[0])

	// Changed: the index follows the field.
	_, err = people.Update(ctx, db, emPerson{ID: "p1"}, st.Set("Email", "b@x"))
	require.NoError(t, err)
	page, err = byEmail.Query(ctx, db, emPerson{Email: "a#1@x"})
	require.NoError(t, err)
	assert.Empty(t, page.Items)
	page, err = byEmail.Query(ctx, db, emPerson{Email: "b@x"})
	require.NoError(t, err)
	require.Len(t, page.Items, 1)

	// Emptied: removed, so the item leaves the index; SetIfNotExists of "" sets nothing.
	_, err = people.Update(ctx, db, emPerson{ID: "p1"}, st.Set("Email", ""))
	require.NoError(t, err)
	page, err = byEmail.Query(ctx, db, emPerson{Email: "b@x"})
	require.NoError(t, err)
	assert.Empty(t, page.Items)
	_, err = people.Update(ctx, db, emPerson{ID: "p1"}, st.SetIfNotExists("Email", ""))
	require.ErrorIs(t, err, st.ErrInvalidInput, "an empty value would set nothing")
	_, err = people.Update(ctx, db, emPerson{ID: "p1"}, st.SetIfNotExists("Email", "c@x"))
	require.NoError(t, err)
	page, err = byEmail.Query(ctx, db, emPerson{Email: "c@x"})
	require.NoError(t, err)
	require.Len(t, page.Items, 1, "the emptied value was removed, so SetIfNotExists set the new one")

	// An empty value on Put, transactions and batches is absent too.
	require.NoError(t, people.Put(ctx, db, emPerson{ID: "p2", Name: "Bo"}))
	require.NoError(t, db.Transact(ctx, func(tx *st.Tx) error {
		people.TxPut(tx, emPerson{ID: "p3"})
		people.TxUpdate(tx, emPerson{ID: "p1"}, st.Set("Email", ""))
		return nil
	}))
	require.NoError(t, db.BatchWrite(ctx, []st.BatchOp{st.BatchPut(people, emPerson{ID: "p4"}, emPerson{ID: "p5", Email: "e@x"})}))
	got, err := people.Get(ctx, db, emPerson{ID: "p1"})
	require.NoError(t, err)
	assert.Equal(t, "", got.Email)
	page, err = byEmail.Query(ctx, db, emPerson{Email: "e@x"})
	require.NoError(t, err)
	require.Len(t, page.Items, 1)
	assert.Equal(t, "p5", page.Items[0].ID)

	// An empty value cannot be queried: the read needs one, and sends nothing.
	_, err = byEmail.Query(ctx, db, emPerson{})
	require.ErrorIs(t, err, st.ErrInvalidKey)
}
