package noescape

import "testing"

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
