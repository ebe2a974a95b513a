// Command compress shows compressed fields on the seed's advice
// (dynamodb-design-patterns.txt, "Compress Large Items"): an order's event
// log, a JSON blob, is stored gzip-compressed in a binary attribute by the
// tag `singletable:"compress"`, and every read restores it. It writes the
// same order with and without compression and prints the write units each
// put consumed; then it switches the entity to zstd and reads the gzip
// item back. It exits non-zero if any result is wrong.
//
//	scripts/dynamodb-local.sh run -- go run ./examples/compress
//	make examples   # runs every example, this one included
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/compress"
	"github.com/singletable/singletable/compress/zstd"
	"github.com/singletable/singletable/internal/examplekit"
	"github.com/singletable/singletable/singletabletest/local"
)

// Order is an order with its event log (JSON), compressed.
type Order struct {
	Customer string
	ID       string
	Status   string
	Events   string `singletable:"compress"`
}

// PlainOrder is the same order stored as it is.
type PlainOrder struct {
	Customer string
	ID       string
	Status   string
	Events   string
}

var (
	App    = st.MustTable("Compress")
	Orders = st.MustDefine[Order](App, "Order", st.Key("CUSTOMER#{Customer}", "ORDER#{ID}"))
	Plain  = st.MustDefine[PlainOrder](App, "PlainOrder", st.Key("CUSTOMER#{Customer}", "PLAIN#{ID}"))
)

// events is an order's event log as an API keeps it: about 12 KB of JSON.
func events() string {
	type event struct {
		At     string `json:"at"`
		Type   string `json:"type"`
		Actor  string `json:"actor"`
		Detail string `json:"detail"`
	}
	kinds := []string{"created", "payment_authorized", "picked", "packed", "shipped", "delivery_attempted", "delivered"}
	var log []event
	for i := 0; i < 70; i++ {
		log = append(log, event{At: fmt.Sprintf("2024-03-%02dT%02d:%02d:00Z", 1+i/10, i%24, i*7%60), Type: kinds[i%len(kinds)], Actor: fmt.Sprintf("svc-%d", i%5), Detail: fmt.Sprintf("warehouse WH-%d, carrier parcel %08d, line %d of the order", i%3, i*7919, i%9)})
	}
	b, _ := json.Marshal(log)
	return string(b)
}

func main() {
	if err := run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "compress:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	var c examplekit.Checker
	client, err := local.Client(ctx)
	if err != nil {
		return err
	}
	name := examplekit.UniqueName("compress-example")
	db := st.New(client, App, st.WithTableName(name))
	if err := examplekit.FreshTable(ctx, db); err != nil {
		return err
	}
	defer func() { _ = db.DeleteTable(ctx) }()

	log := events()
	// units sends a put with its consumed capacity asked for.
	units := func(in *dynamodb.PutItemInput) (float64, error) {
		in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
		out, err := client.PutItem(ctx, in)
		if err != nil {
			return 0, err
		}
		if out.ConsumedCapacity != nil && out.ConsumedCapacity.CapacityUnits != nil {
			return *out.ConsumedCapacity.CapacityUnits, nil
		}
		return 0, fmt.Errorf("no consumed capacity returned")
	}
	plainIn, err := Plain.PutInput(db, PlainOrder{Customer: "ann", ID: "o1", Status: "DELIVERED", Events: log})
	if err != nil {
		return err
	}
	plainUnits, err := units(plainIn)
	if err != nil {
		return err
	}
	in, err := Orders.PutInput(db, Order{Customer: "ann", ID: "o1", Status: "DELIVERED", Events: log})
	if err != nil {
		return err
	}
	zUnits, err := units(in)
	if err != nil {
		return err
	}
	stored := len(in.Item["Events"].(*types.AttributeValueMemberB).Value)
	fmt.Printf("event log: %d bytes of JSON, stored compressed in %d bytes (%.0f%% smaller)\n", len(log), stored, 100-100*float64(stored)/float64(len(log)))
	fmt.Printf("write units per put: %.0f plain, %.0f compressed\n", plainUnits, zUnits)
	c.Equal("write units of the plain put (1 per KB)", math.Ceil(float64(len(log))/1024), plainUnits)
	c.That("the compressed put costs fewer write units", zUnits < plainUnits)

	got, err := Orders.Get(ctx, db, Order{Customer: "ann", ID: "o1"})
	if err != nil {
		return err
	}
	c.Equal("Get restores the event log", log, got.Events)
	page, err := Orders.Query(ctx, db, Order{Customer: "ann"})
	if err != nil {
		return err
	}
	c.Equal("a query restores it too", 1, len(page.Items))
	c.Equal("the query's event log", log, page.Items[0].Events)

	// Switching codecs needs no migration: the header names the codec.
	app2 := st.MustTable("Compress")
	orders2 := st.MustDefine[Order](app2, "Order", st.Key("CUSTOMER#{Customer}", "ORDER#{ID}"), compress.With(zstd.Codec, 1024))
	db2 := st.New(client, app2, st.WithTableName(name))
	old, err := orders2.Get(ctx, db2, Order{Customer: "ann", ID: "o1"})
	if err != nil {
		return err
	}
	c.Equal("after switching to zstd, the gzip item reads", log, old.Events)
	in2, err := orders2.PutInput(db2, Order{Customer: "ann", ID: "o2", Status: "NEW", Events: log})
	if err != nil {
		return err
	}
	z2, err := units(in2)
	if err != nil {
		return err
	}
	fmt.Printf("with zstd: stored in %d bytes, %.0f write unit(s)\n", len(in2.Item["Events"].(*types.AttributeValueMemberB).Value), z2)
	o2, err := Orders.Get(ctx, db, Order{Customer: "ann", ID: "o2"})
	if err != nil {
		return err
	}
	c.Equal("the gzip program reads the zstd item (it registers zstd by importing it)", log, o2.Events)
	return c.Err()
}
