package singletable

import (
	"fmt"
	"slices"
	"strings"

	"github.com/singletable/singletable/internal/keys"
	"github.com/singletable/singletable/internal/model"
)

// Lint checks the registered model for what is legal but likely wrong,
// without a network call:
//
//   - two entities whose keys can collide on the table or on an index (one
//     would overwrite the other, or a read would return both);
//   - a partition template with no placeholder: every item, or every read,
//     on one partition (a hot partition);
//   - more than 5 global secondary indexes (DynamoDB allows 20; each costs
//     writes, and single-table designs rarely need more than a few
//     overloaded ones);
//   - a local secondary index (info): it limits every item collection of
//     the table (the items of one partition key value) to 10 GB;
//   - a pattern that scans an index (ScanIndex) that holds an entity's
//     every item (not sparse): the scan costs as much as reading them all;
//   - a pattern or collection whose key condition also matches another
//     entity's items: they cost reads, make pages short, and on an index that
//     does not carry the entity type they cannot be told apart;
//   - a pattern or collection whose declaration failed;
//   - (info) a template index key of one entity over its own string and
//     integer fields, which could be a multi-attribute key, and what
//     moving costs (lint_native.go); an index several entities share is
//     left alone, its literals telling them apart;
//   - a multi-attribute key shared by entities that a table read by its
//     keys cannot tell apart (their table keys can collide);
//   - an index key over a time.Time field (not a pointer, not in the table
//     key) on an index with no When: a zero time is an absent value, so an
//     item whose time is unset silently leaves the index (not the created
//     and updated timestamps, which every write fills). Make the field a
//     *time.Time (nil: not indexed, stated in the type) or declare When.
//     (An empty string is absent too, but "no email, not in the email
//     index" is the usual intent: the sheet lists such indexes as sparse by
//     absence, and lint stays quiet.)
//
// Templates are compared as the sets of keys they can render, each
// placeholder standing for one or more characters other than the
// delimiter (digits for integers), so a finding means that some values
// would collide, not that stored data does.

// LintSeverity grades a finding.
type LintSeverity int

// Lint severities.
const (
	LintInfo    LintSeverity = iota // worth knowing; often intended
	LintWarning                     // likely a cost or correctness problem
	LintError                       // wrong: data can be overwritten or misread
)

// String names the severity: "info", "warning" or "error".
func (s LintSeverity) String() string {
	switch s {
	case LintError:
		return "error"
	case LintWarning:
		return "warning"
	}
	return "info"
}

// LintIssue is one finding of Lint.
type LintIssue struct {
	Severity LintSeverity
	Subject  string // what it is about: "entity Order", "pattern PendingOrders", "table Shop"
	Message  string
}

// String formats the finding as "severity: subject: message".
func (i LintIssue) String() string {
	return fmt.Sprintf("%s: %s: %s", i.Severity, i.Subject, i.Message)
}

// keyPlace is one entity's templates on the table or one index.
type keyPlace struct {
	m      *entityModel
	ei     *model.EntityIndex
	pk, sk *keys.Template
}

// places lists, per index ("" for the table), the entities that write keys
// there.
func (t *Table) places() (names []string, by map[string][]keyPlace) {
	t.mu.RLock()
	entities := append([]*entityModel(nil), t.entityOrder...)
	t.mu.RUnlock()
	by = map[string][]keyPlace{}
	names = []string{""}
	for _, ix := range t.indexes() {
		names = append(names, ix.index.Name)
	}
	for _, m := range entities {
		by[""] = append(by[""], keyPlace{m: m, pk: m.PK, sk: m.SK})
		for _, ei := range m.Indexes {
			by[ei.Index.Name] = append(by[ei.Index.Name], keyPlace{m: m, ei: ei, pk: ei.PK, sk: ei.SK})
		}
	}
	return names, by
}

// Lint returns the model's findings, most severe first within each check.
func (t *Table) Lint() []LintIssue {
	var out []LintIssue
	add := func(sev LintSeverity, subject, format string, args ...any) {
		out = append(out, LintIssue{Severity: sev, Subject: subject, Message: fmt.Sprintf(format, args...)})
	}
	if n := len(t.gsis); n > recommendedMaxGSIs {
		add(LintWarning, "table "+t.schema.Name, "%d global secondary indexes: more than %d; every write pays for each index it changes. Overload fewer indexes (several entities' templates in one GSI1PK/GSI1SK)", n, recommendedMaxGSIs)
	}
	for _, ix := range t.lsis {
		add(LintInfo, "index "+ix.index.Name, "a local secondary index limits every item collection of table %s (the items of one partition key value, with their index entries) to 10 GB: a write that would pass it fails (ItemCollectionSizeLimitExceededException); keep partitions bounded, or use a GSI if some cannot be", t.schema.Name)
	}
	names, by := t.places()
	for _, index := range names {
		where := "the table"
		if index != "" {
			where = "index " + index
		}
		ps := by[index]
		for i, a := range ps {
			if a.pk.Constant() {
				sev := LintWarning
				if a.ei != nil && a.ei.When != nil {
					sev = LintInfo
				}
				add(sev, "entity "+a.m.Name, "partition template %q on %s has no placeholder: all its items share one partition (a hot partition); fine while it stays small (a sparse index), else add a high-cardinality field or shard it", a.pk.Raw, where)
			}
			for _, b := range ps[i+1:] {
				// A multi-attribute key has no literal to tell entities
				// apart by: sharing it is the design (lintNative).
				if a.ei != nil && a.ei.Native != nil || !collide(a, b, t.schema.Delim) {
					continue
				}
				sev := LintWarning
				if index == "" {
					sev = LintError // one item would overwrite the other
				}
				add(sev, "entity "+a.m.Name, "keys can collide with entity %s on %s: %s vs %s; give one of them a distinct literal prefix",
					b.m.Name, where, describePlace(a), describePlace(b))
			}
		}
	}
	t.lintNative(by, add)
	for _, index := range names[1:] {
		for _, p := range by[index] {
			if p.ei.When != nil {
				continue
			}
			for _, f := range absentFields(p.m, p.ei) {
				if f.Kind == keys.KindTime && !f.Ptr && !p.m.managed.fills(f.Field.GoName) {
					add(LintWarning, "entity "+p.m.Name, "index %s key %s uses the time.Time field %s: an item whose %s is the zero time is silently left out of the index, and no When declares it sparse; make %s a *time.Time (nil: not indexed) or declare When",
						index, describePlace(p), f.Field.GoName, f.Field.GoName, f.Field.GoName)
				}
			}
		}
	}
	for _, d := range t.reads.all() {
		subject := "pattern " + d.name
		if d.collection {
			subject = "collection " + d.name
		}
		if d.err != nil {
			add(LintError, subject, "%v", d.err)
			continue
		}
		mem := d.members[0]
		if d.scan {
			if !sparseFor(mem.m, d) {
				add(LintWarning, subject, "scans index %s, which holds every %s item (no When, no key field whose absence leaves an item out): the scan reads as much as every %s item costs; make the index sparse for %s (When) or query a partition instead", d.index.index.Name, mem.m.Name, mem.m.Name, mem.m.Name)
			}
		} else if mem.partTpl.Constant() {
			sev := LintWarning
			if mem.ei != nil && mem.ei.When != nil {
				sev = LintInfo
			}
			add(sev, subject, "reads the single partition %q: every such read hits one partition (hot); fine for a small sparse index", mem.partTpl.LiteralPrefix())
		}
		if t.schema.TTLAttr != "" && d.expires() && !d.projects(t.schema.TTLAttr) {
			add(LintWarning, subject, "index %s (%s) does not project the TTL attribute %s, so every call is refused unless it passes FetchFull() or IncludeExpired(); project %s into the index (Include) to read it plainly", d.index.index.Name, d.index.index.Projection, t.schema.TTLAttr, t.schema.TTLAttr)
		}
		for _, name := range d.overlaps {
			t.mu.RLock()
			_, ok := t.entities[name]
			t.mu.RUnlock()
			if !ok {
				add(LintWarning, subject, "overlaps=%s names no entity of table %s", name, t.schema.Name)
			}
		}
		if d.scan {
			continue // it reads no partition: the key condition's checks are a query's
		}
		index := ""
		if d.index != nil {
			index = d.index.index.Name
		}
		for _, other := range by[index] {
			if d.hasMember(other.m) || !d.overMatches(other) {
				continue
			}
			msg := fmt.Sprintf("its key condition (%s) also matches %s items (%s)", d.describeKeys(), other.m.Name, describePlace(other))
			switch {
			case slices.Contains(d.overlaps, other.m.Name):
				add(LintInfo, subject, "%s, as declared (overlaps=%s): they cost reads and shorten pages", msg, other.m.Name)
			case d.collection:
				add(LintWarning, subject, "%s, which are not members: they come back in Unknown; add the entity to the collection or narrow it with SortBeginsWith", msg)
			case t.schema.TypeByKeys:
				add(LintWarning, subject, "%s: with no type filter they come back and are skipped by their keys, costing reads and shortening pages; narrow the sort condition", msg)
			case !d.projects(t.schema.TypeAttr):
				add(LintError, subject, "%s, and index %s does not carry the entity type: such items make the read fail; narrow the sort condition or project %s", msg, d.index.index.Name, t.schema.TypeAttr)
			default:
				add(LintWarning, subject, "%s: they are filtered out by entity type, but still cost reads and shorten pages; narrow the sort condition", msg)
			}
		}
	}
	t.mu.RLock()
	entities := append([]*entityModel(nil), t.entityOrder...)
	t.mu.RUnlock()
	for _, m := range entities {
		lintUnique(m, add)
	}
	return append(out, t.revisionIssues()...)
}

// declaredName sets the read's name from what its declaration says:
// "Name", or "Name,overlaps=A+B" for a read meant to reach entities A's
// and B's items (a partition read whole, a range over a shared sort key),
// which lint then reports as info instead of a warning. A malformed option
// is the declaration's error.
func (d *readDecl) declaredName(raw string) {
	name, opt, has := strings.Cut(raw, ",")
	d.name = name
	if has {
		list, ok := strings.CutPrefix(opt, "overlaps=")
		if !ok || list == "" {
			d.nameErr = d.fail("option %q after the name: the one option is overlaps=Entity+Entity (the entities whose items the read reaches on purpose)", opt)
			return
		}
		d.overlaps = strings.Split(list, "+")
		if slices.Contains(d.overlaps, "") {
			d.nameErr = d.fail("overlaps=%s names an empty entity", list)
			return
		}
	}
	d.nameErr = d.table.reads.checkName(d)
}

// absentFields lists the placeholders of an entity's index key whose value
// can be absent (a nil pointer, an empty string, a zero time) while the
// item exists: those not in its table key, which refuses absent values.
// Each field once, in template order.
func absentFields(m *entityModel, ei *model.EntityIndex) []*keys.Placeholder {
	var out []*keys.Placeholder
	var seen []string
	tpls := []*keys.Template{ei.PK, ei.SK}
	if ei.Native != nil { // every key field, not only the first of each
		tpls = nil
		for _, f := range ei.Native.Fields() {
			tpls = append(tpls, keys.FieldTemplate(f, m.table.schema.Delim))
		}
	}
	for _, tpl := range tpls {
		if tpl == nil {
			continue
		}
		for _, ph := range tpl.Placeholders() {
			name := ph.Field.GoName
			if m.PK.Uses(name) || (m.SK != nil && m.SK.Uses(name)) || slices.Contains(seen, name) {
				continue
			}
			if ph.Ptr || ph.Kind == keys.KindString || ph.Kind == keys.KindTime {
				seen = append(seen, name)
				out = append(out, ph)
			}
		}
	}
	return out
}

func describePlace(p keyPlace) string {
	s := fmt.Sprintf("%q", p.pk.Raw)
	if p.sk != nil {
		s += fmt.Sprintf(" / %q", p.sk.Raw)
	}
	return s
}

// collide reports whether two entities' templates can render the same key.
func collide(a, b keyPlace, delim byte) bool {
	if !keys.Intersects(a.pk.Glob(), b.pk.Glob(), delim) {
		return false
	}
	if a.sk == nil || b.sk == nil {
		return true
	}
	return keys.Intersects(a.sk.Glob(), b.sk.Glob(), delim)
}

func (d *readDecl) hasMember(m *entityModel) bool {
	for _, mem := range d.members {
		if mem.m == m {
			return true
		}
	}
	return false
}

// overMatches reports whether the read's key condition can match items
// that entity place p writes.
func (d *readDecl) overMatches(p keyPlace) bool {
	delim := d.table.schema.Delim
	mem := d.members[0]
	if !keys.Intersects(mem.partTpl.Glob(), p.pk.Glob(), delim) {
		return false
	}
	if p.sk == nil || mem.sk == nil {
		return true
	}
	other := p.sk.Glob()
	own := mem.sk.Glob()
	lit := mem.sk.LiteralPrefix()
	// Without a literal prefix, a bound the read renders starts with a
	// value of the sort template's first placeholder: a key it reaches
	// starts with a byte that value can start with (or, for a range, one
	// between two such bytes).
	lo, hi, _ := own.FirstBytes()
	olo, ohi, ok := other.FirstBytes()
	if !ok {
		return false
	}
	switch d.sort {
	case sortBeginsWith:
		return keys.Intersects(other, keys.PrefixGlob(d.sortLit), delim)
	case sortEquals:
		return keys.Intersects(other, own, delim)
	case sortDefault:
		if d.collection || lit == "" {
			return true
		}
		return keys.Intersects(other, keys.PrefixGlob(lit), delim)
	case sortPrefix:
		if lit == "" {
			return keys.Intersects(other, own.Opening(), delim)
		}
		return keys.Intersects(other, keys.PrefixGlob(lit), delim)
	case sortBetween:
		if lit == "" {
			return olo <= hi && ohi >= lo
		}
		return keys.Intersects(other, keys.PrefixGlob(lit), delim)
	case sortLT, sortLE:
		if lit == "" {
			return olo <= hi
		}
		return !sortsAfter(p.sk.LiteralPrefix(), lit)
	}
	if lit == "" { // sortGT, sortGE
		return ohi >= lo
	}
	return !sortsAfter(lit, p.sk.LiteralPrefix())
}

// sortsAfter reports whether every string starting with a sorts after every
// string starting with b: they differ at a byte where a's is greater.
func sortsAfter(a, b string) bool {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return a[i] > b[i]
		}
	}
	return false
}

// LintReport formats findings one per line, or "no findings".
func LintReport(issues []LintIssue) string {
	if len(issues) == 0 {
		return "no findings\n"
	}
	var b strings.Builder
	for _, i := range issues {
		b.WriteString(i.String())
		b.WriteByte('\n')
	}
	return b.String()
}
