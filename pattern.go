package singletable

import (
	"context"
	"fmt"
	"iter"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/keys"
	"github.com/singletable/singletable/internal/model"
)

// Named access patterns
//
// A pattern is one way the application reads an entity, declared once with
// a name: the index it reads (the table or a GSI), the partition template
// and the sort-key condition. It is checked against the model as it is
// declared: the index must exist and the entity must write a key into it,
// the partition template must be what the entity writes there (with
// placeholders given by the query's params, or fixed to literal text:
// "STATUS#PENDING" for an entity writing "STATUS#{Status}"), and the sort
// condition must fit the entity's sort template. Every pattern reads one
// partition, except one declared ScanIndex, which scans a (sparse) index
// whole: no pattern ever scans the table.
//
//	var ListUserOrders = Orders.Pattern("ListUserOrders").
//		Partition("USER#{UserID}").SortBeginsWith("ORDER#").Descending().Must()
//
// The builder methods each return a new pattern, validated as a whole, so
// their order does not matter; Err reports the first problem (a *ModelError
// matching ErrInvalidModel), Must panics with it, and a query on a pattern
// with an error returns that error without sending anything. A pattern is
// registered on its table under its name, for the access-pattern sheet and
// lint (see Table.Sheet and Table.Lint); names are unique per table,
// collections included. Declare each pattern in one expression, at package
// level: deriving two patterns from one unfinished builder gives two
// patterns with the same name, of which the table keeps the last.
//
// Sort-key conditions take their values from the query's params, a T
// whose sort fields are set as far as the query needs them, and are
// prefix-safe: a sort prefix always ends after a whole value, so that with
// "ORDER#{ID}#{Line}" the ID 1 never matches ID 10 (PartialMatch asks for
// a partial last value explicitly, PartialTime a year, month, day or hour
// of a time). A prefix stops at the first absent value (a nil pointer, an
// empty string, a zero time); integers are always values, 0 included, so
// the SortFields option says when a prefix stops before one; a value given
// after the prefix's end is an ErrInvalidInput, never dropped. A value over
// the 1024-byte sort-key limit is an ErrInvalidKey. The rules per condition:
//
//	SortEquals          = the full sort key (every sort field given)
//	SortPrefix          begins_with the leading sort fields given; = when all are
//	SortBeginsWith(p)   begins_with the literal prefix p
//	SortBetween         from .. to (QueryBetween), both inclusive; a bound that
//	                    stops before the last sort field covers every key that
//	                    starts with it (to Date 31 includes every ID of the 31st)
//	SortLessThan        < the keys starting with params (all of them excluded)
//	SortLessOrEqual     <= the keys starting with params (all of them included)
//	SortGreaterThan     > the keys starting with params (all of them excluded)
//	SortGreaterOrEqual  >= the keys starting with params (all of them included)
//
// Without a sort condition a pattern reads the keys that begin with the
// literal text of the entity's sort template before its first placeholder
// ("ORDER#" for "ORDER#{Date}#{ID}"), so that it never reads other
// entities' items that it could not return. A pattern on the table whose
// sort key is given whole (SortEquals, or a table without a sort key) runs
// as GetItem; every other pattern runs as Query.
type Pattern[T any] struct {
	d *readDecl
}

type sortOp int

const (
	sortDefault sortOp = iota
	sortEquals
	sortPrefix
	sortBeginsWith
	sortBetween
	sortLT
	sortLE
	sortGT
	sortGE
)

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

// Pattern starts the declaration of a named access pattern of the entity.
// See Pattern for the rules.
func (e *Entity[T]) Pattern(name string) *Pattern[T] {
	return &Pattern[T]{d: patternDecl(e.model(), name)}
}

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

// On makes the pattern read the named secondary index, global (WithGSI)
// or local (WithLSI: ConsistentRead applies there). Without On, a
// pattern reads the table, or, if the partition template is not what the
// entity writes into the table's partition key, the one index whose
// partition key it is.
func (p *Pattern[T]) On(index string) *Pattern[T] { return &Pattern[T]{d: p.d.withIndex(index)} }

// Partition sets the partition template: the entity's template on the
// index, with {Field} placeholders that the query's params give, or with
// some placeholders fixed to literal values ("STATUS#PENDING"). Without it,
// the pattern uses the entity's template on the index as is.
func (p *Pattern[T]) Partition(template string) *Pattern[T] {
	return &Pattern[T]{d: p.d.withPartition(template)}
}

// SortEquals matches the sort key rendered from every sort field of the
// params. On the table, the pattern runs as GetItem.
func (p *Pattern[T]) SortEquals() *Pattern[T] { return &Pattern[T]{d: p.d.withSort(sortEquals, "")} }

// SortPrefix matches the sort keys that begin with the leading sort fields
// the params give, each whole (see PartialMatch); all of them: equality.
func (p *Pattern[T]) SortPrefix() *Pattern[T] { return &Pattern[T]{d: p.d.withSort(sortPrefix, "")} }

// SortBeginsWith matches the sort keys that begin with the literal prefix,
// which must be the start of some key the entity writes. A literal prefix
// may stop inside a value ("ORDER#2024-01" for every order of January): it
// is taken as written.
func (p *Pattern[T]) SortBeginsWith(prefix string) *Pattern[T] {
	return &Pattern[T]{d: p.d.withSort(sortBeginsWith, prefix)}
}

// SortBetween matches the sort keys between two bounds, both inclusive: the
// pattern is read with QueryBetween, AllBetween and QueryBetweenInput,
// which take both as typed values. See Pattern for how partial bounds
// extend.
func (p *Pattern[T]) SortBetween() *Pattern[T] { return &Pattern[T]{d: p.d.withSort(sortBetween, "")} }

// SortLessThan matches the sort keys below every key that starts with the
// params' sort fields.
func (p *Pattern[T]) SortLessThan() *Pattern[T] { return &Pattern[T]{d: p.d.withSort(sortLT, "")} }

// SortLessOrEqual matches the sort keys up to, and including, every key
// that starts with the params' sort fields.
func (p *Pattern[T]) SortLessOrEqual() *Pattern[T] { return &Pattern[T]{d: p.d.withSort(sortLE, "")} }

// SortGreaterThan matches the sort keys above every key that starts with
// the params' sort fields.
func (p *Pattern[T]) SortGreaterThan() *Pattern[T] { return &Pattern[T]{d: p.d.withSort(sortGT, "")} }

// SortGreaterOrEqual matches the sort keys from the first key that starts
// with the params' sort fields on.
func (p *Pattern[T]) SortGreaterOrEqual() *Pattern[T] {
	return &Pattern[T]{d: p.d.withSort(sortGE, "")}
}

// Descending makes the pattern return items in descending sort-key order
// by default (the Ascending option overrides it for one query).
func (p *Pattern[T]) Descending() *Pattern[T] { return &Pattern[T]{d: p.d.withDescending()} }

// Err is the pattern's declaration error, a *ModelError (ErrInvalidModel),
// or nil.
func (p *Pattern[T]) Err() error { return p.d.err }

// Must returns the pattern, or panics with its declaration error: for
// package-level declarations, which then fail when the program starts.
func (p *Pattern[T]) Must() *Pattern[T] {
	mustDeclare(p.d)
	return p
}

// mustDeclare panics with d's declaration error, if any.
func mustDeclare(d *readDecl) {
	if d.err != nil {
		panic(d.err)
	}
}

// Name is the pattern's name.
func (p *Pattern[T]) Name() string { return p.d.name }

// Index is the name of the index the pattern reads; "" for the table.
func (p *Pattern[T]) Index() string { return p.d.indexOf() }

func (d *readDecl) indexOf() string {
	if d.index == nil {
		return ""
	}
	return d.index.index.Name
}

// Operation is the request the pattern sends: "GetItem" or "Query".
func (p *Pattern[T]) Operation() string { return p.d.operation() }

// KeyCondition describes the pattern's key condition over its templates,
// as the access-pattern sheet prints it.
func (p *Pattern[T]) KeyCondition() string { return p.d.describeKeys() }

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

// request resolves the pattern for one call.
func (d *readDecl) request(db *DB, params, upper reflect.Value, opts []QueryOption) (*readReq, error) {
	s, err := d.settingsFor(d.name, opts)
	if err != nil {
		return nil, err
	}
	return d.requestWith(db, params, upper, s)
}

// requestWith is request with the options collected: s.
func (d *readDecl) requestWith(db *DB, v, hi reflect.Value, s *settings) (*readReq, error) {
	op := d.name
	switch {
	case d.sort == sortBetween && !hi.IsValid():
		return nil, &InputError{Op: op, Reason: "a SortBetween pattern reads between two bounds: use QueryBetween, AllBetween or QueryBetweenInput"}
	case d.sort != sortBetween && hi.IsValid():
		return nil, &InputError{Op: op, Reason: "QueryBetween, AllBetween and QueryBetweenInput apply to SortBetween patterns only"}
	}
	if err := d.checkDB(op, db); err != nil {
		return nil, err
	}
	mem := d.members[0]
	if d.native() {
		pk, sk, err := d.nativeCond(op, mem, v, hi, s)
		if err != nil {
			return nil, err
		}
		return d.buildQuery(db, op, mem, s, pk, sk)
	}
	for _, b := range mem.part {
		if b.Label != "" {
			continue
		}
		fv := v.FieldByIndex(b.Ph.Field.Index)
		// A field the pattern fixes needs no value: its zero (0 included)
		// is "not given"; any other value must be the fixed one.
		given, ok, err := b.Ph.AppendValue(nil, fv, d.table.schema.Delim)
		ok = ok && !fv.IsZero()
		switch {
		case err == nil && ok && string(given) != b.Fixed:
			return nil, &InputError{Op: op, Reason: fmt.Sprintf("params give %s %q, but the pattern reads only %q", b.Ph.Field.GoName, given, b.Fixed)}
		case err == nil && !ok:
			// The pattern fixes the field: the other templates (the sort
			// key of a GetItem) render with it too.
			if err := b.Ph.Set(fv, b.Fixed); err != nil {
				return nil, &InputError{Op: op, Reason: err.Error()}
			}
		}
	}
	if sm := mem.m.Shard; sm != nil && sm.By != nil && d.fanShard() == nil && mem.partBinds(sm.Field.GoName) {
		// Every read of the pattern gives By's fields: it reads their
		// shard (see shardAlwaysGiven).
		var err error
		if v, err = mem.m.PlaceShard(v); err != nil {
			return nil, err
		}
	}
	pk, err := mem.renderPartition(d.pkAttr(), v)
	if err != nil {
		return nil, err
	}
	if d.isGet() {
		return d.getRequest(db, op, mem, s, v)
	}
	sk, err := d.sortCond(op, mem, v, hi, s)
	if err != nil {
		return nil, err
	}
	return d.buildQuery(db, op, mem, s, pk, sk)
}

// QueryInput is the first request Query sends for params (a dry run). It
// is an error for a GetItem pattern (see GetInput), and for a read that
// spans several shards or time buckets (see QueryInputs).
func (p *Pattern[T]) QueryInput(db *DB, params T, opts ...QueryOption) (*dynamodb.QueryInput, error) {
	return p.d.queryInput(db, reflect.ValueOf(&params).Elem(), reflect.Value{}, opts)
}

// QueryBetweenInput is the first request QueryBetween sends for the bounds
// from and to (a dry run); see QueryInput.
func (p *Pattern[T]) QueryBetweenInput(db *DB, from, to T, opts ...QueryOption) (*dynamodb.QueryInput, error) {
	return p.d.queryInput(db, reflect.ValueOf(&from).Elem(), reflect.ValueOf(&to).Elem(), opts)
}

// queryInput is QueryInput and QueryBetweenInput.
func (d *readDecl) queryInput(db *DB, params, upper reflect.Value, opts []QueryOption) (*dynamodb.QueryInput, error) {
	if d.fans() {
		return d.fanInput(db, params, upper, opts)
	}
	r, err := d.request(db, params, upper, opts)
	if err != nil {
		return nil, err
	}
	if r.get != nil {
		return nil, &InputError{Op: d.name, Reason: "the pattern runs as GetItem: use GetInput"}
	}
	return &r.Query, nil
}

// Query reads one page of the pattern's items for params: the partition
// and sort fields the pattern's templates need. A GetItem pattern returns
// a page of zero or one item, and of the query options takes only
// ConsistentRead and Project. A SortBetween pattern is read with
// QueryBetween.
func (p *Pattern[T]) Query(ctx context.Context, db *DB, params T, opts ...QueryOption) (*Page[T], error) {
	page := new(Page[T])
	if err := p.d.query(ctx, db, reflect.ValueOf(&params).Elem(), reflect.Value{}, opts, reflect.ValueOf(page).Elem()); err != nil {
		return nil, err
	}
	return page, nil
}

// QueryBetween reads one page of a SortBetween pattern's items, from the
// sort key of from to that of to: from gives the partition too. Both
// bounds are inclusive, and a bound that leaves trailing sort fields empty
// covers every key that starts with it: between Order{Date: "2024-01-01"}
// and Order{Date: "2024-01-31"} includes every order of January 31st,
// whatever its ID.
func (p *Pattern[T]) QueryBetween(ctx context.Context, db *DB, from, to T, opts ...QueryOption) (*Page[T], error) {
	page := new(Page[T])
	if err := p.d.query(ctx, db, reflect.ValueOf(&from).Elem(), reflect.ValueOf(&to).Elem(), opts, reflect.ValueOf(page).Elem()); err != nil {
		return nil, err
	}
	return page, nil
}

// query reads into page (a Page[T]) the page of Query and QueryBetween.
func (d *readDecl) query(ctx context.Context, db *DB, params, upper reflect.Value, opts []QueryOption, page reflect.Value) error {
	if d.fans() {
		f, err := d.fanRequest(db, params, upper, opts)
		if err != nil {
			return err
		}
		return fanPage(ctx, db, f, f.s.limit, page)
	}
	r, err := d.request(db, params, upper, opts)
	if err != nil {
		return err
	}
	return r.page(ctx, db, page)
}

// All iterates over every item of the pattern for params, across pages,
// reading the next page only when the loop gets there; breaking out of the
// loop stops the reads. Options are Query's; Limit caps the total and
// After starts from a cursor. An item that does not decode is yielded as
// its error (with the zero value), and the iteration goes on if the loop
// does, as a scan's; any other error is yielded once, last.
func (p *Pattern[T]) All(ctx context.Context, db *DB, params T, opts ...QueryOption) iter.Seq2[T, error] {
	return seqOf[T](p.d.all(ctx, db, reflect.ValueOf(&params).Elem(), reflect.Value{}, opts, false))
}

// AllBetween iterates over every item of a SortBetween pattern from the
// sort key of from to that of to, as All does (see QueryBetween).
func (p *Pattern[T]) AllBetween(ctx context.Context, db *DB, from, to T, opts ...QueryOption) iter.Seq2[T, error] {
	return seqOf[T](p.d.all(ctx, db, reflect.ValueOf(&from).Elem(), reflect.ValueOf(&to).Elem(), opts, false))
}

// all is the read of All and AllBetween. eager: the caller reads every
// item before it returns (Sum), bound by the fan-out ceiling.
func (d *readDecl) all(ctx context.Context, db *DB, params, upper reflect.Value, opts []QueryOption, eager bool) readIter {
	return readIter{run: runAll, ctx: ctx, db: db, d: d, params: params, upper: upper, opts: opts, eager: eager}
}

// runAll runs the read of All (see readIter). Each run reads for a copy
// of params, which the request may change.
func runAll(it readIter, dst reflect.Value, y itemYield) {
	d := it.d
	if d.fans() {
		f, err := d.fanRequest(it.db, it.params, it.upper, it.opts)
		if err != nil {
			y.item(err)
			return
		}
		fanAll(it.ctx, it.db, f, it.eager, dst, y)
		return
	}
	r, err := d.request(it.db, copyOf(it.params), it.upper, it.opts)
	if err != nil {
		y.item(err)
		return
	}
	queryAll(it.ctx, it.db, r, decodeMember, nil, dst, y)
}

// copyOf is a settable copy of struct value v.
func copyOf(v reflect.Value) reflect.Value {
	c := reflect.New(v.Type()).Elem()
	c.Set(v)
	return c
}
