package singletable_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
)

type lnTicket struct {
	TenantID string `dynamodbav:"tenant"`
	ID       string `dynamodbav:"id"`
	Queue    string `dynamodbav:"queue"`
	Status   string `dynamodbav:"status"`
	Priority int    `dynamodbav:"priority"`
}

type lnTask struct {
	TenantID string `dynamodbav:"tenant"`
	ID       string `dynamodbav:"id"`
	Status   string `dynamodbav:"status"`
	Priority int    `dynamodbav:"priority"`
}

// The sheet shows a multi-attribute key's attributes in order, each
// entity's fields in it, which entities share it and how a read tells
// their items apart.
func TestSheetNativeKeys(t *testing.T) {
	tbl := st.MustTable("Helpdesk",
		st.WithGSI("ByStatus", st.IndexKeys("tenant", "status,priority")),
		st.WithGSI("ByQueue", st.IndexKeys("tenant,queue", "priority")))
	st.MustDefine[lnTicket](tbl, "Ticket", st.Key("TENANT#{TenantID}", "TICKET#{ID}"))
	st.MustDefine[lnTask](tbl, "Task", st.Key("TENANT#{TenantID}", "TASK#{ID}"))
	sheet := tbl.Sheet()
	for _, want := range []string{
		"| Entity | PK | SK | tenant | status,priority | tenant,queue | priority |",
		"| Ticket | `TENANT#{TenantID}` | `TICKET#{ID}` | `{TenantID}` (field's attribute) sparse by absence of Status | `{Status}, {Priority}` (field's attribute) | `{TenantID}, {Queue}` (field's attribute) sparse by absence of Queue | `{Priority}` (field's attribute) |",
		"| ByStatus | tenant | status,priority | ALL |",
		"| ByQueue | tenant,queue | priority | ALL |",
		"- ByStatus: a multi-attribute key, the entities' own attributes in order (partition tenant; sort status,priority), nothing written for it; shared by Ticket, Task: a read tells them apart by the type attribute _type.",
		"- ByQueue: a multi-attribute key, the entities' own attributes in order (partition tenant,queue; sort priority), nothing written for it.",
	} {
		assert.Contains(t, sheet, want)
	}
	assert.Empty(t, tbl.Lint(), "a typed table tells the sharing entities apart: %v", tbl.Lint())

	// A table told apart by its keys: the sheet says so; entities whose
	// table keys can collide cannot be told apart there, which lint says.
	byKeys := st.MustTable("Helpdesk", st.WithTypeAttribute("_type,omit"), st.WithGSI("ByStatus", st.IndexKeys("tenant", "status,priority")))
	st.MustDefine[lnTicket](byKeys, "Ticket", st.Key("TENANT#{TenantID}", "TICKET#{ID}"))
	st.MustDefine[lnTask](byKeys, "Task", st.Key("TENANT#{TenantID}", "TASK#{ID}"))
	assert.Contains(t, byKeys.Sheet(), "shared by Ticket, Task: a read tells them apart by their table keys.")
	assert.Empty(t, nativeFindings(byKeys))

	clash := st.MustTable("Helpdesk", st.WithTypeAttribute("_type,keys"), st.WithGSI("ByStatus", st.IndexKeys("tenant", "status,priority")))
	st.MustDefine[lnTicket](clash, "Ticket", st.Key("TENANT#{TenantID}", "{ID}"))
	st.MustDefine[lnTask](clash, "Task", st.Key("TENANT#{TenantID}", "{ID}"))
	found := nativeFindings(clash)
	require.Len(t, found, 1)
	assert.Equal(t, st.LintError, found[0].Severity)
	assert.Equal(t, "index ByStatus", found[0].Subject)
	assert.Contains(t, found[0].Message, "cannot be told apart")
	assert.Contains(t, clash.Sheet(), "cannot be told apart")
}

// nativeFindings are lint's findings on multi-attribute keys.
func nativeFindings(tbl *st.Table) []st.LintIssue {
	var out []st.LintIssue
	for _, i := range tbl.Lint() {
		if strings.Contains(i.Message, "multi-attribute") || strings.Contains(i.Message, "told apart") {
			out = append(out, i)
		}
	}
	return out
}

// Lint points out a template index of one entity over its own string and
// integer fields that could be a multi-attribute key, with what moving
// costs; it leaves alone an index several entities overload (its
// literals tell them apart), one with When, and one whose template
// renders a time in a layout of its own.
func TestLintNativeCandidates(t *testing.T) {
	type ticket struct {
		TenantID string `dynamodbav:"tenant"`
		ID       string `dynamodbav:"id"`
		Status   string `dynamodbav:"status"`
		Priority int    `dynamodbav:"priority"`
	}
	type agent struct {
		TenantID string `dynamodbav:"tenant"`
		ID       string `dynamodbav:"id"`
		Status   string `dynamodbav:"status"`
		Priority int    `dynamodbav:"priority"`
	}
	tbl := st.MustTable("Helpdesk", st.WithGSI("GSI1"), st.WithGSI("GSI2"))
	st.MustDefine[ticket](tbl, "Ticket", st.Key("TENANT#{TenantID}", "TICKET#{ID}"),
		st.Index("GSI1", "TENANT#{TenantID}", "STATUS#{Status}#{Priority:3}"),
		st.Index("GSI2", "T#{TenantID}", "TICKET#{ID}"))
	st.MustDefine[agent](tbl, "Agent", st.Key("TENANT#{TenantID}", "AGENT#{ID}"),
		st.Index("GSI2", "T#{TenantID}", "AGENT#{ID}"))
	found := nativeFindings(tbl)
	require.Len(t, found, 1, "%v", found)
	f := found[0]
	assert.Equal(t, st.LintInfo, f.Severity)
	assert.Equal(t, "entity Ticket", f.Subject)
	for _, want := range []string{
		`index GSI1 key "TENANT#{TenantID}" / "STATUS#{Status}#{Priority:3}"`,
		`WithGSI("GSI1Native", IndexKeys("tenant", "status,priority"))`,
		"no backfill", "keep GSI1", "until every reader has moved",
		"Priority then sort as numbers",
	} {
		assert.Contains(t, f.Message, want)
	}

	// Overloaded (GSI2 above), When, or a time's own layout: no finding.
	type event struct {
		TenantID string `dynamodbav:"tenant"`
		ID       string `dynamodbav:"id"`
		Status   string `dynamodbav:"status"`
	}
	quiet := st.MustTable("Quiet", st.WithGSI("GSI1"))
	st.MustDefine[event](quiet, "Event", st.Key("E#{ID}", "E"),
		st.Index("GSI1", "T#{TenantID}", "S#{Status}").When(st.Eq("Status", "OPEN")))
	assert.Empty(t, nativeFindings(quiet))
}
