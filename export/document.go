package export

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	st "github.com/singletable/singletable"
)

// Document is the model as a Markdown page for reviewers who do not read
// Go: the table, each entity with its keys, index keys and managed fields,
// the indexes (local, overloaded, sparse, keys-only), each access pattern and the
// request it becomes, the sample items laid out as a single-table diagram
// (PK, SK, each index's keys, type, attributes), a Mermaid diagram of the
// entities, their collections and relations, and the lint findings. The
// output is stable: the same model gives the same page.
func Document(t *st.Table, o Options) ([]byte, error) {
	md, err := load("export.Document", t, o)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	md.docTable(&b)
	md.docEntities(&b)
	md.docIndexes(&b)
	md.docPatterns(&b)
	md.docItems(&b)
	md.docDiagram(&b)
	docLint(&b, t.Lint())
	return []byte(b.String()), nil
}

func (md *model) docTable(b *strings.Builder) {
	fmt.Fprintf(b, "# Model of table %s\n\n", md.t.Name())
	b.WriteString("Generated from the Go model by singletable: do not edit; regenerate it.\n\n")
	b.WriteString("| Property | Value |\n|---|---|\n")
	pk, sk := md.keyAttrs("")
	row := func(k, v string) { fmt.Fprintf(b, "| %s | %s |\n", k, v) }
	row("Table name", code(md.name))
	row("Partition key", code(pk.name)+" ("+pk.typ+")")
	if sk.name != "" {
		row("Sort key", code(sk.name)+" ("+sk.typ+")")
	}
	row("Entity type attribute", code(md.t.TypeAttribute()))
	ttl := "none"
	if a := md.t.TTLAttribute(); a != "" {
		ttl = code(a)
	}
	row("Time to live", ttl)
	stream := "none"
	if s := md.t.Stream(); s != "" {
		stream = string(s)
	}
	row("Stream", stream)
	billing := string(md.create.BillingMode)
	if p := md.create.ProvisionedThroughput; p != nil {
		billing += fmt.Sprintf(" (%d read, %d write units)", aws.ToInt64(p.ReadCapacityUnits), aws.ToInt64(p.WriteCapacityUnits))
	}
	row("Billing", billing)
	b.WriteString("\n")
}

func (md *model) docEntities(b *strings.Builder) {
	b.WriteString("## Entities\n\n")
	pk, sk := md.keyAttrs("")
	for _, e := range md.m.Entities {
		fmt.Fprintf(b, "### %s\n\n", e.Name)
		fmt.Fprintf(b, "- Key: %s = %s", pk.name, code(e.PK))
		if sk.name != "" {
			fmt.Fprintf(b, ", %s = %s", sk.name, code(e.SK))
		}
		b.WriteString("\n")
		for _, k := range e.Indexes {
			ipks, isks := md.keyLists(k.Index)
			fmt.Fprintf(b, "- Index %s: %s = %s%s", k.Index, keyNames(ipks), code(k.PK), from(k.PKFrom))
			if len(isks) > 0 && k.SK != "" {
				fmt.Fprintf(b, ", %s = %s%s", keyNames(isks), code(k.SK), from(k.SKFrom))
			}
			switch {
			case k.WhenText != "":
				fmt.Fprintf(b, "; only when %s", code(k.WhenText))
			case len(k.When) > 0:
				fmt.Fprintf(b, "; only when its condition on %s holds", strings.Join(k.When, ", "))
			}
			if len(k.Sparse) > 0 {
				fmt.Fprintf(b, "; left out while %s is empty", strings.Join(k.Sparse, ", "))
			}
			b.WriteString("\n")
		}
		var managed []string
		if e.Version != "" {
			managed = append(managed, "version "+code(e.Version)+" (optimistic locking)")
		}
		if e.Created != "" {
			managed = append(managed, "created "+code(e.Created))
		}
		if e.Updated != "" {
			managed = append(managed, "updated "+code(e.Updated))
		}
		for _, u := range e.Unique {
			managed = append(managed, "unique "+code(u))
		}
		if e.Expires != "" {
			s := "expires " + code(e.Expires)
			if e.ExpiresAfter > 0 {
				s += " (after " + e.ExpiresAfter.String() + ")"
			}
			managed = append(managed, s)
		}
		if len(managed) > 0 {
			fmt.Fprintf(b, "- Managed fields: %s\n", strings.Join(managed, ", "))
		}
		if e.Shard != "" {
			fmt.Fprintf(b, "- Write sharding: %s\n", e.Shard)
		}
		b.WriteString("\n| Field | Attribute | Type |\n|---|---|---|\n")
		for _, f := range e.Fields {
			fmt.Fprintf(b, "| %s | %s | %s |\n", f.GoName, code(f.Attr), f.Type)
		}
		b.WriteString("\n")
	}
}

func from(s string) string {
	if s == "" {
		return ""
	}
	return " (the " + s + "'s own value)"
}

func (md *model) docIndexes(b *strings.Builder) {
	gsis := md.indexes()
	if len(gsis) == 0 {
		return
	}
	b.WriteString("## Indexes\n\n| Index | Partition key | Sort key | Projection | Entities | Notes |\n|---|---|---|---|---|---|\n")
	for _, ix := range gsis {
		ipks, isks := md.keyLists(ix.Name())
		var in []string
		sparse := false
		for _, e := range md.m.Entities {
			for _, k := range e.Indexes {
				if k.Index == ix.Name() {
					in = append(in, e.Name)
					sparse = sparse || len(k.When) > 0 || len(k.Sparse) > 0
				}
			}
		}
		var notes []string
		if ix.Local() {
			notes = append(notes, "local: strongly consistent reads; every item collection of the table is limited to 10 GB")
		}
		if len(in) > 1 {
			notes = append(notes, "overloaded")
		}
		if sparse || len(in) < len(md.m.Entities) {
			notes = append(notes, "sparse")
		}
		proj := string(ix.Projection())
		switch ix.Projection() {
		case types.ProjectionTypeKeysOnly:
			notes = append(notes, "keys-only: reads return keys, FetchFull reads the items")
		case types.ProjectionTypeInclude:
			proj += " " + strings.Join(ix.Included(), ", ")
		}
		if len(ipks) > 1 || len(isks) > 1 {
			notes = append(notes, "multi-attribute key: the entities' own attributes, in order; nothing written for it")
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s |\n", ix.Name(), docKey(ipks), docKey(isks), proj, strings.Join(in, ", "), strings.Join(notes, "; "))
	}
	b.WriteString("\n")
}

// keyNames is a key's attribute names, in order: "tenant, queue".
func keyNames(as []keyAttr) string {
	var parts []string
	for _, a := range as {
		parts = append(parts, a.name)
	}
	return strings.Join(parts, ", ")
}

// docKey writes a key's attributes with their types, in order:
// "`tenant` (S), `queue` (S)".
func docKey(as []keyAttr) string {
	var parts []string
	for _, a := range as {
		parts = append(parts, code(a.name)+" ("+a.typ+")")
	}
	return strings.Join(parts, ", ")
}

func (md *model) docPatterns(b *strings.Builder) {
	b.WriteString("## Access patterns\n\n")
	if len(md.m.Reads) == 0 {
		b.WriteString("None declared.\n\n")
		return
	}
	b.WriteString("| # | Pattern | Request | Index | Key condition | Returns |\n|---|---|---|---|---|---|\n")
	for i, r := range md.m.Reads {
		name := r.Name
		if r.Collection {
			name += " (collection)"
		}
		req, cond := r.Operation, code(r.KeyCondition)
		if r.Descending {
			req += ", descending"
		}
		if r.FanOut != "" {
			req += ", " + r.FanOut
		}
		switch {
		case r.ExpiryRefused:
			// What Query does: it refuses the read unless told how.
			req += " only with FetchFull() (whole items read, expired ones left out) or IncludeExpired(): the index does not project " + code(md.t.TTLAttribute())
		case r.SkipsExpired:
			req += ", expired items left out"
		}
		if r.Err != "" {
			req, cond = "invalid", cell(r.Err)
		}
		index := "table"
		if r.Index != "" {
			index = r.Index
		}
		fmt.Fprintf(b, "| %d | %s | %s | %s | %s | %s |\n", i+1, cell(name), req, index, cond, strings.Join(r.Entities, ", "))
	}
	b.WriteString("\n")
}

// docItems lays the sample items out as the seeds draw a single table:
// the table's keys, each index's keys, the type, then the attributes.
func (md *model) docItems(b *strings.Builder) {
	if len(md.items) == 0 {
		return
	}
	b.WriteString("## Sample items\n\n")
	pk, sk := md.keyAttrs("")
	cols := []string{pk.name}
	if sk.name != "" {
		cols = append(cols, sk.name)
	}
	head := slices.Clone(cols)
	for _, ix := range md.indexes() {
		ipks, isks := md.keyLists(ix.Name())
		for _, a := range append(ipks, isks...) {
			if !slices.Contains(cols, a.name) {
				cols = append(cols, a.name)
				head = append(head, ix.Name()+": "+a.name)
			}
		}
	}
	typ := md.t.TypeAttribute()
	cols = append(cols, typ)
	head = append(head, typ, "Attributes")
	b.WriteString("| " + strings.Join(head, " | ") + " |\n|" + strings.Repeat("---|", len(head)) + "\n")
	for _, it := range md.items {
		var row []string
		for _, c := range cols {
			row = append(row, code(scalar(it.Attrs[c])))
		}
		var rest []string
		for k := range it.Attrs {
			if !slices.Contains(cols, k) {
				rest = append(rest, k)
			}
		}
		sort.Strings(rest)
		for i, k := range rest {
			rest[i] = k + "=" + scalar(it.Attrs[k])
		}
		row = append(row, cell(strings.Join(rest, ", ")))
		b.WriteString("| " + strings.Join(row, " | ") + " |\n")
	}
	b.WriteString("\n")
}

// scalar writes an attribute value briefly: a string or number as is, the
// rest as DynamoDB JSON.
func scalar(av types.AttributeValue) string {
	switch v := av.(type) {
	case nil:
		return ""
	case *types.AttributeValueMemberS:
		return v.Value
	case *types.AttributeValueMemberN:
		return v.Value
	}
	j, _ := avJSON(av).MarshalJSON()
	return string(j)
}

// docDiagram draws the entities (with their key attributes), the
// collections (a member's partition holding the others) and the relations.
func (md *model) docDiagram(b *strings.Builder) {
	b.WriteString("## Diagram\n\n```mermaid\nerDiagram\n")
	pk, sk := md.keyAttrs("")
	for _, e := range md.m.Entities {
		fmt.Fprintf(b, "    %s {\n", mermaidName(e.Name))
		fmt.Fprintf(b, "        string %s PK %s\n", mermaidName(pk.name), mermaidText(renamed(pk.name)+e.PK))
		if sk.name != "" {
			fmt.Fprintf(b, "        string %s %s\n", mermaidName(sk.name), mermaidText(renamed(sk.name)+"SK "+e.SK))
		}
		for _, f := range e.Fields {
			fmt.Fprintf(b, "        %s %s", f.Type, mermaidName(f.Attr))
			if r := renamed(f.Attr); r != "" {
				fmt.Fprintf(b, " %s", mermaidText(strings.TrimSuffix(r, ": ")))
			}
			b.WriteString("\n")
		}
		b.WriteString("    }\n")
	}
	for _, r := range md.m.Reads {
		if !r.Collection || r.Err != "" {
			continue
		}
		for _, other := range r.Entities[1:] {
			fmt.Fprintf(b, "    %s ||--o{ %s : %s\n", mermaidName(r.Entities[0]), mermaidName(other), mermaidText("collection "+r.Name))
		}
	}
	for _, rel := range md.o.Relations {
		fmt.Fprintf(b, "    %s }o--o{ %s : %s\n", mermaidName(rel.From), mermaidName(rel.To), mermaidText(rel.Name+" (edges: "+rel.Edge+")"))
	}
	b.WriteString("```\n\n")
}

// mermaidText quotes s for Mermaid, which has no escape for a double
// quote: it becomes a single one.
func mermaidText(s string) string { return `"` + strings.ReplaceAll(s, `"`, "'") + `"` }

// mermaidName is a name as Mermaid's erDiagram accepts it (a letter or
// '_', then letters, digits, '_' and '-'): the name itself when it is one;
// else its other characters made '_' and a short hash of the name
// appended, so that two names never become one (the diagram writes the
// name itself in the attribute's comment: see renamed).
func mermaidName(s string) string {
	if mermaidIdent(s) {
		return s
	}
	return unique([]string{s}, ident, ident(s))[s]
}

func mermaidIdent(s string) bool {
	return ident(s) == s
}

// renamed is "name: " where mermaidName changes the name, else "".
func renamed(s string) string {
	if mermaidIdent(s) {
		return ""
	}
	return s + ": "
}

func docLint(b *strings.Builder, issues []st.LintIssue) {
	b.WriteString("## Lint findings\n\n")
	if len(issues) == 0 {
		b.WriteString("No findings.\n")
		return
	}
	for _, i := range issues {
		fmt.Fprintf(b, "- **%s** %s: %s\n", i.Severity, i.Subject, i.Message)
	}
}

// cell escapes text for a Markdown table cell: a line break is <br>,
// and the characters Markdown would read as table syntax, code, an HTML
// tag or an escape are escaped.
func cell(s string) string {
	return cellText.Replace(s)
}

var cellText = strings.NewReplacer(`\`, `\\`, "`", "\\`", "|", `\|`, "<", "&lt;", "\r\n", "<br>", "\n", "<br>", "\r", "<br>")

// code writes text as inline code in a table cell: a newline shows as \n
// (a table row is one line), and the fence is a run of backticks longer
// than any in the text, with a space inside it where the text starts or
// ends with a backtick (CommonMark's code spans).
func code(s string) string {
	if s == "" {
		return ""
	}
	s = codeText.Replace(s)
	longest, run := 0, 0
	for _, c := range []byte(s) {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") ||
		(strings.HasPrefix(s, " ") && strings.HasSuffix(s, " ") && strings.Trim(s, " ") != "") {
		s = " " + s + " " // the renderer strips one space each side
	}
	return fence + s + fence
}

var codeText = strings.NewReplacer("|", `\|`, "\r", `\r`, "\n", `\n`)
