package singletable

import (
	"context"
	"fmt"
	"hash/fnv"
	"iter"
	"math/rand/v2"
	"reflect"
	"strings"

	"github.com/singletable/singletable/internal/codec"
	"github.com/singletable/singletable/internal/keys"
	"github.com/singletable/singletable/internal/model"
)

// Write sharding
//
// A partition that takes more writes than one DynamoDB partition serves
// (1,000 write units a second) is spread over N partitions by a shard
// number 0..N-1 in its key: the seeds' page-view counter
// ("PAGEVIEW#{PageID}#{Shard}") or hot status index ("STATUS#{Status}#{Shard}").
// The shard number is an integer field of the struct, written in the key
// templates like any other field, and declared with Shards:
//
//	Key("PAGEVIEW#{PageID}#{Shard}", "COUNTER"), Shards("Shard", 10)           // chosen by the writer
//	Index("GSI1", "STATUS#{Status}#{Shard}", "{ID}"), Shards("Shard", 10).By("ID") // a hash of ID
//
// With By, the library derives the shard from the named fields (FNV-1a of
// their values as written in keys, modulo N) on every operation that renders
// a key (Put, Create, Update, Delete, Get, transactions, batches), so a
// caller never sets it and Get finds the item from its other key fields.
// Without By, the value carries its shard: every operation uses the one it
// holds (0..N-1, checked before sending; reads decode it from the item), and
// a write that may create the item picks one at random when given
// RandomShard: the counter is
//
//	PageViews.Update(ctx, db, PageView{PageID: id}, Increment("Views", 1), Upsert(), RandomShard())
//
// A pattern whose partition reads the shard field (rather than fixing it
// to a literal) reads all N shards in parallel and merges them: see
// Pattern and FanOutConcurrency; Sum adds up a field over them.
//
// Changing N is a documented path (docs/access-patterns.md, "Changing the
// number of shards"): Previously declares the old count, so that reads fan
// out over both while the items move.

// ShardSpec declares an entity's shard field: see Shards. It is an
// EntityOption.
type ShardSpec struct {
	field    string
	n, prev  int
	by       []string
	hasPrev  bool
	hasBy    bool
	byCalled int
}

// maxShards bounds N: a read fans out into one request per shard.
const maxShards = 1000

// Shards declares that integer field field holds a shard number from 0 to
// n-1, written in one or more of the entity's key templates. See ShardSpec.By
// for hashed shards and RandomShard for random ones.
func Shards(field string, n int) ShardSpec { return ShardSpec{field: field, n: n} }

// By derives the shard from fields (of the primary key, so that an item's
// shard never changes): FNV-1a of their values as written in keys, modulo
// the shard count. The library sets the shard field on every write and key
// it renders.
func (s ShardSpec) By(fields ...string) ShardSpec {
	s.by, s.hasBy = append([]string(nil), fields...), true
	s.byCalled++
	return s
}

// Previously declares the shard count before a change of n: reads fan out
// over max(n, old) shards and accept shard numbers up to it, while writes
// use n, until every item has moved (see docs/access-patterns.md). With
// By, a pattern read given By's fields reads their shard under each count.
func (s ShardSpec) Previously(old int) ShardSpec {
	s.prev, s.hasPrev = old, true
	return s
}

func (s ShardSpec) applyEntity(e *entitySpec) {
	e.shard = &s
	e.shardCalls++
}

// shardModel is an entity's resolved shard declaration.
type shardModel struct {
	field *codec.Field
	n     int                 // writes choose among 0..n-1 (By hashes into it)
	read  int                 // reads fan out over 0..read-1; values up to it are accepted
	prev  int                 // the count before a change (Previously); 0: none
	by    []*keys.Placeholder // By's fields as the primary key writes them; nil: not hashed
	delim byte
	// attr and tpl are the first key attribute and template that hold the
	// shard, for errors.
	attr, tpl string
}

// resolveShard checks and resolves the entity's shard declaration.
func (m *entityModel) resolveShard(spec *entitySpec) error {
	if spec.shard == nil {
		return nil
	}
	s := spec.shard
	fail := func(field, reason string, args ...any) error {
		return &ModelError{Table: m.table.schema.Name, Entity: m.Name, Field: field, Reason: "Shards: " + fmt.Sprintf(reason, args...)}
	}
	if spec.shardCalls > 1 {
		return fail("", "given %d times", spec.shardCalls)
	}
	f, ok := m.Fields.ByGoName(s.field)
	if !ok {
		return fail(s.field, "no such field")
	}
	switch k := f.Type.Kind(); {
	case k >= reflect.Int && k <= reflect.Int64, k >= reflect.Uint && k <= reflect.Uint64:
	default:
		return fail(s.field, "the shard field must be an integer, not %s", f.Type)
	}
	read := max(s.n, s.prev)
	switch {
	case s.n < 1 || s.n > maxShards:
		return fail(s.field, "the shard count must be from 1 to %d, got %d", maxShards, s.n)
	case s.hasPrev && (s.prev < 1 || s.prev > maxShards):
		return fail(s.field, "Previously: the old shard count must be from 1 to %d, got %d", maxShards, s.prev)
	case s.byCalled > 1:
		return fail(s.field, "By is given %d times", s.byCalled)
	case s.hasBy && len(s.by) == 0:
		return fail(s.field, "By names no field")
	case overflows(f.Type, read-1):
		// It would wrap: a read would fan out over one shard twice.
		return fail(s.field, "the field's type %s cannot hold shard %d", f.Type, read-1)
	}
	sm := &shardModel{field: f, n: s.n, read: read, delim: m.table.schema.Delim}
	if s.hasPrev && s.prev != s.n {
		sm.prev = s.prev
	}
	for _, w := range m.writtenTemplates() {
		tpl := w.tpl
		for _, ph := range tpl.Placeholders() {
			if ph.Field.GoName != s.field {
				continue
			}
			if sm.tpl == "" {
				sm.attr, sm.tpl = w.attr, tpl.Raw
			}
			if ph.Width > 0 && len(fmt.Sprint(read-1)) > ph.Width {
				return fail(s.field, "template %q pads the shard to %d digits, too few for shard %d", tpl.Raw, ph.Width, read-1)
			}
		}
	}
	if sm.tpl == "" {
		return fail(s.field, "no key template writes {%s}, so the shard spreads nothing", s.field)
	}
	for _, name := range s.by {
		ph := m.primaryPlaceholder(name)
		switch {
		case name == s.field:
			return fail(name, "By cannot name the shard field itself")
		case ph == nil:
			return fail(name, "By names a field the primary key templates (%s) do not hold; an item's shard must not change with an update", m.primaryTemplates())
		}
		sm.by = append(sm.by, ph)
	}
	m.shard = sm
	return nil
}

// writtenKey is a key attribute and the template the entity renders it from.
type writtenKey struct {
	attr string
	tpl  *keys.Template
}

// writtenTemplates lists the templates the entity renders keys from: the
// primary key's and those of the indexes it writes a key of its own into.
func (m *entityModel) writtenTemplates() []writtenKey {
	out := []writtenKey{{m.table.schema.PK, m.PK}}
	if m.SK != nil {
		out = append(out, writtenKey{m.table.schema.SK, m.SK})
	}
	for _, ei := range m.Indexes {
		if ei.PKFrom == model.KeyOwn && ei.PK != nil {
			out = append(out, writtenKey{ei.Index.PK, ei.PK})
		}
		if ei.SKFrom == model.KeyOwn && ei.SK != nil {
			out = append(out, writtenKey{ei.Index.SK, ei.SK})
		}
	}
	return out
}

// primaryPlaceholder is field name's placeholder in the primary key
// templates, or nil.
func (m *entityModel) primaryPlaceholder(name string) *keys.Placeholder {
	for _, tpl := range []*keys.Template{m.PK, m.SK} {
		if tpl == nil {
			continue
		}
		for _, ph := range tpl.Placeholders() {
			if ph.Field.GoName == name {
				return ph
			}
		}
	}
	return nil
}

// shardDerived reports whether field goName is a shard the library
// derives (By): an update knows it from the key, and may not set it.
func (m *entityModel) shardDerived(goName string) bool {
	return m.shard != nil && m.shard.by != nil && m.shard.field.GoName == goName
}

// hash is the shard By's fields give in struct value v.
func (sm *shardModel) hash(v reflect.Value) (int, error) {
	h, err := sm.hash32(v)
	return int(h % uint32(sm.n)), err
}

// hashes are the shards an item with By's fields of v may be in: its
// shard under the current count and, while the count changes
// (Previously), under the old one; one when they agree.
func (sm *shardModel) hashes(v reflect.Value) ([]int, error) {
	h, err := sm.hash32(v)
	if err != nil {
		return nil, err
	}
	out := []int{int(h % uint32(sm.n))}
	if old := int(h % uint32(max(sm.prev, 1))); sm.prev > 0 && old != out[0] {
		out = append(out, old)
	}
	return out, nil
}

// hash32 is the FNV-1a hash of By's fields in v, as written in keys.
func (sm *shardModel) hash32(v reflect.Value) (uint32, error) {
	h := fnv.New32a()
	var buf [128]byte
	for _, ph := range sm.by {
		b, ok, err := ph.AppendValue(buf[:0], v.FieldByIndex(ph.Field.Index), sm.delim)
		if err != nil {
			return 0, err
		}
		if !ok {
			return 0, keys.MissingError{Field: ph.Field.GoName}
		}
		h.Write(b)
		h.Write([]byte{0})
	}
	return h.Sum32(), nil
}

// placeShard makes the shard field of struct value v right before its keys
// are rendered: set from the hash for By, else checked to be in range. It
// returns v, or an addressable copy when v cannot be set.
func (m *entityModel) placeShard(v reflect.Value) (reflect.Value, error) {
	sm := m.shard
	fv := v.FieldByIndex(sm.field.Index)
	if sm.by == nil {
		if n, ok := shardNumber(fv); !ok || n >= sm.read {
			return v, &KeyError{Entity: m.Name, Attr: sm.attr, Template: sm.tpl, Field: sm.field.GoName,
				Reason: fmt.Sprintf("shard %v is out of range: the entity has shards 0 to %d", fv.Interface(), sm.read-1)}
		}
		return v, nil
	}
	n, err := sm.hash(v)
	if err != nil {
		return v, m.keyError(m.PK, m.table.schema.PK, err)
	}
	if cur, ok := shardNumber(fv); ok && cur == n {
		return v, nil
	}
	if !fv.CanSet() {
		c := reflect.New(v.Type()).Elem()
		c.Set(v)
		v, fv = c, c.FieldByIndex(sm.field.Index)
	}
	setShard(fv, n)
	return v, nil
}

// overflows reports whether integer type t cannot hold n.
func overflows(t reflect.Type, n int) bool {
	z := reflect.New(t).Elem()
	if z.CanInt() {
		return z.OverflowInt(int64(n))
	}
	return z.OverflowUint(uint64(n))
}

// shardNumber reads an integer shard field; ok is false for a negative one.
func shardNumber(fv reflect.Value) (int, bool) {
	if fv.CanInt() {
		n := fv.Int()
		return int(n), n >= 0 && n <= maxShards
	}
	n := fv.Uint()
	return int(n), n <= maxShards
}

func setShard(fv reflect.Value, n int) {
	if fv.CanInt() {
		fv.SetInt(int64(n))
	} else {
		fv.SetUint(uint64(n))
	}
}

// chooseShard sets a random shard into v (addressable) when the write asks
// for one with RandomShard.
func (m *entityModel) chooseShard(op string, v reflect.Value, s *settings) error {
	if !s.write.randomShard {
		return nil
	}
	switch {
	case m.shard == nil:
		return &InputError{Op: op, Reason: "RandomShard: entity " + m.Name + " declares no Shards"}
	case m.shard.by != nil:
		return &InputError{Op: op, Reason: fmt.Sprintf("RandomShard: entity %s derives its shard from %s (By)", m.Name, m.shardByNames())}
	}
	setShard(v.FieldByIndex(m.shard.field.Index), rand.IntN(m.shard.n))
	return nil
}

func (m *entityModel) shardByNames() string {
	var names []string
	for _, ph := range m.shard.by {
		names = append(names, ph.Field.GoName)
	}
	return strings.Join(names, ", ")
}

// RandomShard makes Put, Create, Update (and their transaction forms) of an
// entity sharded without By write to a shard chosen at random among the
// current count (see Shards), whatever the value's shard field holds: the
// seed's counter increments a random shard with Update, Increment, Upsert
// and RandomShard. Update returns the item, shard included. On an entity
// without Shards, or one sharded By fields, it is an ErrInvalidInput.
func RandomShard() interface {
	PutOption
	UpdateOption
} {
	return shardOpt{}
}

// Sum adds up value over every item pattern p reads for params (All, with
// its options): over all the shards of a pattern that fans out, the seed's
// page-view total. A read of more legs than the fan-out ceiling is refused
// before sending: see MaxFanOutRequests. N is any integer or
// floating-point type.
//
//	views, err := singletable.Sum(ctx, db, PageViewShards, PageView{PageID: "p1"},
//		func(v PageView) int64 { return v.Views })
func Sum[T any, N ~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~float32 | ~float64](ctx context.Context, db *DB, p *Pattern[T], params T, value func(T) N, opts ...QueryOption) (N, error) {
	return sum(p.all(ctx, db, params, nil, opts, true), value)
}

// SumBetween adds up value over every item a SortBetween pattern reads
// from from to to (AllBetween, with its options): over every time bucket
// and shard the range touches, such as the readings of the last 24 hours;
// bound by the fan-out ceiling as Sum is.
//
//	total, err := singletable.SumBetween(ctx, db, ReadingsBetween,
//		Reading{Device: "d1", At: now.Add(-24 * time.Hour)}, Reading{At: now},
//		func(r Reading) float64 { return r.Value })
func SumBetween[T any, N ~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~float32 | ~float64](ctx context.Context, db *DB, p *Pattern[T], from, to T, value func(T) N, opts ...QueryOption) (N, error) {
	return sum(p.all(ctx, db, from, &to, opts, true), value)
}

// number is the numeric types Sum adds up (spelled out in Sum's and
// SumBetween's signatures, so that the package exports no name for it).
type number interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~float32 | ~float64
}

func sum[T any, N number](items iter.Seq2[T, error], value func(T) N) (N, error) {
	var total N
	for v, err := range items {
		if err != nil {
			return 0, err
		}
		total += value(v)
	}
	return total, nil
}
