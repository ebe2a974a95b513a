//go:build integration

package singletable

// Reliability tests (named after what they check, not after a source file):
// concurrent writers, version conflicts and faulty clients against DynamoDB
// Local; make test runs them on their own with -v to log their figures.

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/singletable/singletable/internal/soak"
)

// The reliability tests run against DynamoDB Local and print their figures
// with t.Logf: run them with go test -tags integration -v -run Reliability
// (against DynamoDB Local) to see them.

func TestReliabilityVersionedCounter(t *testing.T) {
	ctx := context.Background()
	db := localDB(t, WShop, nil)
	key := WCounter{ID: "hits"}
	require.NoError(t, WCounters.Create(ctx, db, key))
	workers, perWorker := 16, soak.Size(30, 100)
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
