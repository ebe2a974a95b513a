package cli

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/export"
	"github.com/singletable/singletable/internal/bridge"
	"github.com/singletable/singletable/migrate"
)

// The subcommands that reach DynamoDB: ensure-table, diff, migrate,
// backfill.

// Migration is a migration the migrate subcommand runs by name: make it
// with Migrate.
type Migration struct {
	name string
	run  func(ctx context.Context, db *st.DB, opts ...migrate.Option) (*migrate.Report, error)
}

// Migrate registers migrate.Run of entity e with transform under name.
func Migrate[T any](name string, e *st.Entity[T], transform func(ctx context.Context, v *T) error) Migration {
	return Migration{name: name, run: func(ctx context.Context, db *st.DB, opts ...migrate.Option) (*migrate.Report, error) {
		return migrate.Run(ctx, db, e, transform, opts...)
	}}
}

// Backfill is an entity the backfill subcommand may fill an index of:
// make it with Backfills.
type Backfill struct {
	entity string
	check  func(index string) error
	run    func(ctx context.Context, db *st.DB, index string, opts ...migrate.Option) (*migrate.Report, error)
}

// Backfills lets backfill write the keys of any of entity e's indexes
// (migrate.BackfillIndex).
func Backfills[T any](e *st.Entity[T]) Backfill {
	check := func(index string) error {
		// migrate.BackfillIndex's own check of the index, made before
		// connecting.
		return bridge.Backfills(e.Name()+".BackfillIndex", e, index)
	}
	return Backfill{entity: e.Name(), check: check, run: func(ctx context.Context, db *st.DB, index string, opts ...migrate.Option) (*migrate.Report, error) {
		return migrate.BackfillIndex(ctx, db, e, index, opts...)
	}}
}

// tableFlag defines -table.
func (c *call) tableFlag() *string {
	name := c.cfg.Export.TableName
	if name == "" {
		name = c.cfg.Table.Name()
	}
	return c.flags.String("table", name, "the physical table name")
}

// db connects to DynamoDB and binds the model to table name.
func (c *call) db(name string) (*st.DB, Client, error) {
	if _, err := st.NewTable(name); err != nil {
		// The core's rule for table names: nothing is sent for a wrong one.
		return nil, nil, usagef("-table %q: a table name is 3 to 255 characters of a-z, A-Z, 0-9, '_', '-' and '.'", name)
	}
	connect := c.cfg.Client
	if connect == nil {
		connect = defaultClient
	}
	client, err := connect(c.ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("connecting to DynamoDB: %w", err)
	}
	opts := append(append([]st.DBOption(nil), c.cfg.DBOptions...), st.WithTableName(name), st.WithAdminClient(client))
	return st.New(client, c.cfg.Table, opts...), client, nil
}

func defaultClient(ctx context.Context) (Client, error) {
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, err
	}
	return dynamodb.NewFromConfig(cfg), nil
}

func runEnsure(c *call) error {
	name := c.tableFlag()
	add := c.flags.Bool("add-missing-indexes", false, "add the indexes the model declares and the table lacks (UpdateTable), waiting for each")
	if err := c.parseFlags(0); err != nil {
		return err
	}
	db, _, err := c.db(*name)
	if err != nil {
		return err
	}
	var opts []st.EnsureOption
	if *add {
		opts = append(opts, st.AddMissingIndexes())
	}
	if err := db.EnsureTable(c.ctx, opts...); err != nil {
		if errors.Is(err, st.ErrSchemaMismatch) {
			// The table differs in a way EnsureTable does not change: a
			// failed check, as diff's differences are.
			return &failed{err.Error()}
		}
		return err
	}
	fmt.Fprintf(c.stdout, "table %s is as the model declares it\n", *name)
	return nil
}

func runDiff(c *call) error {
	name := c.tableFlag()
	if err := c.parseFlags(0); err != nil {
		return err
	}
	_, client, err := c.db(*name)
	if err != nil {
		return err
	}
	d, err := client.DescribeTable(c.ctx, &dynamodb.DescribeTableInput{TableName: aws.String(*name)})
	var notFound *types.ResourceNotFoundException
	if errors.As(err, &notFound) {
		fmt.Fprintf(c.stdout, "- table %s does not exist: ensure-table creates it\n", *name)
		return &failed{fmt.Sprintf("table %s does not exist", *name)}
	}
	if err != nil {
		return err
	}
	ttl, err := client.DescribeTimeToLive(c.ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(*name)})
	if err != nil {
		return err
	}
	diffs := export.Differences(c.cfg.Table, d.Table, ttl.TimeToLiveDescription)
	if len(diffs) == 0 {
		fmt.Fprintf(c.stdout, "table %s is as the model declares it\n", *name)
		return nil
	}
	for _, s := range diffs {
		fmt.Fprintln(c.stdout, "- "+s)
	}
	return &failed{fmt.Sprintf("table %s differs from the model in %d way(s)", *name, len(diffs))}
}

// migrateFlags defines the flags of migrate and backfill; the function
// it returns checks them (a usage error) and makes the options.
func (c *call) migrateFlags() func() ([]migrate.Option, error) {
	dry := c.flags.Bool("dry-run", false, "report what would change; write nothing")
	segments := c.flags.Int("segments", 0, "parallel scan segments, at least 1 (default: the migrate package's)")
	rate := c.flags.Float64("rate", 0, "at most this many items written per second (0: no limit)")
	checkpoint := c.flags.String("checkpoint", "", "save the position to this file, and resume from it (pages with failed items are read again: run until exit 0)")
	return func() ([]migrate.Option, error) {
		if c.given("segments") && *segments < 1 {
			return nil, usagef("-segments %d: at least 1 (leave it out for the default)", *segments)
		}
		if r := *rate; r != 0 && !(r > 0 && r <= math.MaxFloat64) {
			return nil, usagef("-rate %v: a positive, finite number of items per second, or 0 for no limit", r)
		}
		var opts []migrate.Option
		if *dry {
			opts = append(opts, migrate.DryRun())
		}
		if c.given("segments") {
			opts = append(opts, migrate.Segments(*segments))
		}
		if *rate != 0 {
			opts = append(opts, migrate.RateLimit(*rate))
		}
		if *checkpoint != "" {
			opts = append(opts, migrate.SaveCheckpoints(migrate.FileCheckpoint(*checkpoint), 5*time.Second))
		}
		return opts, nil
	}
}

func runMigrate(c *call) error {
	name := c.tableFlag()
	opts := c.migrateFlags()
	if err := c.parseFlags(1); err != nil {
		return err
	}
	m, err := lookup(c.cfg.Migrations, func(m Migration) string { return m.name }, c.args[0], "migration")
	if err != nil {
		return err
	}
	return c.migrateOn(*name, opts, func(db *st.DB, mo []migrate.Option) (*migrate.Report, error) {
		return m.run(c.ctx, db, mo...)
	})
}

func runBackfill(c *call) error {
	name := c.tableFlag()
	opts := c.migrateFlags()
	if err := c.parseFlags(2); err != nil {
		return err
	}
	b, err := lookup(c.cfg.Backfills, func(b Backfill) string { return b.entity }, c.args[0], "backfill of entity")
	if err != nil {
		return err
	}
	if err := b.check(c.args[1]); err != nil {
		return usagef("%v", err)
	}
	return c.migrateOn(*name, opts, func(db *st.DB, mo []migrate.Option) (*migrate.Report, error) {
		return b.run(c.ctx, db, c.args[1], mo...)
	})
}

// migrateOn is migrate's and backfill's tail: their options checked
// (a usage error), the table connected, run's report printed.
func (c *call) migrateOn(table string, opts func() ([]migrate.Option, error), run func(*st.DB, []migrate.Option) (*migrate.Report, error)) error {
	mo, err := opts()
	if err != nil {
		return err
	}
	db, _, err := c.db(table)
	if err != nil {
		return err
	}
	return c.report(run(db, mo))
}

// report prints a migration's report; failed items fail the command.
func (c *call) report(r *migrate.Report, err error) error {
	if r != nil {
		what := "changed"
		if r.DryRun {
			what = "would change"
		}
		fmt.Fprintf(c.stdout, "%s: scanned %d, %s %d, skipped %d, failed %d, retried %d\n", r.Entity, r.Scanned, what, r.Changed, r.Skipped, r.Failed, r.Retried)
		for _, f := range r.Failures {
			fmt.Fprintf(c.stdout, "  failed: %v\n", f.Err)
		}
	}
	if err != nil {
		return err
	}
	if r.Failed > 0 {
		return &failed{fmt.Sprintf("%d item(s) failed", r.Failed)}
	}
	return nil
}

// lookup finds the registered item named want; a usage error lists the
// registered names when there is none.
func lookup[T any](items []T, name func(T) string, want, what string) (*T, error) {
	names := make([]string, 0, len(items))
	for i := range items {
		if name(items[i]) == want {
			return &items[i], nil
		}
		names = append(names, name(items[i]))
	}
	if len(names) == 0 {
		return nil, usagef("no %s %q; registered: none", what, want)
	}
	return nil, usagef("no %s %q; registered: %s", what, want, strings.Join(names, ", "))
}
