package bench

// A unit test (no tag, no DynamoDB Local): the split check of make test
// fails a test behind the integration tag that passes without it.

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// pairedCredit is the part of a call from start to end that ran in the
// window [from, to): 1 if all of it, 0 if none.
func pairedCredit(start, end, from, to time.Time) float64 {
	lo, hi := max(start.UnixNano(), from.UnixNano()), min(end.UnixNano(), to.UnixNano())
	switch {
	case hi <= lo:
		return 0
	case end.Sub(start) <= 0:
		return 1
	}
	return float64(hi-lo) / float64(end.Sub(start))
}

// TestPairedCredit checks how a paired run counts a call: the part of it
// that ran in the window.
func TestPairedCredit(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	from, to := at(1000), at(2000)
	for _, c := range []struct {
		start, end int
		want       float64
		why        string
	}{
		{100, 140, 0, "before the window"},
		{960, 1000, 0, "ended as it opened"},
		{980, 1020, 0.5, "half in it"},
		{1000, 1040, 1, "from its start"},
		{1500, 1540, 1, "inside it"},
		{1960, 2000, 1, "to its end"},
		{1990, 2030, 0.25, "a quarter in it"},
		{2000, 2040, 0, "started as it closed"},
		{900, 2100, 1000.0 / 1200, "across it"},
	} {
		assert.InDelta(t, c.want, pairedCredit(at(c.start), at(c.end), from, to), 1e-9, c.why)
	}
}
