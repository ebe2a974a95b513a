package expr

import (
	"sync"
	"sync/atomic"
)

// MaxShared bounds each Shared table: requests are shaped by the code that
// makes them, so a program has a fixed number of shapes; beyond the bound
// (shapes made from data, say) requests simply build their own.
const MaxShared = 256

// Shared holds what requests of the same shape can share rather than
// build each time: their expression strings (Intern), keyed by their whole
// content, so a request that shares one is byte for byte the request it
// would have built. Strings are immutable, so a Client that modifies its
// request cannot change them; maps are never shared (a request's maps are
// its own: see Builder.ShareNames). The zero value is ready to use and
// safe for concurrent use: reads take no lock (a copy-on-write map behind
// an atomic pointer).
type Shared struct {
	strs Table[string]
}

// Table is a bounded (MaxShared entries) copy-on-write map from string
// keys: lookups take no lock and, keyed by bytes, allocate nothing. The
// zero value is ready to use and safe for concurrent use.
type Table[V any] struct {
	mu sync.Mutex
	m  atomic.Pointer[map[string]V]
}

// Load returns key's value.
func (t *Table[V]) Load(key []byte) (V, bool) {
	if m := t.m.Load(); m != nil {
		v, ok := (*m)[string(key)] // no allocation for the lookup
		return v, ok
	}
	var zero V
	return zero, false
}

// Len is how many keys the table holds.
func (t *Table[V]) Len() int {
	if m := t.m.Load(); m != nil {
		return len(*m)
	}
	return 0
}

// Store adds key's value, unless the table is full.
func (t *Table[V]) Store(key string, v V) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var next map[string]V
	if old := t.m.Load(); old != nil {
		if len(*old) >= MaxShared {
			return
		}
		next = make(map[string]V, len(*old)+1)
		for k, v := range *old {
			next[k] = v
		}
	} else {
		next = make(map[string]V, 1)
	}
	next[key] = v
	t.m.Store(&next)
}

// Len is how many strings the table holds.
func (s *Shared) Len() int { return s.strs.Len() }

// Intern returns text as a string: one the table holds when it has seen
// the same text before, so that a request of a known shape allocates no
// expression string.
func (s *Shared) Intern(text []byte) string {
	if v, ok := s.strs.Load(text); ok {
		return v
	}
	v := string(text)
	s.strs.Store(v, v)
	return v
}

// ShareNames makes b intern its expressions in s, and build its
// ExpressionAttributeNames at the end rather than name by name: Name then
// records the names only, Names stays nil, and NameMap builds the map, at
// its final size, once the names are known.
func (b *Builder) ShareNames(s *Shared) { b.shared = s }

// NameMap is the request's ExpressionAttributeNames: Names, or for a
// Builder given ShareNames, a new map of the names handed out so far (nil
// while there are none). Either way the map is the request's own.
func (b *Builder) NameMap() map[string]string {
	if b.shared == nil || b.names == 0 {
		return b.Names
	}
	m := make(map[string]string, b.names)
	for i := range b.names {
		m[placeholder(namePlaceholders, "#n", i)] = b.name(i)
	}
	return m
}

// name is the i-th attribute name handed out.
func (b *Builder) name(i int) string {
	if i < len(b.first) {
		return b.first[i]
	}
	return b.more[i-len(b.first)]
}

// Reset empties b for another request: what it handed out (its maps, now
// a request's) is left alone; its sharing and the room it grew are kept.
func (b *Builder) Reset() {
	clear(b.more)
	*b = Builder{more: b.more[:0], shared: b.shared}
}
