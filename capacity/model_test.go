package capacity_test

import (
	"testing"

	st "github.com/singletable/singletable"
)

// The capacity tests' model: documents with an index that projects ALL
// (GSI1) and a sparse one that projects keys only (ByStatus: items without
// a Status are not in it); the same struct as a plain entity in no index;
// and page views spread over four shards, for fan-out.

type Doc struct {
	Owner  string `dynamodbav:"owner"`
	ID     string `dynamodbav:"id"`
	Body   string `dynamodbav:"body"`
	Status string `dynamodbav:"status,omitempty"`
	N      int    `dynamodbav:"n"`
}

type View struct {
	Page  string `dynamodbav:"page"`
	Shard int    `dynamodbav:"shard"`
	At    string `dynamodbav:"at"`
}

type Acct struct {
	ID    string `dynamodbav:"id"`
	Email string `dynamodbav:"email"`
}

type model struct {
	Table      *st.Table
	Docs       *st.Entity[Doc]
	Plain      *st.Entity[Doc]
	Views      *st.Entity[View]
	Accts      *st.Entity[Acct]
	DocsAndAll *st.Collection
	ByOwner    *st.Pattern[Doc]
	ByStatus   *st.Pattern[Doc]
	DocByKey   *st.Pattern[Doc]
	ViewShards *st.Pattern[View]
}

func newModel(t testing.TB) *model {
	t.Helper()
	tbl := st.MustTable("CapDocs", st.WithGSI("GSI1"), st.WithGSI("ByStatus", st.KeysOnly()))
	m := &model{Table: tbl}
	m.Docs = st.MustDefine[Doc](tbl, "Doc", st.Key("OWNER#{Owner}", "DOC#{ID}"),
		st.Index("GSI1", "DOC#{ID}", "DOC"), st.Index("ByStatus", "STATUS#{Status}", "DOC#{ID}"))
	m.Plain = st.MustDefine[Doc](tbl, "Plain", st.Key("PLAIN#{Owner}", "P#{ID}"))
	m.Views = st.MustDefine[View](tbl, "View", st.Key("VIEW#{Page}#{Shard}", "AT#{At}"), st.Shards("Shard", 4))
	m.Accts = st.MustDefine[Acct](tbl, "Acct", st.Key("ACCT#{ID}", "ACCT"), st.Unique("Email"))
	m.DocsAndAll = tbl.Collection("OwnerAll", m.Docs).Partition("OWNER#{Owner}").Must()
	m.ByOwner = m.Docs.Pattern("DocsByOwner").Must()
	m.ByStatus = m.Docs.Pattern("DocsByStatus").On("ByStatus").Must()
	m.DocByKey = m.Docs.Pattern("DocByKey").SortEquals().Must()
	m.ViewShards = m.Views.Pattern("ViewShards").Must()
	return m
}
