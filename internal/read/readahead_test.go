package read

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// sparseAfterDense is a partition of dense matches ("A000" ...), then
// skipped items the read leaves out ("X#00000" ...), then one more match
// ("Z000"): the read's Limit meets a long sparse stretch after a dense one.
func sparseAfterDense(dense, skipped int) []string {
	var out []string
	for i := range dense {
		out = append(out, fmt.Sprintf("A%03d", i))
	}
	for i := range skipped {
		out = append(out, fmt.Sprintf("X#%05d", i))
	}
	return append(out, "Z000")
}

func matches(sk string) bool { return !strings.HasPrefix(sk, "X#") }

// limits are the Limits of the requests db was sent (the first 20).
func limits(db *partitions) []int32 {
	out := make([]int32, min(len(db.calls), 20))
	for i := range out {
		out[i] = aws.ToInt32(db.calls[i].Limit)
	}
	return out
}

// A page of Limit(100) over 99 matches, 2,000 items filtered out and one
// more match sends a handful of requests, not one per percent of growth
// (265 when the Limit grew by the ratio over the whole read).
func TestRunReadAheadAcrossAFilteredStretch(t *testing.T) {
	for _, tc := range []struct {
		dense, skipped, want, most int
	}{
		{99, 2000, 100, 8},
		{10, 2000, 11, 11},
		{99, 100_000, 100, 12},  // past the cap: 1 MB pages, a few more
		{0, 100_000, 1, 17},     // nothing matches until the end: doubling
		{999, 50_000, 1000, 10}, // a big page
	} {
		db := &partitions{items: map[string][]string{"U#1": sparseAfterDense(tc.dense, tc.skipped)}, pageSize: 1 << 30,
			filter: matches}
		got, next, requests := collect(t, request("U#1"), db, tc.want, true)
		if len(got) != tc.dense+1 || got[len(got)-1] != "Z000" || next != nil {
			t.Fatalf("%+v: got %d items, the last %q; want %d, the last Z000", tc, len(got), got[len(got)-1], tc.dense+1)
		}
		t.Logf("%+v: %d requests, Limits %v", tc, requests, limits(db))
		if requests > tc.most {
			t.Errorf("%+v: %d requests (Limits %v); want at most %d", tc, requests, limits(db), tc.most)
		}
	}
}

// Items the read leaves out itself (another entity's, which a read by the
// table's keys gets back and skips: emit does not count them) are read
// ahead as filtered ones: the Limit grows as well.
func TestRunReadAheadAcrossUncountedItems(t *testing.T) {
	db := &partitions{items: map[string][]string{"U#1": sparseAfterDense(99, 2000)}, pageSize: 1 << 30}
	var n, scanned, requests int
	_, err := request("U#1").Run(context.Background(), db, 100, true, &scanned, &requests,
		func(item map[string]types.AttributeValue, _ int) (bool, bool, error) {
			ok := matches(item["SK"].(*types.AttributeValueMemberS).Value)
			if ok {
				n++
			}
			return ok, false, nil
		})
	if err != nil || n != 100 {
		t.Fatalf("%d items, err %v; want 100", n, err)
	}
	if requests > 8 {
		t.Fatalf("%d requests (Limits %v); want at most 8", requests, limits(db))
	}
}

// Where the requests were already as few as they can be, they stay so:
// nothing filtered asks for what is still wanted; a uniform filter reads
// ahead by its ratio; a dense page after one filtered item asks for a
// little more, not double.
func TestRunReadAheadKeepsMinimalRequests(t *testing.T) {
	for name, tc := range map[string]struct {
		n      int
		filter func(string) bool
		want   int
		limits string
	}{
		"none filtered":    {10, nil, 6, "6"},
		"every other item": {40, func(sk string) bool { return sk[len(sk)-1]%2 == 0 }, 5, "5 4"},
		"one item in 100":  {300, func(sk string) bool { return sk != "O#050" }, 100, "100 2"},
	} {
		db := &partitions{items: map[string][]string{"U#1": sksN(tc.n)}, pageSize: 1000, filter: tc.filter}
		got, _, _ := collect(t, request("U#1"), db, tc.want, true)
		if len(got) != tc.want {
			t.Fatalf("%s: got %d items, want %d", name, len(got), tc.want)
		}
		if l := strings.Trim(fmt.Sprint(limits(db)), "[]"); l != tc.limits {
			t.Errorf("%s: Limits %s; want %s", name, l, tc.limits)
		}
	}
}

func sksN(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("O#%03d", i)
	}
	return out
}

// Each leg of a fan-out reads with the same engine: a filtered fan-out
// whose legs each hold fewer matches than the page wants reads every leg
// to its end in a few requests.
func TestFanReadAheadAcrossAFilteredStretch(t *testing.T) {
	items := map[string][]string{}
	for i := range 4 {
		var sks []string
		for j := range 600 {
			k := "b"
			if j < 30 {
				k = "a"
			}
			sks = append(sks, fmt.Sprintf("E%05d%s", j*4+i, k))
		}
		items[fmt.Sprintf("U#1#%d", i)] = sks
	}
	db := &partitions{items: items, pageSize: 1 << 30, filter: func(sk string) bool { return strings.HasSuffix(sk, "a") }}
	f := shards(4)
	if err := f.Init(""); err != nil {
		t.Fatal(err)
	}
	if got := pull(t, f, db, 50); len(got) != 50 {
		t.Fatalf("got %d items, want 50", len(got))
	}
	t.Logf("%d requests, Limits %v", len(db.calls), limits(db))
	if len(db.calls) > 16 {
		t.Fatalf("%d requests (Limits %v); want at most 4 a leg", len(db.calls), limits(db))
	}
}

func TestReadAheadLimit(t *testing.T) {
	var ra readAhead
	if got := ra.limit(7); got != 7 {
		t.Fatalf("first Limit %d; want 7", got)
	}
	ra.took(7, 0, 0) // a response that says nothing (no ScannedCount)
	if got := ra.limit(7); got != 7 {
		t.Fatalf("after an empty response, Limit %d; want 7", got)
	}
	ra.took(7, 7, 0)
	if got := ra.limit(7); got != 28 { // 7 × 7 read, at most 4 × 7
		t.Fatalf("after a response that counted none, Limit %d; want 28", got)
	}
	ra = readAhead{}
	ra.took(maxLimit, maxLimit, 1)
	if got := ra.limit(maxLimit); got != maxLimit {
		t.Fatalf("Limit %d; want it capped at %d", got, maxLimit)
	}
	ra = readAhead{}
	ra.took(1<<20, 1<<20, 1)
	if got := ra.limit(999); got != readAheadCap {
		t.Fatalf("Limit %d; want it capped at %d", got, readAheadCap)
	}
}
