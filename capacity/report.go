package capacity

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/singletable/singletable/observe"
)

// Key is how Compare groups requests: the pattern, collection or relation
// read (Request.Name), else the library's operation (Request.Op: "Order.Put",
// "BatchWrite"). Estimates are keyed alike.
func Key(r observe.Request) string {
	if r.Name != "" {
		return r.Name
	}
	return r.Op
}

// Row is one pattern's or write's line of a Comparison.
type Row struct {
	Key string
	// Calls is the requests observed; Estimated what the estimate says
	// they cost (the estimate per request times Calls); Consumed what
	// DynamoDB reported (Estimated requests, such as failed conditions,
	// count at the library's estimate).
	Calls     int
	Estimated Units
	Consumed  Units
	// Ratio is Consumed over Estimated (0 when nothing was estimated).
	Ratio float64
	// Larger flags a pattern or write that consumed more than the
	// estimate by more than the tolerance: its items are larger than the
	// model assumed (or its pages longer, its filters rejecting more).
	Larger bool
	// Missing says there was no estimate for it.
	Missing bool
}

// Comparison sets estimates against a run's measurements.
type Comparison struct {
	Rows []Row
	// Tolerance is the ratio above which a row is flagged Larger.
	Tolerance float64
}

// Compare sets est (units per request, by Key) against what the
// requests reqs consumed (package observe's records of a run: a test, a
// load test, production), one row per key, sorted by key. A row that
// consumed more than tolerance times its estimate (1.1 when 0) is flagged
// Larger; a negative, NaN or infinite tolerance is an
// *singletable.InputError. Requests that did not ask for their consumed capacity report
// none: observe with capacity (observe.With's default).
func Compare(reqs []observe.Request, est map[string]Units, tolerance float64) (Comparison, error) {
	if err := badNumber("capacity.Compare", "tolerance", tolerance); err != nil {
		return Comparison{}, err
	}
	if tolerance == 0 {
		tolerance = 1.1
	}
	rows := map[string]*Row{}
	for _, r := range reqs {
		k := Key(r)
		row := rows[k]
		if row == nil {
			row = &Row{Key: k}
			rows[k] = row
		}
		row.Calls++
		row.Consumed = row.Consumed.Add(Units{r.ReadUnits, r.WriteUnits})
	}
	for k := range est {
		if rows[k] == nil {
			rows[k] = &Row{Key: k}
		}
	}
	c := Comparison{Tolerance: tolerance}
	for _, k := range sortedKeys(rows) {
		row := rows[k]
		u, ok := est[k]
		row.Missing = !ok
		row.Estimated = Units{u.Read * float64(row.Calls), u.Write * float64(row.Calls)}
		if e := row.Estimated.Total(); e > 0 {
			row.Ratio = row.Consumed.Total() / e
			row.Larger = row.Ratio > tolerance
		}
		c.Rows = append(c.Rows, *row)
	}
	return c, nil
}

// String prints c as a table.
func (c Comparison) String() string {
	var b strings.Builder
	_ = c.Write(&b)
	return b.String()
}

// Write prints c as a table to w.
func (c Comparison) Write(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "pattern or write\trequests\testimated RCU\tconsumed RCU\testimated WCU\tconsumed WCU\tratio\t\n")
	for _, r := range c.Rows {
		note := ""
		switch {
		case r.Missing:
			note = "no estimate"
		case r.Larger:
			note = "larger than the model assumed"
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%.2f\t%s\n", r.Key, r.Calls, num(r.Estimated.Read), num(r.Consumed.Read),
			num(r.Estimated.Write), num(r.Consumed.Write), r.Ratio, note)
	}
	return tw.Flush()
}
