package noescape

import (
	"testing"
	"unsafe"
)

type state struct{ n int }

type bumper interface{ bump(*state) }

type one struct{}

func (one) bump(s *state) { s.n++ }

// b is a variable, so that the compiler cannot see which bump is called.
var b bumper = one{}

// TestPtr: the hidden pointer is p, and a call through an interface with
// it costs no allocation, where passing p itself would move it to the heap.
func TestPtr(t *testing.T) {
	allocs := testing.AllocsPerRun(100, func() {
		var s state
		b.bump(Ptr(&s))
		b.bump(Ptr(&s))
		if s.n != 2 {
			t.Fatalf("n = %d, want 2", s.n)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per run, want 0", allocs)
	}
}

// TestPointer: Pointer is Ptr for an unsafe.Pointer, with no allocation
// either.
func TestPointer(t *testing.T) {
	allocs := testing.AllocsPerRun(100, func() {
		var s state
		p := (*state)(Pointer(unsafe.Pointer(&s)))
		b.bump(p)
		if p != &s || s.n != 1 {
			t.Fatalf("Pointer gave another pointer, or n = %d, want 1", s.n)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per run, want 0", allocs)
	}
}

type named struct{ s string }

//go:noinline
func copyOut(p unsafe.Pointer) { kept = *(*named)(p) }

var kept named

// TestContent: Content hides the pointer, as Pointer does, but what the
// value points to escapes: a string built on the caller's stack is built on
// the heap instead, so that a copy made through the hidden pointer does not
// point into the stack. (Through Pointer it stays on the stack: the
// allocation is Content's doing.)
func TestContent(t *testing.T) {
	b := []byte("built")
	pointer := testing.AllocsPerRun(100, func() {
		v := named{s: string(b)}
		copyOut(Pointer(unsafe.Pointer(&v)))
	})
	content := testing.AllocsPerRun(100, func() {
		v := named{s: string(b)}
		copyOut(Content(unsafe.Pointer(&v)))
	})
	if pointer != 0 || content != 1 {
		t.Errorf("allocations per run: %v through Pointer, want 0; %v through Content, want 1 (the string)", pointer, content)
	}
}
