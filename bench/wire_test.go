//go:build integration

package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
)

// wireCounter wraps the SDK's HTTP client to record what goes over the
// wire while it is on: each request's operation (X-Amz-Target), its body,
// header names, and the response's status and size. Off, it only passes
// requests on (an atomic load), so the benchmarks can keep it installed.
type wireCounter struct {
	next aws.HTTPClient
	on   atomic.Bool
	mu   sync.Mutex
	reqs []wireReq
}

// wireReq is one request and its response as sent and received.
type wireReq struct {
	variant   string // the wireVariant of the request's context, if any
	op        string // X-Amz-Target, such as DynamoDB_20120810.PutItem
	body      []byte
	headers   string // the request's header names, sorted
	attempt   string // amz-sdk-request (attempt=N; max=M)
	status    int
	respBytes int
	start     time.Time // when the request was sent
	end       time.Time // when its response was read
}

func (w *wireCounter) Do(req *http.Request) (*http.Response, error) {
	if !w.on.Load() {
		return w.next.Do(req)
	}
	r := wireReq{op: req.Header.Get("X-Amz-Target"), attempt: req.Header.Get("Amz-Sdk-Request")}
	r.variant, _ = req.Context().Value(wireVariant{}).(string)
	r.start = time.Now()
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		if err != nil {
			return nil, err
		}
		_ = req.Body.Close()
		r.body = b
		req.Body = io.NopCloser(bytes.NewReader(b))
	}
	names := make([]string, 0, len(req.Header))
	for k := range req.Header {
		names = append(names, k)
	}
	sort.Strings(names)
	r.headers = strings.Join(names, ",")
	resp, err := w.next.Do(req)
	if err == nil {
		b, rerr := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if rerr != nil {
			return nil, rerr
		}
		resp.Body = io.NopCloser(bytes.NewReader(b))
		r.status, r.respBytes = resp.StatusCode, len(b)
		r.end = time.Now()
	}
	w.mu.Lock()
	w.reqs = append(w.reqs, r)
	w.mu.Unlock()
	return resp, err
}

// wireVariant is the context key of the variant a request belongs to.
type wireVariant struct{}

// record turns recording on, runs fn, and returns what it sent.
func (w *wireCounter) record(fn func() error) ([]wireReq, error) {
	w.mu.Lock()
	w.reqs = nil
	w.mu.Unlock()
	w.on.Store(true)
	err := fn()
	w.on.Store(false)
	w.mu.Lock()
	defer w.mu.Unlock()
	reqs := w.reqs
	w.reqs = nil
	return reqs, err
}

// wireSummary is what a call sent and received, in sums.
type wireSummary struct {
	Requests  int
	Ops       map[string]int // requests per operation
	Failed    int            // responses other than 200 (a throttle, a conditional failure, a server error)
	ReqBytes  int
	RespBytes int
}

func summarize(reqs []wireReq) wireSummary {
	s := wireSummary{Ops: map[string]int{}}
	for _, r := range reqs {
		if r.status == 0 {
			continue // no response (a connection reset): the SDK retries it
		}
		s.Requests++
		s.Ops[strings.TrimPrefix(strings.TrimPrefix(r.op, "DynamoDB_20120810."), "DynamoDBStreams_20120810.")]++
		if r.status != http.StatusOK {
			s.Failed++
		}
		s.ReqBytes += len(r.body)
		s.RespBytes += r.respBytes
	}
	return s
}

// canonWire renders a request body as JSON in a form where equivalent
// requests are equal, as canonRequest does for the SDK's inputs: each
// expression with its placeholders replaced by the names and values they
// stand for (canonExpr, canonUpdate), a batch's keys sorted, and what is
// fresh on every call (a transaction's idempotency token, a shard
// iterator) replaced by a mark of its presence.
func canonWire(t *testing.T, body []byte) string {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal(body, &v), "request body %s", body)
	b, err := json.Marshal(canonWireValue(v))
	require.NoError(t, err)
	return string(b)
}

func canonWireValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		names := map[string]string{}
		if ns, ok := v["ExpressionAttributeNames"].(map[string]any); ok {
			for k, n := range ns {
				names[k], _ = n.(string)
			}
		}
		values := map[string]types.AttributeValue{}
		if vs, ok := v["ExpressionAttributeValues"].(map[string]any); ok {
			for k, x := range vs {
				raw, _ := json.Marshal(x)
				values[k] = &types.AttributeValueMemberS{Value: string(raw)}
			}
		}
		out := map[string]any{}
		for k, x := range v {
			switch {
			case k == "ExpressionAttributeNames" || k == "ExpressionAttributeValues":
			case k == "ClientRequestToken" || k == "ShardIterator":
				out[k] = "<fresh>"
			case k == "UpdateExpression":
				out[k] = canonUpdate(x.(string), names, values)
			case strings.HasSuffix(k, "Expression"):
				out[k] = canonExpr(x.(string), names, values)
			case k == "Keys":
				keys := []string{}
				for _, key := range x.([]any) {
					b, _ := json.Marshal(key)
					keys = append(keys, string(b))
				}
				sort.Strings(keys) // their order does not matter to DynamoDB
				out[k] = keys
			default:
				out[k] = canonWireValue(x)
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = canonWireValue(x)
		}
		return out
	}
	return v
}

// checkSameWire (TestEndToEndVariants/SameWire) checks on the wire,
// against DynamoDB Local, that each end-to-end op's two variants do the same work for DynamoDB: one
// call of each, on the same fixtures, sends the same requests (the same
// operations, as many, equivalent bodies: canonWire), with the same
// header names, no failed response (a retry, a conditional failure the
// library would recover from), and gets the same response bytes; and the
// library's requests are no larger. So an extra request (a DescribeTable,
// a read before a write, a fan-out reading ahead), a different
// ReturnValues, ConsistentRead or client setting cannot creep into one
// variant of the throughput comparison unnoticed.
func checkSameWire(t *testing.T, e *e2eEnv) {
	ctx := context.Background()
	for _, op := range allE2EOps() {
		t.Run(op.name, func(t *testing.T) {
			for i := range 2 {
				lib, err := e.wire.record(func() error { return op.library(ctx, e, i) })
				require.NoError(t, err, "library")
				sdk, err := e.wire.record(func() error { return op.sdk(ctx, e, i) })
				require.NoError(t, err, "sdk")
				libSum, sdkSum := summarize(lib), summarize(sdk)
				require.NotZero(t, libSum.Requests)
				assert.Equal(t, sdkSum.Requests, libSum.Requests, "call %d: requests", i)
				assert.Equal(t, sdkSum.Ops, libSum.Ops, "call %d: operations", i)
				assert.Zero(t, libSum.Failed, "call %d: failed responses to the library", i)
				assert.Zero(t, sdkSum.Failed, "call %d: failed responses to the SDK code", i)
				assert.Equal(t, sdkSum.RespBytes, libSum.RespBytes, "call %d: response bytes", i)
				assert.LessOrEqual(t, libSum.ReqBytes, sdkSum.ReqBytes, "call %d: request bytes", i)
				assert.Equal(t, canonWires(t, op.name, sdk), canonWires(t, op.name, lib), "call %d: requests", i)
				assert.Equal(t, headerSets(sdk), headerSets(lib), "call %d: header names", i)
			}
		})
	}
}

// canonWires renders a call's requests with canonWire, in the order sent
// (sorted for the fan-out, whose shards' requests go out concurrently).
func canonWires(t *testing.T, op string, reqs []wireReq) []string {
	t.Helper()
	var out []string
	for _, r := range reqs {
		if r.status == 0 {
			continue
		}
		c := canonWire(t, r.body)
		// TxWide5's variants write customers of their own tenant (so that
		// the paired run's two never conflict): the same items but for it.
		c = strings.ReplaceAll(c, "e2e-txs", "e2e-txl")
		out = append(out, c)
	}
	if op == "FanOutWide" {
		sort.Strings(out)
	}
	return out
}

func headerSets(reqs []wireReq) []string {
	set := map[string]bool{}
	for _, r := range reqs {
		set[r.headers] = true
	}
	out := make([]string, 0, len(set))
	for h := range set {
		out = append(out, h)
	}
	sort.Strings(out)
	return out
}

// checkFanOutSameWire (TestFanOutVariants/SameWire) counts, against
// DynamoDB Local, what one read of BenchmarkFanOut sends: the library's reads and the hand-written ones
// send as many Query requests (one per shard or bucket, no page more) and
// get the same response bytes. (The library's bucketed read narrows each
// bucket's range to the bucket; the hand-written one sends the read's
// whole range to every bucket: the same items.)
func checkFanOutSameWire(t *testing.T, db *st.DB, wire *wireCounter) {
	ctx := context.Background()
	byName := map[string]fanVariant{}
	for _, v := range fanVariants {
		byName[v.name] = v
	}
	want := map[string]int{"single": 1, "shards10": fanShards, "buckets24": fanBuckets}
	for name, n := range want {
		var sums [2]wireSummary
		for k, v := range []fanVariant{byName[name], byName["sdk-"+name]} {
			reqs, err := wire.record(func() error {
				got, err := v.read(ctx, db, nil)
				if err == nil && got != fanTotal {
					err = fmt.Errorf("%s read %d items, want %d", v.name, got, fanTotal)
				}
				return err
			})
			require.NoError(t, err)
			sums[k] = summarize(reqs)
		}
		assert.Equal(t, map[string]int{"Query": n}, sums[0].Ops, "%s: the library's requests", name)
		assert.Equal(t, sums[1].Ops, sums[0].Ops, "%s: requests, library and hand-written", name)
		assert.Equal(t, sums[1].RespBytes, sums[0].RespBytes, "%s: response bytes", name)
		assert.Zero(t, sums[0].Failed+sums[1].Failed, "%s: failed responses", name)
	}
}
