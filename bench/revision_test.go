package bench

import (
	"context"
	"maps"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/revision"
)

// Shape revisions (issue #27, item 5): Orders' twin at revision 2, whose
// revision 0 stored the status as "state" (a raw upgrader) and revision 1
// had no currency (a typed one).
var (
	RevShop   = st.MustTable(tableName, st.WithGSI("GSI1"), st.WithGSI("GSI2"))
	RevOrders = st.MustDefine[Order](RevShop, "Order",
		st.Key("USER#{UserID}", "ORDER#{ID}"),
		st.Index("GSI1", "STATUS#{Status}", "{Date}#{ID}"),
		st.Index("GSI2", "DATE#{Date}", "{UserID}#{ID}"),
		revision.Current(2),
		revision.UpgradeItem(0, func(item map[string]types.AttributeValue) error {
			if s, ok := item["state"]; ok {
				item["status"] = s
				delete(item, "state")
			}
			return nil
		}),
		revision.Upgrade(1, func(o *Order) error {
			if o.Currency == "" {
				o.Currency = "EUR"
			}
			return nil
		}),
	)
)

// revItemClient answers every GetItem with item (read-only, as canned
// answers are).
type revItemClient struct {
	cannedClient
	out *dynamodb.GetItemOutput
}

func (c *revItemClient) GetItem(context.Context, *dynamodb.GetItemInput, ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	return c.out, nil
}

// revisionDBs are a DB whose GetItem returns the stored order at the
// current revision, and one whose GetItem returns it at revision 0.
func revisionDBs() (current, old *st.DB) {
	item := storedOrder(putOrder)
	item["_rev"] = &types.AttributeValueMemberN{Value: "2"}
	older := maps.Clone(storedOrder(putOrder))
	older["state"] = older["status"]
	delete(older, "status")
	delete(older, "currency")
	current = st.New(&revItemClient{out: &dynamodb.GetItemOutput{Item: item}}, RevShop, st.WithTableName(tableName))
	old = st.New(&revItemClient{out: &dynamodb.GetItemOutput{Item: older}}, RevShop, st.WithTableName(tableName))
	return current, old
}

// TestAllocationsRevisionCurrent: a Get of an item at the current
// revision allocates as often as the same Get of the entity without
// revisions (the "Get" budget of TestAllocationsAtMostSDK), and decodes
// the same value; an older item is upgraded.
func TestAllocationsRevisionCurrent(t *testing.T) {
	ctx := context.Background()
	const budget = 6 // TestAllocationsAtMostSDK's "Get"
	plain := newEnv(&cannedClient{out: newCanned()}, tableName)
	current, old := revisionDBs()
	var got Order
	twin := testing.AllocsPerRun(50, func() {
		if err := libGet(ctx, plain); err != nil {
			t.Fatal(err)
		}
	})
	rev := testing.AllocsPerRun(50, func() {
		var err error
		if got, err = RevOrders.Get(ctx, current, getKey); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("Get: %.0f allocs/op, at the current revision %.0f", twin, rev)
	if rev > twin || rev > budget {
		t.Errorf("a Get at the current revision allocates %.0f times per op; its twin without revisions %.0f (budget %d)", rev, twin, budget)
	}
	if got != plain.order {
		t.Errorf("decoded %+v, want %+v", got, plain.order)
	}
	up, err := RevOrders.Get(ctx, old, getKey)
	if err != nil {
		t.Fatal(err)
	}
	if want := putOrder; up != want {
		t.Errorf("upgraded %+v, want %+v", up, want)
	}
}

// BenchmarkGetRevision reads an order at the current revision (the cost
// of the check alone) and at revision 0 (both upgraders run).
func BenchmarkGetRevision(b *testing.B) {
	ctx := context.Background()
	current, old := revisionDBs()
	for _, c := range []struct {
		name string
		db   *st.DB
	}{{"Current", current}, {"Old", old}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := RevOrders.Get(ctx, c.db, getKey); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
