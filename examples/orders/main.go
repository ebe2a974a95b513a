// Command orders runs every access pattern of the seed article
// dynamodb-access-patterns.txt against DynamoDB Local: it prints the
// access-pattern sheet and the model's lint, creates the table, writes the
// seed's users, orders, order items and team memberships, runs each named
// pattern, prints the results, and exits non-zero if any result differs
// from what the seed data implies.
//
//	scripts/dynamodb-local.sh run -- go run ./examples/orders
//	make examples   # runs every example, this one included
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/examplekit"
	"github.com/singletable/singletable/singletabletest/local"
)

func main() {
	if err := run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		os.Exit(1)
	}
	fmt.Println("\nEvery access pattern returned what the seed data implies.")
}

var (
	users = []User{
		{ID: "user_123", Name: "Ann Lee", Email: "user@example.com", Created: "2025-11-02"},
		{ID: "user_456", Name: "Bo Chen", Email: "bo@example.com", Created: "2025-12-10"},
	}
	orders = []Order{
		{UserID: "user_123", ID: "order_455", Date: "2025-12-24", Status: "DELIVERED", Total: 15.5},
		{UserID: "user_123", ID: "order_456", Date: "2026-02-17", Status: "PENDING", Total: 49.97, Address: "1 Main St"},
		{UserID: "user_123", ID: "order_457", Date: "2026-02-28", Status: "SHIPPED", Total: 12},
		{UserID: "user_123", ID: "order_458", Date: "2026-02-28", Status: "PENDING", Total: 7.25},
		{UserID: "user_123", ID: "order_459", Date: "2026-03-01", Status: "SHIPPED", Total: 30},
		{UserID: "user_456", ID: "order_500", Date: "2026-01-20", Status: "PENDING", Total: 9.99},
	}
	items = []OrderItem{
		{OrderID: "order_456", ID: "item_789", ProductID: "product_1", Quantity: 2, UnitPrice: 19.99},
		{OrderID: "order_456", ID: "item_790", ProductID: "product_2", Quantity: 1, UnitPrice: 9.99},
		{OrderID: "order_500", ID: "item_801", ProductID: "product_1", Quantity: 1, UnitPrice: 9.99},
	}
	memberships = []Membership{
		{UserID: "user_123", TeamID: "team_456", Role: "admin", Joined: "2025-11-03"},
		{UserID: "user_123", TeamID: "team_789", Role: "member", Joined: "2026-01-04"},
		{UserID: "user_456", TeamID: "team_456", Role: "member", Joined: "2025-12-11"},
	}
)

// seedPatterns is the seed's list of access patterns, in its order, as the
// sheet must name them.
var seedPatterns = []string{
	"GetUser", "ListUserOrders", "UserOrdersByDate", "PendingOrders", "GetOrder",
	"ListOrderItems", "OrdersWithProduct", "UserByEmail", "UserTeams", "TeamMembers",
	"UserProfile", "OrderWithItems",
}

func run(ctx context.Context) error {
	fmt.Print(Shop.Sheet())
	fmt.Println("\nLint:")
	fmt.Print(indent(st.LintReport(Shop.Lint())))

	var c examplekit.Checker
	fmt.Println("\nModel checks:")
	sheet := Shop.Sheet()
	var order []int
	for _, name := range seedPatterns {
		order = append(order, strings.Index(sheet, "| "+name+" "))
	}
	c.That("the sheet lists every seed pattern, in the seed's order", !slices.Contains(order, -1) && slices.IsSorted(order))
	for _, issue := range Shop.Lint() {
		c.That("lint: no warning or error ("+issue.String()+")", issue.Severity == st.LintInfo)
	}

	client, err := local.Client(ctx)
	if err != nil {
		return err
	}
	db := st.New(client, Shop, st.WithTableName(examplekit.UniqueName("orders-example")))
	if err := db.EnsureTable(ctx); err != nil {
		return err
	}
	defer func() { _ = db.DeleteTable(context.Background()) }()
	if err := write(ctx, db); err != nil {
		return err
	}
	if err := patterns(ctx, db, &c); err != nil {
		return err
	}
	if err := lifecycle(ctx, db, &c); err != nil {
		return err
	}
	return c.Err()
}

func write(ctx context.Context, db *st.DB) error {
	for _, u := range users {
		if err := Users.Put(ctx, db, u); err != nil {
			return err
		}
	}
	for _, o := range orders {
		if err := Orders.Put(ctx, db, o); err != nil {
			return err
		}
		d := OrderDetail{OrderID: o.ID, UserID: o.UserID, Status: o.Status, Total: o.Total, Created: o.Date}
		if err := OrderDetails.Put(ctx, db, d); err != nil {
			return err
		}
	}
	for _, it := range items {
		if err := OrderItems.Put(ctx, db, it); err != nil {
			return err
		}
	}
	for _, m := range memberships {
		if err := Memberships.Put(ctx, db, m); err != nil {
			return err
		}
	}
	return nil
}

// results prints one pattern's results as a table.
func results(title string, header string, rows []string) {
	fmt.Printf("\n%s\n", title)
	w := tabwriter.NewWriter(os.Stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(w, "  "+header)
	for _, r := range rows {
		fmt.Fprintln(w, "  "+r)
	}
	_ = w.Flush()
}

func orderRows(os []Order) []string {
	var rows []string
	for _, o := range os {
		rows = append(rows, fmt.Sprintf("%s\t%s\t%s\t%s\t%.2f", o.UserID, o.ID, o.Date, o.Status, o.Total))
	}
	return rows
}

const orderHeader = "user\torder\tdate\tstatus\ttotal"

func ids(os []Order) []string {
	var out []string
	for _, o := range os {
		out = append(out, o.ID)
	}
	return out
}

func patterns(ctx context.Context, db *st.DB, c *examplekit.Checker) error {
	// 1. Get user.
	u, err := GetUser.Get(ctx, db, User{ID: "user_123"})
	if err != nil {
		return err
	}
	results("1. GetUser (GetItem) user_123", "id\tname\temail", []string{u.ID + "\t" + u.Name + "\t" + u.Email})
	c.Equal("GetUser", users[0], u)
	if _, err := GetUser.Get(ctx, db, User{ID: "user_999"}); !errors.Is(err, st.ErrNotFound) {
		c.Equal("GetUser of a missing user is ErrNotFound", st.ErrNotFound, err)
	}

	// 2. A user's orders, newest first, two per page.
	var all []Order
	cursor := ""
	for pages := 1; ; pages++ {
		page, err := ListUserOrders.Query(ctx, db, Order{UserID: "user_123"}, st.Limit(2), st.After(cursor))
		if err != nil {
			return err
		}
		all = append(all, page.Items...)
		if page.Cursor == "" || pages > 10 {
			break
		}
		cursor = page.Cursor
	}
	results("2. ListUserOrders user_123, descending, pages of 2", orderHeader, orderRows(all))
	c.Equal("ListUserOrders: newest first", []string{"order_459", "order_458", "order_457", "order_456", "order_455"}, ids(all))

	// 2b. Orders in a date range: the whole last day included.
	page, err := UserOrdersByDate.QueryBetween(ctx, db, Order{UserID: "user_123", Date: "2026-01-01"}, Order{Date: "2026-02-28"})
	if err != nil {
		return err
	}
	results("2b. UserOrdersByDate user_123, 2026-01-01 .. 2026-02-28", orderHeader, orderRows(page.Items))
	c.Equal("UserOrdersByDate", []string{"order_456", "order_457", "order_458"}, ids(page.Items))

	// 3. Pending orders across users, through the sparse index.
	var pending []Order
	for o, err := range PendingOrders.All(ctx, db, Order{}) {
		if err != nil {
			return err
		}
		pending = append(pending, o)
	}
	results("3. PendingOrders (sparse GSI1)", orderHeader, orderRows(pending))
	c.Equal("PendingOrders", []string{"order_500", "order_456", "order_458"}, ids(pending))

	// 4. Order by id.
	d, err := GetOrder.Get(ctx, db, OrderDetail{OrderID: "order_456"})
	if err != nil {
		return err
	}
	results("4. GetOrder (GetItem) order_456", "order\tuser\tstatus\ttotal", []string{fmt.Sprintf("%s\t%s\t%s\t%.2f", d.OrderID, d.UserID, d.Status, d.Total)})
	c.Equal("GetOrder", OrderDetail{OrderID: "order_456", UserID: "user_123", Status: "PENDING", Total: 49.97, Created: "2026-02-17"}, d)

	// 5. Items of an order.
	its, err := ListOrderItems.Query(ctx, db, OrderItem{OrderID: "order_456"})
	if err != nil {
		return err
	}
	var rows []string
	for _, it := range its.Items {
		rows = append(rows, fmt.Sprintf("%s\t%s\t%d\t%.2f", it.ID, it.ProductID, it.Quantity, it.UnitPrice))
	}
	results("5. ListOrderItems order_456", "item\tproduct\tqty\tprice", rows)
	c.Equal("ListOrderItems", items[:2], its.Items)

	// 6. Orders containing a product.
	withProduct, err := OrdersWithProduct.Query(ctx, db, OrderItem{ProductID: "product_1"})
	if err != nil {
		return err
	}
	var orderIDs []string
	rows = nil
	for _, it := range withProduct.Items {
		orderIDs = append(orderIDs, it.OrderID)
		rows = append(rows, it.OrderID+"\t"+it.ID)
	}
	results("6. OrdersWithProduct product_1 (GSI1)", "order\titem", rows)
	c.Equal("OrdersWithProduct", []string{"order_456", "order_500"}, orderIDs)

	// User by email (overloaded GSI1).
	byEmail, err := UserByEmail.Get(ctx, db, User{Email: "user@example.com"})
	if err != nil {
		return err
	}
	results("7. UserByEmail user@example.com (GSI1)", "id\tname", []string{byEmail.ID + "\t" + byEmail.Name})
	c.Equal("UserByEmail", users[0], byEmail)

	// Team membership both ways.
	teams, err := UserTeams.Query(ctx, db, Membership{UserID: "user_123"})
	if err != nil {
		return err
	}
	rows = nil
	for _, m := range teams.Items {
		rows = append(rows, m.TeamID+"\t"+m.Role)
	}
	results("8a. UserTeams user_123", "team\trole", rows)
	c.Equal("UserTeams", memberships[:2], teams.Items)

	keysOnly, err := TeamMembers.Query(ctx, db, Membership{TeamID: "team_456"})
	if err != nil {
		return err
	}
	full, err := TeamMembers.Query(ctx, db, Membership{TeamID: "team_456"}, st.FetchFull())
	if err != nil {
		return err
	}
	rows = nil
	for i, m := range full.Items {
		rows = append(rows, m.UserID+"\t"+m.Role+"\t"+keysOnly.Items[i].UserID)
	}
	results("8b. TeamMembers team_456 (GSI2, KEYS_ONLY; FetchFull reads the rest)", "user\trole\tuser (keys only)", rows)
	c.Equal("TeamMembers, keys only: IDs recovered from the keys",
		[]Membership{{UserID: "user_123", TeamID: "team_456"}, {UserID: "user_456", TeamID: "team_456"}}, keysOnly.Items)
	c.Equal("TeamMembers, fetched in full", []Membership{memberships[0], memberships[2]}, full.Items)

	// Item collections.
	profile, err := UserProfile.Query(ctx, db, st.Values{"UserID": "user_123"})
	if err != nil {
		return err
	}
	results("9. UserProfile user_123 (one Query, three entity types)", "entity\tcount",
		[]string{fmt.Sprintf("User\t%d", len(Users.From(profile))), fmt.Sprintf("Order\t%d", len(Orders.From(profile))),
			fmt.Sprintf("Membership\t%d", len(Memberships.From(profile))), fmt.Sprintf("unknown\t%d", len(profile.Unknown))})
	c.Equal("UserProfile: the user", []User{users[0]}, Users.From(profile))
	c.Equal("UserProfile: orders", []string{"order_455", "order_456", "order_457", "order_458", "order_459"}, ids(Orders.From(profile)))
	c.Equal("UserProfile: memberships", memberships[:2], Memberships.From(profile))
	c.Equal("UserProfile: no unknown items", 0, len(profile.Unknown))

	withItems, err := OrderWithItems.Query(ctx, db, st.Values{"OrderID": "order_456"}, st.ConsistentRead())
	if err != nil {
		return err
	}
	results("10. OrderWithItems order_456", "entity\tcount",
		[]string{fmt.Sprintf("OrderDetail\t%d", len(OrderDetails.From(withItems))), fmt.Sprintf("OrderItem\t%d", len(OrderItems.From(withItems)))})
	c.Equal("OrderWithItems: detail", 1, len(OrderDetails.From(withItems)))
	c.Equal("OrderWithItems: items", items[:2], OrderItems.From(withItems))
	return nil
}

// lifecycle shows the sparse index following updates: an order that ships
// leaves PendingOrders, and a strongly consistent read on a GSI is refused
// before anything is sent.
func lifecycle(ctx context.Context, db *st.DB, c *examplekit.Checker) error {
	fmt.Println("\nLifecycle:")
	if _, err := Orders.Update(ctx, db, Order{UserID: "user_123", Date: "2026-02-17", ID: "order_456"}, st.Set("Status", "SHIPPED")); err != nil {
		return err
	}
	page, err := PendingOrders.Query(ctx, db, Order{})
	if err != nil {
		return err
	}
	c.Equal("order_456 shipped: it left the sparse index", []string{"order_500", "order_458"}, ids(page.Items))
	_, err = PendingOrders.Query(ctx, db, Order{}, st.ConsistentRead())
	c.That("ConsistentRead on a GSI is refused before sending", errors.Is(err, st.ErrInvalidInput))
	first, err := ListUserOrders.Query(ctx, db, Order{UserID: "user_123"}, st.Limit(1))
	if err != nil {
		return err
	}
	_, err = ListUserOrders.Query(ctx, db, Order{UserID: "user_456"}, st.After(first.Cursor))
	c.That("user_123's cursor is refused for user_456", errors.Is(err, st.ErrInvalidCursor))
	return nil
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n  ") + "\n"
}
