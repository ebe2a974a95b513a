//go:build integration

package singletable

// Reliability tests (named after what they check, not after a source file):
// concurrent writers, version conflicts and faulty clients against DynamoDB
// Local; make test runs them on their own with -v to log their figures.

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The reliability tests run against DynamoDB Local and print their figures
// with t.Logf: run them with go test -tags integration -v -run Reliability
// (against DynamoDB Local) to see them.

func TestReliabilityVersionedCounter(t *testing.T) {
	ctx := context.Background()
	db := localDB(t, WShop, nil)
	key := WCounter{ID: "hits"}
	require.NoError(t, WCounters.Create(ctx, db, key))
	const workers, perWorker = 16, 100
	var conflicts, attempts atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := WCounters.Get(ctx, db, key)
			if err != nil {
				errs <- err
				return
			}
			for done := 0; done < perWorker; {
				attempts.Add(1)
				next, err := WCounters.Update(ctx, db, c, Set("Value", c.Value+1))
				switch {
				case err == nil:
					c = next
					done++
				case errors.Is(err, ErrVersionConflict):
					conflicts.Add(1)
					cur, ok := WCounters.CurrentItem(err) // the conflict carries the current item: no re-read
					if !ok {
						errs <- fmt.Errorf("conflict without the current item: %w", err)
						return
					}
					c = cur
				default:
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	final, err := WCounters.Get(ctx, db, key, ConsistentRead())
	require.NoError(t, err)
	t.Logf("RELIABILITY versioned counter: %d goroutines x %d increments: final value %d (want %d), version %d, %d attempts, %d version conflicts retried",
		workers, perWorker, final.Value, workers*perWorker, final.Version, attempts.Load(), conflicts.Load())
	assert.Equal(t, workers*perWorker, final.Value)
	assert.Equal(t, int64(workers*perWorker+1), final.Version)
}

func TestReliabilityOversoldOrders(t *testing.T) {
	ctx := context.Background()
	db := localDB(t, WShop, nil)
	require.NoError(t, WProducts.Create(ctx, db, WProduct{ID: "p1", Name: "Lamp", Category: "home", Price: 20, Inventory: 10}))
	const buyers = 50
	var ok, outOfStock, conflicts atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, buyers)
	for i := 0; i < buyers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			order := WOrder{UserID: fmt.Sprintf("u%02d", i), ID: fmt.Sprintf("o%02d", i), Date: "2024-01-15", Status: "PENDING", Total: 20}
			for {
				err := db.Transact(ctx, func(tx *Tx) error {
					WOrders.TxCreate(tx, order)
					WOrderItems.TxCreate(tx, WOrderItem{OrderID: order.ID, ProductID: "p1", Quantity: 1, Price: 20})
					WProducts.TxUpdate(tx, WProduct{ID: "p1"}, Decrement("Inventory", 1).If(Ge("Inventory", 1)))
					return nil
				})
				switch {
				case err == nil:
					ok.Add(1)
				case errors.Is(err, ErrTransactionConflict):
					conflicts.Add(1)
					continue // another order held the product: try again
				case errors.Is(err, ErrConditionFailed):
					var te *TxError
					if !errors.As(err, &te) || len(te.Actions) != 1 || te.Actions[0].Entity != "Product" {
						errs <- fmt.Errorf("unexpected failure: %w", err)
					}
					outOfStock.Add(1)
				default:
					errs <- err
				}
				return
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	p, err := WProducts.Get(ctx, db, WProduct{ID: "p1"}, ConsistentRead())
	require.NoError(t, err)
	orders := 0
	for i := 0; i < buyers; i++ {
		if _, err := WOrders.Get(ctx, db, WOrder{UserID: fmt.Sprintf("u%02d", i), ID: fmt.Sprintf("o%02d", i)}, ConsistentRead()); err == nil {
			orders++
		}
	}
	t.Logf("RELIABILITY oversell: %d concurrent orders for 10 in stock: %d succeeded, %d refused (out of stock), %d transaction conflicts retried; stock now %d; %d orders stored",
		buyers, ok.Load(), outOfStock.Load(), conflicts.Load(), p.Inventory, orders)
	assert.Equal(t, int64(10), ok.Load())
	assert.Equal(t, int64(40), outOfStock.Load())
	assert.Equal(t, 0, p.Inventory)
	assert.Equal(t, 10, orders, "refused orders left nothing behind")
}

// faultyClient wraps a real client and injects faults into BatchWriteItem:
// a throttling error on about throttle of the calls (nothing written), and
// about unprocessed of each other batch returned unprocessed (not written).
type faultyClient struct {
	Client
	throttle, unprocessed float64
	mu                    sync.Mutex
	rng                   *rand.Rand
	calls, throttled      int
	withheld              int
}

func (c *faultyClient) roll() float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.rng.Float64()
}

func (c *faultyClient) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	c.mu.Lock()
	c.calls++
	c.mu.Unlock()
	if c.roll() < c.throttle {
		c.mu.Lock()
		c.throttled++
		c.mu.Unlock()
		return nil, &types.ProvisionedThroughputExceededException{Message: aws.String("injected: throughput exceeded")}
	}
	send := map[string][]types.WriteRequest{}
	held := map[string][]types.WriteRequest{}
	for table, reqs := range in.RequestItems {
		for _, r := range reqs {
			if c.roll() < c.unprocessed {
				held[table] = append(held[table], r)
			} else {
				send[table] = append(send[table], r)
			}
		}
	}
	out := &dynamodb.BatchWriteItemOutput{UnprocessedItems: map[string][]types.WriteRequest{}}
	if len(send) > 0 {
		res, err := c.Client.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: send}, opts...)
		if err != nil {
			return nil, err
		}
		for table, reqs := range res.UnprocessedItems {
			out.UnprocessedItems[table] = append(out.UnprocessedItems[table], reqs...)
		}
	}
	for table, reqs := range held {
		c.mu.Lock()
		c.withheld += len(reqs)
		c.mu.Unlock()
		out.UnprocessedItems[table] = append(out.UnprocessedItems[table], reqs...)
	}
	return out, nil
}

func TestReliabilityBatchWriteNothingLost(t *testing.T) {
	ctx := context.Background()
	raw := localClient(t)
	faulty := &faultyClient{Client: raw, throttle: 0.3, unprocessed: 0.5, rng: rand.New(rand.NewPCG(1, 2))}
	db := localDB(t, WShop, faulty)
	const n = 10000
	recs := make([]WRecord, n)
	for i := range recs {
		recs[i] = WRecord{ID: fmt.Sprintf("r%05d", i), N: i}
	}
	start := time.Now()
	err := db.BatchWrite(ctx, []BatchOp{BatchPut(WRecords, recs...)}, Concurrency(8),
		BatchRetry(RetryPolicy{MaxAttempts: 6, BaseDelay: time.Millisecond, MaxDelay: 10 * time.Millisecond}))
	elapsed := time.Since(start)
	returned := WRecords.UnprocessedPuts(err)
	if err != nil {
		require.ErrorIs(t, err, ErrUnprocessed)
	}
	// Count what is in the table, and check no returned item is there.
	stored := map[string]bool{}
	var start2 map[string]types.AttributeValue
	for {
		res, err := raw.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(db.TableName()), ExclusiveStartKey: start2, ConsistentRead: aws.Bool(true)})
		require.NoError(t, err)
		for _, item := range res.Items {
			stored[item["id"].(*types.AttributeValueMemberS).Value] = true
		}
		if len(res.LastEvaluatedKey) == 0 {
			break
		}
		start2 = res.LastEvaluatedKey
	}
	both := 0
	for _, r := range returned {
		if stored[r.ID] {
			both++
		}
	}
	var be *BatchError
	requests := 0
	if errors.As(err, &be) {
		requests = be.Requests
	}
	t.Logf("RELIABILITY batch write: %d items through a faulty client (%.0f%% of calls throttled, %.0f%% of each batch returned unprocessed): %d in the table + %d returned in the BatchError = %d (want %d); %d in both; %d calls, %d throttled, %d items withheld; %d requests in the error; %s",
		n, faulty.throttle*100, faulty.unprocessed*100, len(stored), len(returned), len(stored)+len(returned), n, both,
		faulty.calls, faulty.throttled, faulty.withheld, requests, elapsed.Round(time.Millisecond))
	assert.Equal(t, n, len(stored)+len(returned), "every item is stored or returned")
	assert.Zero(t, both, "no item is both stored and returned")
	assert.NotEmpty(t, returned, "the budget is small enough that some items come back")
	assert.Greater(t, len(stored), n/2)

	// The returned items go through on a second call without faults.
	faulty.throttle, faulty.unprocessed = 0, 0
	require.NoError(t, db.BatchWrite(ctx, be.Ops()))
	got, err := WRecords.BatchGet(ctx, db, recs[:300])
	require.NoError(t, err)
	for i, r := range got {
		require.NotNil(t, r, "record %d", i)
	}
}
