package bench

import (
	"bytes"
	"context"
	cryptorand "crypto/rand"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	smithyrand "github.com/aws/smithy-go/rand"
	"github.com/guregu/dynamo/v2/dynamodbiface"

	st "github.com/singletable/singletable"
)

// Canned responses: what DynamoDB answers to each benchmarked request. They
// are built once; every call returns the same (read-only) output, so a
// benchmark measures the code that builds requests and decodes responses,
// not a network or a server.
//
// Requests for the wide entity (partition key TENANT#...) get the wide
// entity's responses.
type canned struct {
	get       *dynamodb.GetItemOutput // the full stored order
	query     *dynamodb.QueryOutput   // 25 stored orders, no further page
	put       *dynamodb.PutItemOutput // empty, as DynamoDB answers a put
	tx        *dynamodb.TransactWriteItemsOutput
	batch     *dynamodb.BatchWriteItemOutput // no unprocessed items
	upd       *dynamodb.UpdateItemOutput     // the updated order (ALL_NEW)
	batchGet  *dynamodb.BatchGetItemOutput   // the 100 orders, in reverse key order
	getWide   *dynamodb.GetItemOutput        // the full stored customer
	queryWide *dynamodb.QueryOutput          // 25 stored customers, no further page
	// fanWide holds each shard's page of FanOutWide: its 25 customers.
	fanWide [fanWideShards]*dynamodb.QueryOutput
	records *dynamodbstreams.GetRecordsOutput // StreamWide100's 100 MODIFY records
}

// storedCustomer is the item the library stores for c.
func storedCustomer(c Customer) map[string]types.AttributeValue {
	item, err := attributevalue.MarshalMap(c)
	if err != nil {
		panic(err)
	}
	addCustomerKeys(item, &c)
	return item
}

// isWide reports whether a request's partition key value (among vs) is
// the wide entity's.
func isWide(vs ...types.AttributeValue) bool {
	for _, v := range vs {
		if s, ok := v.(*types.AttributeValueMemberS); ok && strings.HasPrefix(s.Value, "TENANT#") {
			return true
		}
	}
	return false
}

func isWideQuery(in *dynamodb.QueryInput) bool {
	if c, ok := in.KeyConditions["PK"]; ok {
		return isWide(c.AttributeValueList...)
	}
	for _, v := range in.ExpressionAttributeValues {
		if isWide(v) {
			return true
		}
	}
	return false
}

// storedOrder is the item the library stores for o: its attributes plus the
// table key, the type attribute and both GSI keys.
func storedOrder(o Order) map[string]types.AttributeValue {
	item, err := attributevalue.MarshalMap(o)
	if err != nil {
		panic(err)
	}
	addOrderKeys(item, &o)
	return item
}

func newCanned() *canned {
	items := make([]map[string]types.AttributeValue, len(querySet))
	for i, o := range querySet {
		items[i] = storedOrder(o)
	}
	wide := make([]map[string]types.AttributeValue, len(wideQuerySet))
	for i, c := range wideQuerySet {
		wide[i] = storedCustomer(c)
	}
	// DynamoDB returns a batch's items in no particular order.
	got := make([]map[string]types.AttributeValue, len(batchGetSet))
	for i, o := range batchGetSet {
		got[len(got)-1-i] = storedOrder(o)
	}
	var fan [fanWideShards]*dynamodb.QueryOutput
	for i, part := range fanWideSet {
		items := make([]map[string]types.AttributeValue, len(part))
		for j, v := range part {
			items[j] = storedShardedCustomer(v)
		}
		fan[i] = &dynamodb.QueryOutput{Items: items, Count: int32(len(items)), ScannedCount: int32(len(items))}
	}
	return &canned{
		fanWide: fan,
		records: &dynamodbstreams.GetRecordsOutput{Records: streamRecords(), NextShardIterator: aws.String(streamIter + "|next")},
		get:     &dynamodb.GetItemOutput{Item: storedOrder(putOrder)},
		query:   &dynamodb.QueryOutput{Items: items, Count: int32(len(items)), ScannedCount: int32(len(items))},
		put:     &dynamodb.PutItemOutput{},
		tx:      &dynamodb.TransactWriteItemsOutput{},
		batch:   &dynamodb.BatchWriteItemOutput{UnprocessedItems: map[string][]types.WriteRequest{}},
		upd:     &dynamodb.UpdateItemOutput{Attributes: storedOrder(updOrder)},
		batchGet: &dynamodb.BatchGetItemOutput{
			Responses:       map[string][]map[string]types.AttributeValue{tableName: got},
			UnprocessedKeys: map[string]types.KeysAndAttributes{},
		},
		getWide:   &dynamodb.GetItemOutput{Item: storedCustomer(putCustomer)},
		queryWide: &dynamodb.QueryOutput{Items: wide, Count: int32(len(wide)), ScannedCount: int32(len(wide))},
	}
}

// cannedClient answers every call with the canned response, in process. It
// implements singletable.Client (for the library and the hand-written SDK
// code) and guregu's dynamodbiface.DynamoDBAPI; the operations no
// benchmark uses are left to the embedded nil interface (they panic).
type cannedClient struct {
	dynamodbiface.DynamoDBAPI
	out *canned

	// capture, when set, receives each request (TestSameRequests).
	mu      sync.Mutex
	capture func(op string, in any)
}

var (
	_ st.Client                 = (*cannedClient)(nil)
	_ dynamodbiface.DynamoDBAPI = (*cannedClient)(nil)
)

func (c *cannedClient) record(op string, in any) {
	if c.capture == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.capture(op, in)
}

func (c *cannedClient) GetItem(_ context.Context, in *dynamodb.GetItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	c.record("GetItem", in)
	if isWide(in.Key["PK"]) {
		return c.out.getWide, nil
	}
	return c.out.get, nil
}

func (c *cannedClient) PutItem(_ context.Context, in *dynamodb.PutItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	c.record("PutItem", in)
	return c.out.put, nil
}

func (c *cannedClient) UpdateItem(_ context.Context, in *dynamodb.UpdateItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	c.record("UpdateItem", in)
	return c.out.upd, nil
}

func (c *cannedClient) DeleteItem(_ context.Context, in *dynamodb.DeleteItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	c.record("DeleteItem", in)
	return &dynamodb.DeleteItemOutput{}, nil
}

func (c *cannedClient) Query(_ context.Context, in *dynamodb.QueryInput, _ ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	c.record("Query", in)
	if n := fanShardOfQuery(in); n >= 0 {
		return c.out.fanWide[n], nil
	}
	if isWideQuery(in) {
		return c.out.queryWide, nil
	}
	return c.out.query, nil
}

func fanShardOfQuery(in *dynamodb.QueryInput) int {
	for _, v := range in.ExpressionAttributeValues {
		if n := fanShardOf(v); n >= 0 {
			return n
		}
	}
	return -1
}

// GetRecords answers the stream op (DynamoDB Streams, not DynamoDB).
func (c *cannedClient) GetRecords(_ context.Context, in *dynamodbstreams.GetRecordsInput, _ ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetRecordsOutput, error) {
	c.record("GetRecords", in)
	return c.out.records, nil
}

func (c *cannedClient) BatchGetItem(_ context.Context, in *dynamodb.BatchGetItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	c.record("BatchGetItem", in)
	return c.out.batchGet, nil
}

func (c *cannedClient) BatchWriteItem(_ context.Context, in *dynamodb.BatchWriteItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	c.record("BatchWriteItem", in)
	return c.out.batch, nil
}

func (c *cannedClient) TransactWriteItems(_ context.Context, in *dynamodb.TransactWriteItemsInput, _ ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	c.record("TransactWriteItems", in)
	if in.ClientRequestToken == nil {
		// What the SDK's idempotency-token middleware does for a request
		// without a token (the SDK variant's and guregu's; the library sets
		// its own), so that every variant pays for one token, as through a
		// real *dynamodb.Client.
		t, err := sdkTokens.GetIdempotencyToken()
		if err != nil {
			return nil, err
		}
		in.ClientRequestToken = &t
	}
	return c.out.tx, nil
}

// sdkTokens is the SDK's default idempotency token provider
// (dynamodb.Options.IdempotencyTokenProvider).
var sdkTokens dynamodb.IdempotencyTokenProvider = smithyrand.NewUUIDIdempotencyToken(cryptorand.Reader)

func (c *cannedClient) TransactGetItems(_ context.Context, in *dynamodb.TransactGetItemsInput, _ ...func(*dynamodb.Options)) (*dynamodb.TransactGetItemsOutput, error) {
	c.record("TransactGetItems", in)
	return &dynamodb.TransactGetItemsOutput{}, nil
}

// --- the same responses through the SDK's HTTP stack -----------------------

// cannedTransport is an http.RoundTripper that answers each DynamoDB
// operation (by its X-Amz-Target header, and for a request of the wide
// entity its "Wide" variant) with the canned response as DynamoDB's JSON,
// with a correct X-Amz-Crc32 header. A *dynamodb.Client
// over it runs the SDK's whole stack (serialization, signing, retries,
// deserialization, checksum) without a network.
type cannedTransport struct {
	bodies map[string][]byte // operation -> response body
	crcs   map[string]string
}

func newCannedTransport(c *canned) *cannedTransport {
	t := &cannedTransport{bodies: map[string][]byte{}, crcs: map[string]string{}}
	add := func(op string, v any) {
		b, err := json.Marshal(v)
		if err != nil {
			panic(err)
		}
		t.bodies[op] = b
		t.crcs[op] = strconv.FormatUint(uint64(crc32.ChecksumIEEE(b)), 10)
	}
	items := make([]any, len(c.query.Items))
	for i, it := range c.query.Items {
		items[i] = itemJSON(it)
	}
	wide := make([]any, len(c.queryWide.Items))
	for i, it := range c.queryWide.Items {
		wide[i] = itemJSON(it)
	}
	got := make([]any, len(c.batchGet.Responses[tableName]))
	for i, it := range c.batchGet.Responses[tableName] {
		got[i] = itemJSON(it)
	}
	add("GetItem", map[string]any{"Item": itemJSON(c.get.Item)})
	add("GetItemWide", map[string]any{"Item": itemJSON(c.getWide.Item)})
	add("Query", map[string]any{"Count": len(items), "Items": items, "ScannedCount": len(items)})
	add("QueryWide", map[string]any{"Count": len(wide), "Items": wide, "ScannedCount": len(wide)})
	add("PutItem", map[string]any{})
	add("PutItemWide", map[string]any{})
	add("UpdateItem", map[string]any{"Attributes": itemJSON(c.upd.Attributes)})
	add("BatchGetItem", map[string]any{"Responses": map[string]any{tableName: got}, "UnprocessedKeys": map[string]any{}})
	add("TransactWriteItems", map[string]any{})
	add("TransactWriteItemsWide", map[string]any{})
	add("BatchWriteItem", map[string]any{"UnprocessedItems": map[string]any{}})
	for i, out := range c.fanWide {
		items := make([]any, len(out.Items))
		for j, it := range out.Items {
			items[j] = itemJSON(it)
		}
		add("QueryFan"+strconv.Itoa(i), map[string]any{"Count": len(items), "Items": items, "ScannedCount": len(items)})
	}
	add("GetRecords", map[string]any{"Records": streamRecordsJSON(c.records.Records), "NextShardIterator": aws.ToString(c.records.NextShardIterator)})
	return t
}

func (t *cannedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	target := req.Header.Get("X-Amz-Target")
	op := target[strings.LastIndexByte(target, '.')+1:]
	if req.Body != nil {
		in, err := io.ReadAll(req.Body)
		_ = req.Body.Close()
		if err != nil {
			return nil, err
		}
		if i := bytes.Index(in, []byte(fanWidePrefix)); i >= 0 {
			j := i + len(fanWidePrefix)
			for j < len(in) && in[j] >= '0' && in[j] <= '9' {
				j++
			}
			op += "Fan" + string(in[i+len(fanWidePrefix):j])
		} else if bytes.Contains(in, []byte(`"TENANT#`)) {
			op += "Wide"
		}
	}
	body, ok := t.bodies[op]
	if !ok {
		return nil, fmt.Errorf("cannedTransport: no canned response for %q", target)
	}
	h := make(http.Header, 4)
	h.Set("Content-Type", "application/x-amz-json-1.0")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("X-Amz-Crc32", t.crcs[op])
	h.Set("X-Amzn-Requestid", "BENCHREQUEST0000000000000000000000000000000000000")
	return &http.Response{
		Status: "200 OK", StatusCode: 200, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: h, Body: io.NopCloser(bytes.NewReader(body)), ContentLength: int64(len(body)), Request: req,
	}, nil
}

// fanWidePrefix starts the partition key values of FanOutWide's requests.
const fanWidePrefix = `"TSHARD#` + fanWideTenant + `#`

// newHTTPClients are a real *dynamodb.Client and *dynamodbstreams.Client
// whose HTTP client is the canned transport.
func newHTTPClients(c *canned) (*dynamodb.Client, *dynamodbstreams.Client) {
	cfg := aws.Config{
		Region:      "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider("AKIDBENCHMARK", "secret", ""),
		HTTPClient:  &http.Client{Transport: newCannedTransport(c)},
	}
	return dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
			o.BaseEndpoint = aws.String("http://dynamodb.canned.invalid")
		}), dynamodbstreams.NewFromConfig(cfg, func(o *dynamodbstreams.Options) {
			o.BaseEndpoint = aws.String("http://streams.dynamodb.canned.invalid")
		})
}

// itemJSON renders an item as DynamoDB's JSON ({"S": "..."}, {"N": "..."}).
func itemJSON(item map[string]types.AttributeValue) map[string]any {
	out := make(map[string]any, len(item))
	for k, v := range item {
		out[k] = avJSON(v)
	}
	return out
}

func avJSON(v types.AttributeValue) any {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return map[string]any{"S": v.Value}
	case *types.AttributeValueMemberN:
		return map[string]any{"N": v.Value}
	case *types.AttributeValueMemberBOOL:
		return map[string]any{"BOOL": v.Value}
	case *types.AttributeValueMemberNULL:
		return map[string]any{"NULL": v.Value}
	case *types.AttributeValueMemberB:
		return map[string]any{"B": v.Value}
	case *types.AttributeValueMemberSS:
		return map[string]any{"SS": v.Value}
	case *types.AttributeValueMemberNS:
		return map[string]any{"NS": v.Value}
	case *types.AttributeValueMemberL:
		l := make([]any, len(v.Value))
		for i, e := range v.Value {
			l[i] = avJSON(e)
		}
		return map[string]any{"L": l}
	case *types.AttributeValueMemberM:
		return map[string]any{"M": itemJSON(v.Value)}
	}
	panic(fmt.Sprintf("avJSON: unsupported %T", v))
}
