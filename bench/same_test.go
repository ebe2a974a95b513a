package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSameRequests keeps the benchmarks honest: for each operation it
// captures what every variant sends and checks that the requests are the
// same (table, keys, items, expressions up to placeholder names and
// parentheses, return-value options, batch chunking), and that the reads
// decode the same values.
//
// Known, documented differences, left out of the comparison:
//   - ClientRequestToken: the library sets a fresh idempotency token on each
//     transaction; the SDK code and guregu leave it to the SDK's middleware,
//     which fills one in before sending (so on the wire all three carry one).
//   - guregu cannot set ReturnValuesOnConditionCheckFailure on the actions
//     of a transaction, nor on an UpdateItem; the library and the SDK code
//     ask for ALL_OLD on the conditional updates.
//   - BatchGet100: the library returns one entry per key, in the keys'
//     order; the SDK code and guregu return the items as DynamoDB sends
//     them (the canned response has them in reverse order).
//   - guregu's Query uses the legacy KeyConditions parameter rather than a
//     KeyConditionExpression; both are rendered to one form here.
func TestSameRequests(t *testing.T) {
	for _, op := range benchOps {
		t.Run(op.name, func(t *testing.T) {
			lib, libEnv := capture(t, op.library)
			sdk, sdkEnv := capture(t, op.sdk)

			require.NotEmpty(t, lib)
			if op.name == "FanOutWide" {
				// The shards' requests go out concurrently.
				sort.Strings(lib)
				sort.Strings(sdk)
			}
			assert.Equal(t, lib, sdk, "library and hand-written SDK code send different requests")
			var guEnv *env
			if op.guregu != nil {
				var gu []string
				gu, guEnv = capture(t, op.guregu)
				if op.name == "TxWrite3" || op.name == "Update" || op.name == "TxWide5" {
					lib = dropReturnOnFailure(lib)
					gu = dropReturnOnFailure(gu)
				}
				assert.Equal(t, lib, gu, "library and guregu send different requests")
			}

			switch op.name {
			case "Get":
				assert.Equal(t, putOrder, libEnv.order)
				assert.Equal(t, putOrder, sdkEnv.order)
				assert.Equal(t, putOrder, guEnv.order)
			case "Query25":
				assert.Equal(t, querySet, libEnv.orders)
				assert.Equal(t, querySet, sdkEnv.orders)
				require.Len(t, guEnv.guOrders, len(querySet))
				for i, g := range guEnv.guOrders {
					assert.Equal(t, querySet[i], g.Order)
					assert.Equal(t, guOrderOf(querySet[i]), g)
				}
			case "Update":
				assert.Equal(t, updOrder, libEnv.order)
				assert.Equal(t, updOrder, sdkEnv.order)
				assert.Equal(t, updOrder, guEnv.order)
			case "BatchGet100":
				require.Len(t, libEnv.found, len(batchGetSet))
				for i, o := range libEnv.found {
					require.NotNil(t, o, "key %d", i)
					assert.Equal(t, batchGetSet[i], *o, "key %d", i)
				}
				assert.ElementsMatch(t, batchGetSet, sdkEnv.orders)
				require.Len(t, guEnv.guOrders, len(batchGetSet))
				for _, g := range guEnv.guOrders {
					assert.Contains(t, batchGetSet, g.Order)
					assert.Equal(t, guOrderOf(g.Order), g)
				}
			case "GetWide":
				assert.Equal(t, putCustomer, libEnv.customer)
				assert.Equal(t, putCustomer, sdkEnv.customer)
				assert.Equal(t, putCustomer, guEnv.customer)
			case "QueryWide25":
				assert.Equal(t, wideQuerySet, libEnv.customers)
				assert.Equal(t, wideQuerySet, sdkEnv.customers)
				require.Len(t, guEnv.guCustomers, len(wideQuerySet))
				for i, g := range guEnv.guCustomers {
					assert.Equal(t, wideQuerySet[i], g.Customer)
					assert.Equal(t, guCustomerOf(wideQuerySet[i]), g)
				}
			case "FanOutWide":
				require.Len(t, fanWideAll, fanWideShards*fanWidePer)
				assert.Equal(t, fanWideAll, libEnv.sharded)
				assert.Equal(t, fanWideAll, sdkEnv.sharded)
			case "StreamWide100":
				require.Len(t, libEnv.changes, nStream)
				require.Len(t, sdkEnv.sdkChanges, nStream)
				for i, c := range libEnv.changes {
					s := sdkEnv.sdkChanges[i]
					assert.Equal(t, streamOld[i], *c.Old, "record %d", i)
					assert.Equal(t, streamNew[i], *c.New, "record %d", i)
					assert.Equal(t, *s.Old, *c.Old, "record %d", i)
					assert.Equal(t, *s.New, *c.New, "record %d", i)
					assert.Equal(t, s.Event, string(c.Event))
					assert.Equal(t, s.SequenceNumber, c.SequenceNumber)
					assert.Equal(t, s.Time, c.Time)
					assert.Equal(t, Customer{Tenant: streamTenant, ID: streamOld[i].ID}, c.Key)
					assert.Equal(t, []string{"Email", "Score", "Visits"}, c.Changed, "record %d", i)
				}
			}
		})
	}
}

// TestLibraryItemIsStoredOrder checks that the canned responses hold what
// the library itself stores, so the reads decode realistic items.
func TestLibraryItemIsStoredOrder(t *testing.T) {
	db := newEnv(&cannedClient{out: newCanned()}, tableName).db
	in, err := Orders.PutInput(db, putOrder)
	require.NoError(t, err)
	assert.Equal(t, canonItem(storedOrder(putOrder)), canonItem(in.Item))
	assert.Len(t, in.Item, 9+7, "9 fields, table key, type, two GSI keys")

	wide, err := Customers.PutInput(db, putCustomer)
	require.NoError(t, err)
	assert.Equal(t, canonItem(storedCustomer(putCustomer)), canonItem(wide.Item))
	assert.Len(t, wide.Item, 21-3+5, "21 fields less 3 omitted, table key, type, a GSI key")
}

// capture runs v once against a recording canned client and returns the
// canonical form of what it sent.
func capture(t *testing.T, v variant) ([]string, *env) {
	t.Helper()
	var calls []string
	var batches []*dynamodb.BatchWriteItemInput
	c := &cannedClient{out: newCanned()}
	c.capture = func(op string, in any) {
		if b, ok := in.(*dynamodb.BatchWriteItemInput); ok {
			batches = append(batches, b)
			return
		}
		calls = append(calls, canonRequest(t, op, in))
	}
	e := newEnv(c, tableName)
	e.keep = true
	require.NoError(t, v(context.Background(), e))
	if len(batches) > 0 {
		calls = append(calls, canonBatches(t, batches))
	}
	return calls, e
}

var returnOnFailure = regexp.MustCompile(`,?"ReturnValuesOnConditionCheckFailure":"[A-Z_]*"`)

func dropReturnOnFailure(reqs []string) []string {
	out := make([]string, len(reqs))
	for i, r := range reqs {
		out[i] = returnOnFailure.ReplaceAllString(r, "")
	}
	return out
}

// canonRequest renders a request as JSON in a form where equivalent
// requests are equal: expressions with their placeholders replaced by the
// names and values they stand for.
func canonRequest(t *testing.T, op string, in any) string {
	t.Helper()
	m := map[string]any{"Op": op}
	switch in := in.(type) {
	case *dynamodb.GetItemInput:
		checkPlaceholders(t, in.ExpressionAttributeNames, nil, aws.ToString(in.ProjectionExpression))
		m["TableName"] = aws.ToString(in.TableName)
		m["Key"] = canonItem(in.Key)
		m["ConsistentRead"] = aws.ToBool(in.ConsistentRead)
		m["Projection"] = canonExpr(aws.ToString(in.ProjectionExpression), in.ExpressionAttributeNames, nil)
	case *dynamodb.PutItemInput:
		checkPlaceholders(t, in.ExpressionAttributeNames, in.ExpressionAttributeValues, aws.ToString(in.ConditionExpression))
		m["TableName"] = aws.ToString(in.TableName)
		m["Item"] = canonItem(in.Item)
		m["Condition"] = canonExpr(aws.ToString(in.ConditionExpression), in.ExpressionAttributeNames, in.ExpressionAttributeValues)
		m["ReturnValues"] = canonReturn(string(in.ReturnValues))
		m["ReturnValuesOnConditionCheckFailure"] = string(in.ReturnValuesOnConditionCheckFailure)
	case *dynamodb.QueryInput:
		checkPlaceholders(t, in.ExpressionAttributeNames, in.ExpressionAttributeValues,
			aws.ToString(in.KeyConditionExpression), aws.ToString(in.FilterExpression), aws.ToString(in.ProjectionExpression))
		m["TableName"] = aws.ToString(in.TableName)
		m["IndexName"] = aws.ToString(in.IndexName)
		key := canonExpr(aws.ToString(in.KeyConditionExpression), in.ExpressionAttributeNames, in.ExpressionAttributeValues)
		if len(in.KeyConditions) > 0 {
			require.Empty(t, key, "both KeyConditions and KeyConditionExpression")
			key = canonKeyConditions(t, in.KeyConditions)
		}
		m["KeyCondition"] = key
		m["Filter"] = canonExpr(aws.ToString(in.FilterExpression), in.ExpressionAttributeNames, in.ExpressionAttributeValues)
		m["Projection"] = canonExpr(aws.ToString(in.ProjectionExpression), in.ExpressionAttributeNames, nil)
		m["Limit"] = aws.ToInt32(in.Limit)
		m["ScanIndexForward"] = in.ScanIndexForward == nil || *in.ScanIndexForward
		m["ConsistentRead"] = aws.ToBool(in.ConsistentRead)
		m["Select"] = string(in.Select)
	case *dynamodb.UpdateItemInput:
		checkPlaceholders(t, in.ExpressionAttributeNames, in.ExpressionAttributeValues,
			aws.ToString(in.UpdateExpression), aws.ToString(in.ConditionExpression))
		m["TableName"] = aws.ToString(in.TableName)
		m["Key"] = canonItem(in.Key)
		m["Update"] = canonUpdate(aws.ToString(in.UpdateExpression), in.ExpressionAttributeNames, in.ExpressionAttributeValues)
		m["Condition"] = canonExpr(aws.ToString(in.ConditionExpression), in.ExpressionAttributeNames, in.ExpressionAttributeValues)
		m["ReturnValues"] = canonReturn(string(in.ReturnValues))
		m["ReturnValuesOnConditionCheckFailure"] = string(in.ReturnValuesOnConditionCheckFailure)
	case *dynamodb.BatchGetItemInput:
		tables := map[string]any{}
		for table, ka := range in.RequestItems {
			checkPlaceholders(t, ka.ExpressionAttributeNames, nil, aws.ToString(ka.ProjectionExpression))
			keys := make([]string, len(ka.Keys))
			for i, k := range ka.Keys {
				b, err := json.Marshal(canonItem(k))
				require.NoError(t, err)
				keys[i] = string(b)
			}
			// The order of a batch's keys does not matter to DynamoDB.
			sort.Strings(keys)
			tables[table] = map[string]any{
				"Keys":           keys,
				"ConsistentRead": aws.ToBool(ka.ConsistentRead),
				"Projection":     canonExpr(aws.ToString(ka.ProjectionExpression), ka.ExpressionAttributeNames, nil),
			}
		}
		m["RequestItems"] = tables
	case *dynamodbstreams.GetRecordsInput:
		m["ShardIterator"] = aws.ToString(in.ShardIterator)
		m["Limit"] = aws.ToInt32(in.Limit)
	case *dynamodb.TransactWriteItemsInput:
		var acts []any
		for _, it := range in.TransactItems {
			acts = append(acts, canonTxItem(t, it))
		}
		m["TransactItems"] = acts
	default:
		t.Fatalf("canonRequest: unexpected request %T", in)
	}
	b, err := json.Marshal(m)
	require.NoError(t, err)
	return string(b)
}

func canonTxItem(t *testing.T, it types.TransactWriteItem) map[string]any {
	t.Helper()
	m := map[string]any{}
	switch {
	case it.Put != nil:
		p := it.Put
		checkPlaceholders(t, p.ExpressionAttributeNames, p.ExpressionAttributeValues, aws.ToString(p.ConditionExpression))
		m["Put"] = map[string]any{
			"TableName":                           aws.ToString(p.TableName),
			"Item":                                canonItem(p.Item),
			"Condition":                           canonExpr(aws.ToString(p.ConditionExpression), p.ExpressionAttributeNames, p.ExpressionAttributeValues),
			"ReturnValuesOnConditionCheckFailure": string(p.ReturnValuesOnConditionCheckFailure),
		}
	case it.Update != nil:
		u := it.Update
		checkPlaceholders(t, u.ExpressionAttributeNames, u.ExpressionAttributeValues,
			aws.ToString(u.UpdateExpression), aws.ToString(u.ConditionExpression))
		m["Update"] = map[string]any{
			"TableName":                           aws.ToString(u.TableName),
			"Key":                                 canonItem(u.Key),
			"Update":                              canonExpr(aws.ToString(u.UpdateExpression), u.ExpressionAttributeNames, u.ExpressionAttributeValues),
			"Condition":                           canonExpr(aws.ToString(u.ConditionExpression), u.ExpressionAttributeNames, u.ExpressionAttributeValues),
			"ReturnValuesOnConditionCheckFailure": string(u.ReturnValuesOnConditionCheckFailure),
		}
	default:
		t.Fatalf("canonTxItem: unexpected action %+v", it)
	}
	return m
}

// canonBatches merges the BatchWriteItem requests of one operation: the
// chunk sizes and, per table, every put item, sorted (the library sends
// its chunks concurrently, so their order varies).
func canonBatches(t *testing.T, ins []*dynamodb.BatchWriteItemInput) string {
	t.Helper()
	var sizes []int
	items := map[string][]string{}
	for _, in := range ins {
		n := 0
		for table, reqs := range in.RequestItems {
			for _, r := range reqs {
				require.NotNil(t, r.PutRequest, "only puts are benchmarked")
				b, err := json.Marshal(canonItem(r.PutRequest.Item))
				require.NoError(t, err)
				items[table] = append(items[table], string(b))
				n++
			}
		}
		require.LessOrEqual(t, n, 25, "BatchWriteItem takes at most 25 requests")
		sizes = append(sizes, n)
	}
	sort.Ints(sizes)
	for _, v := range items {
		sort.Strings(v)
	}
	b, err := json.Marshal(map[string]any{"Op": "BatchWriteItem", "ChunkSizes": sizes, "Items": items})
	require.NoError(t, err)
	return string(b)
}

func canonReturn(s string) string {
	if s == string(types.ReturnValueNone) {
		return ""
	}
	return s
}

func canonItem(item map[string]types.AttributeValue) map[string]string {
	out := make(map[string]string, len(item))
	for k, v := range item {
		out[k] = canonValue(v)
	}
	return out
}

func canonValue(v types.AttributeValue) string {
	b, err := json.Marshal(avJSON(v))
	if err != nil {
		panic(err)
	}
	return string(b)
}

var placeholder = regexp.MustCompile(`[#:][A-Za-z0-9_]+`)

// canonExpr replaces the placeholders of an expression by the names and
// values they stand for, drops grouping parentheses (those not of a
// function call) and, in a conjunction of terms, sorts the terms. It is
// meant for the simple expressions the benchmarks send (no OR, no NOT).
func canonExpr(expr string, names map[string]string, values map[string]types.AttributeValue) string {
	if expr == "" {
		return ""
	}
	// Drop grouping parentheses.
	var b strings.Builder
	var keep []bool
	for i := 0; i < len(expr); i++ {
		c := expr[i]
		switch c {
		case '(':
			fn := i > 0 && (isIdent(expr[i-1]))
			keep = append(keep, fn)
			if fn {
				b.WriteByte(c)
			}
		case ')':
			if n := len(keep); n > 0 {
				if keep[n-1] {
					b.WriteByte(c)
				}
				keep = keep[:n-1]
			}
		default:
			b.WriteByte(c)
		}
	}
	s := placeholder.ReplaceAllStringFunc(b.String(), func(p string) string {
		if p[0] == '#' {
			if n, ok := names[p]; ok {
				return n
			}
			return p + "?"
		}
		if v, ok := values[p]; ok {
			return canonValue(v)
		}
		return p + "?"
	})
	s = strings.Join(strings.Fields(s), " ")
	if strings.Contains(s, " OR ") || strings.HasPrefix(s, "NOT ") || strings.Contains(s, " NOT ") {
		return s
	}
	terms := strings.Split(s, " AND ")
	sort.Strings(terms)
	return strings.Join(terms, " AND ")
}

// canonUpdate renders an update expression as canonExpr renders a
// condition, its actions sorted within each clause (their order does not
// matter to DynamoDB). It is meant for the SET-only updates the benchmarks
// send.
func canonUpdate(expr string, names map[string]string, values map[string]types.AttributeValue) string {
	rest, ok := strings.CutPrefix(strings.TrimSpace(expr), "SET ")
	if !ok {
		return canonExpr(expr, names, values)
	}
	actions := strings.Split(rest, ",")
	for i, a := range actions {
		actions[i] = canonExpr(strings.TrimSpace(a), names, values)
	}
	sort.Strings(actions)
	return "SET " + strings.Join(actions, ", ")
}

func isIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// canonKeyConditions renders legacy KeyConditions as canonExpr renders a
// key condition expression.
func canonKeyConditions(t *testing.T, kc map[string]types.Condition) string {
	t.Helper()
	var terms []string
	for attr, c := range kc {
		require.Len(t, c.AttributeValueList, 1, "only EQ and BEGINS_WITH are used")
		v := canonValue(c.AttributeValueList[0])
		switch c.ComparisonOperator {
		case types.ComparisonOperatorEq:
			terms = append(terms, attr+" = "+v)
		case types.ComparisonOperatorBeginsWith:
			terms = append(terms, "begins_with("+attr+", "+v+")")
		default:
			t.Fatalf("unexpected key condition operator %s", c.ComparisonOperator)
		}
	}
	sort.Strings(terms)
	return strings.Join(terms, " AND ")
}

// checkPlaceholders fails if a request declares a name or value
// placeholder that none of its expressions uses, or uses one it does not
// declare: DynamoDB rejects both.
func checkPlaceholders(t *testing.T, names map[string]string, values map[string]types.AttributeValue, exprs ...string) {
	t.Helper()
	used := map[string]bool{}
	for _, e := range exprs {
		for _, p := range placeholder.FindAllString(e, -1) {
			used[p] = true
		}
	}
	for p := range used {
		_, isName := names[p]
		_, isValue := values[p]
		assert.True(t, isName || isValue, "placeholder %s is used but not declared", p)
	}
	for p := range names {
		assert.True(t, used[p], "name placeholder %s (%s) is declared but not used", p, names[p])
	}
	for p := range values {
		assert.True(t, used[p], "value placeholder %s is declared but not used", p)
	}
}

func (e *env) String() string { return fmt.Sprintf("env(%s)", e.table) }
