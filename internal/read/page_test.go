package read

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// partitions is a fake Querier over sorted partitions: it answers a
// Query of partition PK (":pk") with up to Limit items (pageSize without)
// after ExclusiveStartKey, and records the requests.
type partitions struct {
	mu       sync.Mutex
	items    map[string][]string // PK -> sort keys, sorted
	pageSize int
	filter   func(sk string) bool // nil: every item matches
	calls    []dynamodb.QueryInput
}

func (p *partitions) Query(_ context.Context, in *dynamodb.QueryInput, _ ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls = append(p.calls, *in)
	pk := in.ExpressionAttributeValues[":pk"].(*types.AttributeValueMemberS).Value
	sks := p.items[pk]
	desc := in.ScanIndexForward != nil && !*in.ScanIndexForward
	if desc {
		r := make([]string, len(sks))
		for i, sk := range sks {
			r[len(sks)-1-i] = sk
		}
		sks = r
	}
	i := 0
	if start := in.ExclusiveStartKey; start != nil {
		after := start["SK"].(*types.AttributeValueMemberS).Value
		for i < len(sks) && sks[i] != after {
			i++
		}
		i++
	}
	n := p.pageSize
	if in.Limit != nil {
		n = int(*in.Limit)
	}
	out := &dynamodb.QueryOutput{}
	for ; i < len(sks) && int(out.ScannedCount) < n; i++ {
		out.ScannedCount++
		if p.filter == nil || p.filter(sks[i]) {
			out.Items = append(out.Items, map[string]types.AttributeValue{"PK": s(pk), "SK": s(sks[i])})
		}
	}
	if i < len(sks) {
		out.LastEvaluatedKey = map[string]types.AttributeValue{"PK": s(pk), "SK": s(sks[i-1])}
	}
	return out, nil
}

func request(pk string) *Req {
	r := &Req{Op: "Orders", Secret: secret, Src: source{pk: pk}}
	r.Query = source{pk: pk}.query()
	r.Binding = Binding{Pattern: "Orders", Partition: pk, KeyAttrs: []string{"PK", "SK"}, PKAttr: "PK", SKAttr: "SK", PKValue: s(pk)}
	return r
}

// source is the Source of a read of partition pk: no item expires, no
// FetchFull, and Renew builds its request as request does.
type source struct {
	pk      string
	expired string // the sort key of the one item that has expired
}

func (src source) query() dynamodb.QueryInput {
	return dynamodb.QueryInput{
		KeyConditionExpression:    aws.String("#pk = :pk"),
		ExpressionAttributeNames:  map[string]string{"#pk": "PK"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": s(src.pk)},
	}
}

func (src source) Expired(item map[string]types.AttributeValue) bool {
	return src.expired != "" && item["SK"].(*types.AttributeValueMemberS).Value == src.expired
}

func (source) FetchFull(context.Context, []map[string]types.AttributeValue) ([]map[string]types.AttributeValue, int, error) {
	panic("not a FetchFull read")
}

func (src source) Renew() (dynamodb.QueryInput, error) { return src.query(), nil }

func sks(n int, prefix string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%02d", prefix, i)
	}
	return out
}

// collect runs r and returns the sort keys it emitted.
func collect(t *testing.T, r *Req, client Querier, want int, onePage bool) (got []string, next map[string]types.AttributeValue, requests int) {
	t.Helper()
	var scanned int
	next, err := r.Run(context.Background(), client, want, onePage, &scanned, &requests, func(item map[string]types.AttributeValue, _ int) (bool, bool, error) {
		got = append(got, item["SK"].(*types.AttributeValueMemberS).Value)
		return true, false, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got, next, requests
}

func TestRunStopsInsidePageAndResumes(t *testing.T) {
	db := &partitions{items: map[string][]string{"U#1": sks(10, "O#")}, pageSize: 4}
	r := request("U#1")
	got, next, _ := collect(t, r, db, 6, true)
	if len(got) != 6 || next["SK"].(*types.AttributeValueMemberS).Value != "O#05" {
		t.Fatalf("got %v, next %v; want 6 items and to resume after O#05", got, next)
	}
	r.Query.ExclusiveStartKey = next
	got, next, _ = collect(t, r, db, 0, false)
	if strings.Join(got, ",") != "O#06,O#07,O#08,O#09" || next != nil {
		t.Fatalf("resumed: %v, next %v", got, next)
	}
}

func TestRunOnePageWithoutLimit(t *testing.T) {
	db := &partitions{items: map[string][]string{"U#1": sks(10, "O#")}, pageSize: 4}
	got, next, requests := collect(t, request("U#1"), db, 0, true)
	if len(got) != 4 || next == nil || requests != 1 {
		t.Fatalf("got %v, next %v in %d requests; want the first DynamoDB page", got, next, requests)
	}
}

func TestRunReadsAheadWhenFiltered(t *testing.T) {
	// One item in four matches: the second request asks for more than
	// the items still wanted.
	db := &partitions{items: map[string][]string{"U#1": sks(40, "O#")}, pageSize: 100,
		filter: func(sk string) bool { return sk[len(sk)-1]%4 == 0 }}
	got, _, requests := collect(t, request("U#1"), db, 5, true)
	if len(got) != 5 {
		t.Fatalf("got %v, want 5 items", got)
	}
	if requests < 2 || *db.calls[1].Limit <= 4 {
		t.Fatalf("second request's Limit %v after a filtered page; want a read-ahead over the 4 items left", aws.ToInt32(db.calls[1].Limit))
	}
}

type stuck struct{}

func (stuck) Query(_ context.Context, in *dynamodb.QueryInput, _ ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	key := map[string]types.AttributeValue{"PK": s("U#1"), "SK": s("x")}
	return &dynamodb.QueryOutput{LastEvaluatedKey: key}, nil
}

func TestRunRefusesAClientThatNeverEnds(t *testing.T) {
	var scanned, requests int
	_, err := request("U#1").Run(context.Background(), stuck{}, 0, false, &scanned, &requests,
		func(map[string]types.AttributeValue, int) (bool, bool, error) { return true, false, nil })
	if err == nil || !strings.Contains(err.Error(), "the read would never end") || requests != 2 {
		t.Fatalf("err %v after %d requests; want the never-ending read refused at its second page", err, requests)
	}
}

func TestRunLeavesExpiredItemsOut(t *testing.T) {
	db := &partitions{items: map[string][]string{"U#1": sks(3, "O#")}, pageSize: 10}
	r := request("U#1")
	r.Src = source{pk: "U#1", expired: "O#01"}
	if got, _, _ := collect(t, r, db, 0, false); strings.Join(got, ",") != "O#00,O#02" {
		t.Fatalf("got %v; want the expired O#01 left out", got)
	}
}
