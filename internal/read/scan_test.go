package read

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// segmented is a fake Scanner: segment i holds items "i-0".."i-(n-1)",
// read two at a time.
type segmented struct {
	mu    sync.Mutex
	n     int
	calls int
}

func (c *segmented) Scan(_ context.Context, in *dynamodb.ScanInput, _ ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	c.mu.Lock()
	c.calls++
	c.mu.Unlock()
	seg := int(aws.ToInt32(in.Segment))
	i := 0
	if k := in.ExclusiveStartKey; k != nil {
		fmt.Sscanf(k["PK"].(*types.AttributeValueMemberS).Value, "%d-%d", &seg, &i)
		i++
	}
	out := &dynamodb.ScanOutput{}
	for ; i < c.n && len(out.Items) < 2; i++ {
		out.Items = append(out.Items, map[string]types.AttributeValue{"PK": s(fmt.Sprintf("%d-%d", seg, i))})
		out.ScannedCount++
	}
	if i < c.n {
		out.LastEvaluatedKey = out.Items[len(out.Items)-1]
	}
	return out, nil
}

func walk(total int) *Walk {
	w := &Walk{Op: "Orders.Scan", Total: total, Concurrency: 2, Secret: secret, Bind: "scan Order"}
	if total > 1 {
		w.In.TotalSegments = aws.Int32(int32(total))
	}
	w.Reset()
	return w
}

func TestWalkReadsEverySegmentAndReportsProgress(t *testing.T) {
	w := walk(3)
	var last Progress
	pages := 0
	w.Progress = func(p Progress) error { last = p; pages++; return nil }
	var mu sync.Mutex
	seen := map[string]bool{}
	err := w.Run(context.Background(), &segmented{n: 5}, func(_ context.Context, _ int, out *dynamodb.ScanOutput) (bool, error) {
		mu.Lock()
		defer mu.Unlock()
		for _, item := range out.Items {
			seen[item["PK"].(*types.AttributeValueMemberS).Value] = true
		}
		return false, nil
	})
	if err != nil || len(seen) != 15 || pages != 9 {
		t.Fatalf("err %v, %d items in %d pages; want 15 in 9", err, len(seen), pages)
	}
	if last.SegmentsDone != 3 || last.Scanned != 15 || last.TotalSegments != 3 {
		t.Fatalf("last progress %+v", last)
	}
}

func TestWalkPositionResumes(t *testing.T) {
	w := walk(2)
	client := &segmented{n: 4}
	var pos string
	stop := errors.New("stop")
	w.Progress = func(Progress) error {
		var err error
		pos, err = w.Seal() // Mu is held
		if err != nil {
			return err
		}
		return stop // after the first page
	}
	w.Concurrency = 1
	if err := w.Run(context.Background(), client, func(context.Context, int, *dynamodb.ScanOutput) (bool, error) { return false, nil }); !errors.Is(err, stop) {
		t.Fatalf("Run = %v", err)
	}
	r := walk(2)
	if err := r.Open([][]byte{secret}, pos); err != nil {
		t.Fatal(err)
	}
	if in := r.First(); aws.ToInt32(in.Segment) != 0 || in.ExclusiveStartKey["PK"].(*types.AttributeValueMemberS).Value != "0-1" {
		t.Fatalf("resumed first request: segment %d after %v; want segment 0 after 0-1", aws.ToInt32(in.Segment), in.ExclusiveStartKey)
	}
	for name, tc := range map[string]struct {
		w    *Walk
		want string
	}{
		"other target":   {func() *Walk { x := walk(2); x.Bind = "scan *"; return x }(), `issued by "scan Order", not "scan *"`},
		"other segments": {walk(3), "issued for 2 segments, not 3"},
	} {
		err := tc.w.Open([][]byte{secret}, pos)
		var rf *Refusal
		if !errors.As(err, &rf) || !strings.HasPrefix(rf.Reason, "scan position: ") || !strings.Contains(rf.Reason, tc.want) {
			t.Errorf("%s: Open = %v; want a *Refusal saying %q", name, err, tc.want)
		}
	}
}

func TestEachStopsWhenTheLoopDoes(t *testing.T) {
	w := walk(1)
	client := &segmented{n: 100}
	n := 0
	w.Each(context.Background(), client, func(map[string]types.AttributeValue) bool { n++; return n < 3 },
		func(err error) { t.Errorf("fail(%v) after the loop stopped", err) })
	if n != 3 || client.calls > 2 {
		t.Fatalf("%d items in %d requests; want the walk stopped with the loop", n, client.calls)
	}
}

// A page its handler wants read again holds its segment's position before
// it while the walk reads on: a walk resumed from the final position reads
// that page and the rest of its segment again, and nothing of the others.
func TestWalkHoldsThePositionBeforeAPageToReadAgain(t *testing.T) {
	w := walk(2)
	w.Concurrency = 1
	client := &segmented{n: 6} // 3 pages a segment
	err := w.Run(context.Background(), client, func(_ context.Context, _ int, out *dynamodb.ScanOutput) (bool, error) {
		pk := out.Items[0]["PK"].(*types.AttributeValueMemberS).Value
		return pk == "0-2", nil // segment 0's second page
	})
	if err != nil || client.calls != 6 {
		t.Fatalf("err %v after %d requests; want the walk to read on, 6 requests", err, client.calls)
	}
	pos, err := w.Seal()
	if err != nil {
		t.Fatal(err)
	}
	r := walk(2)
	if err := r.Open([][]byte{secret}, pos); err != nil {
		t.Fatal(err)
	}
	if in := r.First(); aws.ToInt32(in.Segment) != 0 || in.ExclusiveStartKey["PK"].(*types.AttributeValueMemberS).Value != "0-1" {
		t.Fatalf("resumed first request: segment %d after %v; want segment 0 after 0-1, before the page to read again", aws.ToInt32(in.Segment), in.ExclusiveStartKey)
	}
	var read []string
	client.calls = 0
	if err := r.Run(context.Background(), client, func(_ context.Context, _ int, out *dynamodb.ScanOutput) (bool, error) {
		for _, item := range out.Items {
			read = append(read, item["PK"].(*types.AttributeValueMemberS).Value)
		}
		return false, nil
	}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(read, ","); got != "0-2,0-3,0-4,0-5" || client.calls != 2 {
		t.Fatalf("resumed walk read %s in %d requests; want 0-2..0-5 in 2 (segment 1 was done)", got, client.calls)
	}
	if pos, _ := r.Seal(); pos == "" {
		t.Fatal("no position")
	} else if q := walk(2); q.Open([][]byte{secret}, pos) != nil || q.nDone != 2 {
		t.Fatalf("after the pages were read again in full, %d segments done; want 2", q.nDone)
	}
}
