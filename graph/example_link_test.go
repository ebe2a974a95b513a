package graph_test

// Runnable examples of the link options: a field both ends' keys share,
// an end the link creates, a cap, conditions on the ends, and which one
// refused.

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable"
	"github.com/singletable/singletable/graph"
	"github.com/singletable/singletable/singletabletest"
)

type Ticket struct {
	TenantID string `dynamodbav:"tenantId"`
	ID       string `dynamodbav:"ticketId"`
	Tags     int    `dynamodbav:"tags"`
}

type Tag struct {
	TenantID string `dynamodbav:"tenantId"`
	Name     string `dynamodbav:"name"`
	Tickets  int    `dynamodbav:"tickets"`
}

type TicketTag struct {
	TenantID string `dynamodbav:"tenantId"` // the ticket's tenant and the tag's: stored once
	TicketID string `dynamodbav:"ticketId"`
	Tag      string `dynamodbav:"tag"`
}

// A multi-tenant helpdesk: tickets and tags are keyed inside their
// tenant, and the edge between them stores the tenant once, for both
// ends. The tag is created by the first ticket tagged with it.
func ExampleShared() {
	tbl := singletable.MustTable("Helpdesk", singletable.WithGSI("GSI1"))
	tickets := singletable.MustDefine[Ticket](tbl, "Ticket", singletable.Key("TENANT#{TenantID}#TICKET#{ID}", "TICKET"))
	tags := singletable.MustDefine[Tag](tbl, "Tag", singletable.Key("TENANT#{TenantID}#TAG#{Name}", "TAG"))
	edges := singletable.MustDefine[TicketTag](tbl, "TicketTag",
		singletable.Key("TENANT#{TenantID}#TICKET#{TicketID}", "TAG#{Tag}"),
		singletable.Index("GSI1", "TENANT#{TenantID}#TAG#{Tag}", "TICKET#{TicketID}"))
	tagging := graph.MustRelate("Tagging", tickets, edges, tags,
		graph.Shared("TenantID", "TenantID", "TenantID"),
		graph.FromField("TicketID", "ID"), graph.ToField("Tag", "Name"),
		graph.InIndex("GSI1"), graph.CountOut("Tags"), graph.CountIn("Tickets"))

	e := tagging.Edge(Ticket{TenantID: "acme", ID: "42"}, Tag{TenantID: "acme", Name: "billing"})
	fmt.Printf("edge %+v\nfrom %+v\nto   %+v\n", e, tagging.From(e), tagging.To(e))

	mock := &singletabletest.Client{}
	db := singletable.New(mock, tbl)
	in, _ := tagging.InInput(db, Tag{TenantID: "acme", Name: "billing"})
	fmt.Println("the tag's tickets:", in.ExpressionAttributeValues[":v0"].(*types.AttributeValueMemberS).Value)

	// The tag does not exist yet: the first transaction finds it missing,
	// the second creates it with the edge.
	answers := []error{&types.TransactionCanceledException{Message: aws.String("cancelled"), CancellationReasons: []types.CancellationReason{
		{Code: aws.String("None")}, {Code: aws.String("None")}, {Code: aws.String("ConditionalCheckFailed")}}}, nil}
	mock.TransactWriteItemsFunc = func(context.Context, *dynamodb.TransactWriteItemsInput) (*dynamodb.TransactWriteItemsOutput, error) {
		err := answers[0]
		answers = answers[1:]
		return &dynamodb.TransactWriteItemsOutput{}, err
	}
	linked, err := tagging.Link(context.Background(), db, e, graph.CreateTo(Tag{}))
	fmt.Println("linked:", linked, err)
	for _, it := range mock.Calls()[1].Input.(*dynamodb.TransactWriteItemsInput).TransactItems {
		switch {
		case it.Put != nil:
			fmt.Println("  Put   ", it.Put.Item["PK"].(*types.AttributeValueMemberS).Value)
		case it.Update != nil:
			fmt.Println("  Update", it.Update.Key["PK"].(*types.AttributeValueMemberS).Value)
		}
	}
	// Output:
	// edge {TenantID:acme TicketID:42 Tag:billing}
	// from {TenantID:acme ID:42 Tags:0}
	// to   {TenantID:acme Name:billing Tickets:0}
	// the tag's tickets: TENANT#acme#TAG#billing
	// linked: true <nil>
	//   Put    TENANT#acme#TICKET#42
	//   Update TENANT#acme#TICKET#42
	//   Put    TENANT#acme#TAG#billing
}

type Game struct {
	ID      string `dynamodbav:"gameId"`
	State   string `dynamodbav:"state"`
	Players int    `dynamodbav:"players"`
}

type Player struct {
	ID string `dynamodbav:"playerId"`
}

type Join struct {
	GameID   string `dynamodbav:"gameId"`
	PlayerID string `dynamodbav:"playerId"`
}

// "Join the game while it has fewer than 50 players, and is waiting":
// one call, one transaction, whatever the number of players joining at
// once. A refusal says which condition failed.
func ExampleCapIn() {
	tbl := singletable.MustTable("Games")
	games := singletable.MustDefine[Game](tbl, "Game", singletable.Key("GAME#{ID}", "GAME"))
	players := singletable.MustDefine[Player](tbl, "Player", singletable.Key("PLAYER#{ID}", "PLAYER"))
	edges := singletable.MustDefine[Join](tbl, "Join", singletable.Key("PLAYER#{PlayerID}", "GAME#{GameID}"))
	joins := graph.MustRelate("Joins", players, edges, games,
		graph.FromField("PlayerID", "ID"), graph.ToField("GameID", "ID"),
		graph.InMirror("GamePlayer", "GAME#{GameID}", "PLAYER#{PlayerID}"), graph.CountIn("Players"))

	mock := &singletabletest.Client{}
	db := singletable.New(mock, tbl)
	join := func(player string) {
		_, err := joins.Link(context.Background(), db, Join{GameID: "g1", PlayerID: player},
			graph.CapIn(50), graph.IfTo(singletable.Eq("State", "WAITING")))
		var le *graph.LinkError
		switch {
		case err == nil:
			fmt.Println(player, "joined")
		case errors.Is(err, graph.ErrCapReached) && errors.As(err, &le):
			fmt.Printf("%s: the game is full (%d of %d)\n", player, le.Count, le.Cap)
		case errors.Is(err, graph.ErrEndCondition):
			fmt.Println(player + ": the game has started")
		default:
			fmt.Println(player+":", err)
		}
	}
	// The game's update, as sent: its count, capped and conditioned.
	join("ann")
	u := mock.Calls()[0].Input.(*dynamodb.TransactWriteItemsInput).TransactItems[2].Update
	fmt.Println("  ", *u.UpdateExpression, "IF", *u.ConditionExpression)

	// The service refuses the game's update: it holds 50 players.
	cancel := func(item map[string]types.AttributeValue) {
		mock.TransactWriteItemsFunc = func(context.Context, *dynamodb.TransactWriteItemsInput) (*dynamodb.TransactWriteItemsOutput, error) {
			return nil, &types.TransactionCanceledException{Message: aws.String("cancelled"), CancellationReasons: []types.CancellationReason{
				{Code: aws.String("None")}, {Code: aws.String("None")}, {Code: aws.String("ConditionalCheckFailed"), Item: item}}}
		}
	}
	cancel(map[string]types.AttributeValue{"gameId": &types.AttributeValueMemberS{Value: "g1"},
		"state": &types.AttributeValueMemberS{Value: "WAITING"}, "players": &types.AttributeValueMemberN{Value: "50"}})
	join("bob")
	// Or it has room, and has started.
	cancel(map[string]types.AttributeValue{"gameId": &types.AttributeValueMemberS{Value: "g1"},
		"state": &types.AttributeValueMemberS{Value: "PLAYING"}, "players": &types.AttributeValueMemberN{Value: "7"}})
	join("cid")
	// Output:
	// ann joined
	//    SET #n0 = if_not_exists(#n0, :v0) + :v1 IF ((attribute_exists(#n1)) AND (#n2 = :v2)) AND ((#n3 = :v3) AND ((attribute_not_exists(#n0)) OR (#n0 < :v4)))
	// bob: the game is full (50 of 50)
	// cid: the game has started
}
