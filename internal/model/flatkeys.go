package model

import (
	"reflect"
	"unsafe"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/keys"
)

// Flat keys: an entity whose key templates (table key and every index
// key it writes) are literal text and top-level string fields, with no
// shard, no When and no derived or partial index, renders an item's keys
// in one loop over a compiled form of them (flatKeys), reading each value
// at its field's offset straight into the text its caller lends (see
// AddKeysIn). What it buys: bench/'s Put renders its six keys with about
// half the instructions and code of the general loop (see CHANGELOG).
// Any value that needs more than a copy (escaping, an empty table key
// field, a key over its size limit, a partition key in the guard items'
// namespace) makes AddKeysIn take the general path, which gives the same
// keys or the error; an empty field of an index key leaves the item out
// of that index, as the general path does.

// flatKeys are an entity's keys as flat rendering takes them: the table
// key's first, then each index's.
type flatKeys struct {
	keys []flatKey
}

// flatKey is one key attribute: its segments, its size limit, and the
// index it belongs to (-1: the table key), whose keys an empty field
// leaves out together.
type flatKey struct {
	attr  string
	segs  []flatSeg
	limit int
	index int
}

// flatSeg is literal text, or the string field at offset off.
type flatSeg struct {
	lit   string
	off   uintptr
	field bool
}

// noFlatKeys marks an entity whose keys are not flat.
var noFlatKeys = new(flatKeys)

// flat returns the entity's flat keys, nil when its keys are not flat,
// working them out on first use (the model is complete by then).
func (e *Entity) flat() *flatKeys {
	fk := e.flatKeys.Load()
	if fk == nil {
		fk = e.compileFlatKeys()
		e.flatKeys.Store(fk)
	}
	if fk == noFlatKeys {
		return nil
	}
	return fk
}

// compileFlatKeys builds the entity's flat keys, or noFlatKeys.
func (e *Entity) compileFlatKeys() *flatKeys {
	if e.Shard != nil || len(e.PartialIndexes) > 0 || e.Schema.TypeOmit {
		return noFlatKeys
	}
	fk := &flatKeys{}
	add := func(tpl *keys.Template, attr string, limit, index int) bool {
		k := flatKey{attr: attr, limit: limit, index: index}
		for _, s := range tpl.Segments() {
			if s.Placeholder == nil {
				k.segs = append(k.segs, flatSeg{lit: s.Literal})
				continue
			}
			f := s.Placeholder.Field
			if !s.Plain || len(f.Index) != 1 || f.Type.Kind() != reflect.String {
				return false
			}
			k.segs = append(k.segs, flatSeg{off: e.Type.Field(f.Index[0]).Offset, field: true})
		}
		fk.keys = append(fk.keys, k)
		return true
	}
	s := e.Schema
	if !add(e.PK, s.PK, s.PKLimit, -1) || e.SK != nil && !add(e.SK, s.SK, MaxSortKeyBytes, -1) {
		return noFlatKeys
	}
	for i, ei := range e.Indexes {
		if ei.When != nil || ei.PKFrom != KeyOwn || ei.SK != nil && ei.SKFrom != KeyOwn ||
			!add(ei.PK, ei.Index.PK, MaxPartitionKeyBytes, i) ||
			ei.SK != nil && !add(ei.SK, ei.Index.SK, MaxSortKeyBytes, i) {
			return noFlatKeys
		}
	}
	return fk
}

// addKeysFlat is AddKeysIn (full) of the struct at base for an entity
// with flat keys fk: false when a value needs the general path (dst is
// then as it was).
func (e *Entity) addKeysFlat(fk *flatKeys, dst map[string]types.AttributeValue, base unsafe.Pointer, room []types.AttributeValueMemberS, text []byte) (facts ItemFacts, ok bool) {
	// Each key's end in buf, -1 for a key left out; on the stack for up
	// to 8 keys. The keys of one index are rendered one after the other:
	// group is the index of the keys being rendered, which start at
	// groupKey, in buf at groupBuf.
	var endArray [8]int
	ends := endArray[:0]
	buf := text[:0]
	group, groupKey, groupBuf := -2, 0, 0
	for i := range fk.keys {
		k := &fk.keys[i]
		if k.index != group {
			group, groupKey, groupBuf = k.index, i, len(buf)
		} else if ends[i-1] < 0 { // the index is left out
			ends = append(ends, -1)
			continue
		}
		start := len(buf)
		var empty bool
		if buf, empty, ok = k.render(buf, base, e.Schema.Delim); !ok {
			return facts, false // escaped
		}
		switch {
		case empty && k.index < 0:
			return facts, false // the general path's error
		case empty: // the item is not in the index
			buf = buf[:groupBuf]
			for j := groupKey; j < i; j++ {
				ends[j] = -1
			}
			ends = append(ends, -1)
			continue
		case len(buf)-start > k.limit:
			return facts, false // the general path's error
		case i == 0 && e.PKMayBeReserved && IsGuardKey(buf[start:], e.Schema.Delim):
			return facts, false
		}
		ends = append(ends, len(buf))
	}

	// Safe: the bytes are text's (memory no one writes again, see
	// AddKeysIn) or, past its capacity, a new array of the strings' own.
	str := unsafe.String(unsafe.SliceData(buf), len(buf))
	n := 1 // the type attribute
	for _, end := range ends {
		if end >= 0 {
			n++
		}
	}
	values := keyValues(room, n)
	vi, start := 0, 0
	for i, end := range ends {
		if end < 0 {
			continue
		}
		k := &fk.keys[i]
		values[vi].Value = str[start:end]
		dst[k.attr] = &values[vi]
		facts.Size += len(k.attr) + end - start
		vi, start = vi+1, end
	}
	e.keyFacts(dst, &facts, values, true)
	facts.KeyText = len(buf)
	return facts, true
}

// render appends the key to buf from the struct at base: empty when a
// field is empty, false when a value would be escaped (it holds the
// delimiter, the escape byte or a byte that is not ASCII).
func (k *flatKey) render(buf []byte, base unsafe.Pointer, delim byte) (out []byte, empty, ok bool) {
	for _, sg := range k.segs {
		if !sg.field {
			buf = append(buf, sg.lit...)
			continue
		}
		v := *(*string)(unsafe.Add(base, sg.off))
		if v == "" {
			return buf, true, true
		}
		if !keys.PlainASCII(v, delim) {
			return buf, false, false
		}
		buf = append(buf, v...)
	}
	return buf, false, true
}
