// Command sessions shows time to live as a field, on the seeds' sessions
// and invites (dynamodb-access-patterns.txt, "TTL for Automatic
// Expiration"; dynamodb-data-modeling.txt, "TTL for Temporal Data"):
// sessions expire after 30 minutes of inactivity (each use slides the
// expiry), team invites 7 days after they are sent. DynamoDB deletes
// expired items lazily, up to two days late, so every read of the library
// leaves them out: Get, queries, collections, batch and transactional
// gets. The clock is the DB's (WithClock), moved forward by the program;
// a raw GetItem shows that the expired items are still in the table.
// It exits non-zero if any result is wrong.
//
//	scripts/dynamodb-local.sh run -- go run ./examples/sessions
//	make examples   # runs every example, this one included
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/examplekit"
	"github.com/singletable/singletable/singletabletest/local"
)

// The model: one table whose time to live reads "ttl".
//
//	PK: USER#ann   SK: SESSION#tok1   Session (expires 30 min after sign-in)
//	PK: TEAM#t1    SK: INVITE#bo@x    Invite  (expires 7 days after it is sent)
//	GSI1PK: EMAIL#bo@x  GSI1SK: TEAM#t1   the invites of an email
var App = st.MustTable("Sessions", st.WithGSI("GSI1"), st.WithTTL("ttl"))

// Session is a signed-in session; ExpiresAt is stored as epoch seconds in
// the table's TTL attribute.
type Session struct {
	User      string    `dynamodbav:"user"`
	Token     string    `dynamodbav:"token"`
	Device    string    `dynamodbav:"device"`
	ExpiresAt time.Time `dynamodbav:"ttl,unixtime"`
}

// Invite is an invitation to a team; Expires is epoch seconds.
type Invite struct {
	Team      string `dynamodbav:"team"`
	Email     string `dynamodbav:"email"`
	InvitedBy string `dynamodbav:"invitedBy"`
	Expires   int64  `dynamodbav:"ttl"`
}

const (
	idle      = 30 * time.Minute
	inviteTTL = 7 * 24 * time.Hour
)

var (
	Sessions = st.MustDefine[Session](App, "Session", st.Key("USER#{User}", "SESSION#{Token}"),
		st.Expires("ExpiresAt"), st.ExpiresAfter(idle))
	Invites = st.MustDefine[Invite](App, "Invite", st.Key("TEAM#{Team}", "INVITE#{Email}"),
		st.Index("GSI1", "EMAIL#{Email}", "TEAM#{Team}"),
		st.Expires("Expires"), st.ExpiresAfter(inviteTTL))

	InvitesForEmail = Invites.Pattern("InvitesForEmail").On("GSI1").Partition("EMAIL#{Email}").Must()
	TeamInvites     = Invites.Pattern("TeamInvites").Partition("TEAM#{Team}").SortBeginsWith("INVITE#").Must()
)

// clock is the program's clock, which it moves forward.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
	fmt.Printf("\n-- clock: +%s\n", d)
}

func main() {
	if err := run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		os.Exit(1)
	}
	fmt.Println("\nExpired sessions and invites were left out of every read, while still in the table.")
}

func run(ctx context.Context) error {
	fmt.Print(App.Sheet())
	var c examplekit.Checker
	c.That("the sheet says the patterns leave expired items out", strings.Count(App.Sheet(), "expired items left out") == 2)

	client, err := local.Client(ctx)
	if err != nil {
		return err
	}
	// The clock starts now, in whole seconds, and only moves forward:
	// DynamoDB Local deletes expired items by the real clock, which stays
	// behind it, so every expired item stays in the table for the reads
	// to leave out.
	clk := &clock{now: time.Now().Truncate(time.Second)}
	t0 := clk.Now()
	db := st.New(client, App, st.WithTableName(examplekit.UniqueName("sessions-example")), st.WithClock(clk.Now))
	if err := db.EnsureTable(ctx); err != nil {
		return err
	}
	defer func() { _ = db.DeleteTable(ctx) }()

	fmt.Println("\nSessions:")
	for _, s := range []Session{{User: "ann", Token: "tok1", Device: "laptop"}, {User: "ann", Token: "tok2", Device: "phone"}} {
		if err := Sessions.Create(ctx, db, s); err != nil {
			return err
		}
	}
	s1, err := Sessions.Get(ctx, db, Session{User: "ann", Token: "tok1"})
	if err != nil {
		return err
	}
	c.Equal("a new session expires 30 minutes after sign-in (ExpiresAfter)", t0.Add(idle).Unix(), s1.ExpiresAt.Unix())

	clk.Advance(20 * time.Minute)
	// The laptop is used: its expiry slides (an explicit Set).
	if _, err := Sessions.Update(ctx, db, Session{User: "ann", Token: "tok1"}, st.Set("ExpiresAt", clk.Now().Add(idle))); err != nil {
		return err
	}

	clk.Advance(10 * time.Minute) // the phone's session expires now, exactly
	_, err = Sessions.Get(ctx, db, Session{User: "ann", Token: "tok2"})
	c.That("Get: the phone's session, at its expiry, is not found", errors.Is(err, st.ErrNotFound))
	page, err := Sessions.Query(ctx, db, Session{User: "ann"})
	if err != nil {
		return err
	}
	c.Equal("Query: ann's live sessions", []string{"tok1"}, tokens(page.Items))
	got, err := Sessions.BatchGet(ctx, db, []Session{{User: "ann", Token: "tok1"}, {User: "ann", Token: "tok2"}})
	if err != nil {
		return err
	}
	c.That("BatchGet: the laptop's session, nil for the phone's", got[0] != nil && got[1] == nil)
	tg := db.TransactGet()
	phone := Sessions.TxGet(tg, Session{User: "ann", Token: "tok2"})
	laptop := Sessions.TxGet(tg, Session{User: "ann", Token: "tok1"})
	if err := tg.Run(ctx); err != nil {
		return err
	}
	c.That("TxGet: the phone's session is not found, the laptop's is", !phone.Found() && laptop.Found())
	raw, err := rawGet(ctx, db, "USER#ann", "SESSION#tok2")
	if err != nil {
		return err
	}
	c.That("a raw GetItem still finds the expired session in the table", len(raw) > 0)
	old, err := Sessions.Get(ctx, db, Session{User: "ann", Token: "tok2"}, st.IncludeExpired())
	c.That("IncludeExpired reads it", err == nil && old.Device == "phone")
	// Signing in again on the phone creates the session anew: Create
	// replaces an item that has expired.
	err = Sessions.Create(ctx, db, Session{User: "ann", Token: "tok2", Device: "phone"})
	c.That("Create over the expired session succeeds", err == nil)
	err = Sessions.Create(ctx, db, Session{User: "ann", Token: "tok1", Device: "tablet"})
	c.That("Create over the live one fails with ErrAlreadyExists", errors.Is(err, st.ErrAlreadyExists))

	fmt.Println("\nInvites:")
	if err := Invites.Create(ctx, db, Invite{Team: "t1", Email: "bo@x", InvitedBy: "ann"}); err != nil {
		return err
	}
	clk.Advance(3 * 24 * time.Hour)
	if err := Invites.Create(ctx, db, Invite{Team: "t1", Email: "cy@x", InvitedBy: "ann"}); err != nil {
		return err
	}
	if err := Invites.Create(ctx, db, Invite{Team: "t2", Email: "bo@x", InvitedBy: "dee"}); err != nil {
		return err
	}
	clk.Advance(4 * 24 * time.Hour) // 7 days after bo's first invite: it expires now, exactly
	invites, err := TeamInvites.Query(ctx, db, Invite{Team: "t1"})
	if err != nil {
		return err
	}
	c.Equal("TeamInvites: t1's live invites", []string{"cy@x"}, emails(invites.Items))
	var teams []string
	for v, err := range InvitesForEmail.All(ctx, db, Invite{Email: "bo@x"}) {
		if err != nil {
			return err
		}
		teams = append(teams, v.Team)
	}
	c.Equal("InvitesForEmail: bo's live invites (the index)", []string{"t2"}, teams)
	all, err := TeamInvites.Query(ctx, db, Invite{Team: "t1"}, st.IncludeExpired())
	if err != nil {
		return err
	}
	c.Equal("IncludeExpired: every invite of t1", []string{"bo@x", "cy@x"}, emails(all.Items))
	if err := Invites.Create(ctx, db, Invite{Team: "t1", Email: "bo@x", InvitedBy: "ann"}); err != nil {
		return err
	}
	again, err := Invites.Get(ctx, db, Invite{Team: "t1", Email: "bo@x"})
	c.That("bo is invited again, for 7 more days", err == nil && again.Expires == clk.Now().Add(inviteTTL).Unix())
	return c.Err()
}

func rawGet(ctx context.Context, db *st.DB, pk, sk string) (map[string]types.AttributeValue, error) {
	out, err := db.Client().GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(db.TableName()), Key: map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: pk}, "SK": &types.AttributeValueMemberS{Value: sk}}})
	if err != nil {
		return nil, err
	}
	return out.Item, nil
}

func tokens(ss []Session) []string {
	out := []string{}
	for _, s := range ss {
		out = append(out, s.Token)
	}
	return out
}

func emails(is []Invite) []string {
	out := []string{}
	for _, i := range is {
		out = append(out, i.Email)
	}
	return out
}
