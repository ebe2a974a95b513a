package model

import (
	"fmt"
	"hash/fnv"
	"reflect"

	"github.com/singletable/singletable/internal/codec"
	"github.com/singletable/singletable/internal/keys"
)

// MaxShards bounds N: a read fans out into one request per shard.
const MaxShards = 1000

// ShardSpec is an entity's Shards declaration as plain values: the root's
// ShardSpec holds one.
type ShardSpec struct {
	Field    string
	N, Prev  int
	By       []string
	HasPrev  bool
	HasBy    bool
	ByCalled int
}

// Shard is an entity's resolved shard declaration.
type Shard struct {
	Field *codec.Field
	N     int                 // writes choose among 0..n-1 (By hashes into it)
	Read  int                 // reads fan out over 0..read-1; values up to it are accepted
	Prev  int                 // the count before a change (Previously); 0: none
	By    []*keys.Placeholder // By's fields as the primary key writes them; nil: not hashed
	Delim byte
	// attr and tpl are the first key attribute and template that hold the
	// shard, for errors.
	Attr, Tpl string
}

// ResolveShard checks and resolves the entity's shard declaration.
func ResolveShard(spec *Spec, e *Entity) *Error {
	if spec.Shard == nil {
		return nil
	}
	s := spec.Shard
	fail := func(field, reason string, args ...any) *Error {
		return &Error{Table: e.Schema.Name, Entity: e.Name, Field: field, Reason: "Shards: " + fmt.Sprintf(reason, args...)}
	}
	if spec.ShardCalls > 1 {
		return fail("", "given %d times", spec.ShardCalls)
	}
	f, ok := e.Fields.ByGoName(s.Field)
	if !ok {
		return fail(s.Field, "no such field")
	}
	switch k := f.Type.Kind(); {
	case k >= reflect.Int && k <= reflect.Int64, k >= reflect.Uint && k <= reflect.Uint64:
	default:
		return fail(s.Field, "the shard field must be an integer, not %s", f.Type)
	}
	read := max(s.N, s.Prev)
	switch {
	case s.N < 1 || s.N > MaxShards:
		return fail(s.Field, "the shard count must be from 1 to %d, got %d", MaxShards, s.N)
	case s.HasPrev && (s.Prev < 1 || s.Prev > MaxShards):
		return fail(s.Field, "Previously: the old shard count must be from 1 to %d, got %d", MaxShards, s.Prev)
	case s.ByCalled > 1:
		return fail(s.Field, "By is given %d times", s.ByCalled)
	case s.HasBy && len(s.By) == 0:
		return fail(s.Field, "By names no field")
	case overflows(f.Type, read-1):
		// It would wrap: a read would fan out over one shard twice.
		return fail(s.Field, "the field's type %s cannot hold shard %d", f.Type, read-1)
	}
	sm := &Shard{Field: f, N: s.N, Read: read, Delim: e.Schema.Delim}
	if s.HasPrev && s.Prev != s.N {
		sm.Prev = s.Prev
	}
	for _, w := range e.writtenTemplates() {
		tpl := w.tpl
		for _, ph := range tpl.Placeholders() {
			if ph.Field.GoName != s.Field {
				continue
			}
			if sm.Tpl == "" {
				sm.Attr, sm.Tpl = w.attr, tpl.Raw
			}
			if ph.Width > 0 && len(fmt.Sprint(read-1)) > ph.Width {
				return fail(s.Field, "template %q pads the shard to %d digits, too few for shard %d", tpl.Raw, ph.Width, read-1)
			}
		}
	}
	if sm.Tpl == "" {
		return fail(s.Field, "no key template writes {%s}, so the shard spreads nothing", s.Field)
	}
	for _, name := range s.By {
		ph := e.primaryPlaceholder(name)
		switch {
		case name == s.Field:
			return fail(name, "By cannot name the shard field itself")
		case ph == nil:
			return fail(name, "By names a field the primary key templates (%s) do not hold; an item's shard must not change with an update", e.PrimaryTemplates())
		}
		sm.By = append(sm.By, ph)
	}
	e.Shard = sm
	return nil
}

// writtenKey is a key attribute and the template the entity renders it from.
type writtenKey struct {
	attr string
	tpl  *keys.Template
}

// writtenTemplates lists the templates the entity renders keys from: the
// primary key's and those of the indexes it writes a key of its own into.
func (e *Entity) writtenTemplates() []writtenKey {
	out := []writtenKey{{e.Schema.PK, e.PK}}
	if e.SK != nil {
		out = append(out, writtenKey{e.Schema.SK, e.SK})
	}
	for _, ei := range e.Indexes {
		if ei.PKFrom == KeyOwn && ei.PK != nil {
			out = append(out, writtenKey{ei.Index.PK, ei.PK})
		}
		if ei.SKFrom == KeyOwn && ei.SK != nil {
			out = append(out, writtenKey{ei.Index.SK, ei.SK})
		}
	}
	return out
}

// primaryPlaceholder is field name's placeholder in the primary key
// templates, or nil.
func (e *Entity) primaryPlaceholder(name string) *keys.Placeholder {
	for _, tpl := range []*keys.Template{e.PK, e.SK} {
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

// ShardDerived reports whether field goName is a shard the library
// derives (By): an update knows it from the key, and may not set it.
func (e *Entity) ShardDerived(goName string) bool {
	return e.Shard != nil && e.Shard.By != nil && e.Shard.Field.GoName == goName
}

// Hash is the shard By's fields give in struct value v.
func (sm *Shard) Hash(v reflect.Value) (int, error) {
	h, err := sm.hash32(v)
	return int(h % uint32(sm.N)), err
}

// Hashes are the shards an item with By's fields of v may be in: its
// shard under the current count and, while the count changes
// (Previously), under the old one; one when they agree.
func (sm *Shard) Hashes(v reflect.Value) ([]int, error) {
	h, err := sm.hash32(v)
	if err != nil {
		return nil, err
	}
	out := []int{int(h % uint32(sm.N))}
	if old := int(h % uint32(max(sm.Prev, 1))); sm.Prev > 0 && old != out[0] {
		out = append(out, old)
	}
	return out, nil
}

// hash32 is the FNV-1a Hash of By's fields in v, as written in keys.
func (sm *Shard) hash32(v reflect.Value) (uint32, error) {
	h := fnv.New32a()
	var buf [128]byte
	for _, ph := range sm.By {
		b, ok, err := ph.AppendValue(buf[:0], v.FieldByIndex(ph.Field.Index), sm.Delim)
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

// PlaceShard makes the shard field of struct value v right before its keys
// are rendered: set from the Hash for By, else checked to be in range. It
// returns v, or an addressable copy when v cannot be set.
func (e *Entity) PlaceShard(v reflect.Value) (reflect.Value, error) {
	sm := e.Shard
	fv := v.FieldByIndex(sm.Field.Index)
	if sm.By == nil {
		if n, ok := shardNumber(fv); !ok || n >= sm.Read {
			return v, &KeyError{Entity: e.Name, Attr: sm.Attr, Template: sm.Tpl, Field: sm.Field.GoName,
				Reason: fmt.Sprintf("shard %v is out of range: the entity has shards 0 to %d", fv.Interface(), sm.Read-1)}
		}
		return v, nil
	}
	n, err := sm.Hash(v)
	if err != nil {
		return v, e.TemplateKeyError(e.PK, e.Schema.PK, err)
	}
	if cur, ok := shardNumber(fv); ok && cur == n {
		return v, nil
	}
	if !fv.CanSet() {
		c := reflect.New(v.Type()).Elem()
		c.Set(v)
		v, fv = c, c.FieldByIndex(sm.Field.Index)
	}
	SetShard(fv, n)
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
		return int(n), n >= 0 && n <= MaxShards
	}
	n := fv.Uint()
	return int(n), n <= MaxShards
}

func SetShard(fv reflect.Value, n int) {
	if fv.CanInt() {
		fv.SetInt(int64(n))
	} else {
		fv.SetUint(uint64(n))
	}
}

// PrimaryTemplates describes the primary key templates for messages.
func (e *Entity) PrimaryTemplates() string {
	if e.SK == nil {
		return fmt.Sprintf("%s %q", e.Schema.PK, e.PK.Raw)
	}
	return fmt.Sprintf("%s %q, %s %q", e.Schema.PK, e.PK.Raw, e.Schema.SK, e.SK.Raw)
}
