package singletable_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable"
	"github.com/singletable/singletable/singletabletest"
)

// A session expires 30 minutes after it is written: Put stores the expiry
// in the table's TTL attribute, and Get leaves the item out once the DB's
// clock reaches it, though DynamoDB has not deleted it yet.
func ExampleExpiresAfter() {
	type Session struct {
		User      string    `dynamodbav:"user"`
		Token     string    `dynamodbav:"token"`
		ExpiresAt time.Time `dynamodbav:"ttl,unixtime"`
	}
	app := singletable.MustTable("App", singletable.WithTTL("ttl"))
	sessions := singletable.MustDefine[Session](app, "Session",
		singletable.Key("USER#{User}", "SESSION#{Token}"),
		singletable.Expires("ExpiresAt"), singletable.ExpiresAfter(30*time.Minute))

	now := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	client := &singletabletest.Client{}
	db := singletable.New(client, app, singletable.WithClock(func() time.Time { return now }))

	in, _ := sessions.PutInput(db, Session{User: "ann", Token: "t1"})
	stored := in.Item["ttl"].(*types.AttributeValueMemberN).Value
	fmt.Println("ttl:", stored, "=", now.Add(30*time.Minute).Unix())

	// The table still holds the item (DynamoDB deletes lazily).
	client.GetItemFunc = func(context.Context, *dynamodb.GetItemInput) (*dynamodb.GetItemOutput, error) {
		return &dynamodb.GetItemOutput{Item: in.Item}, nil
	}
	_, err := sessions.Get(context.Background(), db, Session{User: "ann", Token: "t1"})
	fmt.Println("at 12:00:", err)
	now = now.Add(30 * time.Minute)
	_, err = sessions.Get(context.Background(), db, Session{User: "ann", Token: "t1"})
	fmt.Println("at 12:30:", errors.Is(err, singletable.ErrNotFound))
	s, _ := sessions.Get(context.Background(), db, Session{User: "ann", Token: "t1"}, singletable.IncludeExpired())
	fmt.Println("IncludeExpired:", s.Token)
	// Output:
	// ttl: 1893501000 = 1893501000
	// at 12:00: <nil>
	// at 12:30: true
	// IncludeExpired: t1
}
