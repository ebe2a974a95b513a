//go:build integration

package cli_test

import (
	"context"
	"strings"
	"testing"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/cli"
	"github.com/singletable/singletable/internal/ddblocal"
)

// Order is stored first under model v1 (no index), then read under model
// v2, which adds GSI1 by customer: the path a live table takes when an
// index is added.
type Order struct {
	CustomerID string `dynamodbav:"customerId"`
	ID         string `dynamodbav:"orderId"`
	Status     string `dynamodbav:"status"`
}

// TestEverySubcommand runs every subcommand over a model against
// DynamoDB Local: the offline ones, then diff and ensure-table finding
// the index the live table lacks, ensure-table adding it, backfill (dry
// run, then for real) and a migration, each with the exit code CI sees.
func TestEverySubcommand(t *testing.T) {
	ctx := context.Background()
	client, err := ddblocal.Client(ctx)
	if err != nil {
		t.Fatal(err)
	}
	name := ddblocal.UniqueName("cli")

	v1 := st.MustTable("Orders")
	ordersV1 := st.MustDefine[Order](v1, "Order", st.Key("ORDER#{ID}", "ORDER"))
	db1 := st.New(client, v1, st.WithTableName(name))
	if err := db1.EnsureTable(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db1.DeleteTable(context.Background()) })
	for _, id := range []string{"o1", "o2", "o3"} {
		if err := ordersV1.Put(ctx, db1, Order{CustomerID: "c1", ID: id, Status: "new"}); err != nil {
			t.Fatal(err)
		}
	}

	v2 := st.MustTable("Orders", st.WithGSI("GSI1"), st.WithTTL("ttl"))
	ordersV2 := st.MustDefine[Order](v2, "Order", st.Key("ORDER#{ID}", "ORDER"), st.Index("GSI1", "CUSTOMER#{CustomerID}", "ORDER#{ID}"))
	byCustomer := ordersV2.Pattern("OrdersByCustomer").On("GSI1").Partition("CUSTOMER#{CustomerID}").Must()
	upper := func(_ context.Context, o *Order) error { o.Status = strings.ToUpper(o.Status); return nil }
	cfg := cli.Config{
		Table:      v2,
		Client:     func(context.Context) (cli.Client, error) { return client, nil },
		Migrations: []cli.Migration{cli.Migrate("upper-status", ordersV2, upper)},
		Backfills:  []cli.Backfill{cli.Backfills(ordersV2)},
	}
	cfg.Export.TableName = name
	cfg.Export.Samples = []any{Order{CustomerID: "c1", ID: "o1", Status: "new"}}

	// Before the table exists, diff says so (a failed check, not an error).
	missing := cfg
	missing.Export.TableName = name + "-missing"
	if code, out, errs := run(t, missing, "diff"); code != cli.ExitFailed || !strings.Contains(out, "does not exist") {
		t.Fatalf("diff of a missing table: exit %d, stdout %q, stderr %q", code, out, errs)
	}

	steps := []struct {
		args []string
		code int
		want string // in stdout and stderr
	}{
		{[]string{"sheet"}, cli.ExitOK, "OrdersByCustomer"},
		{[]string{"lint", "-fail-on", "warning"}, cli.ExitOK, "no findings"},
		{[]string{"doc"}, cli.ExitOK, "# Model of table Orders"},
		{[]string{"export", "cloudformation", "-format", "yaml"}, cli.ExitOK, "AWS::DynamoDB::Table"},
		{[]string{"export", "terraform"}, cli.ExitOK, "aws_dynamodb_table"},
		{[]string{"export", "workbench"}, cli.ExitOK, `"FacetName": "OrdersByCustomer"`},
		{[]string{"items"}, cli.ExitOK, `"GSI1PK": {`},
		// The live table lacks GSI1 and TTL.
		{[]string{"diff"}, cli.ExitFailed, "index GSI1 is missing"},
		{[]string{"diff"}, cli.ExitFailed, "time to live is not enabled"},
		{[]string{"ensure-table"}, cli.ExitFailed, "index GSI1 is missing"},
		{[]string{"ensure-table", "-add-missing-indexes"}, cli.ExitOK, "is as the model declares it"},
		{[]string{"diff"}, cli.ExitOK, "is as the model declares it"},
		{[]string{"backfill", "Order", "GSI1", "-dry-run"}, cli.ExitOK, "scanned 3, would change 3"},
		{[]string{"backfill", "Order", "GSI1"}, cli.ExitOK, "scanned 3, changed 3"},
		{[]string{"backfill", "Order", "GSI1"}, cli.ExitOK, "changed 0, skipped 3"},
		{[]string{"backfill", "Order", "NoSuchIndex"}, cli.ExitUsage, "NoSuchIndex"}, // found before connecting
		{[]string{"migrate", "upper-status"}, cli.ExitOK, "changed 3"},
	}
	for _, s := range steps {
		code, out, errs := run(t, cfg, s.args...)
		if code != s.code || !strings.Contains(out+errs, s.want) {
			t.Fatalf("%s: exit %d (want %d), want %q in\nstdout:\n%s\nstderr:\n%s", strings.Join(s.args, " "), code, s.code, s.want, out, errs)
		}
	}

	// What the commands did is in the table: every order in the index,
	// migrated.
	db2 := st.New(client, v2, st.WithTableName(name))
	page, err := byCustomer.Query(ctx, db2, Order{CustomerID: "c1"})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 3 {
		t.Fatalf("the index holds %d orders, want 3", len(page.Items))
	}
	for _, o := range page.Items {
		if o.Status != "NEW" {
			t.Errorf("order %s has status %q after the migration", o.ID, o.Status)
		}
	}
}
