package singletable_test

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/golden"
	"github.com/singletable/singletable/singletabletest"
)

// The TTL model: sessions expire an hour after they are written (a
// time.Time expiry), invites carry an integer epoch expiry (undeclared:
// the field stored under the TTL attribute is the expiry), notes never
// expire. KO is a keys-only index, which cannot see the TTL attribute.
var ttlTable = st.MustTable("TTLModel", st.WithTTL("ttl"),
	st.WithGSI("GSI1"), st.WithGSI("KeysIdx", st.KeysOnly()))

type ttlSession struct {
	User      string    `dynamodbav:"user"`
	ID        string    `dynamodbav:"id"`
	Device    string    `dynamodbav:"device"`
	ExpiresAt time.Time `dynamodbav:"ttl,unixtime"`
}

type ttlInvite struct {
	User    string `dynamodbav:"user"`
	Email   string `dynamodbav:"email"`
	Expires int64  `dynamodbav:"ttl"`
}

type ttlNote struct {
	User string `dynamodbav:"user"`
	ID   string `dynamodbav:"id"`
}

var (
	ttlSessions = st.MustDefine[ttlSession](ttlTable, "Session",
		st.Key("USER#{User}", "SESSION#{ID}"),
		st.Index("GSI1", "DEVICE#{Device}", "SESSION#{ID}"),
		st.Index("KeysIdx", "DEVICE#{Device}", "SESSION#{ID}"),
		st.Expires("ExpiresAt"), st.ExpiresAfter(time.Hour))
	ttlInvites = st.MustDefine[ttlInvite](ttlTable, "Invite", st.Key("USER#{User}", "INVITE#{Email}"))
	ttlNotes   = st.MustDefine[ttlNote](ttlTable, "Note", st.Key("USER#{User}", "NOTE#{ID}"))

	ttlByDevice   = ttlSessions.Pattern("SessionsByDevice").On("GSI1").Partition("DEVICE#{Device}").Must()
	ttlByDeviceKO = ttlSessions.Pattern("SessionsByDeviceKeys").On("KeysIdx").Partition("DEVICE#{Device}").Must()
	ttlOneSession = ttlSessions.Pattern("Session").SortEquals().Must()
	ttlUser       = ttlTable.Collection("UserItems", ttlSessions, ttlInvites, ttlNotes).Partition("USER#{User}").Must()
)

// ttlNow is the clock of the TTL tests: whole seconds, so that an expiry
// at ttlNow is exactly at the boundary, and in 2100: DynamoDB Local runs
// time to live by the real clock and deletes items whose expiry is past,
// which would race with the integration tests.
var ttlNow = time.Unix(4_102_444_800, 0)

func ttlDB(c *singletabletest.Client) *st.DB {
	return st.New(c, ttlTable, st.WithClock(func() time.Time { return ttlNow }))
}

func nAttr(n int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)}
}

// ttlItem is a stored session whose ttl attribute is ttl (none when nil).
func ttlItem(id string, ttl types.AttributeValue) map[string]types.AttributeValue {
	item := map[string]types.AttributeValue{"PK": s("USER#u1"), "SK": s("SESSION#" + id), "_type": s("Session"),
		"user": s("u1"), "id": s(id), "device": s("d1")}
	if ttl != nil {
		item["ttl"] = ttl
	}
	return item
}

func TestExpiresModelErrors(t *testing.T) {
	noTTL := st.MustTable("TTLNone")
	withTTL := func() *st.Table { return st.MustTable("TTLErr", st.WithTTL("ttl"), st.WithGSI("GSI1")) }
	type other struct {
		ID string    `dynamodbav:"id"`
		At time.Time `dynamodbav:"at,unixtime"`
	}
	type two struct {
		ID string    `dynamodbav:"id"`
		A  time.Time `dynamodbav:"ttl,unixtime" singletable:"expires"`
		B  int64     `dynamodbav:"b" singletable:"expires"`
	}
	type stamped struct {
		ID string    `dynamodbav:"id"`
		At time.Time `dynamodbav:"ttl,unixtime" singletable:"updated"`
	}
	cases := map[string]func() error{
		"table declares no TTL attribute": func() error {
			_, err := st.Define[ttlSession](noTTL, "S", st.Key("S#{ID}", "S"), st.Expires("ExpiresAt"))
			return err
		},
		"field stored under another attribute": func() error {
			_, err := st.Define[other](withTTL(), "S", st.Key("S#{ID}", "S"), st.Expires("At"))
			return err
		},
		"no such field": func() error {
			_, err := st.Define[ttlSession](withTTL(), "S", st.Key("S#{ID}", "S"), st.Expires("Nope"))
			return err
		},
		"two expiry fields": func() error {
			_, err := st.Define[two](withTTL(), "S", st.Key("S#{ID}", "S"))
			return err
		},
		"expiry is also the updated timestamp": func() error {
			_, err := st.Define[stamped](withTTL(), "S", st.Key("S#{ID}", "S"))
			return err
		},
		"ExpiresAfter without an expiry field": func() error {
			_, err := st.Define[ttlNote](withTTL(), "S", st.Key("S#{ID}", "S"), st.ExpiresAfter(time.Hour))
			return err
		},
		"ExpiresAfter zero": func() error {
			_, err := st.Define[ttlSession](withTTL(), "S", st.Key("S#{ID}", "S"), st.Expires("ExpiresAt"), st.ExpiresAfter(0))
			return err
		},
		"ExpiresAfter negative": func() error {
			_, err := st.Define[ttlSession](withTTL(), "S", st.Key("S#{ID}", "S"), st.Expires("ExpiresAt"), st.ExpiresAfter(-time.Second))
			return err
		},
		"ExpiresAfter with an index on the expiry": func() error {
			_, err := st.Define[ttlSession](withTTL(), "S", st.Key("S#{ID}", "S"), st.ExpiresAfter(time.Hour),
				st.Index("GSI1", "DEVICE#{Device}", "{ExpiresAt:2006}"))
			return err
		},
	}
	for name, define := range cases {
		t.Run(name, func(t *testing.T) {
			err := define()
			require.ErrorIs(t, err, st.ErrInvalidModel)
			var me *st.ModelError
			require.True(t, errors.As(err, &me))
			assert.Equal(t, "S", me.Entity)
		})
	}
	// The tag declares it as the option does.
	type tagged struct {
		ID string `dynamodbav:"id"`
		At int64  `dynamodbav:"ttl" singletable:"expires"`
	}
	_, err := st.Define[tagged](withTTL(), "S", st.Key("S#{ID}", "S"), st.ExpiresAfter(time.Minute))
	require.NoError(t, err)
}

// A new session gets its expiry from the DB's clock, in whole seconds; a
// value given is kept.
func TestExpiresAfterOnPut(t *testing.T) {
	c := &singletabletest.Client{}
	db := st.New(c, ttlTable, st.WithClock(func() time.Time { return ttlNow.Add(500 * time.Millisecond) }))
	in, err := ttlSessions.PutInput(db, ttlSession{User: "u1", ID: "s1", Device: "d1"})
	require.NoError(t, err)
	golden.Request(t, "put/expires_after", in)
	assert.Equal(t, nAttr(ttlNow.Unix()+3600), in.Item["ttl"])

	given := ttlNow.Add(5 * time.Minute)
	in, err = ttlSessions.PutInput(db, ttlSession{User: "u1", ID: "s1", Device: "d1", ExpiresAt: given})
	require.NoError(t, err)
	assert.Equal(t, nAttr(given.Unix()), in.Item["ttl"])

	// A batch stamps a copy, and stores the expiry.
	v := ttlSession{User: "u1", ID: "s3", Device: "d1"}
	require.NoError(t, db.BatchWrite(ctx, []st.BatchOp{st.BatchPut(ttlSessions, v)}))
	assert.True(t, v.ExpiresAt.IsZero(), "the value given is left as it is")
	calls := c.Calls()
	bw := calls[len(calls)-1].Input.(*dynamodb.BatchWriteItemInput)
	assert.Equal(t, nAttr(ttlNow.Unix()+3600), bw.RequestItems["TTLModel"][0].PutRequest.Item["ttl"])
}

// Create may replace an item that is there but expired: a read would not
// see it. A live one still fails the Create.
func TestCreateOverExpiredItem(t *testing.T) {
	db := ttlDB(&singletabletest.Client{})
	in, err := ttlSessions.CreateInput(db, ttlSession{User: "u1", ID: "s1", Device: "d1"})
	require.NoError(t, err)
	golden.Request(t, "put/create_expiring", in)
	assert.Contains(t, *in.ConditionExpression, "attribute_not_exists")
	assert.Contains(t, *in.ConditionExpression, "<=")

	in, err = ttlNotes.CreateInput(db, ttlNote{User: "u1", ID: "n1"})
	require.NoError(t, err)
	assert.NotContains(t, *in.ConditionExpression, "<=", "an entity with no expiry: plain not-exists")
}

// An upsert gives the item it creates ExpiresAfter's expiry and leaves an
// existing item's alone, none included (an item made live for good stays
// so): it reads whether the item exists first, and the dry run, which
// cannot, says so. A plain Update does not touch the expiry (a sliding
// expiry is an explicit Set), nor does an upsert that sets it itself.
func TestExpiresAfterOnUpdate(t *testing.T) {
	ctx := context.Background()
	c := &singletabletest.Client{}
	db := ttlDB(c)
	key := ttlSession{User: "u1", ID: "s1"}
	_, err := ttlSessions.UpdateInput(db, key, st.Set("Device", "d2"), st.Upsert())
	require.ErrorIs(t, err, st.ErrReadNeeded)
	assert.Contains(t, err.Error(), `whether the item exists needs a read (Update reads first); Set ExpiresAt, or SetIfNotExists("ExpiresAt", ...)`)

	var sent *dynamodb.UpdateItemInput
	c.UpdateItemFunc = func(_ context.Context, in *dynamodb.UpdateItemInput) (*dynamodb.UpdateItemOutput, error) {
		sent = in
		return &dynamodb.UpdateItemOutput{Attributes: ttlItem("s1", nil)}, nil
	}
	// No item: the update creates it, with the expiry, if it still does
	// not exist.
	_, err = ttlSessions.Update(ctx, db, key, st.Set("Device", "d2"), st.Upsert())
	require.NoError(t, err)
	require.Len(t, c.Calls(), 2)
	assert.Equal(t, "GetItem", c.Calls()[0].Op, "the read of whether the item exists")
	golden.Request(t, "update/upsert_expires_after", sent)
	assert.Contains(t, slices.Collect(maps.Values(sent.ExpressionAttributeValues)), nAttr(ttlNow.Unix()+3600))
	assert.Contains(t, *sent.ConditionExpression, "attribute_not_exists")

	// An existing item (without an expiry): the update leaves the expiry
	// alone, conditioned on the item existing.
	c.Reset()
	sent = nil
	c.GetItemFunc = func(context.Context, *dynamodb.GetItemInput) (*dynamodb.GetItemOutput, error) {
		return &dynamodb.GetItemOutput{Item: ttlItem("s1", nil)}, nil
	}
	_, err = ttlSessions.Update(ctx, db, key, st.Set("Device", "d2"), st.Upsert())
	require.NoError(t, err)
	require.NotNil(t, sent, "the update was sent")
	for n, a := range sent.ExpressionAttributeNames {
		if a == "ttl" {
			assert.NotContains(t, *sent.UpdateExpression, n, "an existing item keeps its expiry, none included")
			assert.Contains(t, *sent.ConditionExpression, "NOT (("+n+" > ", "an expired item is not updated (see TestUpsertReplacesAnExpiredItem)")
		}
	}
	assert.Contains(t, *sent.ConditionExpression, "attribute_exists")

	in, err := ttlSessions.UpdateInput(db, key, st.Set("Device", "d2"))
	require.NoError(t, err)
	assert.NotContains(t, in.ExpressionAttributeNames, "ttl", "Update leaves the expiry alone")

	in, err = ttlSessions.UpdateInput(db, key, st.Set("ExpiresAt", ttlNow.Add(time.Hour)), st.Upsert())
	require.NoError(t, err, "an upsert that sets the expiry needs no read")
	for n, a := range in.ExpressionAttributeNames {
		if a == "ttl" {
			assert.Contains(t, *in.UpdateExpression, n+" = :", "a Set of the expiry wins")
			assert.NotContains(t, *in.UpdateExpression, "if_not_exists("+n+",")
		}
	}
	in, err = ttlSessions.UpdateInput(db, key, st.Set("Device", "d2").SetIfNotExists("ExpiresAt", ttlNow.Add(time.Hour)), st.Upsert())
	require.NoError(t, err, "nor one that sets it where the item has none")
	assert.Contains(t, *in.UpdateExpression, "if_not_exists")
}

// Get: an item whose expiry is at or before the clock is not found; one a
// second later, one with none, zero, negative or not a number is.
func TestGetLeavesOutExpired(t *testing.T) {
	cases := []struct {
		name  string
		ttl   types.AttributeValue
		found bool
	}{
		{"a second ago", nAttr(ttlNow.Unix() - 1), false},
		{"exactly now", nAttr(ttlNow.Unix()), false},
		{"a second from now", nAttr(ttlNow.Unix() + 1), true},
		{"no expiry", nil, true},
		{"zero", nAttr(0), true},
		{"a zero time.Time", nAttr(time.Time{}.Unix()), true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := &singletabletest.Client{}
			item := ttlItem("s1", tc.ttl)
			c.GetItemFunc = func(context.Context, *dynamodb.GetItemInput) (*dynamodb.GetItemOutput, error) {
				return &dynamodb.GetItemOutput{Item: item}, nil
			}
			c.TransactGetItemsFunc = func(context.Context, *dynamodb.TransactGetItemsInput) (*dynamodb.TransactGetItemsOutput, error) {
				return &dynamodb.TransactGetItemsOutput{Responses: []types.ItemResponse{{Item: item}}}, nil
			}
			c.BatchGetItemFunc = func(context.Context, *dynamodb.BatchGetItemInput) (*dynamodb.BatchGetItemOutput, error) {
				return &dynamodb.BatchGetItemOutput{Responses: map[string][]map[string]types.AttributeValue{"TTLModel": {item}}}, nil
			}
			db := ttlDB(c)
			key := ttlSession{User: "u1", ID: "s1"}
			_, err := ttlSessions.Get(ctx, db, key)
			_, perr := ttlOneSession.Get(ctx, db, key)
			got, berr := ttlSessions.BatchGet(ctx, db, []ttlSession{key})
			require.NoError(t, berr)
			tg := db.TransactGet()
			tv := ttlSessions.TxGet(tg, key)
			require.NoError(t, tg.Run(ctx))
			if tc.found {
				require.NoError(t, err)
				require.NoError(t, perr)
				assert.NotNil(t, got[0])
				assert.True(t, tv.Found())
			} else {
				require.ErrorIs(t, err, st.ErrNotFound)
				require.ErrorIs(t, perr, st.ErrNotFound)
				assert.Nil(t, got[0])
				assert.False(t, tv.Found())
				_, err = tv.Get()
				require.ErrorIs(t, err, st.ErrNotFound)
			}
			// IncludeExpired finds it on every path.
			_, err = ttlSessions.Get(ctx, db, key, st.IncludeExpired())
			require.NoError(t, err)
			_, err = ttlOneSession.Get(ctx, db, key, st.IncludeExpired())
			require.NoError(t, err)
			got, err = ttlSessions.BatchGet(ctx, db, []ttlSession{key}, st.IncludeExpired())
			require.NoError(t, err)
			assert.NotNil(t, got[0])
			tg = db.TransactGet()
			tv = ttlSessions.TxGet(tg, key, st.IncludeExpired())
			require.NoError(t, tg.Run(ctx))
			assert.True(t, tv.Found())
		})
	}
}

// The requests stay what they were: the check is on what comes back.
func TestExpiryChangesNoReadRequest(t *testing.T) {
	db := ttlDB(&singletabletest.Client{})
	in, err := ttlByDevice.QueryInput(db, ttlSession{Device: "d1"}, st.Limit(2))
	require.NoError(t, err)
	golden.Request(t, "query/expiring_pattern", in)
	for _, n := range in.ExpressionAttributeNames {
		assert.NotEqual(t, "ttl", n, "no filter on the TTL attribute")
	}
}

// Project asks for the TTL attribute too, so that expired items can be told.
func TestProjectReadsTTLAttribute(t *testing.T) {
	db := ttlDB(&singletabletest.Client{})
	in, err := ttlByDevice.QueryInput(db, ttlSession{Device: "d1"}, st.Project("ID"))
	require.NoError(t, err)
	golden.Request(t, "query/expiring_project", in)
	var attrs []string
	for _, n := range strings.Split(*in.ProjectionExpression, ", ") {
		attrs = append(attrs, in.ExpressionAttributeNames[n])
	}
	assert.Contains(t, attrs, "ttl")
}

// A keys-only index cannot tell expired items: refused, unless the read
// fetches whole items or includes expired ones.
func TestKeysOnlyIndexNeedsFetchFull(t *testing.T) {
	db := ttlDB(&singletabletest.Client{})
	_, err := ttlByDeviceKO.QueryInput(db, ttlSession{Device: "d1"})
	require.ErrorIs(t, err, st.ErrInvalidInput)
	assert.Contains(t, err.Error(), "FetchFull")
	_, err = ttlByDeviceKO.QueryInput(db, ttlSession{Device: "d1"}, st.FetchFull())
	require.NoError(t, err)
	_, err = ttlByDeviceKO.QueryInput(db, ttlSession{Device: "d1"}, st.IncludeExpired())
	require.NoError(t, err)
}

// A page leaves out expired items; Limit counts the items returned, and
// the read goes on to the next DynamoDB page for them.
func TestQueryLimitSkipsExpired(t *testing.T) {
	c := &singletabletest.Client{}
	past, future := nAttr(ttlNow.Unix()), nAttr(ttlNow.Unix()+60)
	pages := [][]map[string]types.AttributeValue{
		{ttlItem("a", past), ttlItem("b", future), ttlItem("c", past)},
		{ttlItem("d", past), ttlItem("e", nil), ttlItem("f", future)},
	}
	c.QueryFunc = func(_ context.Context, in *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
		p := 0
		if in.ExclusiveStartKey != nil {
			p = 1
		}
		out := &dynamodb.QueryOutput{Items: pages[p], ScannedCount: int32(len(pages[p]))}
		if p == 0 {
			out.LastEvaluatedKey = map[string]types.AttributeValue{"PK": s("USER#u1"), "SK": s("SESSION#c")}
		}
		return out, nil
	}
	db := ttlDB(c)
	page, err := ttlSessions.Query(ctx, db, ttlSession{User: "u1"}, st.Limit(2))
	require.NoError(t, err)
	assert.Equal(t, []string{"b", "e"}, sessionIDs(page.Items))
	assert.Equal(t, 2, page.Requests)
	assert.NotEmpty(t, page.Cursor, "f is left")

	var all []ttlSession
	for v, err := range ttlSessions.All(ctx, db, ttlSession{User: "u1"}) {
		require.NoError(t, err)
		all = append(all, v)
	}
	assert.Equal(t, []string{"b", "e", "f"}, sessionIDs(all))

	res, err := ttlUser.Query(ctx, db, st.Values{"User": "u1"}, st.Limit(10))
	require.NoError(t, err)
	assert.Len(t, res.Items, 3)
	assert.Empty(t, res.Unknown)

	page, err = ttlSessions.Query(ctx, db, ttlSession{User: "u1"}, st.Limit(10), st.IncludeExpired())
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b", "c", "d", "e", "f"}, sessionIDs(page.Items))
}

func sessionIDs(vs []ttlSession) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.ID
	}
	return out
}

func TestSheetShowsExpiry(t *testing.T) {
	golden.Markdown(t, "sheet/ttl", ttlTable.Sheet())
	sheet := ttlTable.Sheet()
	assert.Contains(t, sheet, "expired items left out")
	assert.Contains(t, sheet, "Session (expires: ExpiresAt, 1h0m0s after write)")
	assert.Contains(t, sheet, "Invite (expires: Expires)")
	assert.Contains(t, sheet, "time to live in `ttl`")
}

// A pattern over an index that does not project the TTL attribute, of an
// entity with an expiry, is refused on every call without IncludeExpired
// or FetchFull: Lint says so before the first call.
func TestLintExpiryNotProjected(t *testing.T) {
	var found []string
	for _, issue := range ttlTable.Lint() {
		if strings.Contains(issue.Message, "TTL attribute") {
			found = append(found, issue.Subject)
			assert.Equal(t, st.LintWarning, issue.Severity)
			assert.Contains(t, issue.Message, "KeysIdx")
		}
	}
	assert.Equal(t, []string{"pattern SessionsByDeviceKeys"}, found, "the ALL index and the table need no warning")
}

// Scans leave expired items out as every read does, each item by its own
// entity's expiry: an item of an unknown type is never left out.
func TestScanLeavesOutExpired(t *testing.T) {
	c := &singletabletest.Client{}
	unknown := map[string]types.AttributeValue{"PK": s("X#1"), "SK": s("X"), "_type": s("Other"), "ttl": nAttr(ttlNow.Unix() - 60)}
	unknownLive := map[string]types.AttributeValue{"PK": s("X#2"), "SK": s("X"), "_type": s("Other")}
	c.ScanFunc = func(_ context.Context, in *dynamodb.ScanInput) (*dynamodb.ScanOutput, error) {
		items := []map[string]types.AttributeValue{
			ttlItem("past", nAttr(ttlNow.Unix()-1)),
			ttlItem("now", nAttr(ttlNow.Unix())), // expired: at the clock
			ttlItem("later", nAttr(ttlNow.Unix()+1)),
			ttlItem("never", nil),
		}
		if in.FilterExpression == nil { // the whole table, not the sessions'
			items = append(items, unknown, unknownLive)
		}
		return &dynamodb.ScanOutput{Items: items}, nil
	}
	db := ttlDB(c)
	ids := func(opts ...st.ScanOption) []string {
		var out []string
		for v, err := range ttlSessions.Scan(ctx, db, opts...) {
			require.NoError(t, err)
			out = append(out, v.ID)
		}
		return out
	}
	assert.Equal(t, []string{"later", "never"}, ids())
	assert.Equal(t, []string{"past", "now", "later", "never"}, ids(st.IncludeExpired()))

	keys := func(opts ...st.ScanOption) []string {
		var out []string
		for v, err := range db.Scan(ctx, opts...) {
			require.NoError(t, err)
			out = append(out, v.Entity+" "+v.Item["PK"].(*types.AttributeValueMemberS).Value+" "+v.Item["SK"].(*types.AttributeValueMemberS).Value)
		}
		return out
	}
	assert.Equal(t, []string{"Session USER#u1 SESSION#later", "Session USER#u1 SESSION#never", "Other X#1 X", "Other X#2 X"}, keys())
	assert.Len(t, keys(st.IncludeExpired()), 6)
	// The requests do not change: the check is on what comes back.
	in, err := ttlSessions.ScanInput(db)
	require.NoError(t, err)
	inAll, err := ttlSessions.ScanInput(db, st.IncludeExpired())
	require.NoError(t, err)
	assert.Equal(t, in, inAll)
}

// An expiry may be a pointer (nil: none): ExpiresAfter points a new item
// at its expiry, a value given is kept, an upsert sets it where the item
// has none, and a read decodes it and leaves the item out once it passes.
func TestPointerExpiry(t *testing.T) {
	type invite struct {
		Code    string     `dynamodbav:"code"`
		Note    string     `dynamodbav:"note"`
		Expires *time.Time `dynamodbav:"ttl,unixtime"`
	}
	type ticket struct {
		Code    string `dynamodbav:"code"`
		Expires *int64 `dynamodbav:"ttl"`
	}
	table := st.MustTable("PtrTTL", st.WithTTL("ttl"))
	invites := st.MustDefine[invite](table, "Invite", st.Key("INVITE#{Code}", "INVITE"), st.ExpiresAfter(time.Hour))
	tickets := st.MustDefine[ticket](table, "Ticket", st.Key("TICKET#{Code}", "TICKET"), st.Expires("Expires"))
	c := &singletabletest.Client{}
	db := st.New(c, table, st.WithClock(func() time.Time { return ttlNow }))

	in, err := invites.PutInput(db, invite{Code: "a"})
	require.NoError(t, err)
	assert.Equal(t, nAttr(ttlNow.Unix()+3600), in.Item["ttl"], "nil: ExpiresAfter sets it")
	given := ttlNow.Add(time.Minute)
	in, err = invites.PutInput(db, invite{Code: "a", Expires: &given})
	require.NoError(t, err)
	assert.Equal(t, nAttr(given.Unix()), in.Item["ttl"], "a value given is kept")
	_, err = invites.UpdateInput(db, invite{Code: "a"}, st.Set("Note", "hi"), st.Upsert())
	require.ErrorIs(t, err, st.ErrReadNeeded, "an upsert reads whether the item exists (TestExpiresAfterOnUpdate)")
	up, err := invites.UpdateInput(db, invite{Code: "a"}, st.Set("Expires", &given))
	require.NoError(t, err)
	assert.Contains(t, slices.Collect(maps.Values(up.ExpressionAttributeValues)), nAttr(given.Unix()))
	up, err = invites.UpdateInput(db, invite{Code: "a"}, st.Remove("Expires"))
	require.NoError(t, err)
	assert.Contains(t, *up.UpdateExpression, "REMOVE")

	in, err = tickets.PutInput(db, ticket{Code: "t"})
	require.NoError(t, err)
	assert.Equal(t, &types.AttributeValueMemberNULL{Value: true}, in.Item["ttl"], "nil without ExpiresAfter: no expiry")

	stored := map[string]types.AttributeValue{"PK": s("INVITE#a"), "SK": s("INVITE"), "_type": s("Invite"), "code": s("a")}
	c.GetItemFunc = func(context.Context, *dynamodb.GetItemInput) (*dynamodb.GetItemOutput, error) {
		return &dynamodb.GetItemOutput{Item: stored}, nil
	}
	for _, tc := range []struct {
		ttl   types.AttributeValue
		found bool
	}{
		{nAttr(ttlNow.Unix() + 1), true},
		{nAttr(ttlNow.Unix()), false},
		{&types.AttributeValueMemberNULL{Value: true}, true},
	} {
		stored["ttl"] = tc.ttl
		got, err := invites.Get(ctx, db, invite{Code: "a"})
		if !tc.found {
			require.ErrorIs(t, err, st.ErrNotFound)
			continue
		}
		require.NoError(t, err)
		if n, ok := tc.ttl.(*types.AttributeValueMemberN); ok {
			require.NotNil(t, got.Expires)
			assert.Equal(t, n.Value, strconv.FormatInt(got.Expires.Unix(), 10))
		} else {
			assert.Nil(t, got.Expires)
		}
	}
}

// An upsert is conditioned on the item not having expired; when it has,
// Update deletes it (on the condition that it still holds that expiry)
// and sends the same request again, which makes a new item.
func TestUpsertReplacesAnExpiredItem(t *testing.T) {
	ctx := context.Background()
	c := &singletabletest.Client{}
	db := ttlDB(c)
	expired := ttlItem("s1", nAttr(ttlNow.Unix()-60))
	updates := 0
	c.UpdateItemFunc = func(_ context.Context, in *dynamodb.UpdateItemInput) (*dynamodb.UpdateItemOutput, error) {
		if updates++; updates == 1 {
			return nil, &types.ConditionalCheckFailedException{Message: strp("The conditional request failed"), Item: expired}
		}
		return &dynamodb.UpdateItemOutput{Attributes: ttlItem("s1", nAttr(ttlNow.Unix()+60))}, nil
	}
	_, err := ttlSessions.Update(ctx, db, ttlSession{User: "u1", ID: "s1"}, st.Set("ExpiresAt", ttlNow.Add(time.Minute)), st.Upsert())
	require.NoError(t, err)

	calls := c.Calls()
	require.Len(t, calls, 3)
	assert.Equal(t, []string{"UpdateItem", "DeleteItem", "UpdateItem"}, []string{calls[0].Op, calls[1].Op, calls[2].Op})
	update := calls[0].Input.(*dynamodb.UpdateItemInput)
	assert.Contains(t, *update.ConditionExpression, "attribute_exists", "first the update of an existing item")
	assert.Contains(t, *update.ConditionExpression, "NOT (")
	create := calls[2].Input.(*dynamodb.UpdateItemInput)
	assert.Equal(t, "attribute_not_exists(#n9)", *create.ConditionExpression, "then, the expired item deleted, the creation of a new one")
	assert.Contains(t, slices.Collect(maps.Values(create.ExpressionAttributeNames)), "device", "with the zero values Put stores")
	del := calls[1].Input.(*dynamodb.DeleteItemInput)
	assert.Equal(t, "#ttl = :ttl", *del.ConditionExpression)
	assert.Equal(t, map[string]string{"#ttl": "ttl"}, del.ExpressionAttributeNames)
	assert.Equal(t, expired["ttl"], del.ExpressionAttributeValues[":ttl"], "deleted only if it still holds the expiry found")
	assert.Equal(t, map[string]types.AttributeValue{"PK": s("USER#u1"), "SK": s("SESSION#s1")}, del.Key)

	// A live item that fails the condition is not deleted.
	c.Reset()
	updates = 0
	live := ttlItem("s1", nAttr(ttlNow.Unix()+60))
	c.UpdateItemFunc = func(context.Context, *dynamodb.UpdateItemInput) (*dynamodb.UpdateItemOutput, error) {
		return nil, &types.ConditionalCheckFailedException{Message: strp("The conditional request failed"), Item: live}
	}
	_, err = ttlSessions.Update(ctx, db, ttlSession{User: "u1", ID: "s1"},
		st.Set("ExpiresAt", ttlNow.Add(time.Minute)).If(st.Eq("Device", "other")), st.Upsert())
	require.ErrorIs(t, err, st.ErrConditionFailed)
	assert.Len(t, c.Calls(), 1, "no delete, no second update")
}
