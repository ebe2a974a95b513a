package singletable

import (
	"fmt"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/keys"
	"github.com/singletable/singletable/internal/model"
)

// A pattern's (and a collection's) declaration, readDecl: the index it
// reads, its partition template and sort condition, resolved and checked
// against the model once, as it is declared (the builders of pattern.go and
// collection.go each make a new one). Requests are built from it in
// pattern.go and query.go.

type sortOp int

var sortOpNames = [...]string{
	sortDefault: "", sortEquals: "SortEquals", sortPrefix: "SortPrefix", sortBeginsWith: "SortBeginsWith",
	sortBetween: "SortBetween", sortLT: "SortLessThan", sortLE: "SortLessOrEqual", sortGT: "SortGreaterThan", sortGE: "SortGreaterOrEqual",
}

// readDecl is a named read, pattern or collection, as declared and as
// resolved against the model.
type readDecl struct {
	id         uint64
	table      *Table
	name       string
	collection bool
	// entityQuery marks the pattern Entity.Query runs (see entityQuery):
	// always a Query, even where a declared pattern would be a GetItem.
	entityQuery bool
	entities    []*entityModel
	indexName   string // "" for the table
	partRaw     string // "" for the entity's own template (patterns only)
	sort        sortOp
	sortLit     string
	sortCalls   int
	descending  bool
	// scan marks a pattern that scans its index whole (ScanIndex,
	// scan_index.go) instead of querying one partition.
	scan    bool
	nameErr error
	// overlaps names the entities whose items the read is declared to
	// reach on purpose ("Name,overlaps=A+B", see declaredName): lint
	// reports those overlaps as info.
	overlaps []string

	// Resolved by resolve; err is set instead when the declaration is wrong.
	err     error
	index   *GSI // nil: the table
	members []*readMember
	labels  []string // the partition's labels, in order of first use
	keys    []string // keyAttrs, made once
	fan     *fanPlan // shards or time buckets the read fans out over (fanout.go); nil: one partition
	// prefixBucket is the time bucket of a SortPrefix read's partition
	// when the sort key holds the same time: a PartialTime coarser than
	// the bucket reads every bucket of its period (fanout.go).
	prefixBucket *bucketPlan
}

// readMember is one entity a read returns, with its templates on the index
// read.
type readMember struct {
	m       *entityModel
	ei      *model.EntityIndex // nil on the table
	pk, sk  *keys.Template     // what the entity writes into the index's keys
	part    []keys.Binding     // how the read's partition gives pk's placeholders
	partTpl *keys.Template     // pk with the fixed placeholders as literal text
	skips   [][]bool           // keySkips of keyTemplates, all keys present
}

var readIDs atomic.Uint64

// patternDecl declares pattern name of entity m (nil: the entity is nil)
// and registers it on the table.
func patternDecl(m *entityModel, name string) *readDecl {
	if m == nil {
		return &readDecl{name: name, err: &ModelError{Entity: "(nil)", Reason: "pattern " + name + ": the entity is nil (did its Define fail?)"}}
	}
	d := &readDecl{id: readIDs.Add(1), table: m.table, entities: []*entityModel{m}}
	d.declaredName(name)
	d.resolve()
	d.table.reads.put(d)
	return d
}

// with returns a copy of the declaration changed by f and validated anew.
func (d *readDecl) with(f func(*readDecl)) *readDecl {
	c := *d
	if d.table == nil { // declared on a nil table or entity: keep that error
		return &c
	}
	c.entities = slices.Clone(d.entities)
	f(&c)
	c.resolve()
	c.table.reads.put(&c)
	return &c
}

// The builders of patterns and collections, each a new declaration. Not
// inlined: inlined into a method of Pattern[T], a closure would be
// compiled again for every entity type.

//go:noinline
func (d *readDecl) withIndex(index string) *readDecl {
	return d.with(func(d *readDecl) { d.indexName = index })
}

//go:noinline
func (d *readDecl) withPartition(template string) *readDecl {
	return d.with(func(d *readDecl) { d.partRaw = template })
}

//go:noinline
func (d *readDecl) withSort(op sortOp, lit string) *readDecl {
	return d.with(func(d *readDecl) { d.sort, d.sortLit = op, lit; d.sortCalls++ })
}

//go:noinline
func (d *readDecl) withDescending() *readDecl {
	return d.with(func(d *readDecl) { d.descending = true })
}

//go:noinline
func (d *readDecl) withScan() *readDecl {
	return d.with(func(d *readDecl) { d.scan = true })
}

// mustDeclare panics with d's declaration error, if any.
func mustDeclare(d *readDecl) {
	if d.err != nil {
		panic(d.err)
	}
}

func (d *readDecl) indexOf() string {
	if d.index == nil {
		return ""
	}
	return d.index.index.Name
}

func (d *readDecl) operation() string {
	if d.scan {
		return "Scan"
	}
	if d.isGet() {
		return "GetItem"
	}
	return "Query"
}

// isGet reports whether the read is a GetItem: a pattern on the table whose
// sort key, if any, is given whole.
func (d *readDecl) isGet() bool {
	if d.err != nil || d.collection || d.entityQuery || d.scan || d.index != nil || d.fan != nil {
		return false
	}
	return d.table.schema.SK == "" || d.sort == sortEquals
}

// pkAttr and skAttr are the key attributes of the index read.
func (d *readDecl) pkAttr() string {
	if d.index != nil {
		return d.index.index.PK
	}
	return d.table.schema.PK
}

func (d *readDecl) skAttr() string {
	if d.index != nil {
		return d.index.index.SK
	}
	return d.table.schema.SK
}

// keyAttrs lists, sorted, the attributes of a key to resume a query from:
// the table's keys, and the index's. Callers must not change the list.
func (d *readDecl) keyAttrs() []string { return d.keys }

func (d *readDecl) makeKeyAttrs() []string {
	out := []string{d.table.schema.PK}
	attrs := []string{d.table.schema.SK, d.pkAttr(), d.skAttr()}
	if d.index != nil {
		attrs = append(attrs, d.index.index.KeyAttrs()...)
	}
	for _, a := range attrs {
		if a != "" && !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	slices.Sort(out)
	return out
}

// projects reports whether the index read carries attribute attr.
func (d *readDecl) projects(attr string) bool {
	if d.index == nil || d.index.index.Projection == types.ProjectionTypeAll {
		return true
	}
	if slices.Contains(d.keyAttrs(), attr) {
		return true
	}
	return d.index.index.Projection == types.ProjectionTypeInclude && slices.Contains(d.index.index.NonKeyAttrs, attr)
}

// carriesType reports whether the read's items tell their entity by the
// type attribute: the index projects it and the table does not read items
// without it by their keys (WithTypeAttribute's "keys").
func (d *readDecl) carriesType() bool {
	return !d.table.schema.TypeByKeys && d.projects(d.table.schema.TypeAttr)
}

// fullItems reports whether the index read carries whole items.
func (d *readDecl) fullItems() bool {
	return d.index == nil || d.index.index.Projection == types.ProjectionTypeAll
}

// resolve checks the declaration against the model and fills in the
// resolved fields, or err.
func (d *readDecl) resolve() {
	d.err, d.index, d.members, d.labels, d.keys, d.fan, d.prefixBucket = nil, nil, nil, nil, nil, nil, nil
	err := d.check()
	if err == nil && d.scan {
		err = d.checkScanDecl()
	} else if err == nil {
		err = d.resolveFan()
	}
	if err != nil {
		d.err = err
		d.index, d.members, d.labels, d.fan, d.prefixBucket = nil, nil, nil, nil, nil
		return
	}
	d.keys = d.makeKeyAttrs()
}

func (d *readDecl) fail(format string, args ...any) error {
	e := &ModelError{Table: d.table.schema.Name, Template: d.partRaw}
	what := "pattern"
	if d.collection {
		what = "collection"
		e.Entity = "collection " + d.name
	} else {
		e.Entity = d.entities[0].Name
	}
	e.Reason = fmt.Sprintf(what+" %s: ", d.name) + fmt.Sprintf(format, args...)
	return e
}

func (d *readDecl) check() error {
	t := d.table
	if d.name == "" {
		return d.fail("the name is empty")
	}
	if d.nameErr != nil {
		return d.nameErr
	}
	if len(d.entities) == 0 {
		return d.fail("no member entities")
	}
	for _, m := range d.entities {
		if m.table != t {
			return d.fail("entity %s is defined on table %s", m.Name, m.table.schema.Name)
		}
	}
	if d.collection && d.partRaw == "" {
		return d.fail("no partition template")
	}
	if d.sortCalls > 1 {
		return d.fail("the sort condition is given %d times", d.sortCalls)
	}
	var segs []keys.ReadSegment
	if d.partRaw != "" {
		var err error
		if segs, err = keys.ParseLabels(d.partRaw); err != nil {
			return d.fail("partition template: %v", err)
		}
	}
	// Choose the index.
	if d.indexName != "" {
		ix, ok := t.index(d.indexName)
		if !ok {
			return d.fail("index %s is not declared on table %s", d.indexName, t.schema.Name)
		}
		d.index = ix
	} else if !d.collection && segs != nil {
		ix, err := d.pickIndex(segs)
		if err != nil {
			return err
		}
		d.index = ix
	}
	// Resolve each member on it.
	formats := map[string]*keys.Placeholder{}
	for _, m := range d.entities {
		mem := &readMember{m: m, pk: m.PK, sk: m.SK}
		if d.index != nil {
			for _, ei := range m.Indexes {
				if ei.Index == &d.index.index {
					mem.ei = ei
				}
			}
			if mem.ei == nil && d.native() {
				_, err := d.nativeMember(m)
				return err
			}
			if mem.ei == nil {
				return d.fail("entity %s writes no key into index %s (declare Index(%q, ...) on it)", m.Name, d.index.index.Name, d.index.index.Name)
			}
			mem.pk, mem.sk = mem.ei.PK, mem.ei.SK
		}
		if d.native() { // the params give every key attribute: no template to unify
			mem.part, mem.partTpl = []keys.Binding{}, mem.pk
			d.members = append(d.members, mem)
			if err := d.checkNative(); err != nil {
				return err
			}
			continue
		}
		if segs == nil { // the entity's own template, each field a label
			mem.part = make([]keys.Binding, 0)
			for _, ph := range mem.pk.Placeholders() {
				mem.part = append(mem.part, keys.Binding{Ph: ph, Label: ph.Field.GoName})
			}
		} else {
			bs, err := keys.Unify(segs, mem.pk, m.Fields, func(label string, ph *keys.Placeholder) error {
				if !d.collection && label != ph.Field.GoName {
					return fmt.Errorf("{%s} stands where %q has {%s}", label, mem.pk.Raw, ph.Field.GoName)
				}
				if prev, ok := formats[label]; ok && !prev.SameFormat(ph) {
					return fmt.Errorf("{%s} is a %s in one member's template and formatted differently in %s's %q", label, prev.Field.Type, m.Name, mem.pk.Raw)
				}
				formats[label] = ph
				return nil
			})
			if err != nil {
				return d.fail("partition template %q does not match what entity %s writes into %s (%q): %v", d.partRaw, m.Name, d.pkAttr(), mem.pk.Raw, err)
			}
			mem.part = bs
		}
		for _, b := range mem.part {
			if b.Label != "" && !slices.Contains(d.labels, b.Label) {
				d.labels = append(d.labels, b.Label)
			}
		}
		mem.partTpl = keys.Specialise(mem.pk, mem.part)
		kts := mem.keyTemplates()
		mem.skips = keySkips(kts, []bool{true, true, true, true}[:len(kts)])
		d.members = append(d.members, mem)
	}
	if d.native() {
		return nil
	}
	return d.checkSort()
}

// pickIndex finds the index whose partition template the pattern's
// partition matches: the table's if it does, or else exactly one GSI's.
func (d *readDecl) pickIndex(segs []keys.ReadSegment) (*GSI, error) {
	m := d.entities[0]
	fits := func(tpl *keys.Template) bool {
		_, err := keys.Unify(segs, tpl, m.Fields, func(label string, ph *keys.Placeholder) error {
			if label != ph.Field.GoName {
				return fmt.Errorf("mismatch")
			}
			return nil
		})
		return err == nil
	}
	if fits(m.PK) {
		return nil, nil
	}
	var found []*GSI
	writes := []string{fmt.Sprintf("%s %q", d.table.schema.PK, m.PK.Raw)}
	for _, ei := range m.Indexes {
		writes = append(writes, fmt.Sprintf("%s %q", ei.Index.PK, ei.PK.Raw))
		if fits(ei.PK) {
			found = append(found, d.table.gsiOf(ei.Index))
		}
	}
	switch len(found) {
	case 0:
		return nil, d.fail("no index serves partition %q: entity %s writes %s; a read no index serves would need a Scan",
			d.partRaw, m.Name, strings.Join(writes, ", "))
	case 1:
		return found[0], nil
	}
	return nil, d.fail("partition %q fits several indexes (%s, %s): choose one with On", d.partRaw, found[0].index.Name, found[1].index.Name)
}

func (d *readDecl) checkSort() error {
	if d.sort == sortDefault {
		return nil
	}
	if d.skAttr() == "" {
		where := "table " + d.table.schema.Name
		if d.index != nil {
			where = "index " + d.index.index.Name
		}
		return d.fail("%s has no sort key, so %s does not apply", where, sortOpNames[d.sort])
	}
	if d.sort != sortBeginsWith {
		if d.collection && d.sort == sortEquals {
			return d.fail("SortEquals reads one item: a collection reads a range (SortBeginsWith, SortPrefix, SortBetween, the sort comparisons)")
		}
		if d.sort != sortEquals && d.sort != sortPrefix {
			return d.checkRangeOrder()
		}
		return nil
	}
	if d.sortLit == "" {
		return d.fail("SortBeginsWith needs a non-empty prefix")
	}
	if len(d.sortLit) > maxSortKeyBytes {
		return d.fail("the SortBeginsWith prefix is %d bytes; DynamoDB allows %d in a sort key", len(d.sortLit), maxSortKeyBytes)
	}
	var tried []string
	for _, mem := range d.members {
		if mem.sk.AdmitsPrefix(d.sortLit) {
			return nil
		}
		tried = append(tried, fmt.Sprintf("%s's %q", mem.m.Name, mem.sk.Raw))
	}
	return d.fail("no sort key written by %s starts with %q", strings.Join(tried, " or "), d.sortLit)
}

// describeKeys writes the key condition over the templates, for the sheet.
func (d *readDecl) describeKeys() string {
	if d.err != nil || len(d.members) == 0 {
		return ""
	}
	if d.scan {
		return "none: every item of the index"
	}
	if d.native() {
		return d.describeNative()
	}
	mem := d.members[0]
	part := d.partRaw
	if part == "" {
		part = mem.pk.Raw
	}
	s := fmt.Sprintf("%s = %s", d.pkAttr(), part)
	sk := d.skAttr()
	if sk == "" {
		return s
	}
	tpl := ""
	if mem.sk != nil {
		tpl = mem.sk.Raw
	}
	lead := ""
	if mem.sk != nil {
		lead = leadingTemplate(mem.sk)
	}
	if d.collection { // the bounds come from any member's sort template
		lead = "{bound}"
	}
	switch d.sort {
	case sortDefault:
		if d.collection {
			return s
		}
		if lit := mem.sk.LiteralPrefix(); lit != "" {
			return s + fmt.Sprintf(" AND begins_with(%s, %q)", sk, lit)
		}
		return s
	case sortEquals:
		return s + fmt.Sprintf(" AND %s = %s", sk, tpl)
	case sortPrefix:
		return s + fmt.Sprintf(" AND begins_with(%s, %s…)", sk, lead)
	case sortBeginsWith:
		return s + fmt.Sprintf(" AND begins_with(%s, %q)", sk, d.sortLit)
	case sortBetween:
		return s + fmt.Sprintf(" AND %s BETWEEN %s… AND %s…", sk, lead, lead)
	}
	op := map[sortOp]string{sortLT: "<", sortLE: "<=", sortGT: ">", sortGE: ">="}[d.sort]
	return s + fmt.Sprintf(" AND %s %s %s…", sk, op, lead)
}

// leadingTemplate is the template text up to the end of its first
// placeholder: "ORDER#{Date}" for "ORDER#{Date}#{ID}".
func leadingTemplate(t *keys.Template) string {
	i := strings.IndexByte(t.Raw, '}')
	if i < 0 {
		return t.Raw
	}
	return t.Raw[:i+1]
}

// Reading a pattern
//
// The methods of Pattern[T] hand their T values to the methods of readDecl
// below as reflect.Values (params: the pattern's params, a copy the call
// owns, which the request may change; upper: a SortBetween pattern's upper
// bound, invalid for the others), and their results as caller-owned
// memory to decode into: generic code is compiled once per entity type,
// this once.
