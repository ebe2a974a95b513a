package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/export"
)

// Exit codes of Run.
const (
	ExitOK     = 0 // done; every check passed
	ExitFailed = 1 // a check failed: lint findings, differences, failed items
	ExitUsage  = 2 // wrong arguments
	ExitError  = 3 // the command could not run (a failed request, an unwritable file)
)

// Client is what the subcommands that reach DynamoDB need: reads and
// writes, and the table's administration. *dynamodb.Client is one.
type Client interface {
	st.Client
	st.AdminClient
}

// Config is the user's model and what the command may do with it.
type Config struct {
	// Table is the model; required.
	Table *st.Table
	// Export are the exports' and the document's options: sample items,
	// relations, production settings. The export flags override them.
	Export export.Options
	// Client connects ensure-table, diff, migrate and backfill to
	// DynamoDB; nil: the AWS SDK's default configuration.
	Client func(ctx context.Context) (Client, error)
	// DBOptions configure the DB those subcommands use (a clock, cursor
	// keys); the table name comes from -table.
	DBOptions []st.DBOption
	// Migrations are the migrations migrate runs, by name.
	Migrations []Migration
	// Backfills are the entities backfill may fill an index of.
	Backfills []Backfill
}

// Main runs the command with the program's arguments and exits with its
// exit code.
func Main(cfg Config) {
	os.Exit(Run(context.Background(), cfg, os.Args[1:], os.Stdout, os.Stderr))
}

// usageError is a wrong command line: exit code 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// failed is a check that did not pass: exit code 1, its message printed.
type failed struct{ msg string }

func (e *failed) Error() string { return e.msg }

// command is one subcommand.
type command struct {
	name, args, help string
	run              func(c *call) error
}

// call is one run of a subcommand: its flags, arguments and output.
type call struct {
	ctx    context.Context
	cfg    Config
	flags  *flag.FlagSet
	args   []string
	stdout io.Writer
	stderr io.Writer
	out    *string // -o
}

// commands are the subcommands, in the order usage lists them. (A cost
// subcommand slots in here when the model declares capacity.)
var commands = []command{
	{"sheet", "", "print the access-pattern sheet (Markdown)", runSheet},
	{"lint", "", "print the model's lint findings; exit 1 at or above -fail-on", runLint},
	{"doc", "", "print the model document (Markdown)", runDoc},
	{"export", "cloudformation|terraform|workbench", "print the table as infrastructure or the model for NoSQL Workbench", runExport},
	{"items", "", "print the sample items as stored (DynamoDB JSON)", runItems},
	{"ensure-table", "", "create the table from the model, or check it", runEnsure},
	{"diff", "", "compare the live table with the model; exit 1 on a difference", runDiff},
	{"migrate", "NAME", "run a registered migration", runMigrate},
	{"backfill", "ENTITY INDEX", "write an index's keys into the entity's items stored before it", runBackfill},
}

// Run runs the command line args (without the program name) over the
// model and returns the exit code; output goes to stdout (or -o), errors
// and reports to stderr.
func Run(ctx context.Context, cfg Config, args []string, stdout, stderr io.Writer) int {
	if cfg.Table == nil {
		fmt.Fprintln(stderr, "singletable: cli.Config.Table is nil: pass the model's table")
		return ExitUsage
	}
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" {
		usage(stderr)
		if len(args) == 0 {
			return ExitUsage
		}
		return ExitOK
	}
	var cmd *command
	for i := range commands {
		if commands[i].name == args[0] {
			cmd = &commands[i]
		}
	}
	if cmd == nil {
		fmt.Fprintf(stderr, "unknown command %q\n\n", args[0])
		usage(stderr)
		return ExitUsage
	}
	c := &call{ctx: ctx, cfg: cfg, stdout: stdout, stderr: stderr}
	c.flags = flag.NewFlagSet(cmd.name, flag.ContinueOnError)
	c.flags.SetOutput(stderr)
	c.flags.Usage = func() {
		fmt.Fprintf(stderr, "usage: %s %s [flags] %s\n  %s\n", progName(), cmd.name, cmd.args, cmd.help)
		c.flags.PrintDefaults()
	}
	c.args = args[1:]
	err := cmd.run(c)
	var ue *usageError
	var fe *failed
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, flag.ErrHelp):
		return ExitOK
	case errors.As(err, &ue):
		if ue.msg != "" {
			fmt.Fprintf(stderr, "%s: %s\n", cmd.name, ue.msg)
		}
		c.flags.Usage()
		return ExitUsage
	case errors.As(err, &fe):
		fmt.Fprintf(stderr, "%s: %s\n", cmd.name, fe.msg)
		return ExitFailed
	}
	fmt.Fprintf(stderr, "%s: %v\n", cmd.name, err)
	return ExitError
}

// parseFlags parses the subcommand's flags (defined by then) and leaves
// the positional arguments in c.args; want is how many it takes.
func (c *call) parseFlags(want int) error {
	// Flags may follow the positional arguments: "migrate NAME -dry-run".
	var pos []string
	rest := c.args
	for {
		if err := c.flags.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return err
			}
			return &usageError{}
		}
		rest = c.flags.Args()
		if len(rest) == 0 {
			break
		}
		pos = append(pos, rest[0])
		rest = rest[1:]
	}
	if len(pos) != want {
		return usagef("takes %d argument(s), got %d: %s", want, len(pos), strings.Join(pos, " "))
	}
	c.args = pos
	return nil
}

// given reports whether the flag was set on the command line.
func (c *call) given(name string) bool {
	set := false
	c.flags.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// output defines -o.
func (c *call) output() {
	c.out = c.flags.String("o", "", "write to this file instead of standard output")
}

// write writes b to -o or standard output.
func (c *call) write(b []byte) error {
	if c.out != nil && *c.out != "" {
		return os.WriteFile(*c.out, b, 0o644)
	}
	_, err := c.stdout.Write(b)
	return err
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "usage: %s COMMAND [flags] [arguments]\n\ncommands:\n", progName())
	for _, c := range commands {
		name := c.name
		if c.args != "" {
			name += " " + c.args
		}
		fmt.Fprintf(w, "  %-48s %s\n", name, c.help)
	}
	fmt.Fprintf(w, "\n%s COMMAND -h lists a command's flags. Exit codes: 0 ok, 1 a check failed, 2 usage, 3 error.\n", progName())
}

func progName() string {
	if len(os.Args) > 0 && os.Args[0] != "" {
		name := os.Args[0]
		if i := strings.LastIndexAny(name, `/\`); i >= 0 {
			name = name[i+1:]
		}
		return name
	}
	return "model"
}

func runSheet(c *call) error {
	c.output()
	if err := c.parseFlags(0); err != nil {
		return err
	}
	return c.write([]byte(c.cfg.Table.Sheet()))
}

// severities are -fail-on's values.
var severities = map[string]int{"info": int(st.LintInfo), "warning": int(st.LintWarning), "error": int(st.LintError), "never": int(st.LintError) + 1}

func runLint(c *call) error {
	c.output()
	failOn := c.flags.String("fail-on", "error", "exit 1 when a finding is at least this severe: info, warning, error or never")
	if err := c.parseFlags(0); err != nil {
		return err
	}
	level, ok := severities[*failOn]
	if !ok {
		return usagef("-fail-on %q: want info, warning, error or never", *failOn)
	}
	issues := c.cfg.Table.Lint()
	if err := c.write([]byte(st.LintReport(issues))); err != nil {
		return err
	}
	n := 0
	for _, i := range issues {
		if int(i.Severity) >= level {
			n++
		}
	}
	if n > 0 {
		return &failed{fmt.Sprintf("%d finding(s) at or above %s", n, *failOn)}
	}
	return nil
}

// exportFlags defines the flags that override Config.Export.
func (c *call) exportFlags() func() export.Options {
	o := c.cfg.Export
	name := c.flags.String("table", o.TableName, "the physical table name (default: the model's)")
	pitr := c.flags.Bool("pitr", o.PointInTimeRecovery, "enable point-in-time recovery")
	protect := c.flags.Bool("deletion-protection", o.DeletionProtection, "enable deletion protection")
	replicas := c.flags.String("replicas", strings.Join(o.Replicas, ","), "comma-separated regions to replicate the table to (a global table)")
	return func() export.Options {
		o.TableName, o.PointInTimeRecovery, o.DeletionProtection = *name, *pitr, *protect
		o.Replicas = nil
		for _, r := range strings.Split(*replicas, ",") {
			if r = strings.TrimSpace(r); r != "" {
				o.Replicas = append(o.Replicas, r)
			}
		}
		return o
	}
}

func runDoc(c *call) error {
	c.output()
	opts := c.exportFlags()
	if err := c.parseFlags(0); err != nil {
		return err
	}
	b, err := export.Document(c.cfg.Table, opts())
	if err != nil {
		return err
	}
	return c.write(b)
}

func runExport(c *call) error {
	c.output()
	opts := c.exportFlags()
	format := c.flags.String("format", "json", "cloudformation's format: json or yaml")
	if err := c.parseFlags(1); err != nil {
		return err
	}
	what := c.args[0]
	if c.given("format") && what != "cloudformation" {
		return usagef("-format is cloudformation's (json or yaml); export %s has one format", what)
	}
	var render func(*st.Table, export.Options) ([]byte, error)
	switch {
	case what == "cloudformation" && *format == "json":
		render = export.CloudFormationJSON
	case what == "cloudformation" && *format == "yaml":
		render = export.CloudFormationYAML
	case what == "cloudformation":
		return usagef("-format %q: want json or yaml", *format)
	case what == "terraform":
		render = export.TerraformJSON
	case what == "workbench":
		render = export.Workbench
	default:
		return usagef("export %q: want cloudformation, terraform or workbench", what)
	}
	b, err := render(c.cfg.Table, opts())
	if err != nil {
		return err
	}
	return c.write(b)
}

func runItems(c *call) error {
	c.output()
	if err := c.parseFlags(0); err != nil {
		return err
	}
	items, err := export.Items(c.cfg.Table, c.cfg.Export.Samples...)
	if err != nil {
		return err
	}
	b, err := export.ItemsJSON(items)
	if err != nil {
		return err
	}
	return c.write(b)
}
