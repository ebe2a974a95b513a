// Command adopt points the library at a table that already exists: a chat
// service's table, written by plain SDK code that never heard of the
// library. Its items carry no entity type attribute (their keys say what
// they are) and attributes no struct names. The program loads it the way
// that code does, then serves its access patterns with the library
// (Get, queries, a collection, a scan), and writes alongside the other
// code: an update leaves the attributes it does not name untouched, and a
// new item, written without the type attribute ("_type,omit"), reads back
// through plain SDK code too. See docs/adoption.md.
// It exits non-zero if any result is wrong.
//
//	scripts/dynamodb-local.sh run -- go run ./examples/adopt
//	make examples   # runs every example, this one included
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/examplekit"
	"github.com/singletable/singletable/singletabletest/local"
)

// The existing table, as its own code writes it:
//
//	PK: ROOM#r1   SK: 2026-01-02T03:04:05Z   a message (a bare timestamp)
//	PK: ROOM#r1   SK: Join:ann              a member who joined the room
//	PK: USER#ann  SK: PROFILE               a user
//	GSI1PK: USER#ann  GSI1SK: ROOM#r1       the rooms a user joined
//
// "_type,omit": items are told apart by their keys, and the library writes
// no type attribute the other code would not expect.
var Chat = st.MustTable("Chat", st.WithTypeAttribute("_type,omit"), st.WithGSI("GSI1"))

// Message is a message in a room; its sort key is the time it was sent, in
// the layout the other code writes.
type Message struct {
	Room string    `dynamodbav:"room"`
	At   time.Time `dynamodbav:"at"`
	From string    `dynamodbav:"from"`
	Text string    `dynamodbav:"text"`
}

// Member is a user's membership of a room.
type Member struct {
	Room string `dynamodbav:"room"`
	User string `dynamodbav:"user"`
}

// User is a user's profile.
type User struct {
	ID   string `dynamodbav:"id"`
	Name string `dynamodbav:"name"`
}

// layout is the other code's timestamp: seconds, UTC.
const layout = "2006-01-02T15:04:05Z07:00"

var (
	Messages = st.MustDefine[Message](Chat, "Message", st.Key("ROOM#{Room}", "{At:"+layout+"}"))
	Members  = st.MustDefine[Member](Chat, "Member", st.Key("ROOM#{Room}", "Join:{User}"),
		st.Index("GSI1", "USER#{User}", "ROOM#{Room}"))
	Users = st.MustDefine[User](Chat, "User", st.Key("USER#{ID}", "PROFILE"))

	RoomsOfUser = Members.Pattern("RoomsOfUser").On("GSI1").Partition("USER#{User}").Must()
	Room        = Chat.Collection("Room", Messages, Members).Partition("ROOM#{Room}").Must()
)

func main() {
	if err := run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		os.Exit(1)
	}
	fmt.Println("\nThe existing table was read and written alongside its own code, unchanged.")
}

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

func run(ctx context.Context) error {
	var c examplekit.Checker
	c.Equal("lint finds nothing: no timestamp starts with \"Join:\"", "no findings\n", st.LintReport(Chat.Lint()))

	client, err := local.Client(ctx)
	if err != nil {
		return err
	}
	db := st.New(client, Chat, st.WithTableName(examplekit.UniqueName("adopt-example")))
	if err := db.EnsureTable(ctx); err != nil {
		return err
	}
	defer func() { _ = db.DeleteTable(ctx) }()

	// The other code's writes: plain PutItem, no type attribute, and an
	// attribute ("client") no struct names.
	fmt.Println("\nLoading the table with plain SDK code:")
	for _, item := range []map[string]types.AttributeValue{
		{"PK": s("USER#ann"), "SK": s("PROFILE"), "id": s("ann"), "name": s("Ann"), "client": s("ios/2.1")},
		{"PK": s("USER#bo"), "SK": s("PROFILE"), "id": s("bo"), "name": s("Bo")},
		{"PK": s("ROOM#r1"), "SK": s("Join:ann"), "room": s("r1"), "user": s("ann"), "GSI1PK": s("USER#ann"), "GSI1SK": s("ROOM#r1")},
		{"PK": s("ROOM#r1"), "SK": s("2026-01-02T03:04:05Z"), "room": s("r1"), "at": s("2026-01-02T03:04:05Z"), "from": s("ann"), "text": s("hello"), "client": s("ios/2.1")},
		{"PK": s("ROOM#r1"), "SK": s("2026-01-02T03:05:00Z"), "room": s("r1"), "at": s("2026-01-02T03:05:00Z"), "from": s("ann"), "text": s("anyone?")},
	} {
		if _, err := client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(db.TableName()), Item: item}); err != nil {
			return err
		}
	}

	fmt.Println("\nServing its access patterns:")
	ann, err := Users.Get(ctx, db, User{ID: "ann"})
	if err != nil {
		return err
	}
	c.Equal("Get a user", User{ID: "ann", Name: "Ann"}, ann)
	msgs, err := Messages.Query(ctx, db, Message{Room: "r1"})
	if err != nil {
		return err
	}
	c.Equal("the room's messages, the Join: item skipped by its keys", 2, len(msgs.Items))
	rooms, err := RoomsOfUser.Query(ctx, db, Member{User: "ann"})
	if err != nil {
		return err
	}
	c.Equal("the rooms ann joined (GSI1)", []Member{{Room: "r1", User: "ann"}}, rooms.Items)
	room, err := Room.Query(ctx, db, st.Values{"Room": "r1"})
	if err != nil {
		return err
	}
	c.Equal("the room as a collection: messages", 2, len(Messages.From(room)))
	c.Equal("the room as a collection: members", 1, len(Members.From(room)))
	c.Equal("the room as a collection: nothing unknown", 0, len(room.Unknown))
	n := 0
	for it, err := range db.Scan(ctx) {
		if err != nil {
			return err
		}
		if it.Value != nil {
			n++
		}
	}
	c.Equal("a scan knows every item by its keys", 5, n)

	fmt.Println("\nWriting alongside the other code:")
	if _, err := Users.Update(ctx, db, User{ID: "ann"}, st.Set("Name", "Ann B.")); err != nil {
		return err
	}
	raw, err := client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(db.TableName()),
		Key: map[string]types.AttributeValue{"PK": s("USER#ann"), "SK": s("PROFILE")}})
	if err != nil {
		return err
	}
	c.Equal("an update leaves the attribute it does not name", s("ios/2.1"), raw.Item["client"])
	if err := Messages.Create(ctx, db, Message{Room: "r1", At: time.Date(2026, 1, 2, 3, 6, 0, 0, time.UTC), From: "bo", Text: "here"}); err != nil {
		return err
	}
	raw, err = client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(db.TableName()),
		Key: map[string]types.AttributeValue{"PK": s("ROOM#r1"), "SK": s("2026-01-02T03:06:00Z")}})
	if err != nil {
		return err
	}
	_, typed := raw.Item["_type"]
	c.That("a new message has the other code's key shape and no type attribute", len(raw.Item) > 0 && !typed)
	msgs, err = Messages.Query(ctx, db, Message{Room: "r1"})
	if err != nil {
		return err
	}
	c.Equal("the room now has 3 messages", 3, len(msgs.Items))
	return c.Err()
}
