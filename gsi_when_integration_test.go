//go:build integration

package singletable_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/singletabletest"
)

// whenDoc has a field of each kind a When condition reads: present or
// absent as Put stores it (omitempty, pointers, NULL).
type whenDoc struct {
	Kind   string     `dynamodbav:"kind"`
	ID     string     `dynamodbav:"id"`
	Status string     `dynamodbav:"status"`
	Email  string     `dynamodbav:"email,omitempty"`
	Note   *string    `dynamodbav:"note"`
	Ref    *string    `dynamodbav:"ref,omitempty"`
	N      int        `dynamodbav:"n"`
	M      int        `dynamodbav:"m,omitempty"`
	Flag   bool       `dynamodbav:"flag"`
	At     time.Time  `dynamodbav:"at"`
	Due    *time.Time `dynamodbav:"due,omitempty"`
	Score  float64    `dynamodbav:"score"`
}

// The in-process evaluation of a When condition agrees with DynamoDB's: for
// each condition, the items that land in the sparse index are exactly
// those DynamoDB's filter of the same condition returns.
func TestWhenAgreesWithDynamoDB(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	conds := map[string]st.Cond{
		"eq":          st.Eq("Status", "PENDING"),
		"ne":          st.Ne("Status", "PENDING"),
		"ne-absent":   st.Ne("Email", "a@x"),
		"exists":      st.Exists("Email"),
		"not-exists":  st.NotExists("Email"),
		"null-exists": st.Exists("Note"),
		"ptr-exists":  st.Exists("Ref"),
		"ptr-absent":  st.NotExists("Due"),
		"lt":          st.Lt("N", 3),
		"le":          st.Le("N", 3),
		"gt":          st.Gt("Score", 1.5),
		"ge-absent":   st.Ge("M", 0),
		"between":     st.Between("N", 2, 4),
		"in":          st.In("Status", "PENDING", "OPEN"),
		"begins":      st.BeginsWith("Email", "b"),
		"bool":        st.Eq("Flag", true),
		"time":        st.Gt("At", t0),
		"time-ptr":    st.Le("Due", t0),
		"and":         st.And(st.Exists("Email"), st.Eq("Status", "OPEN")),
		"or":          st.Or(st.Gt("N", 4), st.NotExists("Ref")),
		"not":         st.Not(st.Or(st.Eq("Status", "PENDING"), st.Exists("Ref"))),
		"ne-null":     st.Ne("Note", "x"),
	}
	names := make([]string, 0, len(conds))
	for name := range conds {
		names = append(names, name)
	}
	slices.Sort(names)

	table := st.MustTable("When", st.WithGSI("GSI1"))
	type entity struct {
		name   string
		e      *st.Entity[whenDoc]
		inIdx  *st.Pattern[whenDoc]
		byKind *st.Pattern[whenDoc]
	}
	var ents []entity
	for _, name := range names {
		e := st.MustDefine[whenDoc](table, "W_"+name, st.Key("K#{Kind}", "D#{ID}"),
			st.Index("GSI1", "W#{Kind}", "{ID}").When(conds[name]))
		ents = append(ents, entity{name: name, e: e,
			inIdx:  e.Pattern("In_" + name).On("GSI1").Partition("W#{Kind}").Must(),
			byKind: e.Pattern("All_" + name).Partition("K#{Kind}").Must()})
	}
	db := singletabletest.LocalDB(t, table)

	s := func(v string) *string { return &v }
	tm := func(d time.Duration) *time.Time { v := t0.Add(d); return &v }
	docs := []whenDoc{
		{ID: "01"},
		{ID: "02", Status: "PENDING", Email: "a@x", N: 3, Score: 1.5, Flag: true, At: t0},
		{ID: "03", Status: "OPEN", Email: "b@x", Note: s("x"), Ref: s(""), N: 2, M: 5, Score: 2, At: t0.Add(time.Second), Due: tm(-time.Hour)},
		{ID: "04", Status: "OPEN", Note: s("y"), Ref: s("r"), N: 4, M: -1, Score: -3, Due: tm(time.Hour)},
		{ID: "05", Status: "CLOSED", Email: "bb", N: 5, Due: tm(0)},
		{ID: "06", Status: "pending", Email: "B", N: -7, Score: 1.25, Flag: true},
	}
	for _, en := range ents {
		for _, d := range docs {
			d.Kind = en.name
			err := en.e.Put(ctx, db, d)
			require.NoError(t, err)
		}
	}
	ids := func(ds []whenDoc) []string {
		var out []string
		for _, d := range ds {
			out = append(out, d.ID)
		}
		slices.Sort(out)
		return out
	}
	for _, en := range ents {
		key := whenDoc{Kind: en.name}
		inIndex := ids(collectAll(t, en.inIdx.All(ctx, db, key)))
		filtered := ids(collectAll(t, en.byKind.All(ctx, db, key, st.Filter(conds[en.name]))))
		assert.Equal(t, filtered, inIndex, "condition %s: DynamoDB's filter (expected) vs the index (actual)", en.name)
	}
}

// whenContact is in the ByEmail index only once it has an email; the index
// key itself reads other fields.
type whenContact struct {
	ID     string `dynamodbav:"id"`
	Status string `dynamodbav:"status"`
	Email  string `dynamodbav:"email,omitempty"`
}

// Issue 19.1: the fields of a When condition follow from it, so an Update
// of Email alone re-evaluates Exists("Email") and puts the item in the
// index (with the old func form and a wrong field list, it stayed out for
// good).
func TestWhenUpdateOfItsFieldEntersTheIndex(t *testing.T) {
	ctx := context.Background()
	table := st.MustTable("WhenEmail", st.WithGSI("GSI1"))
	contacts := st.MustDefine[whenContact](table, "Contact", st.Key("C#{ID}", "C"),
		st.Index("GSI1", "ST#{Status}", "{ID}").When(st.Exists("Email")))
	byStatus := contacts.Pattern("ByStatus").On("GSI1").Partition("ST#{Status}").Must()
	db := singletabletest.LocalDB(t, table)

	require.NoError(t, contacts.Create(ctx, db, whenContact{ID: "c1", Status: "NEW"}))
	assert.Empty(t, collectAll(t, byStatus.All(ctx, db, whenContact{Status: "NEW"})), "no email, not in the index")

	// The update gives Email; the key needs Status, which Update reads.
	_, err := contacts.Update(ctx, db, whenContact{ID: "c1"}, st.Set("Email", "a@x"))
	require.NoError(t, err)
	got := collectAll(t, byStatus.All(ctx, db, whenContact{Status: "NEW"}))
	require.Len(t, got, 1)
	assert.Equal(t, "a@x", got[0].Email)

	// Removing the email takes it out again.
	_, err = contacts.Update(ctx, db, whenContact{ID: "c1"}, st.Remove("Email"))
	require.NoError(t, err)
	assert.Empty(t, collectAll(t, byStatus.All(ctx, db, whenContact{Status: "NEW"})))
}
