// Package recycle recycles the struct values writes plan with.
//
// What it buys: writes are given their value or key as a T (Put(ctx, db,
// v)) and plan with a copy they can change (the managed fields) and
// address (the codec works through reflection); escaping to the heap, that
// copy would be an allocation per write, and updates build struct values
// of their own to recompute index keys. A Pool hands both out and takes
// them back: an allocation or two less per write.
//
// The contract: a value goes back to its Pool only once the write is done
// with it (its plan built; a single write's request sent), when nothing
// the plan keeps can point into it; the owner of the Pool says whether its
// plans ever keep such a pointer (Enable), and nothing is recycled until
// it does.
package recycle

import (
	"reflect"
	"sync"
)

// Pool recycles struct values of one type. The zero Pool recycles nothing
// (every value is allocated, and dropped when given back); it is safe for
// concurrent use once enabled.
type Pool struct {
	pool sync.Pool // of pointers to the values, zero when put back
	// built: the values New hands out are recycled.
	built bool
	// copies: the copies Copy makes are recycled too.
	copies bool
}

// Enable sets what p recycles: the values New hands out (built) and the
// copies Copy makes (copies). Call it before p is used.
func (p *Pool) Enable(built, copies bool) { p.built, p.copies = built, copies }

// New returns a zero, addressable value of type t (the Pool's type), and
// what to hand back to Release with it (nil: not recycled).
func (p *Pool) New(t reflect.Type) (reflect.Value, any) {
	if !p.built {
		return reflect.New(t).Elem(), nil
	}
	ptr := p.pool.Get()
	if ptr == nil {
		ptr = reflect.New(t).Interface()
	}
	return reflect.ValueOf(ptr).Elem(), ptr
}

// Release zeroes v, which New returned with ptr, and recycles it.
func (p *Pool) Release(v reflect.Value, ptr any) {
	if ptr == nil {
		return
	}
	v.SetZero() // drop what it points to, and hand out a zero value next time
	p.pool.Put(ptr)
}

// Copy returns a copy of v (a value of the Pool's type) for a write to
// plan with, and what to hand back to Recycle with it once the write is
// done with it. (Not generic in the value's type: its callers are the
// core's non-generic write paths, compiled once rather than per type.)
func (p *Pool) Copy(v reflect.Value) (reflect.Value, any) {
	var ptr any
	if p.copies {
		ptr = p.pool.Get()
	}
	if ptr == nil {
		ptr = reflect.New(v.Type()).Interface()
	}
	c := reflect.ValueOf(ptr).Elem()
	c.Set(v)
	return c, ptr
}

// Recycle zeroes c, a copy Copy returned with ptr, and recycles it if the
// Pool recycles copies.
func (p *Pool) Recycle(c reflect.Value, ptr any) {
	if p.copies {
		c.SetZero()
		p.pool.Put(ptr)
	}
}
