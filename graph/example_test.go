package graph_test

// Runnable examples of relations (graphs and many-to-many), on the
// recording mock with the answers DynamoDB would give.

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable"
	"github.com/singletable/singletable/graph"
	"github.com/singletable/singletable/singletabletest"
)

type Person struct {
	ID        string `dynamodbav:"id"`
	Following int    `dynamodbav:"following"`
	Followers int    `dynamodbav:"followers"`
}

type Follows struct {
	Follower string `dynamodbav:"follower"`
	Followee string `dynamodbav:"followee"`
}

// The adjacency list's follows, declared once: one item per edge under
// the follower, read backwards through the inverted index, with both
// counts kept in the edge's transaction.
func ExampleRelate() {
	tbl := singletable.MustTable("Social", singletable.WithGSI("Inverted", singletable.IndexKeys("SK", "PK")))
	people := singletable.MustDefine[Person](tbl, "Person", singletable.Key("USER#{ID}", "USER#{ID}"))
	edges := singletable.MustDefine[Follows](tbl, "Follow", singletable.Key("USER#{Follower}", "FOLLOWS#{Followee}"))
	follows := graph.MustRelate("Follows", people, edges, people,
		graph.FromField("Follower", "ID"), graph.ToField("Followee", "ID"),
		graph.InIndex("Inverted"),
		graph.CountOut("Following"), graph.CountIn("Followers"))

	mock := &singletabletest.Client{}
	db := singletable.New(mock, tbl)
	ctx := context.Background()

	linked, err := follows.Link(ctx, db, Follows{Follower: "alice", Followee: "bob"})
	fmt.Println("linked:", linked, err)
	for _, it := range mock.Calls()[0].Input.(*dynamodb.TransactWriteItemsInput).TransactItems {
		switch {
		case it.Put != nil:
			fmt.Println("  Put   ", *it.Put.ConditionExpression)
		case it.Update != nil:
			fmt.Println("  Update", *it.Update.UpdateExpression)
		}
	}

	// Who follows bob: the inverted index, partition FOLLOWS#bob.
	mock.QueryFunc = func(_ context.Context, in *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
		fmt.Println("query", *in.IndexName, *in.KeyConditionExpression)
		return &dynamodb.QueryOutput{Count: 1, ScannedCount: 1, Items: []map[string]types.AttributeValue{{
			"PK": &types.AttributeValueMemberS{Value: "USER#alice"}, "SK": &types.AttributeValueMemberS{Value: "FOLLOWS#bob"},
			"_type":    &types.AttributeValueMemberS{Value: "Follow"},
			"follower": &types.AttributeValueMemberS{Value: "alice"}, "followee": &types.AttributeValueMemberS{Value: "bob"},
		}}}, nil
	}
	page, err := follows.In(ctx, db, Person{ID: "bob"})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range page.Items {
		fmt.Printf("%s follows %s (the follower's key: %+v)\n", e.Follower, e.Followee, follows.From(e))
	}
	// Output:
	// linked: true <nil>
	//   Put    attribute_not_exists(#n0)
	//   Update SET #n0 = if_not_exists(#n0, :v0) + :v1
	//   Update SET #n0 = if_not_exists(#n0, :v0) + :v1
	// query Inverted #n0 = :v0 AND begins_with(#n1, :v1)
	// alice follows bob (the follower's key: {ID:alice Following:0 Followers:0})
}

type Crew struct {
	ID      string `dynamodbav:"id"`
	Members int    `dynamodbav:"members"`
}

type CrewMember struct {
	UserID string `dynamodbav:"userId"`
	CrewID string `dynamodbav:"crewId"`
	Role   string `dynamodbav:"role"`
}

// Many-to-many with an attribute, stored as two items per edge (the edge
// under the user, its mirror under the crew) written in one transaction.
func ExampleInMirror() {
	tbl := singletable.MustTable("Crews")
	people := singletable.MustDefine[Person](tbl, "Person", singletable.Key("USER#{ID}", "USER#{ID}"))
	crews := singletable.MustDefine[Crew](tbl, "Crew", singletable.Key("CREW#{ID}", "CREW#{ID}"))
	edges := singletable.MustDefine[CrewMember](tbl, "Membership", singletable.Key("USER#{UserID}", "CREW#{CrewID}"))
	members := graph.MustRelate("Members", people, edges, crews,
		graph.FromField("UserID", "ID"), graph.ToField("CrewID", "ID"),
		graph.InMirror("CrewMember", "CREW#{CrewID}", "MEMBER#{UserID}"),
		graph.CountIn("Members"))

	db := singletable.New(&singletabletest.Client{}, tbl)
	in, err := db.TransactInput(func(tx *singletable.Tx) error {
		members.TxLink(tx, CrewMember{UserID: "ann", CrewID: "c1", Role: "captain"})
		return nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, it := range in.TransactItems {
		switch {
		case it.Put != nil:
			fmt.Println("Put   ", it.Put.Item["PK"].(*types.AttributeValueMemberS).Value, it.Put.Item["SK"].(*types.AttributeValueMemberS).Value,
				it.Put.Item["role"].(*types.AttributeValueMemberS).Value)
		case it.Update != nil:
			fmt.Println("Update", it.Update.Key["PK"].(*types.AttributeValueMemberS).Value, *it.Update.UpdateExpression)
		}
	}
	q, _ := members.InInput(db, Crew{ID: "c1"}, singletable.ConsistentRead())
	fmt.Println("In:", *q.KeyConditionExpression, "on the table, consistent:", *q.ConsistentRead)
	// Output:
	// Put    USER#ann CREW#c1 captain
	// Put    CREW#c1 MEMBER#ann captain
	// Update CREW#c1 SET #n0 = if_not_exists(#n0, :v0) + :v1
	// In: #n0 = :v0 AND begins_with(#n1, :v1) on the table, consistent: true
}

// An edge's ends, and the edge between two ends: keys for the ends'
// entities (a BatchGet of the followed profiles) and for Has and Unlink.
func ExampleRelation_Edge() {
	tbl := singletable.MustTable("Social", singletable.WithGSI("Inverted", singletable.IndexKeys("SK", "PK")))
	people := singletable.MustDefine[Person](tbl, "Person", singletable.Key("USER#{ID}", "USER#{ID}"))
	edges := singletable.MustDefine[Follows](tbl, "Follow", singletable.Key("USER#{Follower}", "FOLLOWS#{Followee}"))
	follows := graph.MustRelate("Follows", people, edges, people,
		graph.FromField("Follower", "ID"), graph.ToField("Followee", "ID"), graph.InIndex("Inverted"))

	e := follows.Edge(Person{ID: "alice", Following: 3}, Person{ID: "bob"})
	fmt.Printf("%+v\n", e)
	fmt.Printf("%+v %+v\n", follows.From(e), follows.To(e))
	// Output:
	// {Follower:alice Followee:bob}
	// {ID:alice Following:0 Followers:0} {ID:bob Following:0 Followers:0}
}

// A declaration is checked when it is made: an option with an empty name
// is refused, not ignored.
func ExampleRelate_refused() {
	tbl := singletable.MustTable("Social", singletable.WithGSI("Inverted", singletable.IndexKeys("SK", "PK")))
	people := singletable.MustDefine[Person](tbl, "Person", singletable.Key("USER#{ID}", "USER#{ID}"))
	edges := singletable.MustDefine[Follows](tbl, "Follow", singletable.Key("USER#{Follower}", "FOLLOWS#{Followee}"))
	_, err := graph.Relate("Follows", people, edges, people,
		graph.FromField("Follower", "ID"), graph.ToField("Followee", "ID"), graph.InIndex("Inverted"),
		graph.CountIn(""))
	fmt.Println(errors.Is(err, singletable.ErrInvalidModel))
	fmt.Println(err)
	// Output:
	// true
	// singletable: entity relation Follows: CountIn: the field name is empty
}
