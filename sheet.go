package singletable

import (
	"github.com/singletable/singletable/internal/model"

	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The access-pattern sheet: the table the seeds recommend writing down
// before modeling, generated from the registered model so that it never
// drifts from the code. It lists every named pattern and collection (the
// request each sends, the index, the key condition over the templates, the
// entities it returns), then the table layout: each entity's templates for
// the table's keys and for each index, and the indexes themselves. An index
// key says which items the index leaves out: "when" names the fields of its
// When condition, "sparse by absence of" the fields whose absent value (a
// nil pointer, an empty string, a zero time) leaves the item out.

// Sheet returns the table's access-pattern sheet in Markdown.
func (t *Table) Sheet() string {
	var b strings.Builder
	_ = t.WriteSheet(&b)
	return b.String()
}

// WriteSheet writes the table's access-pattern sheet in Markdown to w.
func (t *Table) WriteSheet(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Table %s\n\n", t.schema.Name)
	keys := "partition key `" + t.schema.PK + "`"
	if t.schema.SK != "" {
		keys += ", sort key `" + t.schema.SK + "`"
	}
	fmt.Fprintf(&b, "Keys: %s; entity type in `%s`", keys, t.schema.TypeAttr)
	if t.schema.TTLAttr != "" {
		fmt.Fprintf(&b, "; time to live in `%s`", t.schema.TTLAttr)
	}
	b.WriteString(".\n\n")
	b.WriteString(t.revisionsLine())

	b.WriteString("## Access patterns\n\n")
	b.WriteString("| # | Pattern | Operation | Index | Key condition | Returns |\n")
	b.WriteString("|---|---|---|---|---|---|\n")
	for i, d := range t.reads.all() {
		op, index, cond := d.operation(), "table", d.describeKeys()
		if d.index != nil {
			index = d.index.index.Name + localNote(d.index)
			if d.index.index.Projection != types.ProjectionTypeAll {
				index += " (" + string(d.index.index.Projection) + ")"
			}
		}
		if d.descending {
			op += ", descending"
		}
		if d.fan != nil {
			op += ", " + d.fan.describe()
		}
		if d.expires() {
			op += ", expired items left out"
		}
		if d.err != nil {
			op, cond = "invalid", d.err.Error()
		}
		var names []string
		for _, m := range d.entities {
			names = append(names, m.Name)
		}
		name := d.name
		if d.collection {
			name += " (collection)"
		}
		fmt.Fprintf(&b, "| %d | %s | %s | %s | %s | %s |\n", i+1, cell(name), op, cell(index), code(cond), cell(strings.Join(names, ", ")))
	}

	b.WriteString("\n## Table layout\n\n")
	head := []string{"Entity", t.schema.PK}
	if t.schema.SK != "" {
		head = append(head, t.schema.SK)
	}
	for _, ix := range t.indexes() {
		if ix.Local() { // its partition key is the table's, in the column above
			head = append(head, indexColumn(head, ix, ix.index.SK))
			continue
		}
		pk, sk := ix.index.PK, ix.index.SK
		if ix.index.Native() { // every attribute, in order
			pk, sk = nativeKeyText(ix.index.PKAttrs), nativeKeyText(ix.index.SKAttrs)
		}
		head = append(head, indexColumn(head, ix, pk))
		if sk != "" {
			head = append(head, indexColumn(head, ix, sk))
		}
	}
	b.WriteString("| " + strings.Join(head, " | ") + " |\n")
	b.WriteString("|" + strings.Repeat("---|", len(head)) + "\n")
	t.mu.RLock()
	entities := append([]*entityModel(nil), t.entityOrder...)
	t.mu.RUnlock()
	for _, m := range entities {
		row := []string{cell(m.Name) + expiryNote(m), code(m.PK.Raw)}
		if t.schema.SK != "" {
			row = append(row, code(m.SK.Raw))
		}
		for _, ix := range t.indexes() {
			var ei *model.EntityIndex
			for _, e := range m.Indexes {
				if e.Index == &ix.index {
					ei = e
				}
			}
			pk, sk := "", ""
			if ei != nil {
				pk = code(ei.PK.Raw) + sourceNote(ei.PKFrom)
				if ei.When != nil {
					pk += " when " + cell(strings.Join(ei.WhenFields, ", "))
				}
				var absent []string
				for _, f := range absentFields(m, ei) {
					if !slices.Contains(ei.WhenFields, f.Field.GoName) { // When speaks for those
						absent = append(absent, f.Field.GoName)
					}
				}
				if len(absent) > 0 {
					pk += " sparse by absence of " + cell(strings.Join(absent, ", "))
				}
				if ei.SK != nil {
					sk = code(ei.SK.Raw) + sourceNote(ei.SKFrom)
				}
				if ei.Native != nil {
					pk = strings.Replace(pk, code(ei.PK.Raw), code(nativeFieldsText(ei.Native.PK)), 1)
					if len(ei.Native.SK) > 0 {
						sk = code(nativeFieldsText(ei.Native.SK)) + sourceNote(ei.SKFrom)
					}
				}
			}
			switch {
			case ix.Local() && ei != nil: // the table's partition key: only its sparse notes
				row = append(row, sk+strings.TrimPrefix(pk, code(ei.PK.Raw)+sourceNote(ei.PKFrom)))
			case ix.Local():
				row = append(row, "")
			default:
				row = append(row, pk)
				if ix.index.SK != "" {
					row = append(row, sk)
				}
			}
		}
		b.WriteString("| " + strings.Join(row, " | ") + " |\n")
	}

	writeUniqueSheet(&b, entities)

	if ixs := t.indexes(); len(ixs) > 0 {
		b.WriteString("\n## Indexes\n\n")
		b.WriteString("| Index | Partition key | Sort key | Projection |\n|---|---|---|---|\n")
		var notes []string
		_, by := t.places()
		for _, ix := range ixs {
			proj := string(ix.index.Projection)
			if ix.index.Projection == types.ProjectionTypeInclude {
				proj += " " + strings.Join(ix.index.NonKeyAttrs, ", ")
			}
			pk, sk := ix.index.PK, ix.index.SK
			if ix.index.Native() {
				pk, sk = nativeKeyText(ix.index.PKAttrs), nativeKeyText(ix.index.SKAttrs)
				how, _ := t.nativeApart(by[ix.index.Name])
				if how != "" {
					how = "; " + how
				}
				notes = append(notes, fmt.Sprintf("- %s: a multi-attribute key, the entities' own attributes in order (partition %s; sort %s), nothing written for it%s.\n", ix.index.Name, pk, sk, how))
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", cell(ix.index.Name+localNote(ix)), cell(pk), cell(sk), cell(proj))
		}
		if len(notes) > 0 {
			b.WriteString("\n" + strings.Join(notes, ""))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// localNote marks a local secondary index in the sheet.
func localNote(ix *GSI) string {
	if ix.Local() {
		return " (LSI)"
	}
	return ""
}

// cell escapes text for a Markdown table cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// code writes text as inline code in a table cell.
func code(s string) string {
	if s == "" {
		return ""
	}
	return "`" + cell(s) + "`"
}

// indexColumn heads the layout's column of index ix's key attribute attr:
// the attribute, or "index: attribute" when a column before already has
// that name (an index over the table's own keys reads PK and SK), so that
// every column says which index it is.
func indexColumn(head []string, ix *GSI, attr string) string {
	if slices.Contains(head, attr) {
		return ix.index.Name + ": " + attr
	}
	return attr
}
