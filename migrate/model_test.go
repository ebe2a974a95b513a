package migrate_test

import (
	"context"
	"fmt"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
)

// The migration tests' model (the root's scan tests have the same, in
// scan_model_test.go; the golden requests depend on it): documents (with
// sets, maps and lists, so that conditions compare every kind), notes (a
// second entity type), and a versioned document; v2 adds an index by
// owner.

type mDoc struct {
	ID    string         `dynamodbav:"id"`
	Owner string         `dynamodbav:"owner"`
	Title string         `dynamodbav:"title"`
	Tags  []string       `dynamodbav:"tags,stringset,omitempty"`
	Meta  map[string]int `dynamodbav:"meta,omitempty"`
	Refs  []string       `dynamodbav:"refs,omitempty"`
	N     int            `dynamodbav:"n"`
}

type mNote struct {
	ID   string `dynamodbav:"id"`
	Body string `dynamodbav:"body"`
}

type mVDoc struct {
	ID      string `dynamodbav:"id"`
	Owner   string `dynamodbav:"owner"`
	Title   string `dynamodbav:"title"`
	Version int64  `singletable:"version"`
}

type migModel struct {
	table *st.Table
	docs  *st.Entity[mDoc]
	notes *st.Entity[mNote]
	vdocs *st.Entity[mVDoc]
	// v2 only: the pattern on the new index.
	byOwner  *st.Pattern[mDoc]
	vByOwner *st.Pattern[mVDoc]
}

func newMigModel(t *testing.T, v2 bool) *migModel {
	t.Helper()
	var topts []st.TableOption
	var dopts, vopts []st.EntityOption
	dopts = append(dopts, st.Key("DOC#{ID}", "DOC"))
	vopts = append(vopts, st.Key("VDOC#{ID}", "VDOC"))
	if v2 {
		topts = append(topts, st.WithGSI("GSI1"))
		dopts = append(dopts, st.Index("GSI1", "OWNER#{Owner}", "DOC#{ID}"))
		vopts = append(vopts, st.Index("GSI1", "VOWNER#{Owner}", "VDOC#{ID}"))
	}
	tbl, err := st.NewTable("MigDocs", topts...)
	require.NoError(t, err)
	m := &migModel{table: tbl}
	m.docs = st.MustDefine[mDoc](tbl, "Doc", dopts...)
	m.notes = st.MustDefine[mNote](tbl, "Note", st.Key("NOTE#{ID}", "NOTE"))
	m.vdocs = st.MustDefine[mVDoc](tbl, "VDoc", vopts...)
	if v2 {
		m.byOwner = m.docs.Pattern("DocsByOwner").On("GSI1").Partition("OWNER#{Owner}").Must()
		m.vByOwner = m.vdocs.Pattern("VDocsByOwner").On("GSI1").Partition("VOWNER#{Owner}").Must()
	}
	return m
}

// docID makes ids with the delimiter and the escape character in them.
func docID(i int) string { return fmt.Sprintf("d#%03d%%x", i) }

func testDoc(i int) mDoc {
	d := mDoc{ID: docID(i), Owner: fmt.Sprintf("o%d", i%3), Title: fmt.Sprintf("title %d", i), N: i}
	if i%2 == 0 {
		d.Tags = []string{fmt.Sprint(i), "a", "b#"}
		d.Meta = map[string]int{"x": i, "y": 0}
		d.Refs = []string{"r1", "r#2"}
	}
	return d
}

// sortedTags sorts d's tags, a set DynamoDB returns in any order, as
// testDoc does.
func sortedTags(d mDoc) mDoc {
	sort.Strings(d.Tags)
	return d
}

// loadDocs writes n docs (and n/3 notes) in batches.
func loadDocs(t *testing.T, ctx context.Context, db *st.DB, m *migModel, n int) {
	t.Helper()
	var docs []mDoc
	var notes []mNote
	for i := range n {
		docs = append(docs, testDoc(i))
		if i%3 == 0 {
			notes = append(notes, mNote{ID: fmt.Sprint(i), Body: "note"})
		}
	}
	require.NoError(t, db.BatchWrite(ctx, []st.BatchOp{st.BatchPut(m.docs, docs...), st.BatchPut(m.notes, notes...)}))
}
