// Package noescape hides a pointer from the compiler's escape analysis.
//
// What it buys: the root package calls each entity's managed-field hooks
// through an interface (one file per feature), and a pointer passed
// through an interface call escapes, so every write's state (on the
// planner's stack) would be moved to the heap: an allocation or three per
// write, managed fields or not. Ptr lets the hooks take those pointers
// without it.
//
// The contract: the callee uses the pointer only during the call, and
// keeps neither it nor anything derived from it. The stack may still move
// during the call: the pointer is held in typed variables, which the
// runtime adjusts like any other.
package noescape

import "unsafe"

// Ptr returns p, hidden from escape analysis (see the package doc). The
// arithmetic from nil is what hides it; nocheckptr keeps the race
// detector's pointer checks from refusing a pointer so made.
//
//go:nocheckptr
func Ptr[T any](p *T) *T {
	return (*T)(unsafe.Add(unsafe.Pointer(nil), uintptr(unsafe.Pointer(p))))
}

// Pointer is Ptr for an unsafe.Pointer, for non-generic code given the
// address of a generic function's T (instantiating Ptr for every T would
// be code the compiler builds again per type).
//
//go:nocheckptr
func Pointer(p unsafe.Pointer) unsafe.Pointer {
	return unsafe.Add(unsafe.Pointer(nil), uintptr(p))
}

// Content is Pointer for code that copies the value at p through
// reflection (reflect.Value.Set), a copy escape analysis does not follow:
// it tells the analysis that what the value points to escapes, as a typed
// copy of the value to the heap would, while p itself does not. Without
// it, a string or slice the caller built on its stack would be copied
// into the heap still pointing there.
//
//go:nocheckptr
func Content(p unsafe.Pointer) unsafe.Pointer {
	if leak {
		sink = *(*unsafe.Pointer)(p) // never runs: the flow is for escape analysis
	}
	return Pointer(p)
}

// leak is never set: Content's store into sink is for escape analysis only.
var (
	leak bool
	sink unsafe.Pointer
)
