package read

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// shards is a fan-out over n shards of one partition ("U#1#0" ...), in one
// group, merged by sort key.
func shards(n int) *Fan {
	return &Fan{Pattern: "Orders", KeyAttrs: []string{"PK", "SK"}, SKAttr: "SK", Groups: 1, Width: n, Conc: 2, Secret: secret, Keys: [][]byte{secret},
		Build: func(g, i int) (*Req, error) { return request(fmt.Sprintf("U#1#%d", i)), nil }}
}

// pull reads a page of up to want items (0: until a leg waits) from f.
func pull(t *testing.T, f *Fan, client Querier, want int) []string {
	t.Helper()
	run := f.Start(context.Background(), client, want, Paced)
	defer run.Stop()
	var got []string
	for want == 0 || len(got) < want {
		item, r, _, ok, err := run.Pull(want == 0 && len(got) > 0)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		if r.Binding.Partition != item["PK"].(*types.AttributeValueMemberS).Value {
			t.Fatalf("item %v pulled with the request of %s", item, r.Binding.Partition)
		}
		got = append(got, item["SK"].(*types.AttributeValueMemberS).Value)
	}
	return got
}

func TestFanMergesShardsAndResumes(t *testing.T) {
	db := &partitions{items: map[string][]string{
		"U#1#0": {"A", "D", "E"},
		"U#1#1": {"B", "C", "F"},
	}, pageSize: 10}
	f := shards(2)
	if err := f.Init(""); err != nil {
		t.Fatal(err)
	}
	if got := pull(t, f, db, 4); strings.Join(got, "") != "ABCD" {
		t.Fatalf("first page %v, want A B C D merged by sort key", got)
	}
	c, err := f.Cursor()
	if err != nil || c == "" {
		t.Fatalf("Cursor = %q, %v", c, err)
	}
	g := shards(2)
	if err := g.Init(c); err != nil {
		t.Fatal(err)
	}
	if got := pull(t, g, db, 0); strings.Join(got, "") != "EF" {
		t.Fatalf("resumed page %v, want E F", got)
	}
	if c, err := g.Cursor(); c != "" || err != nil {
		t.Fatalf("Cursor at the end = %q, %v", c, err)
	}
}

func TestFanCursorRefusals(t *testing.T) {
	db := &partitions{items: map[string][]string{"U#1#0": {"A", "B"}, "U#1#1": {"C"}}, pageSize: 10}
	f := shards(2)
	if err := f.Init(""); err != nil {
		t.Fatal(err)
	}
	pull(t, f, db, 1)
	c, err := f.Cursor()
	if err != nil {
		t.Fatal(err)
	}
	one, err := SealCursor(secret, &request("U#1#0").Binding, map[string]types.AttributeValue{"PK": s("U#1#0"), "SK": s("A")})
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		f      *Fan
		cursor string
		want   string
	}{
		"other pattern":      {func() *Fan { g := shards(2); g.Pattern = "Other"; return g }(), c, "issued by pattern Orders"},
		"other shards":       {shards(3), c, "other partitions"},
		"one partition's":    {shards(2), one, "a read of one partition"},
		"other direction":    {func() *Fan { g := shards(2); g.Desc = true; return g }(), c, "other partitions, sort bounds or direction"},
		"signature mismatch": {shards(2), c[:len(c)-2] + "AA", "signature does not match"},
	} {
		t.Run(name, func(t *testing.T) {
			err := tc.f.Init(tc.cursor)
			var rf *Refusal
			if !errors.As(err, &rf) || !strings.Contains(rf.Reason, tc.want) {
				t.Fatalf("Init = %v; want a *Refusal saying %q", err, tc.want)
			}
		})
	}
}

// TestFanReadsBucketsAhead checks the read-ahead window over time
// buckets: a page that has its items in the first bucket reads that
// bucket alone.
func TestFanReadsBucketsAhead(t *testing.T) {
	db := &partitions{items: map[string][]string{"B0": {"a", "b"}, "B1": {"c"}, "B2": {"d"}, "B3": {"e"}}, pageSize: 10}
	f := &Fan{Pattern: "Readings", KeyAttrs: []string{"PK", "SK"}, SKAttr: "SK", Groups: 4, Width: 1, Conc: 8, Secret: secret, Keys: [][]byte{secret},
		Build: func(g, _ int) (*Req, error) { return request(fmt.Sprintf("B%d", g)), nil }}
	if err := f.Init(""); err != nil {
		t.Fatal(err)
	}
	if got := pull(t, f, db, 2); strings.Join(got, "") != "ab" || len(db.calls) != 1 {
		t.Fatalf("got %v in %d requests; want a b from the first bucket alone", got, len(db.calls))
	}
	ins, err := f.Inputs()
	if err != nil || len(ins) != 3 || ins[0].ExpressionAttributeValues[":pk"].(*types.AttributeValueMemberS).Value != "B1" {
		t.Fatalf("Inputs = %d, %v; want one per bucket not done: B1 to B3", len(ins), err)
	}
}

// TestFanPullCountsTheGroupsBuffer checks what Pull says is left: every
// item the group's legs hold buffered from the pulled one on, so that a
// merged page sizes its slice once for all the shards' pages.
func TestFanPullCountsTheGroupsBuffer(t *testing.T) {
	db := &partitions{items: map[string][]string{
		"U#1#0": {"A", "D", "E"},
		"U#1#1": {"B", "C"},
		"U#1#2": {"F"},
	}, pageSize: 10}
	f := shards(3)
	if err := f.Init(""); err != nil {
		t.Fatal(err)
	}
	run := f.Start(context.Background(), db, 0, Paced)
	defer run.Stop()
	var lefts []int
	for {
		_, _, left, ok, err := run.Pull(len(lefts) > 0)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		lefts = append(lefts, left)
	}
	if got := fmt.Sprint(lefts); got != "[6 5 4 3 2 1]" {
		t.Fatalf("left after each pull = %s, want [6 5 4 3 2 1]: the group's buffered items", got)
	}
}

// TestFanStreamingWindow checks what a Streaming read holds: over 100
// buckets of 2 shards, Conc 5, the legs built (and buffered) are never
// more than Conc beyond the group being merged, plus the rest of a group
// that straddles the bound; the fetches started never reach past it; and
// every item comes, in order.
func TestFanStreamingWindow(t *testing.T) {
	const groups, width, conc = 100, 2, 5
	db := &partitions{items: map[string][]string{}, pageSize: 10}
	for g := range groups {
		for i := range width {
			db.items[fmt.Sprintf("B#%03d#%d", g, i)] = []string{fmt.Sprintf("%03d-%d", g, i)}
		}
	}
	f := &Fan{Pattern: "Orders", KeyAttrs: []string{"PK", "SK"}, SKAttr: "SK", Groups: groups, Width: width, Conc: conc, Secret: secret, Keys: [][]byte{secret},
		Build: func(g, i int) (*Req, error) { return request(fmt.Sprintf("B#%03d#%d", g, i)), nil }}
	if err := f.Init(""); err != nil {
		t.Fatal(err)
	}
	run := f.Start(context.Background(), db, 0, Streaming)
	defer run.Stop()
	var got []string
	for {
		item, _, _, ok, err := run.Pull(false)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		got = append(got, item["SK"].(*types.AttributeValueMemberS).Value)
		if ahead := f.base*width + len(f.legs) - run.g*width; ahead > conc+width {
			t.Fatalf("after %d items, %d legs built from the merged group on, want at most %d", len(got), ahead, conc+width)
		}
		// Each leg is one fetch, started in order: run.started is how far
		// they reach.
		if reach := run.started - run.g*width; reach > conc {
			t.Fatalf("after %d items, fetches started %d legs from the merged group on, want at most %d", len(got), reach, conc)
		}
	}
	if len(got) != groups*width || !slices.IsSorted(got) {
		t.Fatalf("read %d items, sorted %v; want %d, in order", len(got), slices.IsSorted(got), groups*width)
	}
	if len(db.calls) != groups*width {
		t.Fatalf("%d requests, want one per leg: %d", len(db.calls), groups*width)
	}
}
