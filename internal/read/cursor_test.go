package read

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

var secret = []byte("0123456789abcdef0123456789abcdef")

func binding() *Binding {
	return &Binding{Pattern: "OrdersByDate", Partition: "USER#1", Sort: SortCond{Op: "BETWEEN", A: "ORDER#2024", B: "ORDER#2025"},
		KeyAttrs: []string{"PK", "SK"}, PKAttr: "PK", SKAttr: "SK", PKValue: s("USER#1")}
}

func TestCursorRoundTrip(t *testing.T) {
	b := binding()
	key := map[string]types.AttributeValue{"PK": s("USER#1"), "SK": s("ORDER#2024-06")}
	c, err := SealCursor(secret, b, key)
	if err != nil || c == "" {
		t.Fatalf("SealCursor = %q, %v", c, err)
	}
	got, reason := OpenCursor([][]byte{[]byte("another key, 32 bytes long......"), secret}, b, c)
	if reason != "" || got["SK"].(*types.AttributeValueMemberS).Value != "ORDER#2024-06" {
		t.Fatalf("OpenCursor = %v, %q", got, reason)
	}
	if c, err := SealCursor(secret, b, nil); c != "" || err != nil {
		t.Errorf("SealCursor(no key) = %q, %v; want the end", c, err)
	}
}

func TestCursorRefusals(t *testing.T) {
	key := map[string]types.AttributeValue{"PK": s("USER#1"), "SK": s("ORDER#2024-06")}
	c, err := SealCursor(secret, binding(), key)
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		b      func(*Binding)
		cursor string
		want   string
	}{
		"altered":        {cursor: "x" + c, want: "signature does not match"},
		"malformed":      {cursor: "no-dot", want: "malformed"},
		"pattern":        {b: func(b *Binding) { b.Pattern = "Other" }, want: "issued by pattern OrdersByDate"},
		"partition":      {b: func(b *Binding) { b.Partition = "USER#2" }, want: "another partition"},
		"sort bounds":    {b: func(b *Binding) { b.Sort.B = "ORDER#2026" }, want: "other sort bounds"},
		"direction":      {b: func(b *Binding) { b.Descending = true }, want: "other sort direction"},
		"key attributes": {b: func(b *Binding) { b.KeyAttrs = []string{"GSI1PK", "GSI1SK", "PK", "SK"} }, want: "holds key attributes [PK SK]"},
	} {
		t.Run(name, func(t *testing.T) {
			b := binding()
			if tc.b != nil {
				tc.b(b)
			}
			cur := c
			if tc.cursor != "" {
				cur = tc.cursor
			}
			_, reason := OpenCursor([][]byte{secret}, b, cur)
			if !strings.Contains(reason, tc.want) {
				t.Errorf("reason %q, want it to say %q", reason, tc.want)
			}
		})
	}
	if _, reason := OpenCursor([][]byte{[]byte("another key, 32 bytes long......")}, binding(), c); !strings.Contains(reason, "signature") {
		t.Errorf("a cursor sealed under another key: reason %q", reason)
	}
}

func TestCursorStartKeyOutsideRead(t *testing.T) {
	for name, key := range map[string]map[string]types.AttributeValue{
		"partition":   {"PK": s("USER#2"), "SK": s("ORDER#2024-06")},
		"sort bounds": {"PK": s("USER#1"), "SK": s("ORDER#2023")},
	} {
		c, err := SealCursor(secret, binding(), key) // sealed by anyone who has the key
		if err != nil {
			t.Fatal(err)
		}
		if _, reason := OpenCursor([][]byte{secret}, binding(), c); reason == "" {
			t.Errorf("%s: a start key outside the read was admitted", name)
		}
	}
}

func TestSortCond(t *testing.T) {
	for _, tc := range []struct {
		c    SortCond
		v    string
		want bool
	}{
		{SortCond{}, "anything", true},
		{SortCond{Op: "=", A: "a"}, "a", true},
		{SortCond{Op: "begins_with", A: "ORDER#"}, "ORDER#1", true},
		{SortCond{Op: "begins_with", A: "ORDER#"}, "ORDEX", false},
		{SortCond{Op: "BETWEEN", A: "b", B: "d"}, "d", true},
		{SortCond{Op: "BETWEEN", A: "b", B: "d"}, "da", false},
		{SortCond{Op: "<", A: "b"}, "b", false},
		{SortCond{Op: "<=", A: "b"}, "b", true},
		{SortCond{Op: ">", A: "b"}, "b", false},
		{SortCond{Op: ">=", A: "b"}, "b", true},
	} {
		if got := tc.c.Holds(tc.v); got != tc.want {
			t.Errorf("%+v.Holds(%q) = %v", tc.c, tc.v, got)
		}
	}
	if (SortCond{}).Digest() != "" {
		t.Error("no condition has a digest")
	}
	if a, b := (SortCond{Op: "=", A: "a\x00"}).Digest(), (SortCond{Op: "=", A: "a", B: ""}).Digest(); a == b {
		t.Error("different bounds, same digest")
	}
}

func TestCompareKeyValues(t *testing.T) {
	n := func(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }
	bin := func(v ...byte) types.AttributeValue { return &types.AttributeValueMemberB{Value: v} }
	for _, tc := range []struct {
		a, b types.AttributeValue
		want int
	}{
		{s("a"), s("b"), -1},
		{n("9"), n("10"), -1},                             // by value, not text
		{n("9007199254740993"), n("9007199254740992"), 1}, // exact: not float64
		{bin(0x01, 0xff), bin(0x02), -1},                  // by bytes
		{s("a"), n("1"), 0},                               // types differ: a tie
	} {
		if got := CompareKeyValues(tc.a, tc.b); got != tc.want {
			t.Errorf("CompareKeyValues(%v, %v) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
