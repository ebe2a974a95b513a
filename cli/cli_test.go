package cli_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/cli"
	"github.com/singletable/singletable/export"
	"github.com/singletable/singletable/internal/testmodel"
)

// run runs the command line and returns its exit code and output.
func run(t *testing.T, cfg cli.Config, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errs bytes.Buffer
	code = cli.Run(context.Background(), cfg, args, &out, &errs)
	return code, out.String(), errs.String()
}

func seedConfig() cli.Config {
	s := testmodel.NewSeed()
	return cli.Config{
		Table:  s.Table,
		Export: export.Options{Samples: []any{testmodel.SeedUsers[0], testmodel.SeedOrders[1]}},
		// No subcommand of these tests may reach DynamoDB.
		Client: func(context.Context) (cli.Client, error) { return nil, errors.New("no network in unit tests") },
	}
}

// TestOfflineSubcommands: each subcommand that needs no DynamoDB prints
// what the package it runs gives, to standard output or -o.
func TestOfflineSubcommands(t *testing.T) {
	cfg := seedConfig()
	doc, _ := export.Document(cfg.Table, cfg.Export)
	cfnJSON, _ := export.CloudFormationJSON(cfg.Table, cfg.Export)
	cfnYAML, _ := export.CloudFormationYAML(cfg.Table, cfg.Export)
	tf, _ := export.TerraformJSON(cfg.Table, cfg.Export)
	wb, _ := export.Workbench(cfg.Table, cfg.Export)
	items, _ := export.Items(cfg.Table, cfg.Export.Samples...)
	itemsJSON, _ := export.ItemsJSON(items)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"sheet"}, cfg.Table.Sheet()},
		{[]string{"lint"}, st.LintReport(cfg.Table.Lint())},
		{[]string{"doc"}, string(doc)},
		{[]string{"export", "cloudformation"}, string(cfnJSON)},
		{[]string{"export", "-format", "yaml", "cloudformation"}, string(cfnYAML)},
		{[]string{"export", "cloudformation", "-format", "yaml"}, string(cfnYAML)},
		{[]string{"export", "terraform"}, string(tf)},
		{[]string{"export", "workbench"}, string(wb)},
		{[]string{"items"}, string(itemsJSON)},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			code, out, errs := run(t, cfg, c.args...)
			if code != cli.ExitOK || out != c.want {
				t.Fatalf("exit %d, stderr %q, stdout:\n%s\nwant:\n%s", code, errs, out, c.want)
			}
			file := filepath.Join(t.TempDir(), "out")
			code, out, _ = run(t, cfg, append(c.args, "-o", file)...)
			got, err := os.ReadFile(file)
			if code != cli.ExitOK || err != nil || string(got) != c.want || out != "" {
				t.Fatalf("-o: exit %d, err %v, stdout %q; file:\n%s", code, err, out, got)
			}
		})
	}
}

// TestExportFlagsOverrideConfig: -table, -pitr, -deletion-protection and
// -replicas reach the export.
func TestExportFlagsOverrideConfig(t *testing.T) {
	cfg := seedConfig()
	code, out, errs := run(t, cfg, "export", "terraform", "-table", "prod-orders", "-pitr", "-deletion-protection")
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{`"name": "prod-orders"`, `"point_in_time_recovery": {`, `"deletion_protection_enabled": true`} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %s:\n%s", want, out)
		}
	}
	// A global table needs the model's stream: the export's InputError is
	// the command's error (exit 3), and nothing is printed.
	code, out, errs = run(t, cfg, "export", "cloudformation", "-replicas", "eu-west-1")
	if code != cli.ExitError || out != "" || !strings.Contains(errs, "WithStream") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// TestLintExitCodes: lint fails (exit 1) when a finding is at least as
// severe as -fail-on, and passes below it.
func TestLintExitCodes(t *testing.T) {
	tbl := st.MustTable("Hot")
	type Row struct {
		ID string `dynamodbav:"id"`
	}
	st.MustDefine[Row](tbl, "Row", st.Key("ROWS", "ROW#{ID}")) // a warning: one partition
	cfg := cli.Config{Table: tbl}
	for _, c := range []struct {
		failOn string
		code   int
	}{{"", cli.ExitOK}, {"error", cli.ExitOK}, {"warning", cli.ExitFailed}, {"info", cli.ExitFailed}, {"never", cli.ExitOK}} {
		args := []string{"lint"}
		if c.failOn != "" {
			args = append(args, "-fail-on", c.failOn)
		}
		code, out, errs := run(t, cfg, args...)
		if code != c.code || !strings.Contains(out, "warning: entity Row") {
			t.Errorf("lint -fail-on %q: exit %d (want %d), stdout %q, stderr %q", c.failOn, code, c.code, out, errs)
		}
	}
	// A model with no findings passes even with -fail-on info.
	clean := st.MustTable("Clean")
	st.MustDefine[Row](clean, "Row", st.Key("ROW#{ID}", "ROW"))
	if code, out, _ := run(t, cli.Config{Table: clean}, "lint", "-fail-on", "info"); code != cli.ExitOK || out != "no findings\n" {
		t.Errorf("a clean model: exit %d, %q", code, out)
	}
}

// TestUsageErrors: a wrong command line is exit 2 with a message, and no
// subcommand runs (no connection is made: the test's Client fails).
func TestUsageErrors(t *testing.T) {
	cfg := seedConfig()
	cases := []struct {
		args []string
		want string
	}{
		{nil, "usage:"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"lint", "-fail-on", "loud"}, "-fail-on"},
		{[]string{"lint", "extra"}, "takes 0 argument(s)"},
		{[]string{"export"}, "takes 1 argument(s)"},
		{[]string{"export", "pulumi"}, `export "pulumi"`},
		{[]string{"export", "cloudformation", "-format", "toml"}, "-format"},
		{[]string{"sheet", "-nope"}, "flag provided but not defined"},
		{[]string{"migrate", "nope"}, `no migration "nope"; registered: none`},
		{[]string{"backfill", "User"}, "takes 2 argument(s)"},
		{[]string{"backfill", "User", "GSI1"}, `no backfill of entity "User"`},
	}
	for _, c := range cases {
		code, out, errs := run(t, cfg, c.args...)
		if code != cli.ExitUsage || !strings.Contains(errs, c.want) || out != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2 saying %q", c.args, code, out, errs, c.want)
		}
	}
	if code, _, errs := run(t, cli.Config{}, "sheet"); code != cli.ExitUsage || !strings.Contains(errs, "Table is nil") {
		t.Errorf("nil table: exit %d, %q", code, errs)
	}
	if code, _, errs := run(t, cfg, "help"); code != cli.ExitOK || !strings.Contains(errs, "ensure-table") {
		t.Errorf("help: exit %d, %q", code, errs)
	}
}

// TestConnectionErrors: a subcommand that cannot connect exits 3.
func TestConnectionErrors(t *testing.T) {
	for _, args := range [][]string{{"ensure-table"}, {"diff"}} {
		code, _, errs := run(t, seedConfig(), args...)
		if code != cli.ExitError || !strings.Contains(errs, "no network in unit tests") {
			t.Errorf("%v: exit %d, %q", args, code, errs)
		}
	}
}

// TestUsageErrorsBeforeConnecting: wrong flags and arguments of the
// subcommands that reach DynamoDB are exit 2, found before connecting
// (the Client is never asked for); so is -format on an export that has one
// format.
func TestUsageErrorsBeforeConnecting(t *testing.T) {
	s := testmodel.NewSeed()
	connects := 0
	cfg := cli.Config{
		Table: s.Table,
		Client: func(context.Context) (cli.Client, error) {
			connects++
			return nil, errors.New("no network in unit tests")
		},
		Migrations: []cli.Migration{cli.Migrate("noop", s.Users, func(context.Context, *testmodel.User) error { return nil })},
		Backfills:  []cli.Backfill{cli.Backfills(s.Orders)},
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"export", "terraform", "-format", "yaml"}, "-format"},
		{[]string{"export", "workbench", "-format", "json"}, "-format"},
		{[]string{"backfill", "Order", "NoIndex"}, "index NoIndex is not declared"},
		{[]string{"backfill", "Order", "GSI2"}, "writes no key of its own into index GSI2"},
		{[]string{"migrate", "noop", "-segments", "-3"}, "-segments -3"},
		{[]string{"migrate", "noop", "-segments", "0"}, "-segments 0"},
		{[]string{"backfill", "Order", "GSI1", "-segments", "0"}, "-segments 0"},
		{[]string{"migrate", "noop", "-rate", "-1"}, "-rate -1"},
		{[]string{"migrate", "noop", "-rate", "NaN"}, "-rate NaN"},
		{[]string{"migrate", "noop", "-rate", "+Inf"}, "-rate +Inf"},
		{[]string{"diff", "-table", ""}, `-table ""`},
		{[]string{"diff", "-table", "a b"}, `-table "a b"`},
		{[]string{"ensure-table", "-table", "ab"}, `-table "ab"`},
		{[]string{"migrate", "noop", "-table", "a/b"}, `-table "a/b"`},
	}
	for _, c := range cases {
		connects = 0
		code, out, errs := run(t, cfg, c.args...)
		if code != cli.ExitUsage || !strings.Contains(errs, c.want) || out != "" || connects != 0 {
			t.Errorf("%q: exit %d, %d connection(s), stdout %q, stderr %q; want exit 2 saying %q", c.args, code, connects, out, errs, c.want)
		}
	}
	// The right arguments get as far as connecting.
	for _, args := range [][]string{{"migrate", "noop", "-segments", "2", "-rate", "5"}, {"backfill", "Order", "GSI1"}, {"diff", "-table", "prod.orders-1"}} {
		connects = 0
		if code, _, errs := run(t, cfg, args...); code != cli.ExitError || connects != 1 {
			t.Errorf("%q: exit %d, %d connection(s), stderr %q; want exit 3 after connecting", args, code, connects, errs)
		}
	}
}
