package bench

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	streamtypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/stream"
)

// Three ops on the wide entity (Customer, 21 fields) that issue 21 added:
// a transaction of five actions, a fan-out over ten shards merged into one
// page, and decoding a GetRecords response of 100 MODIFY stream records.

// --- TxWide5: put three customers, update two (one field each of two
// kinds: a plain SET, and a conditional decrement) ---------------------------

var (
	txWideA, txWideB, txWideC = makeCustomer(wideTenant, 101), makeCustomer(wideTenant, 102), makeCustomer(wideTenant, 103)
	txWideD                   = Customer{Tenant: wideTenant, ID: "c00104"}
	txWideE                   = Customer{Tenant: wideTenant, ID: "c00105"}
)

const (
	txWideEmail  = "customer104@example.org"
	txWideAmount = 500
)

func libTxWide(ctx context.Context, e *env) error {
	return libTxCustomers(ctx, e.db, [3]Customer{txWideA, txWideB, txWideC}, txWideD, txWideE, txWideEmail, txWideAmount)
}

// libTxCustomers is TxWide5 with the library: three puts, two updates.
func libTxCustomers(ctx context.Context, db *st.DB, puts [3]Customer, setKey, decKey Customer, email string, amount int) error {
	return db.Transact(ctx, func(tx *st.Tx) error {
		for _, v := range puts {
			Customers.TxPut(tx, v)
		}
		Customers.TxUpdate(tx, setKey, st.Set("Email", email).Set("Active", true))
		Customers.TxUpdate(tx, decKey, st.Decrement("Balance", amount).If(st.Ge("Balance", amount)))
		return nil
	})
}

func sdkTxWide(ctx context.Context, e *env) error {
	return sdkTxCustomers(ctx, e.ddb, e.table, [3]Customer{txWideA, txWideB, txWideC}, txWideD, txWideE, txWideEmail, txWideAmount)
}

// sdkTxCustomers is hand-written SDK code for TxWide5: three items
// marshalled with attributevalue, two constant update expressions.
func sdkTxCustomers(ctx context.Context, c st.Client, table string, puts [3]Customer, setKey, decKey Customer, email string, amount int) error {
	acts := make([]types.TransactWriteItem, 0, 5)
	for i := range puts {
		item, err := attributevalue.MarshalMap(puts[i])
		if err != nil {
			return err
		}
		addCustomerKeys(item, &puts[i])
		acts = append(acts, types.TransactWriteItem{Put: &types.Put{TableName: aws.String(table), Item: item}})
	}
	n := &types.AttributeValueMemberN{Value: strconv.Itoa(amount)}
	acts = append(acts,
		types.TransactWriteItem{Update: &types.Update{
			TableName: aws.String(table),
			Key: map[string]types.AttributeValue{
				"PK": &types.AttributeValueMemberS{Value: customerPK(setKey.Tenant)},
				"SK": &types.AttributeValueMemberS{Value: customerSK(setKey.ID)},
			},
			UpdateExpression:         aws.String("SET #email = :email, #active = :active"),
			ConditionExpression:      aws.String("attribute_exists(#pk) AND #type = :type"),
			ExpressionAttributeNames: map[string]string{"#email": "email", "#active": "active", "#pk": "PK", "#type": typeAttr},
			ExpressionAttributeValues: map[string]types.AttributeValue{
				":email":  &types.AttributeValueMemberS{Value: email},
				":active": &types.AttributeValueMemberBOOL{Value: true},
				":type":   &types.AttributeValueMemberS{Value: "Customer"},
			},
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		}},
		types.TransactWriteItem{Update: &types.Update{
			TableName: aws.String(table),
			Key: map[string]types.AttributeValue{
				"PK": &types.AttributeValueMemberS{Value: customerPK(decKey.Tenant)},
				"SK": &types.AttributeValueMemberS{Value: customerSK(decKey.ID)},
			},
			UpdateExpression:         aws.String("SET #bal = if_not_exists(#bal, :zero) - :n"),
			ConditionExpression:      aws.String("attribute_exists(#pk) AND #type = :type AND #bal >= :n"),
			ExpressionAttributeNames: map[string]string{"#bal": "balance", "#pk": "PK", "#type": typeAttr},
			ExpressionAttributeValues: map[string]types.AttributeValue{
				":zero": &types.AttributeValueMemberN{Value: "0"},
				":n":    n,
				":type": &types.AttributeValueMemberS{Value: "Customer"},
			},
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		}},
	)
	_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: acts})
	return err
}

func guTxWide(ctx context.Context, e *env) error {
	return e.gdb.WriteTx().
		Put(e.gt.Put(guCustomerOf(txWideA))).
		Put(e.gt.Put(guCustomerOf(txWideB))).
		Put(e.gt.Put(guCustomerOf(txWideC))).
		Update(e.gt.Update("PK", customerPK(txWideD.Tenant)).Range("SK", customerSK(txWideD.ID)).
			Set("email", txWideEmail).Set("active", true).
			If("attribute_exists($) AND $ = ?", "PK", typeAttr, "Customer")).
		Update(e.gt.Update("PK", customerPK(txWideE.Tenant)).Range("SK", customerSK(txWideE.ID)).
			SetExpr("$ = if_not_exists($, ?) - ?", "balance", "balance", 0, txWideAmount).
			If("attribute_exists($) AND $ = ? AND $ >= ?", "PK", typeAttr, "Customer", "balance", txWideAmount)).
		Run(ctx)
}

// --- FanOutWide: one page of a pattern over 10 shards of 25 customers
// each, merged by sort key ------------------------------------------------

// ShardedCustomer is the wide entity written over shards: Customer's 21
// fields and the shard number.
type ShardedCustomer struct {
	Customer
	Shard int `dynamodbav:"shard" dynamo:"shard"`
}

const (
	fanWideShards = 10
	fanWidePer    = 25 // customers per shard
	fanWideTenant = "t0077"
)

var (
	CustomerShards = st.MustDefine[ShardedCustomer](Shop, "CustomerShard",
		st.Key("TSHARD#{Tenant}#{Shard}", "CUSTOMER#{ID}"),
		st.Shards("Shard", fanWideShards).By("ID"))
	customerShardsRead = CustomerShards.Pattern("CustomerShards").Must()

	// fanWideSet holds each shard's customers, in sort key order.
	fanWideSet = makeShardedCustomers()
	// fanWideAll is every customer of the read, in sort key order.
	fanWideAll = func() []ShardedCustomer {
		all := slices.Concat(fanWideSet[:]...)
		slices.SortFunc(all, func(a, b ShardedCustomer) int { return strings.Compare(a.ID, b.ID) })
		return all
	}()
)

// makeShardedCustomers makes customers until every shard has fanWidePer,
// each with the shard the library gives it.
func makeShardedCustomers() [fanWideShards][]ShardedCustomer {
	db := st.New(&cannedClient{out: &canned{}}, Shop)
	var set [fanWideShards][]ShardedCustomer
	for i, full := 1, 0; full < fanWideShards; i++ {
		v := ShardedCustomer{Customer: makeCustomer(fanWideTenant, i)}
		in, err := CustomerShards.PutInput(db, v)
		if err != nil {
			panic(err)
		}
		if err := attributevalue.Unmarshal(in.Item["shard"], &v.Shard); err != nil {
			panic(err)
		}
		if len(set[v.Shard]) < fanWidePer {
			set[v.Shard] = append(set[v.Shard], v)
			if len(set[v.Shard]) == fanWidePer {
				full++
			}
		}
	}
	return set
}

func storedShardedCustomer(v ShardedCustomer) map[string]types.AttributeValue {
	item, err := attributevalue.MarshalMap(v)
	if err != nil {
		panic(err)
	}
	item["PK"] = sv(shardPK(v.Tenant, v.Shard))
	item["SK"] = sv(customerSK(v.ID))
	item[typeAttr] = sv("CustomerShard")
	return item
}

func shardPK(tenant string, shard int) string { return "TSHARD#" + tenant + "#" + strconv.Itoa(shard) }

// fanShardOf is the shard a request's partition key value names, or -1.
func fanShardOf(vs ...types.AttributeValue) int {
	for _, v := range vs {
		if s, ok := v.(*types.AttributeValueMemberS); ok {
			if rest, ok := strings.CutPrefix(s.Value, "TSHARD#"+fanWideTenant+"#"); ok {
				if n, err := strconv.Atoi(rest); err == nil && n >= 0 && n < fanWideShards {
					return n
				}
			}
		}
	}
	return -1
}

func libFanWide(ctx context.Context, e *env) error {
	page, err := customerShardsRead.Query(ctx, e.db, ShardedCustomer{Customer: Customer{Tenant: fanWideTenant}})
	if err != nil {
		return err
	}
	e.sharded = page.Items
	return nil
}

func sdkFanWide(ctx context.Context, e *env) error {
	vs, err := sdkFanOutCustomers(ctx, e.ddb, e.table, fanWideTenant)
	e.sharded = vs
	return err
}

// sdkFanOutCustomers is the hand-written fan-out: one paginated Query per
// shard, in parallel, each page decoded with attributevalue, then the
// shards' customers merged by sort key.
func sdkFanOutCustomers(ctx context.Context, c st.Client, table, tenant string) ([]ShardedCustomer, error) {
	var parts [fanWideShards][]ShardedCustomer
	var errs [fanWideShards]error
	var wg sync.WaitGroup
	for i := range fanWideShards {
		wg.Add(1)
		go func() {
			defer wg.Done()
			parts[i], errs[i] = sdkQueryShard(ctx, c, table, shardPK(tenant, i))
		}()
	}
	wg.Wait()
	if err := errors.Join(errs[:]...); err != nil {
		return nil, err
	}
	all := slices.Concat(parts[:]...)
	slices.SortStableFunc(all, func(a, b ShardedCustomer) int { return strings.Compare(a.ID, b.ID) })
	return all, nil
}

func sdkQueryShard(ctx context.Context, c st.Client, table, pk string) ([]ShardedCustomer, error) {
	in := &dynamodb.QueryInput{
		TableName:                aws.String(table),
		KeyConditionExpression:   aws.String("#pk = :pk AND begins_with(#sk, :sk)"),
		FilterExpression:         aws.String("#type = :type"),
		ExpressionAttributeNames: map[string]string{"#pk": "PK", "#sk": "SK", "#type": typeAttr},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk":   &types.AttributeValueMemberS{Value: pk},
			":sk":   &types.AttributeValueMemberS{Value: "CUSTOMER#"},
			":type": &types.AttributeValueMemberS{Value: "CustomerShard"},
		},
	}
	var out []ShardedCustomer
	for {
		page, err := c.Query(ctx, in)
		if err != nil {
			return nil, err
		}
		var vs []ShardedCustomer
		if err := attributevalue.UnmarshalListOfMaps(page.Items, &vs); err != nil {
			return nil, err
		}
		if out == nil {
			out = vs
		} else {
			out = append(out, vs...)
		}
		if len(page.LastEvaluatedKey) == 0 {
			return out, nil
		}
		in.ExclusiveStartKey = page.LastEvaluatedKey
	}
}

// --- StreamWide100: one GetRecords response of 100 MODIFY records (old
// and new images of customers), decoded into typed changes ----------------

// StreamShop is a table with a stream of old and new images, and the
// wide entity in it as in Shop.
var (
	StreamShop      = st.MustTable("BenchStream", st.WithGSI("GSI1"), st.WithStream(st.StreamNewAndOldImages))
	StreamCustomers = st.MustDefine[Customer](StreamShop, "Customer",
		st.Key("TENANT#{Tenant}", "CUSTOMER#{ID}"),
		st.Index("GSI1", "TIER#{Tier}", "CUSTOMER#{ID}"),
	)
)

const (
	nStream      = 100
	streamTenant = "t0099"
	streamIter   = "arn:aws:dynamodb:us-east-1:000000000000:table/BenchStream/stream/x|001|bench"
)

// streamOld and streamNew are the customers before and after each
// record's change: a new email and score, one more visit.
var streamOld, streamNew = func() ([]Customer, []Customer) {
	old, nu := makeCustomers(streamTenant, nStream), makeCustomers(streamTenant, nStream)
	for i := range nu {
		nu[i].Email = fmt.Sprintf("customer%d@example.net", i+1)
		nu[i].Score += 1.5
		nu[i].Visits = append(slices.Clip(nu[i].Visits), 7*i)
	}
	return old, nu
}()

// streamsClient is the DynamoDB Streams call the stream op makes.
type streamsClient interface {
	GetRecords(ctx context.Context, in *dynamodbstreams.GetRecordsInput, optFns ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetRecordsOutput, error)
}

// sdkChange is what the hand-written code decodes a record into.
type sdkChange struct {
	Event          string
	SequenceNumber string
	Time           time.Time
	Old, New       *Customer
}

func libStream(ctx context.Context, e *env) error {
	out, err := e.streams.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String(streamIter)})
	if err != nil {
		return err
	}
	for _, r := range out.Records {
		rec, err := stream.FromStreams(r)
		if err != nil {
			return err
		}
		c, err := stream.Decode(StreamCustomers, rec)
		if err != nil {
			return err
		}
		if e.keep {
			e.changes = append(e.changes, c)
		}
	}
	return nil
}

func sdkStream(ctx context.Context, e *env) error {
	out, err := e.streams.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String(streamIter)})
	if err != nil {
		return err
	}
	for _, r := range out.Records {
		c, err := sdkDecodeRecord(r)
		if err != nil {
			return err
		}
		if e.keep {
			e.sdkChanges = append(e.sdkChanges, c)
		}
	}
	return nil
}

// sdkDecodeRecord is hand-written decoding of a stream record: each image
// converted with attributevalue.FromDynamoDBStreamsMap and unmarshalled.
func sdkDecodeRecord(r streamtypes.Record) (sdkChange, error) {
	c := sdkChange{Event: string(r.EventName)}
	if r.Dynamodb == nil {
		return c, errors.New("a record without its change")
	}
	c.SequenceNumber = aws.ToString(r.Dynamodb.SequenceNumber)
	c.Time = aws.ToTime(r.Dynamodb.ApproximateCreationDateTime)
	decode := func(img map[string]streamtypes.AttributeValue) (*Customer, error) {
		if img == nil {
			return nil, nil
		}
		item, err := attributevalue.FromDynamoDBStreamsMap(img)
		if err != nil {
			return nil, err
		}
		v := new(Customer)
		if err := attributevalue.UnmarshalMap(item, v); err != nil {
			return nil, err
		}
		return v, nil
	}
	var err error
	if c.Old, err = decode(r.Dynamodb.OldImage); err != nil {
		return c, err
	}
	c.New, err = decode(r.Dynamodb.NewImage)
	return c, err
}

// streamRecords are the canned GetRecords response's records.
func streamRecords() []streamtypes.Record {
	recs := make([]streamtypes.Record, nStream)
	at := time.Date(2024, 3, 15, 12, 0, 0, 0, time.UTC)
	for i := range recs {
		old, nu := storedCustomer(streamOld[i]), storedCustomer(streamNew[i])
		recs[i] = streamtypes.Record{
			EventID:      aws.String(fmt.Sprintf("ev%05d", i)),
			EventName:    streamtypes.OperationTypeModify,
			EventSource:  aws.String("aws:dynamodb"),
			EventVersion: aws.String("1.1"),
			AwsRegion:    aws.String("us-east-1"),
			Dynamodb: &streamtypes.StreamRecord{
				ApproximateCreationDateTime: aws.Time(at.Add(time.Duration(i) * time.Second)),
				Keys:                        toStreamsMap(map[string]types.AttributeValue{"PK": old["PK"], "SK": old["SK"]}),
				OldImage:                    toStreamsMap(old),
				NewImage:                    toStreamsMap(nu),
				SequenceNumber:              aws.String(fmt.Sprintf("%021d", 4000000+i)),
				SizeBytes:                   aws.Int64(1024),
				StreamViewType:              streamtypes.StreamViewTypeNewAndOldImages,
			},
		}
	}
	return recs
}

func toStreamsMap(m map[string]types.AttributeValue) map[string]streamtypes.AttributeValue {
	out := make(map[string]streamtypes.AttributeValue, len(m))
	for k, v := range m {
		out[k] = toStreams(v)
	}
	return out
}

func toStreams(v types.AttributeValue) streamtypes.AttributeValue {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return &streamtypes.AttributeValueMemberS{Value: v.Value}
	case *types.AttributeValueMemberN:
		return &streamtypes.AttributeValueMemberN{Value: v.Value}
	case *types.AttributeValueMemberBOOL:
		return &streamtypes.AttributeValueMemberBOOL{Value: v.Value}
	case *types.AttributeValueMemberNULL:
		return &streamtypes.AttributeValueMemberNULL{Value: v.Value}
	case *types.AttributeValueMemberB:
		return &streamtypes.AttributeValueMemberB{Value: v.Value}
	case *types.AttributeValueMemberSS:
		return &streamtypes.AttributeValueMemberSS{Value: v.Value}
	case *types.AttributeValueMemberNS:
		return &streamtypes.AttributeValueMemberNS{Value: v.Value}
	case *types.AttributeValueMemberL:
		l := make([]streamtypes.AttributeValue, len(v.Value))
		for i, e := range v.Value {
			l[i] = toStreams(e)
		}
		return &streamtypes.AttributeValueMemberL{Value: l}
	case *types.AttributeValueMemberM:
		return &streamtypes.AttributeValueMemberM{Value: toStreamsMap(v.Value)}
	}
	panic(fmt.Sprintf("toStreams: unsupported %T", v))
}

// streamRecordsJSON renders records as the Streams API's JSON.
func streamRecordsJSON(recs []streamtypes.Record) []any {
	out := make([]any, len(recs))
	for i, r := range recs {
		d := r.Dynamodb
		out[i] = map[string]any{
			"eventID": aws.ToString(r.EventID), "eventName": string(r.EventName), "eventSource": aws.ToString(r.EventSource),
			"eventVersion": aws.ToString(r.EventVersion), "awsRegion": aws.ToString(r.AwsRegion),
			"dynamodb": map[string]any{
				"ApproximateCreationDateTime": aws.ToTime(d.ApproximateCreationDateTime).Unix(),
				"Keys":                        itemJSON(fromStreamsMust(d.Keys)),
				"OldImage":                    itemJSON(fromStreamsMust(d.OldImage)),
				"NewImage":                    itemJSON(fromStreamsMust(d.NewImage)),
				"SequenceNumber":              aws.ToString(d.SequenceNumber),
				"SizeBytes":                   aws.ToInt64(d.SizeBytes),
				"StreamViewType":              string(d.StreamViewType),
			},
		}
	}
	return out
}

func fromStreamsMust(m map[string]streamtypes.AttributeValue) map[string]types.AttributeValue {
	out, err := attributevalue.FromDynamoDBStreamsMap(m)
	if err != nil {
		panic(err)
	}
	return out
}
