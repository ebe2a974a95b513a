package keys

import (
	"errors"
	"fmt"
	"reflect"
	"time"
)

// Precision is how much of a time a partial sort value keeps; the root
// package's TimePrecision has the same values.
type Precision int

// Time precisions, coarsest first.
const (
	Year Precision = 1 + iota
	Month
	Day
	Hour
)

// String names the precision: "Year", "Month", "Day" or "Hour".
func (p Precision) String() string {
	switch p {
	case Year:
		return "Year"
	case Month:
		return "Month"
	case Day:
		return "Day"
	case Hour:
		return "Hour"
	}
	return fmt.Sprintf("Precision(%d)", int(p))
}

// PartialPrefix renders t up to the end of the last value v gives, without
// the literal after it: the last value matches as a prefix. That value must
// be a string; or, with a precision (0: none), a time, rendered down to that
// precision only. Values are taken as RenderPrefix takes them, through
// the first through fields when through >= 0 (SortFields): a value after
// an absent one, or one at odds with through, is a *GapError.
func PartialPrefix(t *Template, v reflect.Value, through int, prec Precision) (string, error) {
	if _, _, err := t.RenderPrefix(v, through); err != nil {
		var gap *GapError
		if errors.As(err, &gap) {
			return "", gap
		}
	}
	var b []byte
	n, end, last := 0, 0, (*Placeholder)(nil)
	for _, s := range t.segs {
		if s.ph == nil {
			b = append(b, s.lit...)
			continue
		}
		if through >= 0 && n == through {
			break // the given fields end here, whatever the values after
		}
		n++
		var ok bool
		var err error
		b, ok, err = s.ph.AppendValue(b, v.FieldByIndex(s.ph.Field.Index), t.Delim)
		if err != nil {
			return "", err
		}
		if !ok {
			break
		}
		end, last = len(b), s.ph
	}
	if last == nil {
		return "", fmt.Errorf("no sort field is given")
	}
	b = b[:end]
	if prec != 0 {
		if last.Kind != KindTime {
			return "", fmt.Errorf("the last sort field given, %s, is a %s: a time precision applies to a time.Time", last.Field.GoName, last.Field.Type)
		}
		fv := v.FieldByIndex(last.Field.Index)
		if last.Ptr {
			fv = fv.Elem()
		}
		tm := fv.Interface().(time.Time)
		p, err := timePrefix(tm, last.Layout, prec)
		if err != nil {
			return "", fmt.Errorf("sort field %s: %v", last.Field.GoName, err)
		}
		// The value is the last thing rendered: replace it by its prefix
		// (escaping is per byte, so it keeps prefixes).
		b = AppendEscaped(b[:len(b)-len(Escape(tm.UTC().Format(last.Layout), t.Delim))], p, t.Delim)
		return string(b), nil
	}
	if last.Kind != KindString {
		return "", fmt.Errorf("the last sort field given, %s, is a %s: only a string can match partially (a time.Time takes PartialTime)", last.Field.GoName, last.Field.Type)
	}
	return string(b), nil
}

// periodOf returns the start of the period of t at precision p, and the
// start of the next one.
func (p Precision) periodOf(t time.Time) (start, next time.Time) {
	t = t.UTC()
	y, mo, d := t.Date()
	switch p {
	case Year:
		start = time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC)
		return start, start.AddDate(1, 0, 0)
	case Month:
		start = time.Date(y, mo, 1, 0, 0, 0, 0, time.UTC)
		return start, start.AddDate(0, 1, 0)
	case Day:
		start = time.Date(y, mo, d, 0, 0, 0, 0, time.UTC)
		return start, start.AddDate(0, 0, 1)
	}
	start = time.Date(y, mo, d, t.Hour(), 0, 0, 0, time.UTC)
	return start, start.Add(time.Hour)
}

// timePrefix is the text that layout renders for every time of t's period
// at precision prec, and for no other time: the common prefix of the
// period's first and last instants, checked against the neighbouring
// periods of every coarser unit (a layout that puts the day first, or that
// stops at the day when asked for the hour, has no such prefix).
func timePrefix(t time.Time, layout string, prec Precision) (string, error) {
	if prec < Year || prec > Hour {
		return "", fmt.Errorf("unknown time precision %d", int(prec))
	}
	if t.IsZero() {
		return "", fmt.Errorf("the time is zero")
	}
	start, next := prec.periodOf(t)
	first, lastS := start.Format(layout), next.Add(-time.Nanosecond).Format(layout)
	n := 0
	for n < len(first) && n < len(lastS) && first[n] == lastS[n] {
		n++
	}
	p := first[:n]
	fail := fmt.Errorf("layout %q does not begin with the %s (every time of a %s must share leading text no other time has)", layout, prec, prec)
	if p == "" {
		return "", fail
	}
	// Probe the periods around: the one before and the next ones of every
	// coarser unit, far enough to catch an unpadded layout ("2006-1-2":
	// day 1 of a month would match days 10 to 19).
	for q := Year; q <= prec; q++ {
		for k := -1; k <= [...]int{Year: 1, Month: 11, Day: 30, Hour: 23}[q]; k++ {
			if k == 0 {
				continue
			}
			if o := neighbour(start, q, k).Format(layout); len(o) >= len(p) && o[:len(p)] == p {
				return "", fail
			}
		}
	}
	return p, nil
}

// neighbour shifts t by dir units of precision q.
func neighbour(t time.Time, q Precision, dir int) time.Time {
	switch q {
	case Year:
		return t.AddDate(dir, 0, 0)
	case Month:
		return t.AddDate(0, dir, 0)
	case Day:
		return t.AddDate(0, 0, dir)
	}
	return t.Add(time.Duration(dir) * time.Hour)
}
