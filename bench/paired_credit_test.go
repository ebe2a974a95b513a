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

// pairedClosed reports whether a paired run's window closes after it has
// been open for elapsed, with ended calls finished in it by its workers
// (both variants' together): not before d; then once they have finished
// minCalls calls each on average, so that a slow op's count (a call of
// StreamWide100 or FanOutWide takes a fifth of a second or more) is not a
// handful of calls per worker; and at maxWindow whatever they have done.
// The rule looks at both variants' calls summed, never at either's alone,
// so that where the window closes favours neither.
func pairedClosed(elapsed, d, maxWindow time.Duration, ended, workers, minCalls int) bool {
	switch {
	case elapsed < d:
		return false
	case elapsed >= maxWindow:
		return true
	}
	return ended >= workers*minCalls
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

// TestPairedClosed checks when a paired run's window closes: at d if the
// workers have made their calls by then, later if not, at maxWindow at
// the latest.
func TestPairedClosed(t *testing.T) {
	const d, maxWindow, workers, minCalls = time.Second, 10 * time.Second, 16, 20
	for _, c := range []struct {
		elapsed time.Duration
		ended   int
		want    bool
		why     string
	}{
		{500 * time.Millisecond, 10000, false, "before d, however many calls"},
		{d, 320, true, "at d with 20 calls a worker"},
		{d, 319, false, "at d, a call short"},
		{4 * time.Second, 319, false, "later, still a call short"},
		{4 * time.Second, 320, true, "later, once they are made"},
		{maxWindow, 5, true, "at maxWindow, whatever was made"},
	} {
		assert.Equal(t, c.want, pairedClosed(c.elapsed, d, maxWindow, c.ended, workers, minCalls), c.why)
	}
	// No minimum: the window is d.
	assert.True(t, pairedClosed(d, d, maxWindow, 0, workers, 0))
	// A maxWindow under d: d still.
	assert.False(t, pairedClosed(d/2, d, d/4, 0, workers, minCalls))
}
