package singletable

import (
	"context"
	"fmt"
	"reflect"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/bridge"
)

// Package migrate's way in (see internal/bridge/migrate.go): the scan
// engine's walk over one entity's items, and the model's rendering of a
// migrated item (migrate_write.go).

func init() {
	bridge.Migrate = openMigration
	bridge.Backfills = backfills
	bridge.Throttled = isThrottle
}

// migration is a bridge.Migration: entity m's items walked by r.
type migration struct {
	db *DB
	m  *entityModel
	r  *scanReq
	op string
}

func openMigration(op string, db, entity any, w bridge.MigrateWalk) (bridge.Migration, error) {
	d, m := db.(*DB), entity.(AnyEntity).model()
	s := &settings{walk: &walkSettings{segments: w.Segments, hasSegments: w.HasSegments,
		concurrency: w.Concurrency, pageSize: w.PageSize}}
	if w.Progress != nil {
		s.walk.progress = w.Progress.(func(ScanProgress))
	}
	r, err := d.scanRequest(op, m, s)
	if err != nil {
		return nil, err
	}
	r.In.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
	return &migration{db: d, m: m, r: r, op: op}, nil
}

func (g *migration) KeyOf(item map[string]types.AttributeValue) map[string]types.AttributeValue {
	return g.m.keyOfItem(item)
}

func (g *migration) Decode(item map[string]types.AttributeValue, v any) error {
	return g.m.decode(item, reflect.ValueOf(v).Elem())
}

func (g *migration) Plan(raw map[string]types.AttributeValue, v any, touch, upgrade bool) (*bridge.MigrateWrite, error) {
	return g.m.migrationWrite(g.op, g.db.name, raw, reflect.ValueOf(v).Elem(), touch, upgrade, g.db.now)
}

func (g *migration) Revision(item map[string]types.AttributeValue) (rev, current int, ok bool) {
	h := g.m.revision()
	if h == nil {
		return 0, 0, false
	}
	rev, err := h.stored(g.m, item)
	return rev, h.current, err == nil
}

func (g *migration) Sleep(ctx context.Context, d time.Duration) error { return g.db.sleep(ctx, d) }

func (g *migration) Resume(position string) error { return g.r.open(g.db.cursor.keys, position) }

func (g *migration) Walk(ctx context.Context, page func(context.Context, *dynamodb.ScanOutput) (bool, error), done func(string) error) error {
	g.r.onPage = func(p ScanProgress) error { return done(p.Position) }
	return g.r.walk(ctx, g.db.via(g.r.meter, 0), func(ctx context.Context, _ int, out *dynamodb.ScanOutput) (bool, error) {
		return page(ctx, g.m.dropOthers(g.op, out))
	})
}

func (g *migration) Position() (string, error) {
	g.r.Mu.Lock()
	defer g.r.Mu.Unlock()
	return g.r.seal()
}

func backfills(op string, entity any, index string) error {
	m := entity.(AnyEntity).model()
	ix, ok := m.table.index(index) // a GSI or an LSI: each key is written alike
	if !ok {
		return &InputError{Op: op, Reason: fmt.Sprintf("index %s is not declared on table %s", index, m.table.schema.Name)}
	}
	for _, ei := range m.Indexes {
		if ei.Index == &ix.index && ei.Writes() {
			return nil
		}
	}
	return &InputError{Op: op, Reason: fmt.Sprintf("entity %s writes no key of its own into index %s (declare it with Index), so there is nothing to backfill", m.Name, index)}
}
