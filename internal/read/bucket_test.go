package read

import (
	"testing"
	"time"
)

func TestUnitOf(t *testing.T) {
	for layout, want := range map[string]Unit{
		"2006-01-02-15": Hour, "2006-01-02": Day, "2006-01": Month, "2006": Year, "2006-01-02T15:04": Minute,
	} {
		if got, ok := UnitOf(layout); !ok || got != want {
			t.Errorf("UnitOf(%q) = %v, %v; want %v", layout, got, ok, want)
		}
	}
	for _, layout := range []string{"15", "01-02", time.RFC3339Nano} {
		if u, ok := UnitOf(layout); ok {
			t.Errorf("UnitOf(%q) = %v: no bucket", layout, u)
		}
	}
}

func TestUnitArithmetic(t *testing.T) {
	at := time.Date(2024, 2, 29, 23, 30, 0, 0, time.UTC)
	if got := Month.Start(at); !got.Equal(time.Date(2024, 2, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("Month.Start = %v", got)
	}
	if got := Day.Next(Day.Start(at)); !got.Equal(time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("Day.Next = %v", got)
	}
	if got := Month.Add(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), -13); !got.Equal(time.Date(2022, 12, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("Month.Add(-13) = %v", got)
	}
	first, last := Hour.Start(at), Hour.Start(at.Add(49*time.Hour))
	if got := Hour.Count(first, last); got != 50 {
		t.Errorf("Hour.Count = %d, want 50", got)
	}
	if got := Month.Count(time.Date(2023, 11, 1, 0, 0, 0, 0, time.UTC), time.Date(2024, 2, 1, 0, 0, 0, 0, time.UTC)); got != 4 {
		t.Errorf("Month.Count = %d, want 4", got)
	}
}
