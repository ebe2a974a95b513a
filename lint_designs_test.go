package singletable_test

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/singletabletest"
)

// Five single-table designs published in AWS sample repositories,
// re-expressed with the library's keys (issue 25): lint must raise no false
// errors or warnings on them.

type gameUser struct {
	Username string `dynamodbav:"username"`
	Name     string `dynamodbav:"name"`
}

type gameGame struct {
	GameID   string     `dynamodbav:"game_id"`
	Map      string     `dynamodbav:"map"`
	OpenedAt *time.Time `dynamodbav:"open_timestamp"`
}

type gamePlayer struct {
	GameID   string `dynamodbav:"game_id"`
	Username string `dynamodbav:"username"`
}

// designGame: a battle royale game. Users and games keep their metadata
// under "#METADATA#"; a game's partition holds its players; a sparse index
// of open games by map; an inverted index (the table's keys swapped) lists
// a user's games.
func designGame(t *testing.T) *st.Table {
	tbl := st.MustTable("Game",
		st.WithGSI("OpenGames", st.IndexKeys("map", "open_timestamp")),
		st.WithGSI("Inverted"))
	users := st.MustDefine[gameUser](tbl, "User", st.Key("USER#{Username}", "#METADATA#{Username}"),
		st.Index("Inverted", "#METADATA#{Username}", "USER#{Username}"))
	games := st.MustDefine[gameGame](tbl, "Game", st.Key("GAME#{GameID}", "#METADATA#{GameID}"),
		st.Index("Inverted", "#METADATA#{GameID}", "GAME#{GameID}"))
	players := st.MustDefine[gamePlayer](tbl, "Player", st.Key("GAME#{GameID}", "USER#{Username}"),
		st.Index("Inverted", "USER#{Username}", "GAME#{GameID}"))
	_ = users
	games.Pattern("OpenGamesByMap").On("OpenGames").Partition("{Map}").Must()
	games.Pattern("OpenGames").On("OpenGames").ScanIndex().Must()
	players.Pattern("GamePlayers").Partition("GAME#{GameID}").SortBeginsWith("USER#").Must()
	players.Pattern("UserGames").On("Inverted").Partition("USER#{Username}").Must()
	tbl.Collection("GameWithPlayers", games, players).Partition("GAME#{GameID}").Must()
	return tbl
}

type (
	shopCustomer  struct{ CustomerID string }
	shopProduct   struct{ ProductID string }
	shopWarehouse struct{ WarehouseID string }
	shopStock     struct {
		ProductID, WarehouseID string
		Count                  int
	}
	shopOrder     struct{ OrderID, CustomerID string }
	shopOrderItem struct {
		OrderID, ProductID, CustomerID string
		OrderDate                      time.Time
	}
	shopInvoice struct {
		OrderID, InvoiceID, CustomerID string
		Date                           time.Time
	}
	shopShipment     struct{ OrderID, ShipmentID, WarehouseID string }
	shopShipmentItem struct{ OrderID, ShipmentID, ProductID string }
)

// designShop: an online shop. Customers, products and warehouses are their
// own partitions (PK = SK); an order's partition holds its items, invoice,
// shipments and shipment items; two overloaded indexes serve the rest.
func designShop(t *testing.T) *st.Table {
	tbl := st.MustTable("Shop", st.WithGSI("GSI1"), st.WithGSI("GSI2"))
	st.MustDefine[shopCustomer](tbl, "Customer", st.Key("c#{CustomerID}", "c#{CustomerID}"))
	st.MustDefine[shopProduct](tbl, "Product", st.Key("p#{ProductID}", "p#{ProductID}"))
	st.MustDefine[shopWarehouse](tbl, "Warehouse", st.Key("w#{WarehouseID}", "w#{WarehouseID}"))
	stock := st.MustDefine[shopStock](tbl, "WarehouseItem", st.Key("p#{ProductID}", "w#{WarehouseID}"),
		st.Index("GSI2", "w#{WarehouseID}", "p#{ProductID}"))
	orders := st.MustDefine[shopOrder](tbl, "Order", st.Key("o#{OrderID}", "o#{OrderID}"))
	items := st.MustDefine[shopOrderItem](tbl, "OrderItem", st.Key("o#{OrderID}", "p#{ProductID}"), st.Timestamps("OrderDate", ""),
		st.Index("GSI1", "p#{ProductID}", "{OrderDate:2006-01-02T15:04:05}"),
		st.Index("GSI2", "c#{CustomerID}", "p#{OrderDate:2006-01-02}"))
	invoices := st.MustDefine[shopInvoice](tbl, "Invoice", st.Key("o#{OrderID}", "i#{InvoiceID}"), st.Timestamps("Date", ""),
		st.Index("GSI1", "i#{InvoiceID}", "i#{InvoiceID}"),
		st.Index("GSI2", "c#{CustomerID}", "i#{Date:2006-01-02}"))
	shipments := st.MustDefine[shopShipment](tbl, "Shipment", st.Key("o#{OrderID}", "sh#{ShipmentID}"),
		st.Index("GSI1", "sh#{ShipmentID}", "sh#{ShipmentID}"),
		st.Index("GSI2", "w#{WarehouseID}", "sh#{ShipmentID}"))
	shipItems := st.MustDefine[shopShipmentItem](tbl, "ShipmentItem", st.Key("o#{OrderID}", "sh#{ShipmentID}#p#{ProductID}"),
		st.Index("GSI1", "sh#{ShipmentID}", "p#{ProductID}"))
	stock.Pattern("ProductInventory").Partition("p#{ProductID}").SortBeginsWith("w#").Must()
	tbl.Collection("OrderDetails", orders, items, invoices, shipments, shipItems).Partition("o#{OrderID}").Must()
	items.Pattern("OrderProducts").Partition("o#{OrderID}").SortBeginsWith("p#").Must()
	invoices.Pattern("OrderInvoice").Partition("o#{OrderID}").SortBeginsWith("i#").Must()
	shipments.Pattern("OrderShipments,overlaps=ShipmentItem").Partition("o#{OrderID}").SortBeginsWith("sh#").Must()
	items.Pattern("ProductOrders").On("GSI1").Partition("p#{ProductID}").SortBetween().Must()
	invoices.Pattern("InvoiceByID").On("GSI1").Partition("i#{InvoiceID}").SortEquals().Must()
	tbl.Collection("ShipmentDetail", shipments, shipItems).On("GSI1").Partition("sh#{ShipmentID}").Must()
	shipments.Pattern("WarehouseShipments").On("GSI2").Partition("w#{WarehouseID}").SortBeginsWith("sh#").Must()
	stock.Pattern("WarehouseInventory").On("GSI2").Partition("w#{WarehouseID}").SortBeginsWith("p#").Must()
	invoices.Pattern("CustomerInvoices").On("GSI2").Partition("c#{CustomerID}").SortBetween().Must()
	items.Pattern("CustomerProducts").On("GSI2").Partition("c#{CustomerID}").SortBetween().Must()
	return tbl
}

type (
	hrEmployee struct {
		ID, Name, City, Dept, Title string
		Manager                     string
	}
	hrDept struct{ City, Dept, Head string }
)

// designHR: employees, found by ID, by location (a composite "city#dept"
// key), by manager and by title on overloaded indexes.
func designHR(t *testing.T) *st.Table {
	tbl := st.MustTable("HumanResources", st.WithGSI("GSI1"), st.WithGSI("GSI2"))
	emps := st.MustDefine[hrEmployee](tbl, "Employee", st.Key("EMP#{ID}", "EMP#{ID}"),
		st.Index("GSI1", "{City}#{Dept}", "EMP#{Name}"),
		st.Index("GSI2", "MGR#{Manager}", "{Title}#{Name}"))
	depts := st.MustDefine[hrDept](tbl, "Department", st.Key("DEPT#{City}#{Dept}", "DEPT"),
		st.Index("GSI1", "{City}#{Dept}", "DEPT"))
	emps.Pattern("EmployeesAt").On("GSI1").Partition("{City}#{Dept}").Must()
	emps.Pattern("EmployeesInCity").On("GSI1").Partition("{City}#{Dept}").SortBeginsWith("EMP#").Must()
	emps.Pattern("Reports").On("GSI2").Partition("MGR#{Manager}").Must()
	emps.Pattern("ReportsByTitle").On("GSI2").Partition("MGR#{Manager}").SortPrefix().Must()
	tbl.Collection("Location", emps, depts).On("GSI1").Partition("{City}#{Dept}").Must()
	return tbl
}

type (
	chatRoom    struct{ Room, Title string }
	chatMessage struct {
		Room string
		At   time.Time
		Text string
	}
	chatJoin struct{ Room, User string }
)

// designChat: a room's partition holds its metadata, its members
// ("Join:{User}") and its messages under a bare timestamp sort key; an
// inverted index lists a user's rooms.
func designChat(t *testing.T) *st.Table {
	tbl := st.MustTable("Chat", st.WithGSI("GSI1"))
	rooms := st.MustDefine[chatRoom](tbl, "Room", st.Key("ROOM#{Room}", "Meta"))
	msgs := st.MustDefine[chatMessage](tbl, "Message", st.Key("ROOM#{Room}", "{At}"))
	joins := st.MustDefine[chatJoin](tbl, "Join", st.Key("ROOM#{Room}", "Join:{User}"),
		st.Index("GSI1", "USER#{User}", "ROOM#{Room}"))
	_ = rooms
	msgs.Pattern("MessagesBetween").Partition("ROOM#{Room}").SortBetween().Must()
	msgs.Pattern("MessagesSince,overlaps=Join+Room").Partition("ROOM#{Room}").SortGreaterOrEqual().Must()
	joins.Pattern("Members").Partition("ROOM#{Room}").SortBeginsWith("Join:").Must()
	joins.Pattern("UserRooms").On("GSI1").Partition("USER#{User}").Must()
	return tbl
}

type (
	paySubscription struct {
		Account, Sub, SKU string
		NextPayment       *time.Time
		NextReminder      *time.Time
	}
	payReceipt struct {
		Account, SKU string
		ProcessedAt  time.Time
		ExpiresAt    time.Time `dynamodbav:"ttl,unixtime"`
	}
)

// designPayments: recurring payments. An account's partition holds its
// subscriptions and receipts (which expire); one index lists the
// subscriptions due on a day, a sparse one the reminders to send.
func designPayments(t *testing.T) *st.Table {
	tbl := st.MustTable("Payments", st.WithGSI("GSI1"), st.WithGSI("GSI2"), st.WithTTL("ttl"))
	subs := st.MustDefine[paySubscription](tbl, "Subscription", st.Key("ACC#{Account}", "SUB#{Sub}#SKU#{SKU}"),
		st.Index("GSI1", "{NextPayment:2006-01-02}", "ACC#{Account}#SUB#{Sub}"),
		st.Index("GSI2", "{NextReminder:2006-01-02}", "ACC#{Account}#SUB#{Sub}"))
	receipts := st.MustDefine[payReceipt](tbl, "Receipt", st.Key("ACC#{Account}", "REC#{ProcessedAt:2006-01-02T15:04:05}#SKU#{SKU}"),
		st.Expires("ExpiresAt"))
	subs.Pattern("Subscriptions").Partition("ACC#{Account}").Must()
	receipts.Pattern("Receipts").Partition("ACC#{Account}").SortBetween().Must()
	subs.Pattern("DueOn").On("GSI1").Partition("{NextPayment:2006-01-02}").Must()
	subs.Pattern("RemindOn").On("GSI2").Partition("{NextReminder:2006-01-02}").Must()
	return tbl
}

func TestLintPublishedDesigns(t *testing.T) {
	for name, build := range map[string]func(*testing.T) *st.Table{
		"game": designGame, "shop": designShop, "hr": designHR, "chat": designChat, "payments": designPayments,
	} {
		t.Run(name, func(t *testing.T) {
			for _, issue := range build(t).Lint() {
				assert.Equal(t, st.LintInfo, issue.Severity, "%s", issue)
			}
		})
	}
	// The overlaps the chat design intends are still reported, as info.
	var infos []string
	for _, issue := range designChat(t).Lint() {
		infos = append(infos, issue.String())
	}
	assert.Len(t, infos, 2)
	for _, s := range infos {
		assert.Contains(t, s, "info: pattern MessagesSince")
		assert.Contains(t, s, "as declared (overlaps=")
	}
}

// The same designs broken on purpose: each true overlap is still found.
func TestLintPublishedDesignsBroken(t *testing.T) {
	severities := func(tbl *st.Table) map[st.LintSeverity]int {
		n := map[st.LintSeverity]int{}
		for _, issue := range tbl.Lint() {
			n[issue.Severity]++
		}
		return n
	}
	// Chat: members under a bare user name share the room's partition
	// with bare timestamps (a user named "2026-..." would be a message).
	tbl := st.MustTable("Chat", st.WithGSI("GSI1"))
	st.MustDefine[chatMessage](tbl, "Message", st.Key("ROOM#{Room}", "{At}"))
	st.MustDefine[chatJoin](tbl, "Join", st.Key("ROOM#{Room}", "{User}"))
	assert.Equal(t, 1, severities(tbl)[st.LintError], st.LintReport(tbl.Lint()))

	// Chat: a read past a time reaches the members, undeclared: a warning.
	tbl = st.MustTable("Chat", st.WithGSI("GSI1"))
	msgs := st.MustDefine[chatMessage](tbl, "Message", st.Key("ROOM#{Room}", "{At}"))
	st.MustDefine[chatJoin](tbl, "Join", st.Key("ROOM#{Room}", "Join:{User}"))
	msgs.Pattern("MessagesSince").Partition("ROOM#{Room}").SortGreaterOrEqual().Must()
	assert.Equal(t, map[st.LintSeverity]int{st.LintWarning: 1}, severities(tbl), st.LintReport(tbl.Lint()))

	// Shop: shipment items under the shipments' own sort key overwrite them.
	tbl = st.MustTable("Shop")
	st.MustDefine[shopShipment](tbl, "Shipment", st.Key("o#{OrderID}", "sh#{ShipmentID}"))
	st.MustDefine[shopShipmentItem](tbl, "ShipmentItem", st.Key("o#{OrderID}", "sh#{ProductID}"))
	assert.Equal(t, 1, severities(tbl)[st.LintError], st.LintReport(tbl.Lint()))

	// Game: players in the inverted index under the metadata partition
	// beside users: a user's entry and a player's can be one key there.
	tbl = st.MustTable("Game", st.WithGSI("Inverted"))
	st.MustDefine[gameUser](tbl, "User", st.Key("USER#{Username}", "#METADATA#{Username}"),
		st.Index("Inverted", "#METADATA#{Username}", "USER#{Username}"))
	st.MustDefine[gamePlayer](tbl, "Player", st.Key("GAME#{GameID}", "USER#{Username}"),
		st.Index("Inverted", "#METADATA#{GameID}", "USER#{Username}"))
	assert.Equal(t, 1, severities(tbl)[st.LintWarning], st.LintReport(tbl.Lint()))

	// Payments: a declared overlap with an entity that does not exist.
	tbl = st.MustTable("Payments")
	subs := st.MustDefine[paySubscription](tbl, "Subscription", st.Key("ACC#{Account}", "SUB#{Sub}#SKU#{SKU}"))
	subs.Pattern("Subscriptions,overlaps=Receipts").Partition("ACC#{Account}").Must()
	issues := tbl.Lint()
	if assert.Len(t, issues, 1) {
		assert.Contains(t, issues[0].String(), "warning: pattern Subscriptions: overlaps=Receipts names no entity")
	}
}

// A malformed option after a read's name is the declaration's error.
func TestReadNameOptionRefused(t *testing.T) {
	tbl := st.MustTable("Chat")
	msgs := st.MustDefine[chatMessage](tbl, "Message", st.Key("ROOM#{Room}", "{At}"))
	for _, name := range []string{"M,overlap=Join", "M,overlaps=", "M,overlaps=Join+"} {
		err := msgs.Pattern(name).Partition("ROOM#{Room}").Err()
		assert.ErrorIs(t, err, st.ErrInvalidModel, name)
	}
	err := tbl.Collection("C,nope", msgs).Partition("ROOM#{Room}").Err()
	assert.ErrorIs(t, err, st.ErrInvalidModel)
	p := msgs.Pattern("Since,overlaps=Join").Partition("ROOM#{Room}").SortGreaterOrEqual().Must()
	assert.Equal(t, "Since", p.Name())
}

type shapedItem struct {
	Tenant string
	ID     string
	Name   string
}

// A declared shape is a promise lint relies on: a hex id beside "Join:"
// keys is no collision, and a value outside the shape is refused with a
// *KeyError (ErrInvalidKey) naming the field before anything is sent, by
// every write and every key built for a read.
func TestKeyShapeRefusedBeforeSending(t *testing.T) {
	tbl := st.MustTable("Shaped")
	items := st.MustDefine[shapedItem](tbl, "Item", st.Key("T#{Tenant}", "{ID:hex}"))
	st.MustDefine[chatJoin](tbl, "Join", st.Key("T#{Room}", "Join:{User}"))
	assert.Empty(t, tbl.Lint(), st.LintReport(tbl.Lint()))

	unshaped := st.MustTable("Unshaped")
	st.MustDefine[shapedItem](unshaped, "Item", st.Key("T#{Tenant}", "{ID}"))
	st.MustDefine[chatJoin](unshaped, "Join", st.Key("T#{Room}", "Join:{User}"))
	assert.Len(t, unshaped.Lint(), 1, "without the shape, the keys can collide")

	c := &singletabletest.Client{}
	db := st.New(c, tbl)
	ctx := context.Background()
	bad := shapedItem{Tenant: "t", ID: "Join:ann"}
	check := func(what string, err error) {
		t.Helper()
		var ke *st.KeyError
		if assert.ErrorAs(t, err, &ke, what) {
			assert.Equal(t, "ID", ke.Field, what)
			assert.Contains(t, ke.Reason, "shape hex", what)
		}
		assert.ErrorIs(t, err, st.ErrInvalidKey, what)
	}
	check("Put", items.Put(ctx, db, bad))
	check("Create", items.Create(ctx, db, bad))
	_, err := items.Update(ctx, db, bad, st.Set("Name", "x"))
	check("Update", err)
	_, err = items.Get(ctx, db, bad)
	check("Get", err)
	check("Delete", items.Delete(ctx, db, bad))
	assert.Empty(t, c.Calls(), "nothing sent")

	require.NoError(t, items.Put(ctx, db, shapedItem{Tenant: "t", ID: "00ff"}))
	assert.Len(t, c.Calls(), 1)

	// A stored key outside the shape is not this entity's.
	_, err = tbl.Decode(map[string]types.AttributeValue{
		"PK": adoptUnitS("T#t"), "SK": adoptUnitS("xyz"), "_type": adoptUnitS("Item")})
	assert.Error(t, err)
}
