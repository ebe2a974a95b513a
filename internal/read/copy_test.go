package read

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// scribbling is a Querier that, once q has answered, scribbles over the
// maps of the request it was given (a Client may), and records each
// request as it was sent.
type scribbling struct {
	q    Querier
	mu   sync.Mutex
	sent []string
}

func (c *scribbling) Query(ctx context.Context, in *dynamodb.QueryInput, o ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	c.mu.Lock()
	c.sent = append(c.sent, fmt.Sprintf("%v|%s|%s", in.ExpressionAttributeNames, text(in.ExpressionAttributeValues), text(in.ExclusiveStartKey)))
	c.mu.Unlock()
	defer func() {
		scribbleNames(in.ExpressionAttributeNames)
		scribbleItem(in.ExpressionAttributeValues)
		scribbleItem(in.ExclusiveStartKey)
	}()
	return c.q.Query(ctx, in, o...)
}

func scribbleNames(m map[string]string) {
	for k := range m {
		m[k] = "scribbled"
	}
	m["#scribbled"] = "scribbled"
}

// scribbleItem overwrites item and what its lists and maps hold.
func scribbleItem(item map[string]types.AttributeValue) {
	for k, v := range item {
		switch v := v.(type) {
		case *types.AttributeValueMemberL:
			clear(v.Value)
		case *types.AttributeValueMemberM:
			scribbleItem(v.Value)
		}
		item[k] = s("scribbled")
	}
	if item != nil {
		item["#scribbled"] = s("scribbled")
	}
}

// text is item as text, to compare what was sent.
func text(item map[string]types.AttributeValue) string {
	if item == nil {
		return "-"
	}
	var b strings.Builder
	for _, k := range sortedKeys(item) {
		fmt.Fprintf(&b, "%s=%s ", k, valueText(item[k]))
	}
	return b.String()
}

func valueText(v types.AttributeValue) string {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return v.Value
	case *types.AttributeValueMemberL:
		var parts []string
		for _, e := range v.Value {
			parts = append(parts, valueText(e))
		}
		return "[" + strings.Join(parts, ",") + "]"
	case *types.AttributeValueMemberM:
		return "{" + text(v.Value) + "}"
	}
	return fmt.Sprintf("%#v", v)
}

func sortedKeys(item map[string]types.AttributeValue) []string {
	var ks []string
	for k := range item {
		ks = append(ks, k)
	}
	for i := range ks {
		for j := i + 1; j < len(ks); j++ {
			if ks[j] < ks[i] {
				ks[i], ks[j] = ks[j], ks[i]
			}
		}
	}
	return ks
}

// Every page of a read is sent with maps of its own: the Client scribbled
// over the first page's, and the later pages ask for the same partition.
func TestRunLaterPagesHaveMapsOfTheirOwn(t *testing.T) {
	c := &scribbling{q: &partitions{items: map[string][]string{"U#1": sks(5, "O#")}, pageSize: 2}}
	got, next, requests := collect(t, request("U#1"), c, 0, false)
	if strings.Join(got, ",") != "O#00,O#01,O#02,O#03,O#04" || next != nil || requests != 3 {
		t.Fatalf("got %v, next %v after %d requests; want every item in 3 pages", got, next, requests)
	}
	want := []string{
		"map[#pk:PK]|:pk=U#1 |-",
		"map[#pk:PK]|:pk=U#1 |PK=U#1 SK=O#01 ",
		"map[#pk:PK]|:pk=U#1 |PK=U#1 SK=O#03 ",
	}
	if !reflect.DeepEqual(c.sent, want) {
		t.Fatalf("sent %q, want %q", c.sent, want)
	}
}

// A fan-out leg fetched again, and one fetched from where a cursor left
// it, sends maps of its own; the position a leg keeps for the cursor is
// not the map it sent.
func TestFanFetchesHaveMapsOfTheirOwn(t *testing.T) {
	db := &partitions{items: map[string][]string{"U#1#0": {"A", "D", "E"}, "U#1#1": {"B", "C", "F"}}, pageSize: 1}
	c := &scribbling{q: db}
	f := shards(2)
	if err := f.Init(""); err != nil {
		t.Fatal(err)
	}
	// One DynamoDB page at a time: each leg is fetched again and again.
	run := f.Start(context.Background(), c, 0, Paced)
	var got []string
	for len(got) < 3 {
		item, _, _, ok, err := run.Pull(false)
		if err != nil || !ok {
			t.Fatalf("Pull: %v, %v", ok, err)
		}
		got = append(got, item["SK"].(*types.AttributeValueMemberS).Value)
	}
	run.Stop()
	if strings.Join(got, "") != "ABC" {
		t.Fatalf("first page %v, want A B C", got)
	}
	cursor, err := f.Cursor()
	if err != nil {
		t.Fatal(err)
	}
	// Resumed, and one item read: leg 1 is fetched from C, and its item
	// is not merged yet, so the next cursor holds C again.
	g := shards(2)
	if err := g.Init(cursor); err != nil {
		t.Fatal(err)
	}
	if got := pull(t, g, c, 1); strings.Join(got, "") != "D" {
		t.Fatalf("resumed page %v, want D", got)
	}
	if cursor, err = g.Cursor(); err != nil {
		t.Fatal(err)
	}
	h := shards(2)
	if err := h.Init(cursor); err != nil {
		t.Fatal(err)
	}
	if got := pull(t, h, c, 0); strings.Join(got, "") != "EF" {
		t.Fatalf("last page %v, want E F", got)
	}
	for _, r := range c.sent {
		if !strings.HasPrefix(r, "map[#pk:PK]|:pk=U#1#") || strings.Contains(r, "scribbled") {
			t.Fatalf("sent %q: a request carried what the Client scribbled", c.sent)
		}
	}
}

// A scan page's request shares no map with the walk's own request, nor
// with the start key the walk keeps for its position.
func TestWalkInputSharesNothing(t *testing.T) {
	w := walk(2)
	w.In.FilterExpression = aws.String("#t = :t AND #l = :l")
	w.In.ExpressionAttributeNames = map[string]string{"#t": "_type", "#l": "list"}
	w.In.ExpressionAttributeValues = map[string]types.AttributeValue{":t": s("Order"),
		":l": &types.AttributeValueMemberL{Value: []types.AttributeValue{s("a"), &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"k": s("v")}}}}}
	start := map[string]types.AttributeValue{"PK": s("1-1")}
	before := fmt.Sprint(w.In.ExpressionAttributeNames, text(w.In.ExpressionAttributeValues), text(start))
	for range 2 {
		in := w.Input(1, start)
		scribbleNames(in.ExpressionAttributeNames)
		scribbleItem(in.ExpressionAttributeValues)
		scribbleItem(in.ExclusiveStartKey)
	}
	if after := fmt.Sprint(w.In.ExpressionAttributeNames, text(w.In.ExpressionAttributeValues), text(start)); after != before {
		t.Fatalf("the walk's request and start are now %s, were %s", after, before)
	}
}

func TestCopyItemSharesNothing(t *testing.T) {
	item := map[string]types.AttributeValue{
		"s": s("x"), "n": &types.AttributeValueMemberN{Value: "1"}, "b": &types.AttributeValueMemberB{Value: []byte{1}},
		"bool": &types.AttributeValueMemberBOOL{Value: true}, "null": &types.AttributeValueMemberNULL{Value: true},
		"ss": &types.AttributeValueMemberSS{Value: []string{"a"}}, "ns": &types.AttributeValueMemberNS{Value: []string{"1"}},
		"bs": &types.AttributeValueMemberBS{Value: [][]byte{{2}}},
		"l":  &types.AttributeValueMemberL{Value: []types.AttributeValue{s("y")}},
		"m":  &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"k": &types.AttributeValueMemberL{Value: []types.AttributeValue{s("z")}}}},
	}
	c := CopyItem(item)
	if !reflect.DeepEqual(c, item) {
		t.Fatalf("copy %v, want %v", c, item)
	}
	// Every value is a copy, at every depth.
	var same func(a, b any) bool
	same = func(a, b any) bool {
		va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
		switch va.Kind() {
		case reflect.Pointer, reflect.Map:
			if va.Pointer() == vb.Pointer() {
				return true
			}
		case reflect.Slice:
			if va.Len() > 0 && va.Pointer() == vb.Pointer() {
				return true
			}
		}
		if va.Kind() == reflect.Pointer {
			va, vb = va.Elem(), vb.Elem()
		}
		switch va.Kind() {
		case reflect.Struct:
			return same(va.Field(0).Interface(), vb.Field(0).Interface())
		case reflect.Map:
			for _, k := range va.MapKeys() {
				if same(va.MapIndex(k).Interface(), vb.MapIndex(k).Interface()) {
					return true
				}
			}
		case reflect.Slice:
			for i := range va.Len() {
				if same(va.Index(i).Interface(), vb.Index(i).Interface()) {
					return true
				}
			}
		}
		return false
	}
	for k := range item {
		if same(item[k], c[k]) {
			t.Errorf("%s: the copy shares memory with the item", k)
		}
	}
	if CopyItem(nil) != nil {
		t.Error("CopyItem(nil) is not nil")
	}
}
