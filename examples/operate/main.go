// Command operate is the tiny main a repository adds to operate its
// singletable model: package cli turns the model into a command with
// sheet, lint, doc, export, items, ensure-table, diff, migrate and
// backfill. Run with arguments, it is that command, against DynamoDB Local:
//
//	scripts/dynamodb-local.sh run -- go run ./examples/operate doc
//	go run ./examples/operate export cloudformation -format yaml -pitr -deletion-protection
//	go run ./examples/operate lint -fail-on warning     # exit 1 on a warning: CI
//
// Run without arguments (as `make examples` does), it runs each
// subcommand in turn on a fresh table of the helpdesk model and checks
// what each did, exiting non-zero if any result is wrong.
package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/cli"
	"github.com/singletable/singletable/export"
	"github.com/singletable/singletable/internal/examplekit"
	"github.com/singletable/singletable/singletabletest/local"
)

// The helpdesk model: customers, their tickets (open ones in a sparse
// index, kept 90 days after they close), and the agents tickets are
// assigned to.

// Customer is a customer account.
type Customer struct {
	ID    string `dynamodbav:"customerId"`
	Name  string `dynamodbav:"name"`
	Email string `dynamodbav:"email"`
}

// Ticket is a support request of a customer.
type Ticket struct {
	CustomerID string `dynamodbav:"customerId"`
	ID         string `dynamodbav:"ticketId"`
	Opened     string `dynamodbav:"opened"`
	Status     string `dynamodbav:"status"`
	Agent      string `dynamodbav:"agent,omitempty"`
	Subject    string `dynamodbav:"subject"`
	Expires    int64  `dynamodbav:"ttl,omitempty"`
}

// Agent is a support agent.
type Agent struct {
	ID   string `dynamodbav:"agentId"`
	Name string `dynamodbav:"name"`
	Team string `dynamodbav:"team"`
}

var (
	Helpdesk = st.MustTable("Helpdesk",
		st.WithGSI("GSI1"),
		st.WithGSI("GSI2", st.KeysOnly()),
		st.WithTTL("ttl"),
	)
	Customers = st.MustDefine[Customer](Helpdesk, "Customer",
		st.Key("CUSTOMER#{ID}", "PROFILE"),
		st.Index("GSI2", "EMAIL#{Email}", "CUSTOMER#{ID}"))
	Tickets = st.MustDefine[Ticket](Helpdesk, "Ticket",
		st.Key("CUSTOMER#{CustomerID}", "TICKET#{Opened}#{ID}"),
		st.Index("GSI1", "AGENT#{Agent}", "{Status}#{Opened}").When(st.Eq("Status", "OPEN")),
		st.Expires("Expires"))
	Agents = st.MustDefine[Agent](Helpdesk, "Agent",
		st.Key("AGENT#{ID}", "PROFILE"))

	CustomerTickets = Tickets.Pattern("CustomerTickets").Partition("CUSTOMER#{CustomerID}").SortBeginsWith("TICKET#").Descending().Must()
	AgentQueue      = Tickets.Pattern("AgentQueue").On("GSI1").Partition("AGENT#{Agent}").Must()
	CustomerByEmail = Customers.Pattern("CustomerByEmail").On("GSI2").Partition("EMAIL#{Email}").Must()
	CustomerHome    = Helpdesk.Collection("CustomerHome", Customers, Tickets).Partition("CUSTOMER#{CustomerID}").Must()
)

// Samples are the document's, the Workbench model's and items' sample items.
var Samples = []any{
	Customer{ID: "c1", Name: "Ann", Email: "ann@example.com"},
	Ticket{CustomerID: "c1", ID: "t1", Opened: "2026-11-02", Status: "OPEN", Agent: "a1", Subject: "Cannot log in"},
	Ticket{CustomerID: "c1", ID: "t0", Opened: "2026-10-15", Status: "CLOSED", Agent: "a1", Subject: "Invoice", Expires: 1794787200},
	Agent{ID: "a1", Name: "Bo", Team: "tier1"},
}

// normalize is a migration: subjects trimmed, statuses upper-case.
func normalize(_ context.Context, t *Ticket) error {
	t.Subject, t.Status = strings.TrimSpace(t.Subject), strings.ToUpper(t.Status)
	return nil
}

func config() cli.Config {
	return cli.Config{
		Table:      Helpdesk,
		Export:     export.Options{Samples: Samples},
		Client:     func(ctx context.Context) (cli.Client, error) { return local.Client(ctx) },
		Migrations: []cli.Migration{cli.Migrate("normalize-tickets", Tickets, normalize)},
		Backfills:  []cli.Backfill{cli.Backfills(Tickets), cli.Backfills(Customers)},
	}
}

func main() {
	if len(os.Args) > 1 {
		cli.Main(config())
	}
	if err := demo(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		os.Exit(1)
	}
	fmt.Println("\nEvery subcommand ran and did what it says.")
}

// demo runs each subcommand as a user would and checks its exit code and
// output.
func demo(ctx context.Context) error {
	client, err := local.Client(ctx)
	if err != nil {
		return err
	}
	db := st.New(client, Helpdesk, st.WithTableName("HelpdeskOperate"))
	if err := db.DeleteTable(ctx); err != nil && !strings.Contains(err.Error(), "ResourceNotFound") {
		return err
	}
	cfg := config()
	cfg.Export.TableName = "HelpdeskOperate"
	var c examplekit.Checker
	step := func(want int, contains string, args ...string) string {
		var out, errs bytes.Buffer
		code := cli.Run(ctx, cfg, args, &out, &errs)
		fmt.Printf("$ operate %s   (exit %d)\n", strings.Join(args, " "), code)
		c.Equal("exit code of "+args[0], want, code)
		c.That(fmt.Sprintf("output of %q mentions %q", strings.Join(args, " "), contains), strings.Contains(out.String()+errs.String(), contains))
		return out.String()
	}
	step(cli.ExitOK, "| AgentQueue |", "sheet")
	step(cli.ExitOK, "no findings", "lint", "-fail-on", "info") // CI: exit 1 on any finding
	doc := step(cli.ExitOK, "```mermaid", "doc")
	fmt.Println(firstLines(doc, 12))
	step(cli.ExitOK, "Type: AWS::DynamoDB::Table", "export", "cloudformation", "-format", "yaml", "-pitr", "-deletion-protection")
	step(cli.ExitOK, `"aws_dynamodb_table"`, "export", "terraform")
	step(cli.ExitOK, `"FacetName": "AgentQueue"`, "export", "workbench")
	step(cli.ExitOK, `"GSI1PK": {`, "items")
	step(cli.ExitFailed, "does not exist", "diff")
	step(cli.ExitOK, "is as the model declares it", "ensure-table")
	step(cli.ExitOK, "is as the model declares it", "diff")
	for _, v := range Samples {
		switch v := v.(type) {
		case Ticket:
			v.Subject, v.Status = "  "+v.Subject+" ", strings.ToLower(v.Status)
			if err := Tickets.Put(ctx, db, v); err != nil {
				return err
			}
		case Customer:
			if err := Customers.Put(ctx, db, v); err != nil {
				return err
			}
		}
	}
	step(cli.ExitOK, "Ticket: scanned 2, would change 2", "migrate", "normalize-tickets", "-dry-run")
	step(cli.ExitOK, "Ticket: scanned 2, changed 2", "migrate", "normalize-tickets")
	// The migration wrote every index key already: nothing to backfill.
	step(cli.ExitOK, "Ticket: scanned 2, changed 0, skipped 2", "backfill", "Ticket", "GSI1")
	page, err := AgentQueue.Query(ctx, db, Ticket{Agent: "a1"})
	if err != nil {
		return err
	}
	c.Equal("the agent's queue after the migration (open tickets only)", 1, len(page.Items))
	if len(page.Items) == 1 {
		c.Equal("the migrated subject", "Cannot log in", page.Items[0].Subject)
	}
	if err := db.DeleteTable(ctx); err != nil {
		return err
	}
	return c.Err()
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = append(lines[:n], "...")
	}
	return strings.Join(lines, "\n")
}
