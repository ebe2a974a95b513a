package singletable

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"reflect"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/singletable/singletable/internal/codec"
)

// Graphs and many-to-many relationships
//
// A Relation is a relationship declared once between two entities (users
// following users, users belonging to teams), stored as edge items of an
// entity of its own (the adjacency list of single-table design), and read
// both ways: Out from the from end ("who does alice follow"), In from the
// to end ("who follows bob"), Has for one edge ("does alice follow bob").
// The edge is a struct with the key fields of both ends and any attributes
// of its own (a role, a joined-at timestamp), defined with Define like any
// entity:
//
//	type Follow struct {
//		Follower string    `dynamodbav:"follower"`
//		Followee string    `dynamodbav:"followee"`
//		Since    time.Time `dynamodbav:"since" singletable:"created"`
//	}
//
//	var FollowEdges = st.MustDefine[Follow](Social, "Follow", st.Key("USER#{Follower}", "FOLLOWS#{Followee}"))
//	var Follows = st.MustRelate("Follows", Users, FollowEdges, Users,
//		st.FromField("Follower", "ID"), st.ToField("Followee", "ID"),
//		st.InIndex("Inverted"),                      // or st.InMirror(...)
//		st.CountOut("Following"), st.CountIn("Followers"))
//
// The edge's partition key reads the from end (Out is a Query of it); the
// In direction is stored one of two ways, whichever the declaration says:
//
//   - InIndex: one item per edge, read backwards through a GSI the edge
//     entity is in: the inverted index IndexKeys("SK", "PK"), where the
//     edge's sort template ("FOLLOWS#{Followee}") is the partition, or a
//     GSI with templates of its own (Index("GSI1", "FOLLOWED_BY#{Followee}",
//     "USER#{Follower}")). Cheapest to write; In reads are eventually
//     consistent, and carry what the index projects.
//   - InMirror: two items per edge, the edge and its mirror (a second entity
//     of the same struct, keyed by the to end), written and deleted
//     together in one transaction. Twice the writes; In reads the table (a
//     consistent read is possible) and needs no index.
//
// Counts (CountOut, CountIn) are number fields of the ends kept in step in
// the same transaction as the edge: Link creates the edge only if it does
// not exist and adds 1 to each count, so a repeated Link changes nothing;
// Unlink deletes the edge only if it exists and subtracts 1. An end with a
// count must exist, or the Link fails with ErrNotFound and writes nothing.

// Relation is a relationship between entity F (the from end) and entity T
// (the to end), whose edges are items of entity E. Declare it with Relate
// or MustRelate, at package level; it is safe for concurrent use.
type Relation[F, E, T any] struct {
	name     string
	from     *Entity[F]
	edge     *Entity[E]
	to       *Entity[T]
	mirror   *Entity[E] // InMirror's entity; nil with InIndex
	out, in  *Pattern[E]
	fromMap  []fieldPair // the edge's fields that hold the from end's key
	toMap    []fieldPair
	countOut *codec.Field // F's count of out-edges; nil for none
	countIn  *codec.Field // T's count of in-edges; nil for none
}

// fieldPair is an edge field and the end's field whose value it holds.
type fieldPair struct{ edge, end *codec.Field }

// RelationOption declares part of a Relation: which edge fields hold the
// ends' keys (FromField, ToField), how In reads (InIndex or InMirror) and
// the counts kept in step (CountOut, CountIn).
type RelationOption interface{ applyRelation(*relationSpec) }

type relationSpec struct {
	from, to          [][2]string // edge field, end field
	index             string
	mirror            *[3]string // name, pk, sk
	ways              int        // InIndex and InMirror given
	countOut, countIn string
}

type relationOpt func(*relationSpec)

func (o relationOpt) applyRelation(s *relationSpec) { o(s) }

// FromField says that the edge's field edgeField holds the from end's key
// field endField. Every field of the from end's primary key needs one, and
// the edge's partition template may read only these fields (Out renders it
// from the from end).
func FromField(edgeField, endField string) RelationOption {
	return relationOpt(func(s *relationSpec) { s.from = append(s.from, [2]string{edgeField, endField}) })
}

// ToField says that the edge's field edgeField holds the to end's key field
// endField. Every field of the to end's primary key needs one.
func ToField(edgeField, endField string) RelationOption {
	return relationOpt(func(s *relationSpec) { s.to = append(s.to, [2]string{edgeField, endField}) })
}

// InIndex makes In read the edges through the global secondary index
// named index, which the edge entity must be in (the inverted index
// IndexKeys("SK", "PK") holds every entity; another needs an Index
// declaration on the edge) with a partition template that reads only the
// to end's fields. One item per edge.
func InIndex(index string) RelationOption {
	return relationOpt(func(s *relationSpec) { s.index = index; s.ways++ })
}

// InMirror makes every edge two items: the edge, and its mirror, an entity
// named name of the same struct with the key templates pk and sk, whose
// partition template reads only the to end's fields, and whose templates
// together read exactly the edge's key fields (so that each edge has one
// mirror). Link, Unlink and Relation.Update write both in one transaction;
// In queries the mirrors on the table. The edge entity may not have a
// version or unique fields (the mirror is a copy, not checked on its own).
//
// Only the relation's own writes keep the mirror in step: a Put, Update,
// Delete, batch or transaction action on the edge entity itself changes the
// edge alone, leaving In to read a stale (or deleted edge's) mirror.
func InMirror(name, pk, sk string) RelationOption {
	return relationOpt(func(s *relationSpec) { s.mirror = &[3]string{name, pk, sk}; s.ways++ })
}

// CountOut keeps the from end's integer field field equal to its number of
// out-edges, in the transaction of each Link and Unlink. An edge created or
// deleted by the edge entity's own writes (Put, Create, Delete, batches) is
// not counted: link and unlink through the relation.
func CountOut(field string) RelationOption {
	return relationOpt(func(s *relationSpec) { s.countOut = field })
}

// CountIn keeps the to end's integer field field equal to its number of
// in-edges, in the transaction of each Link and Unlink. As with CountOut,
// the edge entity's own writes are not counted.
func CountIn(field string) RelationOption {
	return relationOpt(func(s *relationSpec) { s.countIn = field })
}

// Relate declares the relationship name from entity from to entity to,
// with edges of entity edge, all on one table. Everything is checked now,
// and errors are *ModelError (ErrInvalidModel): an unknown field, an end
// key field no FromField or ToField maps, mapped fields of different types,
// an edge partition template that reads other fields than the from end's,
// neither or both of InIndex and InMirror, an index that does not hold the
// edge, a count field that is not an integer or that a key reads, counts
// over an edge entity that declares an expiry (see Expires). It
// declares the patterns name+".Out" and name+".In" (see OutPattern and
// InPattern), which the access-pattern sheet lists, and for InMirror the
// mirror entity.
func Relate[F, E, T any](name string, from *Entity[F], edge *Entity[E], to *Entity[T], opts ...RelationOption) (*Relation[F, E, T], error) {
	if from == nil || edge == nil || to == nil {
		return nil, &ModelError{Entity: "relation " + name, Reason: "an entity is nil (did its Define fail?)"}
	}
	t := edge.m.table
	fail := func(field, tpl, reason string, args ...any) (*Relation[F, E, T], error) {
		return nil, &ModelError{Table: t.name, Entity: "relation " + name, Field: field, Template: tpl, Reason: fmt.Sprintf(reason, args...)}
	}
	if name == "" {
		return fail("", "", "the name is empty")
	}
	if from.m.table != t || to.m.table != t {
		return fail("", "", "the ends and the edge must be entities of one table")
	}
	var spec relationSpec
	for _, o := range opts {
		if o == nil {
			return fail("", "", "nil option")
		}
		o.applyRelation(&spec)
	}
	r := &Relation[F, E, T]{name: name, from: from, edge: edge, to: to}
	var err error
	used := map[string]bool{}
	if r.fromMap, err = mapEnd(edge.m, from.m, "FromField", spec.from, used); err != nil {
		return fail("", "", "%v", err)
	}
	if r.toMap, err = mapEnd(edge.m, to.m, "ToField", spec.to, used); err != nil {
		return fail("", "", "%v", err)
	}
	if f := missingField(edge.m.pk.Fields(), r.fromMap); f != "" {
		return fail(f, edge.m.pk.Raw, "the edge's partition template reads %s, which no FromField maps: Out renders it from the from end alone", f)
	}
	if spec.ways != 1 {
		return fail("", "", "declare how In reads the edges: InIndex (one item per edge, through an index) or InMirror (a second item per edge), exactly once")
	}
	if spec.mirror != nil && (edge.m.managed.version != nil || len(edge.m.managed.unique) > 0) {
		return fail("", "", "InMirror copies the edge into a second item: the edge entity %s may not have a version or unique fields", edge.m.name)
	}
	if (spec.countOut != "" || spec.countIn != "") && edge.m.managed.expires != nil {
		// DynamoDB deletes an expired edge without a transaction that could
		// decrement the counts, and an expired edge is absent to every read
		// at once: no write of the library's can keep a count equal to the
		// edges that exist.
		return fail(edge.m.managed.expires.GoName, "", "CountOut and CountIn cannot count edges that expire: the edge entity %s declares an expiry, and DynamoDB deletes expired edges without updating counts (count the edges with a query, or keep the edges without an expiry)", edge.m.name)
	}
	if r.countOut, err = countField(from.m, spec.countOut); err != nil {
		return fail(spec.countOut, "", "CountOut: %v", err)
	}
	if r.countIn, err = countField(to.m, spec.countIn); err != nil {
		return fail(spec.countIn, "", "CountIn: %v", err)
	}
	if spec.index != "" {
		var ei *entityIndex
		for _, x := range edge.m.indexes {
			if x.index.name == spec.index {
				ei = x
			}
		}
		if ei == nil {
			return fail("", "", "InIndex: the edge entity %s is not in index %s", edge.m.name, spec.index)
		}
		if f := missingField(ei.pk.Fields(), r.toMap); f != "" {
			return fail(f, ei.pk.Raw, "InIndex: the edge's partition template on index %s reads %s, which no ToField maps", spec.index, f)
		}
		r.in = edge.Pattern(name + ".In").On(spec.index)
	} else {
		ms := spec.mirror
		mirror, err := Define[E](t, ms[0], Key(ms[1], ms[2]))
		if err != nil {
			return nil, err
		}
		if f := missingField(mirror.m.pk.Fields(), r.toMap); f != "" {
			return fail(f, ms[1], "InMirror: the mirror's partition template reads %s, which no ToField maps", f)
		}
		if !sameFields(mirror.m.keyFields, edge.m.keyFields) {
			return fail("", ms[1], "InMirror: the mirror's key templates must read exactly the edge's key fields (%s)", fieldNames(edge.m.keyFieldList))
		}
		r.mirror = mirror
		r.in = mirror.Pattern(name + ".In")
	}
	r.out = edge.Pattern(name + ".Out")
	for _, p := range []*Pattern[E]{r.out, r.in} {
		if err := p.Err(); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// MustRelate is Relate that panics on error, for package-level
// declarations.
func MustRelate[F, E, T any](name string, from *Entity[F], edge *Entity[E], to *Entity[T], opts ...RelationOption) *Relation[F, E, T] {
	r, err := Relate(name, from, edge, to, opts...)
	if err != nil {
		panic(err)
	}
	return r
}

// mapEnd resolves the field pairs of one end (option names the option, for
// errors): every key field of the end mapped once, to an edge field of the
// same type that no other pair uses.
func mapEnd(edge, end *entityModel, option string, pairs [][2]string, used map[string]bool) ([]fieldPair, error) {
	var out []fieldPair
	for _, p := range pairs {
		ef, ok := edge.fields.ByGoName(p[0])
		if !ok {
			return nil, fmt.Errorf("%s(%q, %q): the edge entity %s has no field %s", option, p[0], p[1], edge.name, p[0])
		}
		nf, ok := end.fields.ByGoName(p[1])
		if !ok {
			return nil, fmt.Errorf("%s(%q, %q): entity %s has no field %s", option, p[0], p[1], end.name, p[1])
		}
		if !end.keyFields[p[1]] {
			return nil, fmt.Errorf("%s(%q, %q): %s is not a key field of entity %s", option, p[0], p[1], p[1], end.name)
		}
		if ef.Type != nf.Type {
			return nil, fmt.Errorf("%s(%q, %q): the edge's %s is a %s and %s's %s a %s", option, p[0], p[1], p[0], ef.Type, end.name, p[1], nf.Type)
		}
		if used[p[0]] {
			return nil, fmt.Errorf("%s(%q, %q): the edge's field %s is mapped twice", option, p[0], p[1], p[0])
		}
		used[p[0]] = true
		out = append(out, fieldPair{edge: ef, end: nf})
	}
	for _, kf := range end.keyFieldList {
		if !slices.ContainsFunc(out, func(p fieldPair) bool { return p.end.GoName == kf.GoName }) {
			return nil, fmt.Errorf("%s: key field %s of entity %s is not mapped to an edge field", option, kf.GoName, end.name)
		}
	}
	return out, nil
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

func sameFields(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for f := range a {
		if !b[f] {
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

// countField resolves a count field of m ("" for none): an integer that no
// key, index key or managed field reads, since an Increment could not keep
// them in step.
func countField(m *entityModel, name string) (*codec.Field, error) {
	if name == "" {
		return nil, nil
	}
	f, ok := m.fields.ByGoName(name)
	switch {
	case !ok:
		return nil, fmt.Errorf("entity %s has no field %s", m.name, name)
	case m.keyFields[name]:
		return nil, fmt.Errorf("%s is a key field of entity %s", name, m.name)
	case f.Type.Kind() < reflect.Int || f.Type.Kind() > reflect.Uint64 || f.Tag.AsString:
		return nil, fmt.Errorf("%s of entity %s is a %s; a count is an integer stored as a number", name, m.name, f.Type)
	case is(m.managed.version, f) || slices.ContainsFunc(m.managed.unique, func(u *codec.Field) bool { return is(u, f) }):
		return nil, fmt.Errorf("%s is a managed field (version or unique) of entity %s", name, m.name)
	}
	for _, ei := range m.indexes {
		if ei.dependsOn(name) {
			return nil, fmt.Errorf("%s is read by entity %s's key in index %s", name, m.name, ei.index.name)
		}
	}
	return f, nil
}

// Name is the relation's name.
func (r *Relation[F, E, T]) Name() string { return r.name }

// OutPattern is the pattern Out runs (named name+".Out"): the edges in the
// partition the from end gives, on the table. Its params are an edge whose
// from fields are set (see Out).
func (r *Relation[F, E, T]) OutPattern() *Pattern[E] { return r.out }

// InPattern is the pattern In runs (named name+".In"): the edges in the
// partition the to end gives, on the InIndex index or the mirrors.
func (r *Relation[F, E, T]) InPattern() *Pattern[E] { return r.in }

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
// else): a key for Has and Unlink, or the start of an edge for Link.
func (r *Relation[F, E, T]) Edge(from F, to T) E {
	var e E
	ev := reflect.ValueOf(&e).Elem()
	copyFields(ev, reflect.ValueOf(&from).Elem(), r.fromMap, true)
	copyFields(ev, reflect.ValueOf(&to).Elem(), r.toMap, true)
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

// Out reads one page of the edges from f (its key fields set), in the
// edge's sort order: "who does alice follow". Options and paging are
// Pattern.Query's (Limit, After, Descending, Filter on edge fields ...).
func (r *Relation[F, E, T]) Out(ctx context.Context, db *DB, f F, opts ...QueryOption) (*Page[E], error) {
	return r.out.Query(ctx, db, r.outParams(f), opts...)
}

// In reads one page of the edges to t (its key fields set): "who follows
// bob". Through a KEYS_ONLY or INCLUDE index the edges carry what the
// index holds (their key fields always), unless FetchFull is given.
func (r *Relation[F, E, T]) In(ctx context.Context, db *DB, t T, opts ...QueryOption) (*Page[E], error) {
	return r.in.Query(ctx, db, r.inParams(t), opts...)
}

// OutAll iterates over every edge from f, across pages, as Pattern.All does.
func (r *Relation[F, E, T]) OutAll(ctx context.Context, db *DB, f F, opts ...QueryOption) iter.Seq2[E, error] {
	return r.out.All(ctx, db, r.outParams(f), opts...)
}

// InAll iterates over every edge to t, across pages, as Pattern.All does.
func (r *Relation[F, E, T]) InAll(ctx context.Context, db *DB, t T, opts ...QueryOption) iter.Seq2[E, error] {
	return r.in.All(ctx, db, r.inParams(t), opts...)
}

// OutInput is the first request Out sends (a dry run).
func (r *Relation[F, E, T]) OutInput(db *DB, f F, opts ...QueryOption) (*dynamodb.QueryInput, error) {
	return r.out.QueryInput(db, r.outParams(f), opts...)
}

// InInput is the first request In sends (a dry run).
func (r *Relation[F, E, T]) InInput(db *DB, t T, opts ...QueryOption) (*dynamodb.QueryInput, error) {
	return r.in.QueryInput(db, r.inParams(t), opts...)
}

// Has reports whether edge e (its key fields set) exists: one GetItem.
// ConsistentRead applies.
func (r *Relation[F, E, T]) Has(ctx context.Context, db *DB, e E, opts ...GetOption) (bool, error) {
	_, err := r.edge.Get(ctx, db, e, opts...)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}
