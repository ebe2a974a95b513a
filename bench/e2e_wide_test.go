//go:build integration

package bench

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	streamtypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/stream"
)

// The wide ops of issue 21 end to end: TxWide5, FanOutWide and
// StreamWide100 against DynamoDB Local (see e2e_test.go).

// e2eTxPool is how many seeded customers each variant's transactions
// update, two per call: the library's and the SDK code's are distinct
// (tenants e2e-txl and e2e-txs), so that the paired run's two variants
// never write one item at the same moment (a transaction conflict).
const e2eTxPool = 500

// wideE2E is what the wide ops need of an e2eEnv.
type wideE2E struct {
	txPuts [2][]Customer // per variant (0: library, 1: sdk), the customers its transactions put
	txKeys [2][]Customer // per variant, the seeded customers its transactions update

	streams   *dynamodbstreams.Client
	streamARN string
	shardID   string
	// modifySeq is the sequence number of the first of the nStream
	// MODIFY records the stream table's shard holds after its INSERTs.
	modifySeq string
	streamDB  *st.DB
}

// seedWide seeds what the wide ops read and update: the transactions'
// customers, the fan-out's 250 sharded customers, and a table with a
// stream of nStream inserts then nStream modifications.
func (e *e2eEnv) seedWide(tb testing.TB) {
	tb.Helper()
	ctx := context.Background()
	var seed []Customer
	for v, tenant := range []string{"e2e-txl", "e2e-txs"} {
		for i := range e2eTxPool {
			c := makeCustomer(tenant, i+1)
			c.Balance = 1 << 40 // room for every decrement of a run
			seed = append(seed, c)
			e.wide.txKeys[v] = append(e.wide.txKeys[v], Customer{Tenant: c.Tenant, ID: c.ID})
		}
		for i := range 3 * 512 {
			e.wide.txPuts[v] = append(e.wide.txPuts[v], makeCustomer(tenant+"-put", 10000+i))
		}
	}
	ops := []st.BatchOp{st.BatchPut(Customers, seed...)}
	for _, part := range fanWideSet {
		ops = append(ops, st.BatchPut(CustomerShards, part...))
	}
	if err := e.db.BatchWrite(ctx, ops); err != nil {
		tb.Fatalf("seeding the wide ops: %v", err)
	}

	// The stream's table.
	var suffix [4]byte
	_, _ = rand.Read(suffix[:])
	sdb := st.New(e.client, StreamShop, st.WithTableName("benchstream-"+hex.EncodeToString(suffix[:])))
	if err := sdb.CreateTable(ctx); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := sdb.DeleteTable(context.Background()); err != nil {
			tb.Errorf("deleting the stream table: %v", err)
		}
	})
	if err := sdb.BatchWrite(ctx, []st.BatchOp{st.BatchPut(StreamCustomers, streamOld...)}); err != nil {
		tb.Fatal(err)
	}
	if err := sdb.BatchWrite(ctx, []st.BatchOp{st.BatchPut(StreamCustomers, streamNew...)}); err != nil {
		tb.Fatal(err)
	}
	arn, err := sdb.StreamARN(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	endpoint := strings.TrimSpace(os.Getenv(endpointEnv))
	cfg, err := localConfig(ctx, e.warnings)
	if err != nil {
		tb.Fatal(err)
	}
	cfg.HTTPClient = e.wire // the same connections, recorded too
	sc := dynamodbstreams.NewFromConfig(cfg, func(o *dynamodbstreams.Options) { o.BaseEndpoint = aws.String(endpoint) })
	desc, err := sc.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)})
	if err != nil {
		tb.Fatal(err)
	}
	if n := len(desc.StreamDescription.Shards); n != 1 {
		tb.Fatalf("the stream table has %d shards, want 1", n)
	}
	shard := aws.ToString(desc.StreamDescription.Shards[0].ShardId)
	it, err := sc.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{
		StreamArn: aws.String(arn), ShardId: aws.String(shard), ShardIteratorType: streamtypes.ShardIteratorTypeTrimHorizon,
	})
	if err != nil {
		tb.Fatal(err)
	}
	var recs []streamtypes.Record
	for pos := it.ShardIterator; pos != nil && len(recs) < 2*nStream; {
		out, err := sc.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: pos})
		if err != nil {
			tb.Fatal(err)
		}
		if len(out.Records) == 0 {
			break
		}
		recs = append(recs, out.Records...)
		pos = out.NextShardIterator
	}
	if len(recs) != 2*nStream || recs[nStream].EventName != streamtypes.OperationTypeModify {
		tb.Fatalf("the stream holds %d records, want %d inserts then %d modifications", len(recs), nStream, nStream)
	}
	e.wide.streams, e.wide.streamARN, e.wide.shardID, e.wide.streamDB = sc, arn, shard, sdb
	e.wide.modifySeq = aws.ToString(recs[nStream].Dynamodb.SequenceNumber)
}

// streamRecordsE2E reads the nStream MODIFY records: a shard iterator at
// the first, one GetRecords of nStream.
func (e *e2eEnv) streamRecordsE2E(ctx context.Context) ([]streamtypes.Record, error) {
	w := &e.wide
	it, err := w.streams.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{
		StreamArn: aws.String(w.streamARN), ShardId: aws.String(w.shardID),
		ShardIteratorType: streamtypes.ShardIteratorTypeAtSequenceNumber, SequenceNumber: aws.String(w.modifySeq),
	})
	if err != nil {
		return nil, err
	}
	out, err := w.streams.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: it.ShardIterator, Limit: aws.Int32(nStream)})
	if err != nil {
		return nil, err
	}
	if len(out.Records) != nStream {
		return nil, fmt.Errorf("GetRecords returned %d records, want %d", len(out.Records), nStream)
	}
	return out.Records, nil
}

// txArgs is call i's transaction for variant v: three customers to put,
// two seeded ones to update.
func (e *e2eEnv) txArgs(v, i int) (puts [3]Customer, setKey, decKey Customer, email string) {
	w := &e.wide
	for k := range puts {
		puts[k] = w.txPuts[v][(3*i+k)%len(w.txPuts[v])]
	}
	keys := w.txKeys[v]
	return puts, keys[(2*i)%len(keys)], keys[(2*i+1)%len(keys)], "tx" + strconv.Itoa(i) + "@example.org"
}

// e2eWarm is how many calls of each variant warm an op up, when not 500:
// the wide ops send tens of requests a call, or read 100 large records.
var e2eWarm = map[string]int{"TxWide5": 100, "FanOutWide": 50, "StreamWide100": 50}

var e2eWideOps = []e2eOp{
	{"TxWide5",
		func(ctx context.Context, e *e2eEnv, i int) error {
			puts, set, dec, email := e.txArgs(0, i)
			return libTxCustomers(ctx, e.db, puts, set, dec, email, txWideAmount)
		},
		func(ctx context.Context, e *e2eEnv, i int) error {
			puts, set, dec, email := e.txArgs(1, i)
			return sdkTxCustomers(ctx, e.client, e.table, puts, set, dec, email, txWideAmount)
		}},
	{"FanOutWide",
		func(ctx context.Context, e *e2eEnv, _ int) error {
			page, err := customerShardsRead.Query(ctx, e.db, ShardedCustomer{Customer: Customer{Tenant: fanWideTenant}})
			if err == nil && len(page.Items) != len(fanWideAll) {
				err = fmt.Errorf("the fan-out read %d customers, want %d", len(page.Items), len(fanWideAll))
			}
			return err
		},
		func(ctx context.Context, e *e2eEnv, _ int) error {
			vs, err := sdkFanOutCustomers(ctx, e.client, e.table, fanWideTenant)
			if err == nil && len(vs) != len(fanWideAll) {
				err = fmt.Errorf("the fan-out read %d customers, want %d", len(vs), len(fanWideAll))
			}
			return err
		}},
	{"StreamWide100",
		func(ctx context.Context, e *e2eEnv, _ int) error {
			recs, err := e.streamRecordsE2E(ctx)
			if err != nil {
				return err
			}
			for _, r := range recs {
				rec, err := stream.FromStreams(r)
				if err != nil {
					return err
				}
				if _, err := stream.Decode(StreamCustomers, rec); err != nil {
					return err
				}
			}
			return nil
		},
		func(ctx context.Context, e *e2eEnv, _ int) error {
			recs, err := e.streamRecordsE2E(ctx)
			if err != nil {
				return err
			}
			for _, r := range recs {
				if _, err := sdkDecodeRecord(r); err != nil {
					return err
				}
			}
			return nil
		}},
}

// TestEndToEndWideVariants checks against DynamoDB Local that the wide
// ops' two variants do the same: the transactions leave the same items,
// the fan-outs read the same customers in the same order, the stream
// decodings give the same values.
func TestEndToEndWideVariants(t *testing.T) {
	e := newE2EEnv(t, 1)
	ctx := context.Background()
	for _, op := range e2eWideOps {
		for i := range 2 {
			if err := op.library(ctx, e, i); err != nil {
				t.Fatalf("%s/library: %v", op.name, err)
			}
			if err := op.sdk(ctx, e, i); err != nil {
				t.Fatalf("%s/sdk: %v", op.name, err)
			}
		}
	}

	// TxWide5: both variants on the same items leave the same items, but
	// for the balance, decremented by each.
	puts, set, dec, email := e.txArgs(0, 7)
	raw := func(c Customer) map[string]string {
		out, err := e.client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(e.table), Key: map[string]types.AttributeValue{"PK": sv(customerPK(c.Tenant)), "SK": sv(customerSK(c.ID))}})
		if err != nil {
			t.Fatal(err)
		}
		return canonItem(out.Item)
	}
	before := raw(dec)
	if err := libTxCustomers(ctx, e.db, puts, set, dec, email, txWideAmount); err != nil {
		t.Fatal(err)
	}
	byLib := []map[string]string{raw(puts[0]), raw(puts[1]), raw(puts[2]), raw(set), raw(dec)}
	if err := sdkTxCustomers(ctx, e.client, e.table, puts, set, dec, email, txWideAmount); err != nil {
		t.Fatal(err)
	}
	bySDK := []map[string]string{raw(puts[0]), raw(puts[1]), raw(puts[2]), raw(set), raw(dec)}
	for k := range 4 {
		if fmt.Sprint(byLib[k]) != fmt.Sprint(bySDK[k]) {
			t.Errorf("TxWide5 item %d: the library left %v, the SDK code %v", k, byLib[k], bySDK[k])
		}
	}
	want := []string{before["balance"], byLib[4]["balance"], bySDK[4]["balance"]}
	b0, _ := strconv.ParseInt(strings.Trim(strings.TrimPrefix(want[0], `{"N":`), `"}`), 10, 64)
	if exp := []string{fmt.Sprintf(`{"N":"%d"}`, b0-txWideAmount), fmt.Sprintf(`{"N":"%d"}`, b0-2*txWideAmount)}; want[1] != exp[0] || want[2] != exp[1] {
		t.Errorf("TxWide5 balance: %v, want each variant to take %d", want, txWideAmount)
	}

	// FanOutWide: the same customers, in sort key order.
	page, err := customerShardsRead.Query(ctx, e.db, ShardedCustomer{Customer: Customer{Tenant: fanWideTenant}})
	if err != nil {
		t.Fatal(err)
	}
	sdkAll, err := sdkFanOutCustomers(ctx, e.client, e.table, fanWideTenant)
	if err != nil {
		t.Fatal(err)
	}
	assert.Equal(t, fanWideAll, page.Items, "FanOutWide: the library's page")
	assert.Equal(t, fanWideAll, sdkAll, "FanOutWide: the SDK code's")

	// StreamWide100: the same old and new values.
	recs, err := e.streamRecordsE2E(ctx)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]Customer{}
	for _, c := range streamNew {
		byID[c.ID] = c
	}
	for i, r := range recs {
		rec, err := stream.FromStreams(r)
		require.NoError(t, err)
		c, err := stream.Decode(StreamCustomers, rec)
		require.NoError(t, err)
		s, err := sdkDecodeRecord(r)
		require.NoError(t, err)
		require.NotNil(t, c.Old, "record %d", i)
		require.NotNil(t, c.New, "record %d", i)
		assert.Equal(t, *s.Old, *c.Old, "record %d", i)
		assert.Equal(t, *s.New, *c.New, "record %d", i)
		assert.Equal(t, byID[c.New.ID], *c.New, "record %d", i)
		if got := strings.Join(c.Changed, ","); got != "Email,Score,Visits" {
			t.Errorf("StreamWide100 record %d: Changed = %s", i, got)
		}
	}
}
