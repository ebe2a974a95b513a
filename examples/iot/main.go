// Command iot runs the seed's IoT time series (dynamodb-design-patterns.txt,
// "IoT Time-Series Pattern") against DynamoDB Local: readings keyed by
// device and hour bucket ("DEVICE#123#2024-03-15-14"), sorted by their full
// timestamp, so that a busy device spreads its writes over hourly
// partitions. Several devices write a day of readings, some exactly on the
// hour; then "the last 24 hours" and "the last N readings" are each one
// call that fans out over the hour buckets they touch, in parallel, merged
// in time order. The example checks every answer against what it wrote
// (nothing missed or repeated at bucket edges, across pages too) and exits
// non-zero otherwise. Retention is the seed's: each reading expires 30 days
// after it was written (TTL), and from then on every read leaves it out.
//
//	make examples   # starts DynamoDB Local and runs every example
package main

import (
	"context"
	"fmt"
	"os"
	"slices"
	"time"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/examplekit"
	"github.com/singletable/singletable/singletabletest/local"
)

// Reading is one reading of a device.
type Reading struct {
	DeviceID string    `dynamodbav:"deviceId"`
	At       time.Time `dynamodbav:"at"`
	Celsius  float64   `dynamodbav:"celsius"`
	// Expires is the reading's expiry in epoch seconds, the table's TTL
	// attribute: set by ExpiresAfter when the reading is written.
	Expires int64 `dynamodbav:"ttl"`
}

// retention is how long a reading is kept: the seed's 30 days.
const retention = 30 * 24 * time.Hour

var (
	Telemetry = st.MustTable("Telemetry", st.WithTTL("ttl"))
	// The seed's keys: PK "DEVICE#123#2024-03-15-14" (device and hour
	// bucket), SK the full timestamp. The partition layout is the bucket.
	Readings = st.MustDefine[Reading](Telemetry, "Reading",
		st.Key("DEVICE#{DeviceID}#{At:2006-01-02-15}", "{At}"),
		st.Expires("Expires"), st.ExpiresAfter(retention))
	// ReadingsBetween reads a device's readings between two times, over
	// every hour bucket they touch, oldest first; LatestReadings newest first.
	ReadingsBetween = Readings.Pattern("ReadingsBetween").SortBetween().Must()
	LatestReadings  = Readings.Pattern("LatestReadings").SortBetween().Descending().Must()
)

func main() {
	if err := run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		os.Exit(1)
	}
	fmt.Println("\nEvery range and every last-N read returned exactly what was written.")
}

// dayOfReadings writes a device's readings for the day before now: every
// step (from an offset, so that devices differ), plus one exactly on each
// hour and one at the last instant of each hour; hours 3 to 5 stay empty
// (the device was off). Each reading is written at its own time: the DB's
// clock is set to it first.
func dayOfReadings(ctx context.Context, db *st.DB, clock *time.Time, device string, step, offset time.Duration, now time.Time) ([]Reading, error) {
	start := now.Add(-24 * time.Hour).Truncate(time.Hour)
	var out []Reading
	add := func(at time.Time) error {
		if at.Hour() >= 3 && at.Hour() <= 5 {
			return nil
		}
		r := Reading{DeviceID: device, At: at, Celsius: float64(at.Minute()) / 2}
		*clock = at
		if err := Readings.Put(ctx, db, r); err != nil {
			return err
		}
		r.Expires = at.Add(retention).Unix() // what ExpiresAfter stored
		out = append(out, r)
		return nil
	}
	for at := start.Add(offset); !at.After(now); at = at.Add(step) {
		if err := add(at); err != nil {
			return nil, err
		}
	}
	for h := start; !h.After(now); h = h.Add(time.Hour) {
		for _, at := range []time.Time{h, h.Add(time.Hour - time.Nanosecond)} {
			if at.After(now) || slices.ContainsFunc(out, func(r Reading) bool { return r.At.Equal(at) }) {
				continue
			}
			if err := add(at); err != nil {
				return nil, err
			}
		}
	}
	slices.SortFunc(out, func(a, b Reading) int { return a.At.Compare(b.At) })
	return out, nil
}

func run(ctx context.Context) error {
	client, err := local.Client(ctx)
	if err != nil {
		return err
	}
	// The readings' day lies ahead of the real clock: DynamoDB Local, like
	// the service, deletes expired items by the real clock, and this
	// example moves its own clock past the retention instead.
	now := time.Date(2036, 3, 15, 14, 30, 0, 0, time.UTC)
	clock := now
	db := st.New(client, Telemetry, st.WithClock(func() time.Time { return clock }))
	if err := examplekit.FreshTable(ctx, db); err != nil {
		return err
	}
	fmt.Printf("Created table %s.\n\n%s\n", db.TableName(), Telemetry.Sheet())
	var c examplekit.Checker

	written := map[string][]Reading{}
	for i, device := range []string{"123", "124", "1#2"} { // 1#2: a delimiter in an id
		rs, err := dayOfReadings(ctx, db, &clock, device, time.Duration(7+i*4)*time.Minute, time.Duration(i)*time.Minute, now)
		if err != nil {
			return err
		}
		written[device] = rs
		fmt.Printf("1. device %s: wrote %d readings over the day to %s\n", device, len(rs), now.Format(time.RFC3339))
	}

	from, to := now.Add(-24*time.Hour), now
	fmt.Printf("\n2. The last 24 hours (%s to %s), each device in one call\n", from.Format("Jan 2 15:04"), to.Format("Jan 2 15:04"))
	for device, rs := range written {
		var got []Reading
		for r, err := range ReadingsBetween.AllBetween(ctx, db, Reading{DeviceID: device, At: from}, Reading{At: to}) {
			if err != nil {
				return err
			}
			got = append(got, r)
		}
		want := inRange(rs, from, to)
		fmt.Printf("  device %s: %d readings over %d hour buckets\n", device, len(got), 25)
		c.Equal("device "+device+": the last 24 hours, in order, none missed or repeated", want, got)
		// An aggregate over the same range: every bucket, one call.
		total, err := st.SumBetween(ctx, db, ReadingsBetween, Reading{DeviceID: device, At: from}, Reading{At: to},
			func(r Reading) float64 { return r.Celsius })
		if err != nil {
			return err
		}
		var wantTotal float64
		for _, r := range want {
			wantTotal += r.Celsius
		}
		fmt.Printf("  device %s: mean %.2f °C\n", device, total/float64(len(got)))
		c.Equal("device "+device+": SumBetween adds up the same readings", wantTotal, total)
	}

	fmt.Println("\n3. The last 10 readings of device 123: the newest bucket first, stopping when it has them")
	page, err := LatestReadings.QueryBetween(ctx, db, Reading{DeviceID: "123", At: from}, Reading{At: to}, st.Limit(10))
	if err != nil {
		return err
	}
	rs := written["123"]
	want := slices.Clone(rs[len(rs)-10:])
	slices.Reverse(want)
	c.Equal("the last 10 readings, newest first", want, page.Items)
	fmt.Printf("  %d readings from %s back to %s, in %d requests (of 25 buckets)\n", len(page.Items),
		page.Items[0].At.Format("15:04:05"), page.Items[len(page.Items)-1].At.Format("15:04:05"), page.Requests)
	c.That("the last 10 read at most 3 buckets", page.Requests <= 3)

	fmt.Println("\n4. Device 124's last 24 hours in pages of 25, newest first, resumed with the cursor")
	var paged []Reading
	cursor, pages := "", 0
	for {
		page, err := LatestReadings.QueryBetween(ctx, db, Reading{DeviceID: "124", At: from}, Reading{At: to}, st.Limit(25), st.After(cursor))
		if err != nil {
			return err
		}
		paged = append(paged, page.Items...)
		pages++
		if cursor = page.Cursor; cursor == "" {
			break
		}
	}
	want = inRange(written["124"], from, to)
	slices.Reverse(want)
	fmt.Printf("  %d readings in %d pages\n", len(paged), pages)
	c.Equal("pages across buckets: none missed or repeated", want, paged)

	fmt.Println("\n5. Exactly one hour, from one o'clock edge to the next: both edge readings included")
	h := now.Truncate(time.Hour).Add(-2 * time.Hour)
	var hourly []Reading
	for r, err := range ReadingsBetween.AllBetween(ctx, db, Reading{DeviceID: "123", At: h}, Reading{At: h.Add(time.Hour)}) {
		if err != nil {
			return err
		}
		hourly = append(hourly, r)
	}
	c.Equal("the hour and the next hour's first reading", inRange(written["123"], h, h.Add(time.Hour)), hourly)
	fmt.Printf("  %d readings, from %s to %s\n", len(hourly), hourly[0].At.Format("15:04:05.000"), hourly[len(hourly)-1].At.Format("15:04:05.000"))

	fmt.Println("\n6. The hours the device was off: empty buckets, no error")
	off := now.Add(-24 * time.Hour).Truncate(24 * time.Hour).Add(27 * time.Hour)
	page, err = ReadingsBetween.QueryBetween(ctx, db, Reading{DeviceID: "123", At: off}, Reading{At: off.Add(3*time.Hour - time.Nanosecond)})
	if err != nil {
		return err
	}
	c.Equal("nothing between 03:00 and 05:59", 0, len(page.Items))

	clock = now.Add(retention - 12*time.Hour)
	fmt.Printf("\n7. Retention: at %s, the readings written more than 30 days before are left out\n", clock.Format("Jan 2 15:04"))
	var kept []Reading
	for r, err := range ReadingsBetween.AllBetween(ctx, db, Reading{DeviceID: "123", At: from}, Reading{At: to}) {
		if err != nil {
			return err
		}
		kept = append(kept, r)
	}
	day := inRange(written["123"], from, to)
	var live []Reading
	for _, r := range day {
		if r.Expires > clock.Unix() { // expired at or before the clock's second
			live = append(live, r)
		}
	}
	c.Equal("only the last 12 hours' readings are returned", live, kept)
	c.That("some readings expired, some not", len(live) > 0 && len(live) < len(day))
	var stored []Reading
	for r, err := range ReadingsBetween.AllBetween(ctx, db, Reading{DeviceID: "123", At: from}, Reading{At: to}, st.IncludeExpired()) {
		if err != nil {
			return err
		}
		stored = append(stored, r)
	}
	c.Equal("the expired ones are still stored until DynamoDB deletes them (IncludeExpired)", day, stored)
	fmt.Printf("  %d of %d readings returned; %d expired but still stored\n", len(kept), len(day), len(stored)-len(kept))
	return c.Err()
}

// inRange is the readings from from to to, both included.
func inRange(rs []Reading, from, to time.Time) []Reading {
	var out []Reading
	for _, r := range rs {
		if !r.At.Before(from) && !r.At.After(to) {
			out = append(out, r)
		}
	}
	return out
}
