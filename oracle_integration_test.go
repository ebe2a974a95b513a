//go:build integration

package singletable_test

// Randomized oracle test (named after its method, not after a source file):
// random operations on a deliberately different model, checked against an
// in-memory oracle on DynamoDB Local.

import (
	"context"

	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/ddblocal"
	"github.com/singletable/singletable/internal/soak"
)

// A randomized sequence of writes and reads against DynamoDB Local, each
// read checked against an in-memory oracle of what the table must hold.
// The model is unlike the examples on purpose: delimiters and escape
// characters in every key field, zero integers in keys, a sparse index by
// absence, a keys-only index with a When condition, and small pages.

type Ticket struct {
	Project  string    `dynamodbav:"project"`
	Num      int       `dynamodbav:"num"`
	ID       string    `dynamodbav:"id"`
	Title    string    `dynamodbav:"title,omitempty"`
	Status   string    `dynamodbav:"status"`
	Assignee string    `dynamodbav:"assignee,omitempty"`
	Prio     int       `dynamodbav:"prio"`
	Points   float64   `dynamodbav:"points"`
	Tags     []string  `dynamodbav:"tags,stringset,omitempty"`
	Due      time.Time `dynamodbav:"due"`
}

type oracleModel struct {
	table                           *singletable.Table
	tickets                         *singletable.Entity[Ticket]
	byProject, byAssignee, byStatus *singletable.Pattern[Ticket]
}

func newOracleModel(t *testing.T) *oracleModel {
	t.Helper()
	m := &oracleModel{}
	m.table = singletable.MustTable("Oracle", singletable.WithGSI("GSI1"), singletable.WithGSI("GSI2", singletable.KeysOnly()))
	m.tickets = singletable.MustDefine[Ticket](m.table, "Ticket",
		singletable.Key("PROJ#{Project}", "TICKET#{Num:4}#{ID}"),
		singletable.Index("GSI1", "ASSIGNEE#{Assignee}", "PRIO#{Prio:2}#{Project}#{Num:4}#{ID}"), // sparse: no assignee, no entry
		singletable.Index("GSI2", "STATUS#{Status}", "{Project}#{Num:4}#{ID}").
			When(singletable.Ne("Status", "CLOSED")),
	)
	m.byProject = m.tickets.Pattern("TicketsByProject").Partition("PROJ#{Project}").Must()
	m.byAssignee = m.tickets.Pattern("TicketsByAssignee").On("GSI1").Partition("ASSIGNEE#{Assignee}").Must()
	m.byStatus = m.tickets.Pattern("OpenTicketsByStatus").On("GSI2").Partition("STATUS#{Status}").Must()
	return m
}

// ticketID is a ticket's table key.
type ticketID struct {
	project string
	num     int
	id      string
}

func idOfTicket(t Ticket) ticketID { return ticketID{t.Project, t.Num, t.ID} }

// esc is the library's documented key escaping, written again for the
// oracle: '%' and the delimiter as %XX.
func esc(s string) string {
	return strings.NewReplacer("%", "%25", "#", "%23").Replace(s)
}

// The sort keys the oracle orders each read by, as DynamoDB does (bytes).
func projectSort(t Ticket) string { return fmt.Sprintf("TICKET#%04d#%s", t.Num, esc(t.ID)) }
func assigneeSort(t Ticket) string {
	return fmt.Sprintf("PRIO#%02d#%s#%04d#%s", t.Prio, esc(t.Project), t.Num, esc(t.ID))
}
func statusSort(t Ticket) string { return fmt.Sprintf("%s#%04d#%s", esc(t.Project), t.Num, esc(t.ID)) }

// normalize makes equal tickets compare equal: stored times come back in
// UTC, an empty set comes back nil.
func normalize(t Ticket) Ticket {
	t.Due = t.Due.UTC()
	if len(t.Tags) == 0 {
		t.Tags = nil
	} else {
		t.Tags = slices.Sorted(slices.Values(t.Tags))
	}
	return t
}

var (
	oracleProjects  = []string{"p1", "p#2", "p%3", "ü"}
	oracleIDs       = []string{"a", "a#b", "%23", "x/y", "é", "a#", "#", "a$"}
	oracleNums      = []int{0, 1, 7, 42}
	oracleStatuses  = []string{"OPEN", "CLOSED", "WIP"}
	oracleAssignees = []string{"", "ann", "bob#1", "%"}
	oraclePrios     = []int{0, 1, 2, 10}
)

func pick[S ~[]E, E any](r *rand.Rand, s S) E { return s[r.IntN(len(s))] }

func randomTicket(r *rand.Rand) Ticket {
	t := Ticket{
		Project: pick(r, oracleProjects), Num: pick(r, oracleNums), ID: pick(r, oracleIDs),
		Status: pick(r, oracleStatuses), Assignee: pick(r, oracleAssignees), Prio: pick(r, oraclePrios),
		Points: pick(r, []float64{0, 1.5, -2, 1e10}),
		Due:    time.Date(2026, 1, 1+r.IntN(60), r.IntN(24), 0, 0, 0, time.UTC),
	}
	if r.IntN(2) == 0 {
		t.Title = pick(r, []string{"fix it", "#1 priority", "100%"})
	}
	if r.IntN(3) == 0 {
		t.Tags = []string{pick(r, []string{"x", "y#", "z"}), "w"}
	}
	return t
}

func TestIntegrationRandomOperationsAgainstOracle(t *testing.T) {
	seeds := []uint64{1, 2, 3, 4, 5}
	for _, seed := range seeds[:soak.Size(2, len(seeds))] {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			runOracle(t, seed, 300)
		})
	}
}

func runOracle(t *testing.T, seed uint64, steps int) {
	ctx := t.Context()
	m := newOracleModel(t)
	client, err := ddblocal.Client(ctx)
	require.NoError(t, err, "integration tests need DynamoDB Local: run them with `make test`")
	db := singletable.New(client, m.table, singletable.WithTableName(ddblocal.UniqueName("oracle")))
	require.NoError(t, db.EnsureTable(ctx))
	t.Cleanup(func() { _ = db.DeleteTable(context.Background()) })

	r := rand.New(rand.NewPCG(seed, 99))
	want := map[ticketID]Ticket{}
	anyKey := func() Ticket {
		if len(want) > 0 && r.IntN(4) != 0 {
			keys := make([]ticketID, 0, len(want))
			for k := range want {
				keys = append(keys, k)
			}
			slices.SortFunc(keys, func(a, b ticketID) int {
				return strings.Compare(fmt.Sprint(a), fmt.Sprint(b))
			})
			k := pick(r, keys)
			return Ticket{Project: k.project, Num: k.num, ID: k.id}
		}
		v := randomTicket(r)
		return Ticket{Project: v.Project, Num: v.Num, ID: v.ID}
	}

	for step := 0; step < steps; step++ {
		where := fmt.Sprintf("seed %d step %d", seed, step)
		switch op := r.IntN(9); op {
		case 0, 1: // Put
			v := randomTicket(r)
			require.NoError(t, m.tickets.Put(ctx, db, v), where)
			want[idOfTicket(v)] = normalize(v)
		case 2: // Create
			v := randomTicket(r)
			err := m.tickets.Create(ctx, db, v)
			if _, exists := want[idOfTicket(v)]; exists {
				require.ErrorIs(t, err, singletable.ErrAlreadyExists, where)
			} else {
				require.NoError(t, err, where)
				want[idOfTicket(v)] = normalize(v)
			}
		case 3: // Delete
			k := anyKey()
			require.NoError(t, m.tickets.Delete(ctx, db, k), where)
			delete(want, idOfTicket(k))
		case 4: // Update: one or several fields, some feeding index keys, or an upsert
			k := anyKey()
			cur, exists := want[idOfTicket(k)]
			status, assignee, prio, title := pick(r, oracleStatuses), pick(r, oracleAssignees), pick(r, oraclePrios), pick(r, []string{"renamed", "#", ""})
			var changes singletable.Changes
			var opts []singletable.UpdateOption
			upsert := false
			switch r.IntN(5) {
			case 0: // every field an index key reads
				changes = singletable.Set("Status", status).Set("Assignee", assignee).Set("Prio", prio).Set("Title", title)
				cur.Status, cur.Assignee, cur.Prio, cur.Title = status, assignee, prio, title
			case 1: // the status alone: GSI2's key is recomputed, or removed when the ticket closes
				changes = singletable.Set("Status", status)
				cur.Status = status
			case 2: // the assignee alone: GSI1's key also needs Prio, which Update reads
				changes = singletable.Set("Assignee", assignee)
				cur.Assignee = assignee
			case 3: // the priority alone: read Assignee, or leave GSI1 alone when unassigned
				changes = singletable.Set("Prio", prio)
				cur.Prio = prio
			case 4: // an upsert of the title: a new ticket must be what a Put of the same value stores
				changes, opts = singletable.Set("Title", title), []singletable.UpdateOption{singletable.Upsert()}
				if !exists {
					cur = Ticket{Project: k.Project, Num: k.Num, ID: k.ID}
				}
				cur.Title = title
				upsert = true
			}
			got, err := m.tickets.Update(ctx, db, k, changes, opts...)
			if !exists && !upsert {
				require.ErrorIs(t, err, singletable.ErrNotFound, where)
				break
			}
			require.NoError(t, err, where)
			cur = normalize(cur)
			want[idOfTicket(k)] = cur
			require.Equal(t, cur, normalize(got), where+": Update's returned item")
		case 5: // Get
			k := anyKey()
			got, err := m.tickets.Get(ctx, db, k)
			if cur, exists := want[idOfTicket(k)]; exists {
				require.NoError(t, err, where)
				require.Equal(t, cur, normalize(got), where)
			} else {
				require.ErrorIs(t, err, singletable.ErrNotFound, where)
			}
		case 6: // tickets of a project, in sort-key order, in pages
			p := pick(r, oracleProjects)
			exp := expected(want, func(v Ticket) bool { return v.Project == p }, projectSort, nil)
			require.Equal(t, exp, readAll(t, ctx, db, m.byProject, Ticket{Project: p}, r), where+": project "+p)
		case 7: // tickets of an assignee through the sparse GSI1
			a := pick(r, oracleAssignees[1:])
			exp := expected(want, func(v Ticket) bool { return v.Assignee == a }, assigneeSort, nil)
			require.Equal(t, exp, readAll(t, ctx, db, m.byAssignee, Ticket{Assignee: a}, r), where+": assignee "+a)
		case 8: // open tickets by status through the keys-only GSI2: only key fields come back
			s := pick(r, oracleStatuses)
			keysOnly := func(v Ticket) Ticket { return Ticket{Project: v.Project, Num: v.Num, ID: v.ID, Status: v.Status} }
			exp := expected(want, func(v Ticket) bool { return v.Status == s && s != "CLOSED" }, statusSort, keysOnly)
			require.Equal(t, exp, readAll(t, ctx, db, m.byStatus, Ticket{Status: s}, r), where+": status "+s)
		}
	}
}

// expected lists the oracle's tickets that match, in the order of sortKey,
// each passed through view (nil: whole).
func expected(want map[ticketID]Ticket, match func(Ticket) bool, sortKey func(Ticket) string, view func(Ticket) Ticket) []Ticket {
	out := []Ticket{}
	for _, v := range want {
		if match(v) {
			out = append(out, v)
		}
	}
	slices.SortFunc(out, func(a, b Ticket) int { return strings.Compare(sortKey(a), sortKey(b)) })
	if view != nil {
		for i := range out {
			out[i] = view(out[i])
		}
	}
	return out
}

// readAll reads every page of a pattern with a random page size, following
// the cursors.
func readAll(t *testing.T, ctx context.Context, db *singletable.DB, p *singletable.Pattern[Ticket], params Ticket, r *rand.Rand) []Ticket {
	t.Helper()
	out := []Ticket{}
	limit := 1 + r.IntN(5)
	cursor := ""
	for pages := 0; ; pages++ {
		require.Less(t, pages, 1000, "paging does not end")
		opts := []singletable.QueryOption{singletable.Limit(limit)}
		if cursor != "" {
			opts = append(opts, singletable.After(cursor))
		}
		page, err := p.Query(ctx, db, params, opts...)
		require.NoError(t, err)
		require.LessOrEqual(t, len(page.Items), limit)
		for _, v := range page.Items {
			out = append(out, normalize(v))
		}
		if page.Cursor == "" {
			return out
		}
		cursor = page.Cursor
	}
}
