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
	err := w.Run(context.Background(), &segmented{n: 5}, func(_ context.Context, _ int, out *dynamodb.ScanOutput) error {
		mu.Lock()
		defer mu.Unlock()
		for _, item := range out.Items {
			seen[item["PK"].(*types.AttributeValueMemberS).Value] = true
		}
		return nil
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
	if err := w.Run(context.Background(), client, func(context.Context, int, *dynamodb.ScanOutput) error { return nil }); !errors.Is(err, stop) {
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
