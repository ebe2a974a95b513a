package read

import "time"

// Time buckets: the size of a partition of a time series bucketed by time
// (see the root's bucket.go), in UTC, as keys render times.

// Unit is the size of a time bucket.
type Unit int

// The bucket sizes, finest first.
const (
	Minute Unit = iota + 1
	Hour
	Day
	Month
	Year
)

func (u Unit) String() string {
	return [...]string{"", "minute", "hour", "day", "month", "year"}[u]
}

// Start is the start of t's bucket.
func (u Unit) Start(t time.Time) time.Time {
	t = t.UTC()
	y, mo, d := t.Date()
	switch u {
	case Minute:
		return time.Date(y, mo, d, t.Hour(), t.Minute(), 0, 0, time.UTC)
	case Hour:
		return time.Date(y, mo, d, t.Hour(), 0, 0, 0, time.UTC)
	case Day:
		return time.Date(y, mo, d, 0, 0, 0, 0, time.UTC)
	case Month:
		return time.Date(y, mo, 1, 0, 0, 0, 0, time.UTC)
	}
	return time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC)
}

// Next is the start of the bucket after the one starting at start.
func (u Unit) Next(start time.Time) time.Time {
	switch u {
	case Minute:
		return start.Add(time.Minute)
	case Hour:
		return start.Add(time.Hour)
	case Day:
		return start.AddDate(0, 0, 1)
	case Month:
		return start.AddDate(0, 1, 0)
	}
	return start.AddDate(1, 0, 0)
}

// Add is the start of the bucket k buckets after (k < 0: before) the one
// starting at start.
func (u Unit) Add(start time.Time, k int) time.Time {
	switch u {
	case Minute:
		return start.Add(time.Duration(k) * time.Minute)
	case Hour:
		return start.Add(time.Duration(k) * time.Hour)
	case Day:
		return start.AddDate(0, 0, k)
	case Month:
		return start.AddDate(0, k, 0)
	}
	return start.AddDate(k, 0, 0)
}

// Count is how many buckets there are from the one starting at first to
// the one starting at last, both included.
func (u Unit) Count(first, last time.Time) int {
	secs := last.Unix() - first.Unix() // UTC: a day is 86,400 seconds
	switch u {
	case Minute:
		return int(secs/60) + 1
	case Hour:
		return int(secs/3600) + 1
	case Day:
		return int(secs/86400) + 1
	case Month:
		return (last.Year()-first.Year())*12 + int(last.Month()) - int(first.Month()) + 1
	}
	return last.Year() - first.Year() + 1
}

// samples are times with every unit away from its start, to probe a
// layout with.
var samples = []time.Time{
	time.Date(2001, 2, 3, 4, 5, 6, 7008009, time.UTC),
	time.Date(2024, 12, 31, 23, 59, 59, 999999999, time.UTC),
	time.Date(1999, 11, 28, 13, 31, 1, 0, time.UTC),
	time.Date(2030, 7, 15, 12, 30, 45, 500, time.UTC),
}

// UnitOf is the bucket a time layout renders: the finest unit such that
// every sample time renders as its bucket's start and parses back to it.
// ok is false for a layout that renders no bucket.
func UnitOf(layout string) (Unit, bool) {
	for u := Minute; u <= Year; u++ {
		ok := true
		for _, t := range samples {
			s := t.Format(layout)
			back, err := time.Parse(layout, s)
			if err != nil || s != u.Start(t).Format(layout) || !back.Equal(u.Start(t)) {
				ok = false
				break
			}
		}
		if ok {
			return u, true
		}
	}
	return 0, false
}
