package capacity

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
)

// Prices are what DynamoDB charges, for the cost model. Pass your own
// (region, table class, a negotiated rate); Published and SeedPrices are
// two sets.
type Prices struct {
	// Label says where the prices come from and of when.
	Label string
	// OnDemandRead and OnDemandWrite are dollars per million read and
	// write request units.
	OnDemandRead, OnDemandWrite float64
	// ProvisionedRead and ProvisionedWrite are dollars per read and
	// write capacity unit-hour.
	ProvisionedRead, ProvisionedWrite float64
	// StorageGBMonth is dollars per GB-month of storage (the table's and
	// its indexes' items, 100 bytes of overhead each).
	StorageGBMonth float64
	// Reserved lists the reserved-capacity offers.
	Reserved []Reservation
	// HoursPerMonth is the month the model bills (720, thirty days,
	// when 0).
	HoursPerMonth float64
}

// Reservation is a reserved-capacity offer: an upfront payment and an
// hourly rate per 100 units for Years years.
type Reservation struct {
	Years                     int
	UpfrontRead, UpfrontWrite float64 // dollars per 100 units
	HourlyRead, HourlyWrite   float64 // dollars per 100 unit-hours
}

// Published are the us-east-1 list prices of the standard table class as
// published from 2024-11-01 (the on-demand prices halved then): check the
// AWS pricing page for today's before relying on them.
var Published = Prices{
	Label:        "us-east-1 list prices, standard table class, as published from 2024-11-01",
	OnDemandRead: 0.125, OnDemandWrite: 0.625,
	ProvisionedRead: 0.00013, ProvisionedWrite: 0.00065,
	StorageGBMonth: 0.25,
	Reserved: []Reservation{
		{Years: 1, UpfrontRead: 30, UpfrontWrite: 150, HourlyRead: 0.0025, HourlyWrite: 0.0128},
		{Years: 3, UpfrontRead: 36, UpfrontWrite: 180, HourlyRead: 0.0016, HourlyWrite: 0.0081},
	},
}

// SeedPrices are the prices the seed documents quote: the older on-demand
// prices ($1.25 per million writes, $0.25 per million reads, about twice
// Published's) and the same provisioned ones.
var SeedPrices = Prices{
	Label:        "the seeds' prices (on demand before 2024-11-01)",
	OnDemandRead: 0.25, OnDemandWrite: 1.25,
	ProvisionedRead: 0.00013, ProvisionedWrite: 0.00065,
	StorageGBMonth: 0.25,
	Reserved:       Published.Reserved,
}

func (p Prices) hours() float64 {
	if p.HoursPerMonth > 0 {
		return p.HoursPerMonth
	}
	return 720
}

// OnDemand is the monthly cost on demand of u units a second, sustained.
func (p Prices) OnDemand(u Units) float64 {
	secs := p.hours() * 3600
	return (u.Read*p.OnDemandRead + u.Write*p.OnDemandWrite) * secs / 1e6
}

// Provisioned is the monthly cost of provisioning u units all month.
func (p Prices) Provisioned(u Units) float64 {
	return (u.Read*p.ProvisionedRead + u.Write*p.ProvisionedWrite) * p.hours()
}

// Reserve is the monthly cost of reserving u units with r (the upfront
// payment spread over its term), rounded up to hundreds of units.
func (p Prices) Reserve(r Reservation, u Units) float64 {
	reads, writes := math.Ceil(u.Read/100), math.Ceil(u.Write/100)
	months := float64(12 * max(r.Years, 1))
	return reads*(r.UpfrontRead/months+r.HourlyRead*p.hours()) + writes*(r.UpfrontWrite/months+r.HourlyWrite*p.hours())
}

// Traffic is one pattern's or write's share of a profile.
type Traffic struct {
	Name string
	// PerSecond is its average rate of calls.
	PerSecond float64
	// Units is what one call costs (see ReadOf, WriteOf, Sheet).
	Units Units
}

// Profile is the traffic the cost model prices.
type Profile struct {
	Traffic []Traffic
	// PeakToAverage is the peak rate over the average rate (1, flat, when
	// 0): provisioned capacity is sized for the peak.
	PeakToAverage float64
	// Utilization is the target utilisation of provisioned capacity (0.7
	// when 0): what auto scaling aims at, headroom for bursts.
	Utilization float64
	// Items and ItemBytes size the storage: Items items of ItemBytes on
	// average, the indexes' entries included.
	Items     int64
	ItemBytes int
}

// Cost is the monthly cost of a profile.
type Cost struct {
	Prices Prices
	Lines  []Line
	// Average and Peak are the units a second, on average and at the
	// peak; Provisioned the capacity provisioned for the peak at the
	// target utilisation, rounded up.
	Average, Peak, Provisioned Units
	// OnDemand, ProvisionedCost and Storage are dollars a month;
	// Reserved one per offer of Prices.Reserved (the provisioned
	// capacity reserved).
	OnDemand, ProvisionedCost, Storage float64
	Reserved                           []float64
	// BreakEvenHours is the busy hours a day above which provisioned
	// capacity (sized for the peak, all day) costs less than on demand,
	// for traffic at its peak for those hours and idle the rest.
	BreakEvenHours float64
}

// Line is one traffic row of a Cost.
type Line struct {
	Traffic
	// PerSecond is the units a second it adds on average; OnDemand its
	// monthly cost on demand.
	UnitsPerSecond Units
	OnDemand       float64
}

// Monthly prices prof at p. It fails, with an *singletable.InputError
// naming the field, when p or prof does not validate (Prices.Validate,
// Profile.Validate).
func (p Prices) Monthly(prof Profile) (Cost, error) {
	if err := p.Validate(); err != nil {
		return Cost{}, err
	}
	if err := prof.Validate(); err != nil {
		return Cost{}, err
	}
	c := Cost{Prices: p}
	for _, t := range prof.Traffic {
		u := Units{t.Units.Read * t.PerSecond, t.Units.Write * t.PerSecond}
		c.Lines = append(c.Lines, Line{Traffic: t, UnitsPerSecond: u, OnDemand: p.OnDemand(u)})
		c.Average = c.Average.Add(u)
	}
	peak, util := prof.PeakToAverage, prof.Utilization
	if peak <= 0 {
		peak = 1
	}
	if util <= 0 {
		util = 0.7
	}
	c.Peak = Units{c.Average.Read * peak, c.Average.Write * peak}
	c.Provisioned = Units{math.Ceil(c.Peak.Read / util), math.Ceil(c.Peak.Write / util)}
	c.OnDemand = p.OnDemand(c.Average)
	c.ProvisionedCost = p.Provisioned(c.Provisioned)
	c.Storage = float64(prof.Items) * float64(prof.ItemBytes+100) / (1 << 30) * p.StorageGBMonth
	for _, r := range p.Reserved {
		c.Reserved = append(c.Reserved, p.Reserve(r, c.Provisioned))
	}
	c.BreakEvenHours = p.BreakEvenHours(c.Peak, util)
	return c, nil
}

// BreakEvenHours is the busy hours a day at which traffic of peak units a
// second for those hours (idle the rest) costs as much on demand as
// capacity provisioned for that peak at utilisation util all day.
func (p Prices) BreakEvenHours(peak Units, util float64) float64 {
	od := (peak.Read*p.OnDemandRead + peak.Write*p.OnDemandWrite) * 3600 / 1e6 // a busy hour
	if od == 0 || util <= 0 {
		return 0
	}
	prov := (peak.Read*p.ProvisionedRead + peak.Write*p.ProvisionedWrite) / util // an hour provisioned
	return 24 * prov / od
}

// String prints c as a table.
func (c Cost) String() string {
	var b strings.Builder
	_ = c.Write(&b)
	return b.String()
}

// Write prints c as a table to w.
func (c Cost) Write(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "pattern or write\tcalls/s\tRCU/call\tWCU/call\tRCU/s\tWCU/s\ton demand $/month\t\n")
	for _, l := range c.Lines {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", l.Name, num(l.PerSecond), num(l.Units.Read), num(l.Units.Write),
			num(l.UnitsPerSecond.Read), num(l.UnitsPerSecond.Write), money(l.OnDemand))
	}
	fmt.Fprintf(tw, "total\t\t\t\t%s\t%s\t%s\t\n", num(c.Average.Read), num(c.Average.Write), money(c.OnDemand))
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nprices: %s\n", c.Prices.Label)
	fmt.Fprintf(w, "on demand:   %s a month\n", money(c.OnDemand))
	fmt.Fprintf(w, "provisioned: %s a month (%s RCU, %s WCU: peak %s RCU/s, %s WCU/s at the target utilisation)\n",
		money(c.ProvisionedCost), num(c.Provisioned.Read), num(c.Provisioned.Write), num(c.Peak.Read), num(c.Peak.Write))
	for i, r := range c.Prices.Reserved {
		if i < len(c.Reserved) {
			fmt.Fprintf(w, "reserved %d-year: %s a month (the provisioned capacity, upfront spread over the term)\n", r.Years, money(c.Reserved[i]))
		}
	}
	fmt.Fprintf(w, "storage:     %s a month\n", money(c.Storage))
	_, err := fmt.Fprintf(w, "break-even:  provisioned is cheaper above %.1f busy hours a day\n", c.BreakEvenHours)
	return err
}

func num(f float64) string {
	if f == math.Trunc(f) {
		return fmt.Sprintf("%.0f", f)
	}
	return fmt.Sprintf("%.3g", f)
}

func money(f float64) string { return fmt.Sprintf("$%.2f", f) }
