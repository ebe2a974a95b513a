// Command migrate adds an index to the model of a table that already holds
// thousands of items, against DynamoDB Local: model v1 stores 3000 orders;
// model v2 adds an index by customer (and the key attributes it needs);
// EnsureTable adds the index to the live table; a dry run reports what the
// backfill would change; the backfill is interrupted part-way (a crash)
// and resumed from its checkpoint file; then the new pattern returns every
// order, and a full run finds nothing left to change. It exits non-zero if
// any result is wrong.
//
//	scripts/dynamodb-local.sh run -- go run ./examples/migrate
//	make examples   # runs every example, this one included
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/examplekit"
	"github.com/singletable/singletable/migrate"
	"github.com/singletable/singletable/singletabletest/local"
)

// Order is the same Go type under both models.
type Order struct {
	CustomerID string  `dynamodbav:"customerId"`
	ID         string  `dynamodbav:"orderId"`
	Status     string  `dynamodbav:"status"`
	Total      float64 `dynamodbav:"total"`
}

// Model v1: orders by id only.
var (
	V1       = st.MustTable("MigrateDemo")
	OrdersV1 = st.MustDefine[Order](V1, "Order", st.Key("ORDER#{ID}", "ORDER"))
)

// Model v2: the same orders, also in GSI1 under their customer.
var (
	V2       = st.MustTable("MigrateDemo", st.WithGSI("GSI1"))
	OrdersV2 = st.MustDefine[Order](V2, "Order", st.Key("ORDER#{ID}", "ORDER"),
		st.Index("GSI1", "CUSTOMER#{CustomerID}", "ORDER#{ID}"))
	OrdersByCustomer = OrdersV2.Pattern("OrdersByCustomer").On("GSI1").Partition("CUSTOMER#{CustomerID}").Must()
)

const (
	orderCount = 3000
	customers  = 30
)

func main() {
	if err := run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		os.Exit(1)
	}
	fmt.Println("\nThe index was added, backfilled across a crash, and serves every order.")
}

func order(i int) Order {
	return Order{CustomerID: fmt.Sprintf("c%02d", i%customers), ID: fmt.Sprintf("o%05d", i),
		Status: []string{"PENDING", "SHIPPED", "DELIVERED"}[i%3], Total: float64(i%97) + 0.5}
}

func run(ctx context.Context) error {
	client, err := local.Client(ctx)
	if err != nil {
		return err
	}
	var c examplekit.Checker

	fmt.Printf("Model v1: writing %d orders.\n", orderCount)
	db1 := st.New(client, V1)
	if err := examplekit.FreshTable(ctx, db1); err != nil {
		return err
	}
	orders := make([]Order, orderCount)
	for i := range orders {
		orders[i] = order(i)
	}
	if err := db1.BatchWrite(ctx, []st.BatchOp{st.BatchPut(OrdersV1, orders...)}, st.Concurrency(8)); err != nil {
		return err
	}

	fmt.Println("\nModel v2 adds GSI1 (orders by customer).")
	db2 := st.New(client, V2)
	err = db2.EnsureTable(ctx)
	c.That("EnsureTable without AddMissingIndexes reports the missing index", errors.Is(err, st.ErrSchemaMismatch))
	fmt.Println("  ", err)
	if err := db2.EnsureTable(ctx, st.AddMissingIndexes()); err != nil {
		return err
	}
	c.That("EnsureTable(AddMissingIndexes()) added the index", db2.EnsureTable(ctx) == nil)
	c.Equal("before the backfill, the new pattern finds none of c07's orders", 0, count(ctx, db2, "c07"))

	dry, err := migrate.BackfillIndex(ctx, db2, OrdersV2, "GSI1", migrate.DryRun(), migrate.Segments(4))
	if err != nil {
		return err
	}
	fmt.Printf("\nDry run: %d scanned, %d would change, %d skipped.\n", dry.Scanned, dry.Changed, dry.Skipped)
	c.Equal("the dry run would change every order", int64(orderCount), dry.Changed)
	c.Equal("the dry run wrote nothing", 0, count(ctx, db2, "c07"))

	dir, err := os.MkdirTemp("", "migrate-example")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	checkpoint := migrate.FileCheckpoint(filepath.Join(dir, "backfill.pos"))
	opts := []migrate.Option{migrate.Segments(4), migrate.PageSize(100), migrate.SaveCheckpoints(checkpoint, 0)}

	fmt.Println("\nBackfill, crashing after about 1200 orders:")
	crashCtx, crash := context.WithCancel(ctx)
	var seen atomic.Int64
	first, err := migrate.BackfillIndex(crashCtx, db2, OrdersV2, "GSI1", append(opts, migrate.OnChange(func(migrate.Change) {
		if seen.Add(1) == 1200 {
			crash()
		}
	}))...)
	crash()
	c.That("the interrupted run stops with context.Canceled", errors.Is(err, context.Canceled))
	fmt.Printf("  interrupted: %d scanned, %d changed\n", first.Scanned, first.Changed)
	c.That("the interrupted run changed some orders, not all", first.Changed > 0 && first.Changed < orderCount)

	fmt.Println("Resume from the checkpoint file:")
	second, err := migrate.BackfillIndex(ctx, db2, OrdersV2, "GSI1", append(opts, migrate.OnProgress(func(p st.ScanProgress) {
		if p.SegmentsDone == p.TotalSegments {
			fmt.Printf("  all %d segments done, %d items scanned in all\n", p.TotalSegments, p.Scanned)
		}
	}))...)
	if err != nil {
		return err
	}
	fmt.Printf("  resumed: %d scanned, %d changed, %d skipped, %d failed\n", second.Scanned, second.Changed, second.Skipped, second.Failed)
	c.That("the resumed run did not read the whole table again", second.Scanned < orderCount)
	c.Equal("no order failed", int64(0), first.Failed+second.Failed)
	// (Writes in flight when the crash came may have landed without being
	// counted; none is counted twice: the resumed run skips what is done.)
	c.That("no order was changed twice across the two runs", first.Changed+second.Changed <= orderCount)

	total := 0
	for i := range customers {
		total += count(ctx, db2, fmt.Sprintf("c%02d", i))
	}
	c.Equal("the new pattern returns every order", orderCount, total)
	got, err := OrdersByCustomer.Query(ctx, db2, Order{CustomerID: "c07"}, st.Limit(3))
	if err != nil {
		return err
	}
	c.Equal("c07's first orders, as stored", []Order{order(7), order(37), order(67)}, got.Items)

	check, err := migrate.BackfillIndex(ctx, db2, OrdersV2, "GSI1", migrate.Segments(4))
	if err != nil {
		return err
	}
	c.Equal("a full run afterwards finds every order in shape (the same result as one uninterrupted run)",
		[2]int64{0, orderCount}, [2]int64{check.Changed, check.Skipped})
	return c.Err()
}

// count is how many orders the new pattern returns for a customer.
func count(ctx context.Context, db *st.DB, customer string) int {
	n := 0
	for _, err := range OrdersByCustomer.All(ctx, db, Order{CustomerID: customer}) {
		if err != nil {
			fmt.Fprintln(os.Stderr, "FAIL:", err)
			os.Exit(1)
		}
		n++
	}
	return n
}
