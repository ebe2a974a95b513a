package graph

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"reflect"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/bridge"
	"github.com/singletable/singletable/internal/codec"
)

// Relation is a relationship between entity F (the from end) and entity T
// (the to end), whose edges are items of entity E. Declare it with Relate
// or MustRelate, at package level; it is safe for concurrent use. Its
// methods refuse a nil DB, and a Relation not made by Relate (a zero one),
// with an *singletable.InputError naming it, before anything is sent
// (TxLink and TxUnlink add the error to the transaction).
type Relation[F, E, T any] struct {
	name    string
	from    *st.Entity[F]
	edge    *st.Entity[E]
	to      *st.Entity[T]
	mirror  *st.Entity[E] // InMirror's entity; nil with InIndex
	out, in *st.Pattern[E]
	fromMap []fieldPair // the edge's fields that hold the from end's key
	toMap   []fieldPair
	// exists are the conditions that the from and the to end exist.
	exists   [2]st.Cond
	countOut string // F's count of out-edges (a Go field name); "" for none
	countIn  string // T's count of in-edges; "" for none
	// countAttr are the counts' attributes (from end's, to end's), for
	// reading them from a refused end.
	countAttr [2]string
}

// fieldPair is an edge field and the end's field whose value it holds.
type fieldPair struct{ edge, end *codec.Field }

// Relate declares the relationship name from entity from to entity to,
// with edges of entity edge, all on one table. Everything is checked now,
// and errors are *singletable.ModelError (singletable.ErrInvalidModel): a
// nil Option or one with an empty name, InIndex, InMirror, CountOut or
// CountIn given twice, an unknown field, an end key field no FromField,
// ToField or Shared maps, an edge or end field mapped twice (but a Shared
// one, once to each end), mapped fields of
// different types, an edge partition template that reads other fields
// than the from end's, neither or both of InIndex and InMirror, an index
// that does not hold the edge, a count field that is not an integer or
// that a key reads, counts over an edge entity that declares an expiry
// (see singletable.Expires). It
// declares the patterns name+".Out" and name+".In" (see OutPattern and
// InPattern), which the access-pattern sheet lists, and for InMirror the
// mirror entity.
func Relate[F, E, T any](name string, from *st.Entity[F], edge *st.Entity[E], to *st.Entity[T], opts ...Option) (*Relation[F, E, T], error) {
	if from == nil || edge == nil || to == nil {
		return nil, &st.ModelError{Entity: "relation " + name, Reason: "an entity is nil (did its Define fail?)"}
	}
	t := edge.Table()
	fail := func(field, tpl, reason string, args ...any) (*Relation[F, E, T], error) {
		return nil, &st.ModelError{Table: t.Name(), Entity: "relation " + name, Field: field, Template: tpl, Reason: fmt.Sprintf(reason, args...)}
	}
	if name == "" {
		return fail("", "", "the name is empty")
	}
	if from.Table() != t || to.Table() != t {
		return fail("", "", "the ends and the edge must be entities of one table")
	}
	var spec spec
	for _, o := range opts {
		if o == nil {
			return fail("", "", "nil option")
		}
		if err := o.apply(&spec); err != nil {
			return fail("", "", "%v", err)
		}
	}
	fm, em, tm := bridge.Graph.Model(from), bridge.Graph.Model(edge), bridge.Graph.Model(to)
	r := &Relation[F, E, T]{name: name, from: from, edge: edge, to: to}
	var err error
	used := map[string]bool{}
	if r.fromMap, err = mapEnd(em, fm, "FromField", spec.from, used); err != nil {
		return fail("", "", "%v", err)
	}
	for f := range spec.shared {
		delete(used, f) // the to end maps it too
	}
	if r.toMap, err = mapEnd(em, tm, "ToField", spec.to, used); err != nil {
		return fail("", "", "%v", err)
	}
	r.exists = [2]st.Cond{existsCond(fm, r.fromMap), existsCond(tm, r.toMap)}
	if f := missingField(em.PK.Fields(), r.fromMap); f != "" {
		return fail(f, em.PK.Raw, "the edge's partition template reads %s, which no FromField maps: Out renders it from the from end alone", f)
	}
	if spec.ways != 1 {
		return fail("", "", "declare how In reads the edges: InIndex (one item per edge, through an index) or InMirror (a second item per edge), exactly once")
	}
	if spec.mirror != nil && (em.Versioned || em.Unique) {
		return fail("", "", "InMirror copies the edge into a second item: the edge entity %s may not have a version or unique fields", em.Name)
	}
	if (spec.countOut != "" || spec.countIn != "") && em.Expires != nil {
		// DynamoDB deletes an expired edge without a transaction that could
		// decrement the counts, and an expired edge is absent to every read
		// at once: no write of the library's can keep a count equal to the
		// edges that exist.
		return fail(em.Expires.GoName, "", "CountOut and CountIn cannot count edges that expire: the edge entity %s declares an expiry, and DynamoDB deletes expired edges without updating counts (count the edges with a query, or keep the edges without an expiry)", em.Name)
	}
	if err := countField(fm, spec.countOut); err != nil {
		return fail(spec.countOut, "", "CountOut: %v", err)
	}
	if err := countField(tm, spec.countIn); err != nil {
		return fail(spec.countIn, "", "CountIn: %v", err)
	}
	r.countOut, r.countIn = spec.countOut, spec.countIn
	for i, c := range []struct {
		m    *bridge.GraphModel
		name string
	}{{fm, spec.countOut}, {tm, spec.countIn}} {
		if f, ok := c.m.Fields.ByGoName(c.name); ok && c.name != "" {
			r.countAttr[i] = f.Attr
		}
	}
	if spec.index != "" {
		i := slices.IndexFunc(em.Indexes, func(x bridge.GraphIndex) bool { return x.Name == spec.index })
		if i < 0 {
			return fail("", "", "InIndex: the edge entity %s is not in index %s", em.Name, spec.index)
		}
		if f := missingField(em.Indexes[i].PK.Fields(), r.toMap); f != "" {
			return fail(f, em.Indexes[i].PK.Raw, "InIndex: the edge's partition template on index %s reads %s, which no ToField maps", spec.index, f)
		}
		r.in = edge.Pattern(name + ".In").On(spec.index)
	} else {
		ms := spec.mirror
		mirror, err := st.Define[E](t, ms[0], st.Key(ms[1], ms[2]))
		if err != nil {
			return nil, err
		}
		mm := bridge.Graph.Model(mirror)
		if f := missingField(mm.PK.Fields(), r.toMap); f != "" {
			return fail(f, ms[1], "InMirror: the mirror's partition template reads %s, which no ToField maps", f)
		}
		if !sameFields(mm.KeyFields, em.KeyFields) {
			return fail("", ms[1], "InMirror: the mirror's key templates must read exactly the edge's key fields (%s)", fieldNames(em.KeyFields))
		}
		r.mirror = mirror
		r.in = mirror.Pattern(name + ".In")
	}
	r.out = edge.Pattern(name + ".Out")
	for _, p := range []*st.Pattern[E]{r.out, r.in} {
		if err := p.Err(); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// MustRelate is Relate that panics on error, for package-level
// declarations.
func MustRelate[F, E, T any](name string, from *st.Entity[F], edge *st.Entity[E], to *st.Entity[T], opts ...Option) *Relation[F, E, T] {
	r, err := Relate(name, from, edge, to, opts...)
	if err != nil {
		panic(err)
	}
	return r
}

// mapEnd resolves the field pairs of one end (option names the option, for
// errors): every key field of the end mapped once, to an edge field of the
// same type that no other pair uses.
func mapEnd(edge, end *bridge.GraphModel, option string, pairs [][2]string, used map[string]bool) ([]fieldPair, error) {
	var out []fieldPair
	for _, p := range pairs {
		ef, ok := field(edge, p[0])
		if !ok {
			return nil, fmt.Errorf("%s(%q, %q): the edge entity %s has no field %s", option, p[0], p[1], edge.Name, p[0])
		}
		nf, ok := field(end, p[1])
		if !ok {
			return nil, fmt.Errorf("%s(%q, %q): entity %s has no field %s", option, p[0], p[1], end.Name, p[1])
		}
		if !isKeyField(end, p[1]) {
			return nil, fmt.Errorf("%s(%q, %q): %s is not a key field of entity %s", option, p[0], p[1], p[1], end.Name)
		}
		if ef.Type != nf.Type {
			return nil, fmt.Errorf("%s(%q, %q): the edge's %s is a %s and %s's %s a %s", option, p[0], p[1], p[0], ef.Type, end.Name, p[1], nf.Type)
		}
		if used[p[0]] {
			return nil, fmt.Errorf("%s(%q, %q): the edge's field %s is mapped twice", option, p[0], p[1], p[0])
		}
		if slices.ContainsFunc(out, func(q fieldPair) bool { return q.end == nf }) {
			return nil, fmt.Errorf("%s(%q, %q): %s's field %s is mapped twice", option, p[0], p[1], end.Name, p[1])
		}
		used[p[0]] = true
		out = append(out, fieldPair{edge: ef, end: nf})
	}
	for _, kf := range end.KeyFields {
		if !slices.ContainsFunc(out, func(p fieldPair) bool { return p.end.GoName == kf.GoName }) {
			return nil, fmt.Errorf("%s: key field %s of entity %s is not mapped to an edge field", option, kf.GoName, end.Name)
		}
	}
	return out, nil
}

// field finds the field goName of m: a stored one, or a key-only one (it
// lives in the key, and the key is what an edge field maps).
func field(m *bridge.GraphModel, goName string) (*codec.Field, bool) {
	if f, ok := m.Fields.ByGoName(goName); ok {
		return f, true
	}
	i := slices.IndexFunc(m.KeyFields, func(f *codec.Field) bool { return f.GoName == goName })
	if i < 0 {
		return nil, false
	}
	return m.KeyFields[i], true
}

// existsCond is the condition that an item of end m exists: a key field
// it stores exists, or, when its key fields are all key-only, its
// partition key does.
func existsCond(m *bridge.GraphModel, pairs []fieldPair) st.Cond {
	for _, p := range pairs {
		if _, ok := m.Fields.ByGoName(p.end.GoName); ok {
			return st.Exists(p.end.GoName)
		}
	}
	return m.Exists.(st.Cond)
}

// isKeyField reports whether the primary key of m reads the field goName.
func isKeyField(m *bridge.GraphModel, goName string) bool {
	return slices.ContainsFunc(m.KeyFields, func(f *codec.Field) bool { return f.GoName == goName })
}

// missingField is the first of fields that no pair's edge field is, or "".
func missingField(fields []string, pairs []fieldPair) string {
	for _, f := range fields {
		if !slices.ContainsFunc(pairs, func(p fieldPair) bool { return p.edge.GoName == f }) {
			return f
		}
	}
	return ""
}

// sameFields reports whether a and b list the same fields, in any order.
func sameFields(a, b []*codec.Field) bool {
	if len(a) != len(b) {
		return false
	}
	for _, f := range a {
		if !slices.ContainsFunc(b, func(g *codec.Field) bool { return g.GoName == f.GoName }) {
			return false
		}
	}
	return true
}

func fieldNames(fs []*codec.Field) string {
	var out string
	for i, f := range fs {
		if i > 0 {
			out += ", "
		}
		out += f.GoName
	}
	return out
}

// countField checks a count field of m ("" for none): an integer that no
// key, index key or managed field reads, since an Increment could not keep
// them in step.
func countField(m *bridge.GraphModel, name string) error {
	if name == "" {
		return nil
	}
	f, ok := m.Fields.ByGoName(name)
	switch {
	case !ok:
		return fmt.Errorf("entity %s has no field %s", m.Name, name)
	case isKeyField(m, name):
		return fmt.Errorf("%s is a key field of entity %s", name, m.Name)
	case f.Type.Kind() < reflect.Int || f.Type.Kind() > reflect.Uint64 || f.Tag.AsString:
		return fmt.Errorf("%s of entity %s is a %s; a count is an integer stored as a number", name, m.Name, f.Type)
	case m.Managed(name):
		return fmt.Errorf("%s is a managed field (version or unique) of entity %s", name, m.Name)
	}
	for _, ei := range m.Indexes {
		if ei.DependsOn(name) {
			return fmt.Errorf("%s is read by entity %s's key in index %s", name, m.Name, ei.Name)
		}
	}
	return nil
}

// check refuses a call that cannot run, before anything is sent: on a
// Relation not made by Relate (a zero one, or nil), or with a nil DB, an
// *singletable.InputError naming it.
func (r *Relation[F, E, T]) check(method string, db *st.DB) error {
	if r == nil || r.edge == nil {
		return &st.InputError{Op: "graph.Relation." + method, Reason: "the relation was not made by Relate"}
	}
	if db == nil {
		return &st.InputError{Op: r.name + "." + method, Reason: "the DB is nil"}
	}
	return nil
}

// failed is an iteration that yields err alone.
func failed[E any](err error) iter.Seq2[E, error] {
	return func(yield func(E, error) bool) {
		var zero E
		yield(zero, err)
	}
}

// Name is the relation's name.
func (r *Relation[F, E, T]) Name() string { return r.name }

// OutPattern is the pattern Out runs (named name+".Out"): the edges in the
// partition the from end gives, on the table. Its params are an edge whose
// from fields are set (see Out).
func (r *Relation[F, E, T]) OutPattern() *st.Pattern[E] { return r.out }

// InPattern is the pattern In runs (named name+".In"): the edges in the
// partition the to end gives, on the InIndex index or the mirrors.
func (r *Relation[F, E, T]) InPattern() *st.Pattern[E] { return r.in }

// From is the from end's key of edge e: an F with its key fields set.
func (r *Relation[F, E, T]) From(e E) F {
	var f F
	copyFields(reflect.ValueOf(&f).Elem(), reflect.ValueOf(&e).Elem(), r.fromMap, false)
	return f
}

// To is the to end's key of edge e: a T with its key fields set.
func (r *Relation[F, E, T]) To(e E) T {
	var t T
	copyFields(reflect.ValueOf(&t).Elem(), reflect.ValueOf(&e).Elem(), r.toMap, false)
	return t
}

// Edge is the edge from from to to, with its end fields set (and nothing
// else): a key for Has and Unlink, or the start of an edge for Link. A
// Shared field is from's (the ends of one edge agree on it).
func (r *Relation[F, E, T]) Edge(from F, to T) E {
	var e E
	ev := reflect.ValueOf(&e).Elem()
	copyFields(ev, reflect.ValueOf(&to).Elem(), r.toMap, true)
	copyFields(ev, reflect.ValueOf(&from).Elem(), r.fromMap, true)
	return e
}

// copyFields copies each pair's field between an end (end) and an edge
// (edge): into the edge when toEdge, else into the end.
func copyFields(dst, src reflect.Value, pairs []fieldPair, toEdge bool) {
	for _, p := range pairs {
		df, sf := p.end, p.edge
		if toEdge {
			df, sf = p.edge, p.end
		}
		dst.FieldByIndex(df.Index).Set(src.FieldByIndex(sf.Index))
	}
}

// outParams is the params of the Out pattern for from end f.
func (r *Relation[F, E, T]) outParams(f F) E {
	var e E
	copyFields(reflect.ValueOf(&e).Elem(), reflect.ValueOf(&f).Elem(), r.fromMap, true)
	return e
}

func (r *Relation[F, E, T]) inParams(t T) E {
	var e E
	copyFields(reflect.ValueOf(&e).Elem(), reflect.ValueOf(&t).Elem(), r.toMap, true)
	return e
}

// OutOption tunes Out, OutAll and OutInput: every
// [singletable.PartitionQueryOption] but FetchFull (Out reads the edges on
// the table, which holds whole items). Limit, After, Ascending,
// Descending, Filter, Project, ConsistentRead and IncludeExpired satisfy
// it, and the fan-out options (for an edge whose partition reads a shard).
type OutOption interface {
	st.PartitionQueryOption
	st.EntityQueryOption
}

// Out reads one page of the edges from f (its key fields set), in the
// edge's sort order: "who does alice follow". Paging is
// [singletable.Pattern.Query]'s (Limit, After, Descending, Filter on edge
// fields ...); the options that need a sort condition from the params
// (PartialMatch, PartialTime, SortFields) do not apply to a relation's
// reads, which read whole partitions.
func (r *Relation[F, E, T]) Out(ctx context.Context, db *st.DB, f F, opts ...OutOption) (*st.Page[E], error) {
	if err := r.check("Out", db); err != nil {
		return nil, err
	}
	return r.out.Query(ctx, db, r.outParams(f), queryOptions(opts)...)
}

// In reads one page of the edges to t (its key fields set): "who follows
// bob". Through a KEYS_ONLY or INCLUDE index the edges carry what the
// index holds (their key fields always), unless singletable.FetchFull is
// given. Its options are Out's, and FetchFull.
func (r *Relation[F, E, T]) In(ctx context.Context, db *st.DB, t T, opts ...st.PartitionQueryOption) (*st.Page[E], error) {
	if err := r.check("In", db); err != nil {
		return nil, err
	}
	return r.in.Query(ctx, db, r.inParams(t), queryOptions(opts)...)
}

// OutAll iterates over every edge from f, across pages, as
// [singletable.Pattern.All] does.
func (r *Relation[F, E, T]) OutAll(ctx context.Context, db *st.DB, f F, opts ...OutOption) iter.Seq2[E, error] {
	if err := r.check("OutAll", db); err != nil {
		return failed[E](err)
	}
	return r.out.All(ctx, db, r.outParams(f), queryOptions(opts)...)
}

// InAll iterates over every edge to t, across pages, as
// [singletable.Pattern.All] does.
func (r *Relation[F, E, T]) InAll(ctx context.Context, db *st.DB, t T, opts ...st.PartitionQueryOption) iter.Seq2[E, error] {
	if err := r.check("InAll", db); err != nil {
		return failed[E](err)
	}
	return r.in.All(ctx, db, r.inParams(t), queryOptions(opts)...)
}

// OutInput is the first request Out sends (a dry run).
func (r *Relation[F, E, T]) OutInput(db *st.DB, f F, opts ...OutOption) (*dynamodb.QueryInput, error) {
	if err := r.check("OutInput", db); err != nil {
		return nil, err
	}
	return r.out.QueryInput(db, r.outParams(f), queryOptions(opts)...)
}

// InInput is the first request In sends (a dry run).
func (r *Relation[F, E, T]) InInput(db *st.DB, t T, opts ...st.PartitionQueryOption) (*dynamodb.QueryInput, error) {
	if err := r.check("InInput", db); err != nil {
		return nil, err
	}
	return r.in.QueryInput(db, r.inParams(t), queryOptions(opts)...)
}

// queryOptions passes Out's or In's options on to their pattern's read:
// Go converts no slice of one interface type to another. Without options
// it allocates nothing.
func queryOptions[O st.QueryOption](opts []O) []st.QueryOption {
	if len(opts) == 0 {
		return nil
	}
	qs := make([]st.QueryOption, len(opts))
	for i, o := range opts {
		qs[i] = o
	}
	return qs
}

// Has reports whether edge e (its key fields set) exists: one GetItem.
// singletable.ConsistentRead applies.
func (r *Relation[F, E, T]) Has(ctx context.Context, db *st.DB, e E, opts ...st.GetOption) (bool, error) {
	if err := r.check("Has", db); err != nil {
		return false, err
	}
	_, err := r.edge.Get(ctx, db, e, opts...)
	if errors.Is(err, st.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}
