package capacity

import (
	"fmt"
	"math"

	st "github.com/singletable/singletable"
)

// The checks of the estimates' and the cost model's inputs: a negative or
// NaN size, rate or price would only turn into a nonsense figure.

// badNumber is the InputError of field, when v is negative, NaN or
// infinite (nil when it is none of them).
func badNumber(op, field string, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return &st.InputError{Op: op, Reason: fmt.Sprintf("%s is %v: it must be a finite number, not negative", field, v)}
	}
	return nil
}

// Validate reports the first price that is negative, NaN or infinite, as
// an *singletable.InputError naming it.
func (p Prices) Validate() error {
	const op = "capacity.Prices"
	for _, f := range []struct {
		name string
		v    float64
	}{
		{"OnDemandRead", p.OnDemandRead}, {"OnDemandWrite", p.OnDemandWrite},
		{"ProvisionedRead", p.ProvisionedRead}, {"ProvisionedWrite", p.ProvisionedWrite},
		{"StorageGBMonth", p.StorageGBMonth}, {"HoursPerMonth", p.HoursPerMonth},
	} {
		if err := badNumber(op, f.name, f.v); err != nil {
			return err
		}
	}
	for i, r := range p.Reserved {
		if r.Years < 0 {
			return &st.InputError{Op: op, Reason: fmt.Sprintf("Reserved[%d].Years is %d: it must not be negative", i, r.Years)}
		}
		for _, f := range []struct {
			name string
			v    float64
		}{{"UpfrontRead", r.UpfrontRead}, {"UpfrontWrite", r.UpfrontWrite}, {"HourlyRead", r.HourlyRead}, {"HourlyWrite", r.HourlyWrite}} {
			if err := badNumber(op, fmt.Sprintf("Reserved[%d].%s", i, f.name), f.v); err != nil {
				return err
			}
		}
	}
	return nil
}

// Validate reports the first field of prof that makes no sense (a
// negative or NaN rate, units or size, a PeakToAverage below 1, a
// Utilization above 1), as an *singletable.InputError naming it; 0 is the
// default of PeakToAverage and Utilization.
func (prof Profile) Validate() error {
	const op = "capacity.Profile"
	for i, t := range prof.Traffic {
		for _, f := range []struct {
			name string
			v    float64
		}{{"PerSecond", t.PerSecond}, {"Units.Read", t.Units.Read}, {"Units.Write", t.Units.Write}} {
			if err := badNumber(op, fmt.Sprintf("Traffic[%d] (%s).%s", i, t.Name, f.name), f.v); err != nil {
				return err
			}
		}
	}
	if err := badNumber(op, "PeakToAverage", prof.PeakToAverage); err != nil {
		return err
	}
	if prof.PeakToAverage != 0 && prof.PeakToAverage < 1 {
		return &st.InputError{Op: op, Reason: fmt.Sprintf("PeakToAverage is %v: the peak is at least the average (1, or 0 for 1)", prof.PeakToAverage)}
	}
	if err := badNumber(op, "Utilization", prof.Utilization); err != nil {
		return err
	}
	if prof.Utilization > 1 {
		return &st.InputError{Op: op, Reason: fmt.Sprintf("Utilization is %v: a fraction of the capacity, at most 1 (0 for 0.7)", prof.Utilization)}
	}
	if prof.Items < 0 || prof.ItemBytes < 0 {
		return &st.InputError{Op: op, Reason: fmt.Sprintf("Items (%d) and ItemBytes (%d) must not be negative", prof.Items, prof.ItemBytes)}
	}
	return nil
}

// Validate reports a negative Items, ItemBytes or EntryBytes as an
// *singletable.InputError naming it.
func (page Page) Validate() error {
	for _, f := range []struct {
		name string
		v    int
	}{{"Items", page.Items}, {"ItemBytes", page.ItemBytes}, {"EntryBytes", page.EntryBytes}} {
		if f.v < 0 {
			return &st.InputError{Op: "capacity.Page", Reason: fmt.Sprintf("%s is %d: it must not be negative", f.name, f.v)}
		}
	}
	return nil
}
