package capacity

import (
	"fmt"
	"maps"
	"math"
	"sort"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/bridge"
	"github.com/singletable/singletable/internal/codec"
)

// The service's rules, as the estimates apply them:
//
//   - an item's size is the lengths of its attribute names plus its
//     values' sizes (codec.Size: strings in UTF-8 bytes, numbers by their
//     digits, ...);
//   - a read unit reads 4 KB strongly consistent, 8 KB eventually (half a
//     unit per 4 KB); GetItem and BatchGetItem round each item up, a
//     Query rounds the sum of the items it reads (matched by the filter
//     or not) and costs at least one read of 4 KB;
//   - a write unit writes 1 KB, each item rounded up: a put or update
//     costs the larger of the item before and after, a delete the item
//     deleted;
//   - each global secondary index the write touches costs its own writes
//     of the index entry (keys plus projected attributes): one to add or
//     remove an entry, one to change its projected attributes, two (a
//     delete and a put) when the index key changes, as when an update
//     moves the item out of one sparse index and into another;
//   - transactions cost double, reads and writes.

// ItemSize is the size of item by DynamoDB's rules.
func ItemSize(item map[string]types.AttributeValue) int {
	n := 0
	for k, v := range item {
		n += len(k) + codec.Size(v)
	}
	return n
}

// ReadUnits is the units GetItem consumes reading an item of size bytes.
func ReadUnits(bytes int, consistent bool) float64 {
	u := math.Ceil(float64(max(bytes, 1)) / 4096)
	if !consistent {
		u /= 2
	}
	return u
}

// WriteUnits is the units writing an item of size bytes consumes.
func WriteUnits(bytes int) float64 { return math.Ceil(float64(max(bytes, 1)) / 1024) }

// QueryUnits is the units a Query consumes that reads items of the given
// sizes (all the items it reads: a filter does not lower it).
func QueryUnits(consistent bool, sizes ...int) float64 {
	total := 0
	for _, s := range sizes {
		total += s
	}
	return ReadUnits(total, consistent)
}

// Write is the estimate of one write.
type Write struct {
	// Table is the units of the table's write; Index those of each
	// global secondary index the write touches (a unique-value guard
	// item's entry included, in an index keyed on attributes it carries).
	Table float64
	Index map[string]float64
	// Transaction says the write goes in a transaction (a Tx action, or
	// an entity with unique values): Units is doubled.
	Transaction bool
	// Units is the total.
	Units float64
}

func (w *Write) total() {
	u := w.Table
	for _, v := range w.Index {
		u += v
	}
	if w.Transaction {
		u *= 2
	}
	w.Units = u
}

// Writes is what writing one value of an entity costs, by write kind.
type Writes struct {
	Entity string
	// ItemBytes is the item's size, keys, type and index keys included.
	ItemBytes int
	// Put is a put of a new item (Put, Create); Delete the delete of
	// the stored item; TxPut and TxDelete the same as transaction
	// actions. An entity with unique values writes its puts and deletes
	// as transactions, with a guard item each (estimated at one unit).
	Put, Delete, TxPut, TxDelete Write
}

// WriteOf estimates the writes of v, a value of entity e.
func WriteOf[T any](e *st.Entity[T], v T) (Writes, error) {
	m := bridge.Capacity.Model(e)
	if m == nil {
		return Writes{}, &st.InputError{Op: "capacity.WriteOf", Reason: "the entity is nil"}
	}
	return writesOf(m, v)
}

func writesOf(m *bridge.CapacityModel, v any) (Writes, error) {
	item, err := m.Item(v)
	if err != nil {
		return Writes{}, err
	}
	w := Writes{Entity: m.Entity, ItemBytes: ItemSize(item)}
	w.Put = change(m, nil, item)
	w.Delete = change(m, item, nil)
	w.TxPut, w.TxDelete = w.Put, w.Delete
	w.TxPut.Index, w.TxDelete.Index = maps.Clone(w.Put.Index), maps.Clone(w.Delete.Index) // their own, to add to
	w.TxPut.Transaction, w.TxDelete.Transaction = true, true
	if m.Unique > 0 {
		for _, x := range []*Write{&w.Put, &w.Delete} {
			x.Transaction = true
			x.Table += float64(m.Unique) // a guard item each
		}
		w.TxPut.Table += float64(m.Unique)
		w.TxDelete.Table += float64(m.Unique)
		// A guard item also has an entry in each index keyed on
		// attributes it carries (one keyed on the table's own keys).
		for _, x := range []*Write{&w.Put, &w.Delete, &w.TxPut, &w.TxDelete} {
			for _, name := range m.GuardIndexes {
				if x.Index == nil {
					x.Index = map[string]float64{}
				}
				x.Index[name] += float64(m.Unique)
			}
		}
	}
	for _, x := range []*Write{&w.Put, &w.Delete, &w.TxPut, &w.TxDelete} {
		x.total()
	}
	return w, nil
}

// MoveOf estimates the write that turns the stored item of before into
// that of after (an Update, or a Put replacing it): the table's write of
// the larger of the two, and in each index a put (the item enters it), a
// delete (it leaves: a sparse index whose key the update removes), a
// delete and a put (its index key changes), or a write of its entry (its
// projected attributes change); and for each unique value that changes
// (or whose scope changes),
// the delete of its old guard item and the put of its new one (one unit
// each, in the table and in each index keyed on attributes a guard
// carries), in a transaction.
func MoveOf[T any](e *st.Entity[T], before, after T) (Write, error) {
	m := bridge.Capacity.Model(e)
	if m == nil {
		return Write{}, &st.InputError{Op: "capacity.MoveOf", Reason: "the entity is nil"}
	}
	old, err := m.Item(before)
	if err != nil {
		return Write{}, err
	}
	nu, err := m.Item(after)
	if err != nil {
		return Write{}, err
	}
	w := change(m, old, nu)
	w.Transaction = m.Unique > 0
	// A unique value that changes moves its guard item: the old one
	// deleted, the new one put, each in the table and in every index
	// keyed on attributes a guard carries.
	for i, a := range m.UniqueAttrs {
		if s := m.UniqueScopes[i]; codec.Equal(old[a], nu[a]) && (s == "" || codec.Equal(old[s], nu[s])) {
			continue
		}
		for _, it := range []map[string]types.AttributeValue{old, nu} {
			if it[a] == nil {
				continue
			}
			w.Table++
			for _, name := range m.GuardIndexes {
				if w.Index == nil {
					w.Index = map[string]float64{}
				}
				w.Index[name]++
			}
		}
	}
	w.total()
	return w, nil
}

// change estimates a write from item old to nu (nil: none).
func change(m *bridge.CapacityModel, old, nu map[string]types.AttributeValue) Write {
	w := Write{Table: WriteUnits(max(ItemSize(old), ItemSize(nu)))}
	for _, ix := range m.Indexes {
		in0, in1 := old != nil && ix.In(old), nu != nil && ix.In(nu)
		var u float64
		switch {
		case in0 && in1:
			e0, e1 := entry(ix.Projection, ix.Keys, ix.Include, old), entry(ix.Projection, ix.Keys, ix.Include, nu)
			switch {
			case !sameAttrs(ix.Keys, e0, e1):
				u = WriteUnits(ItemSize(e0)) + WriteUnits(ItemSize(e1))
			case !sameAttrs(nil, e0, e1):
				u = WriteUnits(max(ItemSize(e0), ItemSize(e1)))
			}
		case in0:
			u = WriteUnits(ItemSize(entry(ix.Projection, ix.Keys, ix.Include, old)))
		case in1:
			u = WriteUnits(ItemSize(entry(ix.Projection, ix.Keys, ix.Include, nu)))
		}
		if u > 0 {
			if w.Index == nil {
				w.Index = map[string]float64{}
			}
			w.Index[ix.Name] += u
		}
	}
	return w
}

// entry is the index entry of item: its keys and projected attributes.
func entry(projection string, keys, include []string, item map[string]types.AttributeValue) map[string]types.AttributeValue {
	if projection == string(types.ProjectionTypeAll) || projection == "" {
		return item
	}
	out := map[string]types.AttributeValue{}
	for _, list := range [][]string{keys, include} {
		for _, a := range list {
			if v, ok := item[a]; ok {
				out[a] = v
			}
		}
	}
	return out
}

// sameAttrs reports whether a and b hold equal values at attrs (every
// attribute for nil attrs).
func sameAttrs(attrs []string, a, b map[string]types.AttributeValue) bool {
	if attrs == nil {
		if len(a) != len(b) {
			return false
		}
		for k := range a {
			attrs = append(attrs, k)
		}
	}
	for _, k := range attrs {
		if !codec.Equal(a[k], b[k]) {
			return false
		}
	}
	return true
}

// Page describes a page a read returns, for ReadOf.
type Page struct {
	// Items is how many items the read reads (a filter's rejects
	// included: DynamoDB bills what it reads).
	Items int
	// ItemBytes is the size of each item as stored in the table.
	ItemBytes int
	// EntryBytes is the size of each item's entry in the index the read
	// reads, when that index does not project ALL; 0: ItemBytes. (With
	// a value at hand, PageOf computes it.)
	EntryBytes int
	// Consistent is a strongly consistent read (the table only).
	Consistent bool
}

// Read is the estimate of a read of one page.
type Read struct {
	Name      string
	Operation string // Query or GetItem
	Index     string // "" for the table
	// Projection is the index's projection (ALL for the table).
	Projection string
	// Bytes is what the read reads: each item's entry on the index, or
	// the item.
	Bytes int
	Units float64
}

// ReadOf estimates a page of p (a *singletable.Pattern[T] or a
// *singletable.Collection) under DynamoDB's rules: a GetItem pattern
// reads one item, a Query page.Items items of page.EntryBytes (or
// page.ItemBytes) each, summed and rounded up to 4 KB, halved when not
// Consistent.
func ReadOf(p any, page Page) (Read, error) {
	d := bridge.Capacity.Pattern(p)
	if d == nil {
		return Read{}, &st.InputError{Op: "capacity.ReadOf", Reason: fmt.Sprintf("%T is not a pattern or a collection", p)}
	}
	if err := page.Validate(); err != nil {
		return Read{}, err
	}
	return readOf(d, page), nil
}

func readOf(d *bridge.CapacityRead, page Page) Read {
	r := Read{Name: d.Name, Operation: d.Operation, Index: d.Index, Projection: d.Projection}
	size := page.ItemBytes
	if page.EntryBytes > 0 && d.Projection != string(types.ProjectionTypeAll) {
		size = page.EntryBytes
	}
	n := page.Items
	if d.Operation == "GetItem" {
		n = min(n, 1)
	}
	r.Bytes = n * size
	r.Units = ReadUnits(r.Bytes, page.Consistent && d.Index == "")
	return r
}

// PageOf is ReadOf for a page of n items like v, whose entry on the
// pattern's index (its keys and projected attributes) it computes from
// v's item.
func PageOf[T any](p *st.Pattern[T], e *st.Entity[T], v T, n int, consistent bool) (Read, error) {
	const op = "capacity.PageOf"
	if p == nil || e == nil {
		return Read{}, &st.InputError{Op: op, Reason: "the pattern or the entity is nil"}
	}
	if n < 0 {
		return Read{}, &st.InputError{Op: op, Reason: fmt.Sprintf("n is %d: it must not be negative", n)}
	}
	d := bridge.Capacity.Pattern(p)
	m := bridge.Capacity.Model(e)
	if d == nil || m == nil {
		return Read{}, &st.InputError{Op: op, Reason: "the pattern or the entity is nil"}
	}
	item, err := m.Item(v)
	if err != nil {
		return Read{}, err
	}
	page := Page{Items: n, ItemBytes: ItemSize(item), Consistent: consistent}
	if d.Projection != string(types.ProjectionTypeAll) {
		page.EntryBytes = ItemSize(entry(d.Projection, d.Keys, d.Include, item))
	}
	return readOf(d, page), nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
