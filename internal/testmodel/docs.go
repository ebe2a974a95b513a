package testmodel

import (
	"context"
	"fmt"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
)

// The scan and migration tests' model (the golden requests of both depend
// on it): documents (with sets, maps and lists, so that conditions compare
// every kind), notes (a second entity type), and a versioned document; v2
// adds an index by owner.

// MigDoc is a document.
type MigDoc struct {
	ID    string         `dynamodbav:"id"`
	Owner string         `dynamodbav:"owner"`
	Title string         `dynamodbav:"title"`
	Tags  []string       `dynamodbav:"tags,stringset,omitempty"`
	Meta  map[string]int `dynamodbav:"meta,omitempty"`
	Refs  []string       `dynamodbav:"refs,omitempty"`
	N     int            `dynamodbav:"n"`
}

// MigNote is a note, a second entity type.
type MigNote struct {
	ID   string `dynamodbav:"id"`
	Body string `dynamodbav:"body"`
}

// MigVDoc is a versioned document.
type MigVDoc struct {
	ID      string `dynamodbav:"id"`
	Owner   string `dynamodbav:"owner"`
	Title   string `dynamodbav:"title"`
	Version int64  `singletable:"version"`
}

// MigModel is the table and its entities.
type MigModel struct {
	Table *st.Table
	Docs  *st.Entity[MigDoc]
	Notes *st.Entity[MigNote]
	VDocs *st.Entity[MigVDoc]
	// v2 only: the pattern on the new index.
	ByOwner  *st.Pattern[MigDoc]
	VByOwner *st.Pattern[MigVDoc]
}

// NewMigModel declares the model; v2 adds the index by owner.
func NewMigModel(t testing.TB, v2 bool) *MigModel {
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
	m := &MigModel{Table: tbl}
	m.Docs = st.MustDefine[MigDoc](tbl, "Doc", dopts...)
	m.Notes = st.MustDefine[MigNote](tbl, "Note", st.Key("NOTE#{ID}", "NOTE"))
	m.VDocs = st.MustDefine[MigVDoc](tbl, "VDoc", vopts...)
	if v2 {
		m.ByOwner = m.Docs.Pattern("DocsByOwner").On("GSI1").Partition("OWNER#{Owner}").Must()
		m.VByOwner = m.VDocs.Pattern("VDocsByOwner").On("GSI1").Partition("VOWNER#{Owner}").Must()
	}
	return m
}

// MigDocID makes ids with the delimiter and the escape character in them.
func MigDocID(i int) string { return fmt.Sprintf("d#%03d%%x", i) }

// MigTestDoc is document i.
func MigTestDoc(i int) MigDoc {
	d := MigDoc{ID: MigDocID(i), Owner: fmt.Sprintf("o%d", i%3), Title: fmt.Sprintf("title %d", i), N: i}
	if i%2 == 0 {
		d.Tags = []string{fmt.Sprint(i), "a", "b#"}
		d.Meta = map[string]int{"x": i, "y": 0}
		d.Refs = []string{"r1", "r#2"}
	}
	return d
}

// SortedTags sorts d's tags, a set DynamoDB returns in any order, as
// MigTestDoc does.
func SortedTags(d MigDoc) MigDoc {
	sort.Strings(d.Tags)
	return d
}

// LoadDocs writes n docs (and n/3 notes) in batches.
func LoadDocs(t testing.TB, ctx context.Context, db *st.DB, m *MigModel, n int) {
	t.Helper()
	var docs []MigDoc
	var notes []MigNote
	for i := range n {
		docs = append(docs, MigTestDoc(i))
		if i%3 == 0 {
			notes = append(notes, MigNote{ID: fmt.Sprint(i), Body: "note"})
		}
	}
	require.NoError(t, db.BatchWrite(ctx, []st.BatchOp{st.BatchPut(m.Docs, docs...), st.BatchPut(m.Notes, notes...)}))
}
