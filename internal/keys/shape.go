package keys

import "time"

// Shapes of key values, for lint: what a placeholder's kind and format
// rule out. A time rendered by a layout that starts with a number (the
// year of "2006-01-02", the hour of "15:04") starts with a digit, so a
// bare timestamp sort key cannot collide with a literal such as "Join:".

// leadsWithDigit reports whether every time the layout renders (in UTC,
// years 0 to 9999, as keys are rendered) starts with a digit.
func leadsWithDigit(layout string) bool {
	for _, t := range []time.Time{
		time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
	} {
		s := t.Format(layout)
		if s == "" || s[0] < '0' || s[0] > '9' {
			return false
		}
	}
	return true
}
