package export_test

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/export"
	"github.com/singletable/singletable/singletabletest"
)

// patternRows are the document's access pattern rows by pattern name:
// their Request cell.
func patternRows(t *testing.T, doc []byte) map[string]string {
	t.Helper()
	rows := map[string]string{}
	in := false
	for _, l := range strings.Split(string(doc), "\n") {
		switch {
		case strings.HasPrefix(l, "## "):
			in = l == "## Access patterns"
		case in && strings.HasPrefix(l, "| ") && !strings.HasPrefix(l, "| #"):
			cells := strings.Split(l, " | ")
			rows[cells[1]] = cells[2]
		}
	}
	return rows
}

type expiring struct {
	ID      string `dynamodbav:"id"`
	Kind    string `dynamodbav:"kind"`
	Expires int64  `dynamodbav:"exp"`
}

// TestDocumentPatternRequestsAsQueryDoes: a pattern on an index that does
// not project the TTL attribute is refused by Query without FetchFull() or
// IncludeExpired(); the document says so, and says "expired items left
// out" only of the patterns Query runs as declared.
func TestDocumentPatternRequestsAsQueryDoes(t *testing.T) {
	tbl := st.MustTable("Expiring", st.WithTTL("exp"),
		st.WithGSI("KeysIx", st.KeysOnly()),
		st.WithGSI("IncIx", st.Include("kind")),
		st.WithGSI("IncTTL", st.Include("exp")),
		st.WithGSI("AllIx"))
	e := st.MustDefine[expiring](tbl, "Thing", st.Key("T#{ID}", "KIND#{Kind}"), st.Expires("Expires"),
		st.Index("KeysIx", "K#{Kind}", "{ID}"), st.Index("IncIx", "I#{Kind}", "{ID}"),
		st.Index("IncTTL", "E#{Kind}", "{ID}"), st.Index("AllIx", "A#{Kind}", "{ID}"))
	patterns := map[string]*st.Pattern[expiring]{
		"OnTable":  e.Pattern("OnTable").Partition("T#{ID}").Must(),
		"OnKeys":   e.Pattern("OnKeys").On("KeysIx").Partition("K#{Kind}").Must(),
		"OnInc":    e.Pattern("OnInc").On("IncIx").Partition("I#{Kind}").Must(),
		"OnIncTTL": e.Pattern("OnIncTTL").On("IncTTL").Partition("E#{Kind}").Must(),
		"OnAll":    e.Pattern("OnAll").On("AllIx").Partition("A#{Kind}").Must(),
	}
	doc, err := export.Document(tbl, export.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rows := patternRows(t, doc)
	db := st.New(&singletabletest.Client{}, tbl)
	v := expiring{ID: "1", Kind: "k"}
	for name, p := range patterns {
		req, ok := rows[name]
		if !ok {
			t.Fatalf("no row for %s in\n%s", name, doc)
		}
		_, err := p.QueryInput(db, v)
		refused := err != nil
		says := strings.Contains(req, "only with FetchFull() (whole items read, expired ones left out) or IncludeExpired()")
		if refused != says || (refused && strings.Contains(req, ", expired items left out")) {
			t.Errorf("%s: the document says %q; Query with no options: %v", name, req, err)
		}
		if !refused && !strings.Contains(req, "expired items left out") {
			t.Errorf("%s: the document says %q; Query leaves expired items out", name, req)
		}
		if _, err := p.QueryInput(db, v, st.FetchFull()); refused && err != nil {
			t.Errorf("%s: the document says FetchFull() lets it run: %v", name, err)
		}
	}
	if rows["OnKeys"] == "" || !strings.Contains(rows["OnKeys"], "does not project `exp`") {
		t.Errorf("OnKeys: %q", rows["OnKeys"])
	}
}

// sampleRows are the document's sample item rows.
func sampleRows(doc []byte) (header string, rows []string) {
	in := false
	for _, l := range strings.Split(string(doc), "\n") {
		switch {
		case strings.HasPrefix(l, "## "):
			in = l == "## Sample items"
		case in && l == "":
		case in && header == "":
			header = l
		case in && !strings.HasPrefix(l, "|---"):
			rows = append(rows, l)
		}
	}
	return header, rows
}

// cells counts a table row's cells: its unescaped pipes.
func cells(row string) int { return len(regexp.MustCompile(`(^|[^\\])\|`).FindAllString(row, -1)) - 1 }

type oddValues struct {
	ID   string `dynamodbav:"id"`
	Text string `dynamodbav:"text"`
	Tick string `dynamodbav:"tick"`
}

// TestDocumentSampleCellsEscaped: a newline in a value stays in its cell
// (escaped); a value with backticks is a code span fenced by a longer run
// of backticks (CommonMark), padded where it starts or ends with one.
func TestDocumentSampleCellsEscaped(t *testing.T) {
	tbl := st.MustTable("Odd", st.WithKeys("PK", ""))
	st.MustDefine[oddValues](tbl, "Odd", st.Key("{ID}", ""))
	doc, err := export.Document(tbl, export.Options{Samples: []any{
		oddValues{ID: "x\ny", Text: "a\r\nb|c", Tick: "t"},
		oddValues{ID: "`tick`", Tick: "a``b <i>"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	header, rows := sampleRows(doc)
	if len(rows) != 2 {
		t.Fatalf("%d sample rows, want 2:\n%s", len(rows), doc)
	}
	for _, r := range rows {
		if cells(r) != cells(header) {
			t.Errorf("row %q has %d cells, the header %d", r, cells(r), cells(header))
		}
	}
	for _, want := range []string{"`x\\ny`", "text=a<br>b\\|c", "`` `tick` ``", "tick=a\\`\\`b &lt;i>"} {
		if !strings.Contains(string(doc), want) {
			t.Errorf("no %s in\n%s", want, doc)
		}
	}
}

type ticket struct {
	ID     string `dynamodbav:"id"`
	Status string `dynamodbav:"status"`
	Agent  string `dynamodbav:"agent,omitempty"`
}

func ticketModel() *st.Table {
	tbl := st.MustTable("Tickets", st.WithGSI("GSI1"), st.WithGSI("GSI2"))
	e := st.MustDefine[ticket](tbl, "Ticket", st.Key("T#{ID}", "T"),
		st.Index("GSI1", "STATUS#{Status}", "{ID}").When(st.Eq("Status", "OPEN")),
		st.Index("GSI2", "AGENT#{Agent}", "{ID}"))
	e.Pattern("Open").On("GSI1").Partition("STATUS#{Status}").Must()
	e.Pattern("ByAgent").On("GSI2").Partition("AGENT#{Agent}").Must()
	return tbl
}

// TestDocumentWhenCondition: the document writes an index's When
// condition itself, not only the fields it reads.
func TestDocumentWhenCondition(t *testing.T) {
	doc, err := export.Document(ticketModel(), export.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "; only when `Status = \"OPEN\"`"; !strings.Contains(string(doc), want) {
		t.Errorf("no %s in\n%s", want, doc)
	}
}

// TestWorkbenchFacetsHoldWhatTheIndexHolds: a pattern's facet on a sparse
// index has the samples the index holds: not those its When condition or
// an empty key field leaves out.
func TestWorkbenchFacetsHoldWhatTheIndexHolds(t *testing.T) {
	samples := []any{ticket{ID: "1", Status: "OPEN", Agent: "ann"}, ticket{ID: "2", Status: "CLOSED"}}
	b, err := export.Workbench(ticketModel(), export.Options{Samples: samples})
	if err != nil {
		t.Fatal(err)
	}
	var wb struct {
		DataModel []struct {
			TableFacets []struct {
				FacetName string
				TableData []map[string]map[string]string
			}
		}
	}
	if err := json.Unmarshal(b, &wb); err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{"Open": {"1"}, "ByAgent": {"1"}, "Ticket": {"1", "2"}}
	for _, f := range wb.DataModel[0].TableFacets {
		var ids []string
		for _, it := range f.TableData {
			ids = append(ids, it["id"]["S"])
		}
		if !slices.Equal(ids, want[f.FacetName]) {
			t.Errorf("facet %s holds items %v, want %v", f.FacetName, ids, want[f.FacetName])
		}
	}
}

type oddAttrs struct {
	ID string `dynamodbav:"id"`
	A  string `dynamodbav:"a:b"`
	B  string `dynamodbav:"a;b"`
	C  string `dynamodbav:"1e3"`
}

// TestDiagramNamesFaithful: attribute names Mermaid would not accept are
// written as identifiers that stay distinct, with the name itself in the
// attribute's comment.
func TestDiagramNamesFaithful(t *testing.T) {
	tbl := st.MustTable("OddAttrs")
	st.MustDefine[oddAttrs](tbl, "Odd", st.Key("O#{ID}", "O"))
	doc, err := export.Document(tbl, export.Options{})
	if err != nil {
		t.Fatal(err)
	}
	valid := regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)
	line := regexp.MustCompile(`(?m)^        S (\S+) "([^"]*)"$`)
	seen := map[string]string{}
	for _, m := range line.FindAllStringSubmatch(string(doc), -1) {
		if !valid.MatchString(m[1]) {
			t.Errorf("attribute %q is no Mermaid name", m[1])
		}
		if other, ok := seen[m[1]]; ok {
			t.Errorf("%q and %q are both written %q", other, m[2], m[1])
		}
		seen[m[1]] = m[2]
	}
	var originals []string
	for _, o := range seen {
		originals = append(originals, o)
	}
	slices.Sort(originals)
	if want := []string{"1e3", "a:b", "a;b"}; !slices.Equal(originals, want) {
		t.Errorf("comments %v, want the names %v\n%s", originals, want, doc)
	}
}
