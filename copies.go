package singletable

import (
	"reflect"
	"unsafe"

	"github.com/singletable/singletable/internal/noescape"
)

// Writes plan with copies of the values they are given, and updates build
// struct values of their own (writes.Plan.NextValue): both come from the
// entity's recycle.Pool (see that package for what it buys), given back
// once the write is done with them. What the entity's plans let it
// recycle is the model's to say (recycling).
//
// The generic write entries (Entity.Put, Update, Delete, the Tx forms)
// are each a conversion and one call into the non-generic code here and
// in their files: the compiler builds every method of Entity[T] again for
// each entity type, so what they hold is build time paid per entity. They
// hand their T over by address (unsafe.Pointer(&v)), which this code copies
// from (valueAt, copyOf) and writes a result to (setAt).

// recycling works out what m's plans let it recycle: no copies when the
// entity has unique fields (an action keeps the value, for its condition's
// messages), or when encoding hands a Marshaler the address of part of the
// value (codec.Plan.LendsAddress). (A When condition is the library's own,
// evaluated on the value without keeping it.)
func (m *entityModel) recycling() (built, copies bool) {
	return true, len(m.managed.unique) == 0 && !m.Plan.LendsAddress()
}

// newValue returns a zero struct value of the entity's type, addressable,
// and what to hand back to releaseValue (nil: not recycled).
func (m *entityModel) newValue() (reflect.Value, any) { return m.values.New(m.Type) }

// releaseValue zeroes v, which newValue returned with p, and recycles it.
func (m *entityModel) releaseValue(v reflect.Value, p any) { m.values.Release(v, p) }

// valueAt is the struct value at v, the address of the T a generic entry
// was given (each generic function is compiled again per entity type, so
// they hand their T to the non-generic code by address). It is only to be
// copied from, during the call: hidden from escape analysis, the T stays
// on the entry's stack, and what it points to moves to the heap, as a
// typed copy would move it (see noescape.Content).
func (m *entityModel) valueAt(v unsafe.Pointer) reflect.Value {
	return reflect.NewAt(m.Type, noescape.Content(v)).Elem()
}

// copyOf returns a copy of the entity's value at v (see valueAt) for a
// write to plan with, and what to give back to recycle with it once the
// write is done with it.
func (m *entityModel) copyOf(v unsafe.Pointer) (reflect.Value, any) {
	return m.values.Copy(m.valueAt(v))
}

// recycle zeroes c, a copy copyOf returned with p, and recycles it if the
// entity's plans keep nothing of it.
func (m *entityModel) recycle(c reflect.Value, p any) { m.values.Recycle(c, p) }

// heapCopy returns a copy of the entity's value at v (see valueAt) of its
// own, never recycled: for what keeps the value past the write.
func (m *entityModel) heapCopy(v unsafe.Pointer) reflect.Value {
	c := reflect.New(m.Type).Elem()
	c.Set(m.valueAt(v))
	return c
}

// setAt sets the entity's value at out, a generic entry's result (its
// address hidden from escape analysis: the result stays on the entry's
// stack), to v.
func (m *entityModel) setAt(out unsafe.Pointer, v reflect.Value) {
	reflect.NewAt(m.Type, noescape.Pointer(out)).Elem().Set(v)
}
