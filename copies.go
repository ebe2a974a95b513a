package singletable

import (
	"reflect"

	"github.com/singletable/singletable/internal/recycle"
)

// Writes plan with copies of the values they are given, and updates build
// struct values of their own (writes.Plan.NextValue): both come from the
// entity's recycle.Pool (see that package for what it buys), given back
// once the write is done with them. What the entity's plans let it
// recycle is the model's to say (recycling).

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

// copyOf returns a copy of *v for a write to plan with, to give back to
// recycle once the write is done with it.
func (e *Entity[T]) copyOf(v *T) *T { return recycle.Copy(&e.m.values, v) }

// recycle zeroes p, a copy copyOf made, and recycles it if the entity's
// plans keep nothing of it.
func (e *Entity[T]) recycle(p *T) { recycle.Recycle(&e.m.values, p) }
