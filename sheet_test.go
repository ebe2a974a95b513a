package singletable_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/singletable/singletable"
	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/golden"
	"github.com/singletable/singletable/internal/testmodel"
)

func TestSheetGolden(t *testing.T) {
	m := testmodel.NewSeed()
	golden.Markdown(t, "sheet/seed", m.Table.Sheet())
}

func TestLint(t *testing.T) {
	m := testmodel.NewSeed()
	assert.Equal(t, []singletable.LintIssue{{
		Severity: singletable.LintInfo, Subject: "pattern PendingOrders",
		Message: `reads the single partition "STATUS#PENDING": every such read hits one partition (hot); fine for a small sparse index`,
	}}, m.Table.Lint(), "the seed model is clean but for its intended hot sparse partition")

	// Over-matching reads on the seed model.
	m.Orders.Pattern("OrdersAfter").Partition("USER#{UserID}").SortGreaterThan()
	m.Table.Collection("UserAndOrders", m.Users, m.Orders).Partition("USER#{UserID}")
	m.Memberships.Pattern("TeamAll").On("GSI2").Partition("TEAM#{TeamID}").SortBeginsWith("U")
	m.Orders.Pattern("Broken").On("GSI2")
	m.Orders.Pattern("OrdersBefore").Partition("USER#{UserID}").SortLessThan()
	issues := m.Table.Lint()
	find := func(subject string) []string {
		var out []string
		for _, i := range issues {
			if i.Subject == subject {
				out = append(out, i.String())
			}
		}
		return out
	}
	after := find("pattern OrdersAfter")
	require.Len(t, after, 1)
	assert.Contains(t, after[0], "warning: pattern OrdersAfter: its key condition")
	assert.Contains(t, after[0], "also matches Membership items")
	before := find("pattern OrdersBefore")
	require.Len(t, before, 1)
	assert.Contains(t, before[0], "also matches User items")
	coll := find("collection UserAndOrders")
	require.Len(t, coll, 1)
	assert.Contains(t, coll[0], "Membership items")
	assert.Contains(t, coll[0], "Unknown")
	assert.Empty(t, find("pattern TeamAll"), "no other entity writes GSI2")
	broken := find("pattern Broken")
	require.Len(t, broken, 1)
	assert.Contains(t, broken[0], "error: pattern Broken")
	assert.Empty(t, find("pattern ListUserOrders"))
	assert.Contains(t, m.Table.Sheet(), "| Broken | invalid |")

	// Collisions, hot partitions, too many indexes.
	opts := []singletable.TableOption{}
	for i := range 6 {
		opts = append(opts, singletable.WithGSI(fmt.Sprintf("GSI%d", i+1)))
	}
	tbl := singletable.MustTable("Lint", opts...)
	type A struct{ ID, Name string }
	type B struct{ Key, Other string }
	type C struct{ N int }
	singletable.MustDefine[A](tbl, "A", singletable.Key("X#{ID}", "META"), singletable.Index("GSI1", "ALL", "{Name}#X"))
	singletable.MustDefine[B](tbl, "B", singletable.Key("X#{Key}", "META"), singletable.Index("GSI1", "ALL", "B#{Other}"))
	singletable.MustDefine[C](tbl, "C", singletable.Key("COUNTER", "N#{N}"))
	cp := singletable.MustDefine[C](tbl, "CP", singletable.Key("CP#{N}", "M"))
	cp.Pattern("KeysOnlyOver")
	report := singletable.LintReport(tbl.Lint())
	assert.Contains(t, report, "warning: table Lint: 6 global secondary indexes")
	assert.Contains(t, report, `error: entity A: keys can collide with entity B on the table: "X#{ID}" / "META" vs "X#{Key}" / "META"`)
	assert.Contains(t, report, `warning: entity A: keys can collide with entity B on index GSI1`)
	assert.Contains(t, report, `warning: entity A: partition template "ALL" on index GSI1 has no placeholder`)
	assert.Contains(t, report, `warning: entity C: partition template "COUNTER" on the table has no placeholder`)
	assert.NotContains(t, report, "entity C: keys can collide")
	assert.Equal(t, "no findings\n", singletable.LintReport(nil))
}

// An over-matching read on an index that does not carry the entity type is
// an error: the other entity's items cannot be told apart.
func TestLintKeysOnlyOverMatch(t *testing.T) {
	tbl := singletable.MustTable("KeysOnlyLint", singletable.WithGSI("GSI1", singletable.KeysOnly()))
	type A struct{ ID, G string }
	type B struct{ ID, G string }
	as := singletable.MustDefine[A](tbl, "A", singletable.Key("A#{ID}", "A"), singletable.Index("GSI1", "G#{G}", "A#{ID}"))
	singletable.MustDefine[B](tbl, "B", singletable.Key("B#{ID}", "B"), singletable.Index("GSI1", "G#{G}", "B#{ID}"))
	as.Pattern("ByG").On("GSI1").Partition("G#{G}").SortGreaterOrEqual()
	as.Pattern("ByGSafe").On("GSI1").Partition("G#{G}")
	report := singletable.LintReport(tbl.Lint())
	assert.Contains(t, report, "error: pattern ByG: its key condition")
	assert.Contains(t, report, "does not carry the entity type")
	assert.NotContains(t, report, "pattern ByGSafe")
}

// The sheet shows derived index keys for what they are.
func TestSheetShowsDerivedIndexKeys(t *testing.T) {
	tbl := st.MustTable("Sheet", st.WithGSI("Inverted", st.IndexKeys("SK", "PK")), st.WithGSI("ByEmail", st.IndexKeys("email", "")))
	st.MustDefine[idxMember](tbl, "M", st.Key("USER#{UserID}", "GROUP#{GroupID}"))
	sheet := tbl.Sheet()
	assert.Contains(t, sheet, "`GROUP#{GroupID}` (table key) | `USER#{UserID}` (table key) | `{Email}` (field's attribute)")
	// The inverted index's columns are the table's key attributes again:
	// their heads name the index, not a second "SK | PK".
	assert.Contains(t, sheet, "| Entity | PK | SK | Inverted: SK | Inverted: PK | email |")
}
