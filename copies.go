package singletable

import (
	"reflect"
	"sync"
)

// Writes are given their value or key as a T (Put(ctx, db, v)) and plan
// with a copy they can change (the managed fields) and address (the codec
// works through reflection). Escaping to the heap, that copy would be an
// allocation per write, and updates build struct values of their own to
// recompute index keys (updatePlan.nextValue). Both are recycled through
// the entity's pool once the write is done with them (its plan built; a
// single write's request sent), where nothing the plan keeps can point
// into them.

// values is an entity's pool of struct values and what its plans let it
// recycle.
type values struct {
	pool sync.Pool // of *T, zero when put back
	// built: the values updates build (nextValue) are recycled.
	built bool
	// copies: the copies writes plan with are recycled too.
	copies bool
}

// recycling works out what m's plans let it recycle: no copies when the
// entity has unique fields (an action keeps the value, for its condition's
// messages), or when encoding hands a Marshaler the address of part of the
// value (codec.Plan.LendsAddress). (A When condition is the library's own,
// evaluated on the value without keeping it.)
func (m *entityModel) recycling() (built, copies bool) {
	return true, len(m.managed.unique) == 0 && !m.plan.LendsAddress()
}

// newValue returns a zero struct value of the entity's type, addressable,
// and what to hand back to releaseValue (nil: not recycled).
func (m *entityModel) newValue() (reflect.Value, any) {
	if !m.values.built {
		return reflect.New(m.typ).Elem(), nil
	}
	p := m.values.pool.Get()
	if p == nil {
		p = reflect.New(m.typ).Interface()
	}
	return reflect.ValueOf(p).Elem(), p
}

// releaseValue zeroes v, which newValue returned with p, and recycles it.
func (m *entityModel) releaseValue(v reflect.Value, p any) {
	if p == nil {
		return
	}
	v.SetZero() // drop what it points to, and hand out a zero value next time
	m.values.pool.Put(p)
}

// copyOf returns a copy of *v for a write to plan with, to give back to
// recycle once the write is done with it.
func (e *Entity[T]) copyOf(v *T) *T {
	if e.m.values.copies {
		if p, ok := e.m.values.pool.Get().(*T); ok {
			*p = *v
			return p
		}
	}
	p := new(T)
	*p = *v
	return p
}

// recycle zeroes p, a copy copyOf made, and recycles it if the entity's
// plans keep nothing of it.
func (e *Entity[T]) recycle(p *T) {
	if e.m.values.copies {
		*p = *new(T)
		e.m.values.pool.Put(p)
	}
}
