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
