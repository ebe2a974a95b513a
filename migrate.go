package singletable

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Migrations
//
// A migration walks every item of one entity (a parallel scan, as
// Entity.Scan), decodes it, applies a Go transform to the value, and
// writes the item back as the current model renders it: its fields, its
// primary key and the keys of every index recomputed. Attributes the
// model does not write (another writer's) are written back as read. An
// item whose rendering equals what is stored is skipped, so a migration is
// idempotent and a crashed one can simply run again; with a checkpoint
// store (SaveCheckpoints) it resumes where it stopped instead of
// re-reading everything.
//
// Each write is a PutItem conditioned on the item being unchanged since it
// was read: the stored version when the entity has a version field (the
// write stores it plus one), else every attribute equal to what was read
// and the model's other attributes still absent. An item another writer
// changed in between is read again (strongly consistent), transformed
// again and written, up to MaxRetries times: a concurrent change is never
// overwritten with stale data. A condition over DynamoDB's 4 KB
// expression limit (items of some 200 attributes) fails that item: declare
// a version field for such entities.
//
// Managed fields: the version goes up by one (other writers holding the
// old one get a version conflict and read again); the updated timestamp
// is left as stored unless TouchUpdated (a backfill is not an update of
// the item's content); unique values must not change (their guard items
// are left as they are; change them with Update).
//
// A changed primary key (a new PK or SK template) moves the item: one
// transaction deletes the old item (on the same unchanged condition) and
// puts the new one (which must not exist). Entities with unique fields
// cannot move: their guard items name the old key; such items fail with
// an *InputError (ErrInvalidInput) in the report.

// ErrSkipItem is what a migration's transform returns to leave an item
// as it is stored; it is counted as skipped.
var ErrSkipItem = errors.New("singletable: skip this item")

// defaultMigrateRetries is how often a migration retries an item another
// writer changed, without MaxRetries.
const defaultMigrateRetries = 3

// maxReportedFailures caps MigrationReport.Failures.
const maxReportedFailures = 100

// migrateSettings are what the migration options add up to.
type migrateSettings struct {
	dryRun      bool
	touch       bool
	items       float64 // items per second; 0: no limit
	units       float64 // capacity units per second; 0: no limit
	store       CheckpointStore
	every       time.Duration
	retries     int
	hasRetries  bool
	onChange    func(MigrationChange)
	beforeWrite func(ctx context.Context, key map[string]types.AttributeValue) // tests: between read and write
	now         func() time.Time                                               // tests: the limiter's clock
	sleep       func(ctx context.Context, d time.Duration) error               // tests: the limiter's sleep
}

// migrateOpt is an option of migrations only.
type migrateOpt struct{ set func(*migrateSettings) }

func (o migrateOpt) apply(s *settings) { o.set(&s.walkSettings().migrate) }
func (migrateOpt) migrateOption()      {}

// DryRun makes a migration read and transform every item and report what
// would change (the report's counts, OnChange) without writing anything or
// saving checkpoints.
func DryRun() MigrateOption { return migrateOpt{func(m *migrateSettings) { m.dryRun = true }} }

// TouchUpdated makes a migration set the updated timestamp of the items
// it changes; by default it leaves them as stored.
func TouchUpdated() MigrateOption { return migrateOpt{func(m *migrateSettings) { m.touch = true }} }

// RateLimit paces a migration to at most n items per second, scanned
// items counted, across all segments.
func RateLimit(n float64) MigrateOption { return migrateOpt{func(m *migrateSettings) { m.items = n }} }

// CapacityLimit paces a migration to at most n capacity units per second,
// reads and writes together, as DynamoDB reports them consumed
// (ReturnConsumedCapacity).
func CapacityLimit(n float64) MigrateOption {
	return migrateOpt{func(m *migrateSettings) { m.units = n }}
}

// MaxRetries sets how often a migration writes an item again after
// another writer changed it between the read and the write (default 3);
// past it, the item is reported failed and left as the other writer made
// it.
func MaxRetries(n int) MigrateOption {
	return migrateOpt{func(m *migrateSettings) { m.retries, m.hasRetries = n, true }}
}

// OnChange calls f for each item a migration changes (or, with DryRun,
// would change), from the migration's goroutines, possibly at once.
func OnChange(f func(MigrationChange)) MigrateOption {
	return migrateOpt{func(m *migrateSettings) { m.onChange = f }}
}

// SaveCheckpoints makes a migration resume from the position store holds
// (if any), and save its position there at least every interval (0:
// after every page) and when it ends, even by an error or a cancelled
// context. A position covers only pages whose every item was handled, so
// a resumed migration handles some items again: those already migrated
// are skipped. Once the migration completes, the stored position says so,
// and running it again with the same store does nothing: give a fresh
// store (or Save "") to run it again.
func SaveCheckpoints(store CheckpointStore, every time.Duration) MigrateOption {
	return migrateOpt{func(m *migrateSettings) { m.store, m.every = store, every }}
}

// CheckpointStore keeps a migration's position (see SaveCheckpoints).
// Load returns "" when nothing was saved.
type CheckpointStore interface {
	Load(ctx context.Context) (string, error)
	Save(ctx context.Context, position string) error
}

// FileCheckpoint is a CheckpointStore in the file at path, replaced
// atomically (written beside it, then renamed) on each Save.
func FileCheckpoint(path string) CheckpointStore { return fileCheckpoint(path) }

type fileCheckpoint string

func (f fileCheckpoint) Load(context.Context) (string, error) {
	b, err := os.ReadFile(string(f))
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	return string(b), err
}

func (f fileCheckpoint) Save(_ context.Context, position string) error {
	tmp, err := os.CreateTemp(filepath.Dir(string(f)), filepath.Base(string(f))+".*")
	if err != nil {
		return err
	}
	_, err = tmp.WriteString(position)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), string(f))
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// MigrationChange is one item a migration changes.
type MigrationChange struct {
	// Key is the item's stored key; NewKey its new one when the key
	// changes (nil otherwise).
	Key, NewKey map[string]types.AttributeValue
	// Attributes are the attributes added, changed or removed, sorted.
	Attributes []string
}

// MigrationReport is what a migration did.
type MigrationReport struct {
	Entity string
	DryRun bool
	// Scanned items of the entity were read; of them, Changed were
	// written (or, in a dry run, would be), Skipped were left as they
	// are (already in the target shape, ErrSkipItem, or deleted by
	// another writer meanwhile) and Failed were not written (Failures
	// says why, for the first 100). An item a resumed migration reads
	// again counts again.
	Scanned, Changed, Skipped, Failed int64
	// Retried counts the writes made again because another writer
	// changed the item between the read and the write.
	Retried int64
	// ConsumedCapacity is the capacity units the migration's reads and
	// writes consumed, as DynamoDB reported them.
	ConsumedCapacity float64
	// Failures are the first failed items.
	Failures []MigrationFailure
	// Position is where the migration stopped (see SaveCheckpoints).
	Position string
}

// MigrationFailure is an item a migration did not write, and why.
type MigrationFailure struct {
	Key map[string]types.AttributeValue
	Err error
}

// Migrate applies transform to every item of the entity and writes back
// those whose stored form changes (see Migrations). transform may change
// any field; it returns ErrSkipItem to leave an item alone, or another
// error to report the item failed. The returned error is what stopped the
// migration (a cancelled context, a failed scan, a checkpoint that could
// not be saved); items that failed are in the report, which is returned
// in either case once the scan started.
func (e *Entity[T]) Migrate(ctx context.Context, db *DB, transform func(ctx context.Context, v *T) error, opts ...MigrateOption) (*MigrationReport, error) {
	op := e.m.name + ".Migrate"
	if transform == nil {
		return nil, &InputError{Op: op, Reason: "the transform is nil"}
	}
	return e.migrate(ctx, db, op, transform, opts)
}

// BackfillIndex writes the keys of index into every item of the entity
// that lacks them (or holds stale ones): the migration that follows adding
// an index to the model (and to the table: see AddMissingIndexes). Items
// whose stored form already matches the model are skipped. The entity must
// write keys of its own into the index.
func (e *Entity[T]) BackfillIndex(ctx context.Context, db *DB, index string, opts ...MigrateOption) (*MigrationReport, error) {
	op := e.m.name + ".BackfillIndex"
	ix, ok := e.m.table.GSI(index)
	if !ok {
		return nil, &InputError{Op: op, Reason: fmt.Sprintf("index %s is not declared on table %s", index, e.m.table.name)}
	}
	writes := false
	for _, ei := range e.m.indexes {
		writes = writes || (ei.index == ix && ei.writes())
	}
	if !writes {
		return nil, &InputError{Op: op, Reason: fmt.Sprintf("entity %s writes no key of its own into index %s (declare it with Index), so there is nothing to backfill", e.m.name, index)}
	}
	return e.migrate(ctx, db, op, func(context.Context, *T) error { return nil }, opts)
}

// migration is one run of Migrate.
type migration[T any] struct {
	e      *Entity[T]
	db     *DB
	op     string
	fn     func(context.Context, *T) error
	w      *migrateSettings
	items  *limiter
	units  *limiter
	rep    *MigrationReport
	counts struct{ scanned, changed, skipped, failed, retried atomic.Int64 }
	mu     sync.Mutex // guards rep.Failures and rep.ConsumedCapacity
}

func (e *Entity[T]) migrate(ctx context.Context, db *DB, op string, fn func(context.Context, *T) error, opts []MigrateOption) (*MigrationReport, error) {
	s, err := collect(op, opts)
	if err != nil {
		return nil, err
	}
	r, err := db.scanRequest(op, e.m, s)
	if err != nil {
		return nil, err
	}
	w := &r.w.migrate
	switch {
	case w.items < 0 || w.units < 0:
		return nil, &InputError{Op: op, Reason: "RateLimit and CapacityLimit must not be negative"}
	case w.retries < 0:
		return nil, &InputError{Op: op, Reason: "MaxRetries must not be negative"}
	case w.every < 0:
		return nil, &InputError{Op: op, Reason: "SaveCheckpoints: the interval must not be negative"}
	}
	if !w.hasRetries {
		w.retries = defaultMigrateRetries
	}
	if w.dryRun {
		w.store = nil
	}
	client := db.client
	r.In.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
	mg := &migration[T]{e: e, db: db, op: op, fn: fn, w: w, rep: &MigrationReport{Entity: e.m.name, DryRun: w.dryRun}}
	now, sleep := w.now, w.sleep
	if now == nil {
		now = time.Now
	}
	if sleep == nil {
		sleep = db.sleep
	}
	mg.items, mg.units = newLimiter(w.items, now, sleep), newLimiter(w.units, now, sleep)
	if w.store != nil {
		pos, err := w.store.Load(ctx)
		if err != nil {
			return nil, opError(op, fmt.Errorf("loading the checkpoint: %w", err))
		}
		if pos != "" {
			if err := r.open(db.cursor.keys, pos); err != nil {
				return nil, err
			}
		}
	}
	var lastSave time.Time
	r.onPage = func(p ScanProgress) error {
		mg.rep.Position = p.Position
		if w.store == nil || (w.every > 0 && now().Sub(lastSave) < w.every) {
			return nil
		}
		lastSave = now()
		return mg.save(ctx, p.Position)
	}
	walkErr := r.walk(ctx, client, mg.page)
	if w.store != nil {
		// The last position whatever stopped the walk: every page it
		// covers was handled in full.
		r.Mu.Lock()
		pos, err := r.seal()
		r.Mu.Unlock()
		if err == nil {
			mg.rep.Position = pos
			err = mg.save(context.WithoutCancel(ctx), pos)
		}
		walkErr = errors.Join(walkErr, err)
	}
	c := &mg.counts
	mg.rep.Scanned, mg.rep.Changed, mg.rep.Skipped = c.scanned.Load(), c.changed.Load(), c.skipped.Load()
	mg.rep.Failed, mg.rep.Retried = c.failed.Load(), c.retried.Load()
	return mg.rep, walkErr
}

func (mg *migration[T]) save(ctx context.Context, pos string) error {
	if err := mg.w.store.Save(ctx, pos); err != nil {
		return opError(mg.op, fmt.Errorf("saving the checkpoint: %w", err))
	}
	return nil
}

// page handles the items of one page of a segment, one after the other.
func (mg *migration[T]) page(ctx context.Context, _ int, page *dynamodb.ScanOutput) error {
	if err := mg.units.take(ctx, mg.consumed(page.ConsumedCapacity)); err != nil {
		return err
	}
	for _, raw := range page.Items {
		if err := mg.items.take(ctx, 1); err != nil {
			return err
		}
		mg.counts.scanned.Add(1)
		if err := mg.item(ctx, raw); err != nil {
			return err
		}
	}
	return nil
}

// outcome is what one attempt at an item came to.
type outcome uint8

const (
	outChanged outcome = iota
	outSkipped
	outConflict // another writer changed the item: read it again
	outFailed
)

// item migrates one item, reading it again after a conflict. Only what
// stops the whole migration (a cancelled context) is returned.
func (mg *migration[T]) item(ctx context.Context, raw map[string]types.AttributeValue) error {
	key := mg.e.m.keyOfItem(raw)
	for attempt := 0; ; attempt++ {
		out, err := mg.try(ctx, raw)
		switch {
		case out == outChanged && err == nil:
			mg.counts.changed.Add(1)
		case out == outSkipped:
			mg.counts.skipped.Add(1)
		case ctx.Err() != nil:
			// Cancelled: not the item's failure, and not a conflict to
			// retry; a resumed migration handles it again.
			return ctx.Err()
		case out == outChanged: // written, then the pacing wait failed
			mg.counts.changed.Add(1)
			return err
		case out == outFailed:
			mg.fail(key, err)
		case out == outConflict:
			if attempt >= mg.w.retries {
				mg.fail(key, fmt.Errorf("singletable: %s: the item kept changing: %d retries: %w", mg.op, mg.w.retries, err))
				return nil
			}
			mg.counts.retried.Add(1)
			if raw, err = mg.reread(ctx, key); err != nil || raw == nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				if err != nil {
					mg.fail(key, err)
				} else {
					mg.counts.skipped.Add(1) // deleted meanwhile
				}
				return nil
			}
			continue
		}
		return nil
	}
}

func (mg *migration[T]) fail(key map[string]types.AttributeValue, err error) {
	mg.counts.failed.Add(1)
	mg.mu.Lock()
	if len(mg.rep.Failures) < maxReportedFailures {
		mg.rep.Failures = append(mg.rep.Failures, MigrationFailure{Key: key, Err: err})
	}
	mg.mu.Unlock()
}

func (mg *migration[T]) consumed(c ...*types.ConsumedCapacity) float64 {
	var units float64
	for _, cc := range c {
		if cc != nil {
			units += aws.ToFloat64(cc.CapacityUnits)
		}
	}
	mg.mu.Lock()
	mg.rep.ConsumedCapacity += units
	mg.mu.Unlock()
	return units
}

// reread reads the item again, strongly consistent; nil when it is gone.
func (mg *migration[T]) reread(ctx context.Context, key map[string]types.AttributeValue) (map[string]types.AttributeValue, error) {
	out, err := mg.db.client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(mg.db.name), Key: key, ConsistentRead: aws.Bool(true),
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
	})
	if err != nil {
		return nil, opError(mg.op, err)
	}
	if err := mg.units.take(ctx, mg.consumed(out.ConsumedCapacity)); err != nil {
		return nil, err
	}
	return out.Item, nil
}

// try makes one attempt at migrating the item read as raw.
func (mg *migration[T]) try(ctx context.Context, raw map[string]types.AttributeValue) (outcome, error) {
	m := mg.e.m
	var v T
	rv := reflect.ValueOf(&v).Elem()
	if err := m.decode(raw, rv); err != nil {
		return outFailed, err
	}
	if err := mg.fn(ctx, &v); err != nil {
		if errors.Is(err, ErrSkipItem) {
			return outSkipped, nil
		}
		return outFailed, fmt.Errorf("singletable: %s: transform: %w", mg.op, err)
	}
	w, err := m.migrationWrite(mg.op, mg.db.name, raw, rv, mg.w.touch, mg.db.now)
	if w == nil || err != nil {
		if err != nil {
			return outFailed, err
		}
		return outSkipped, nil
	}
	if mg.w.onChange != nil {
		mg.w.onChange(w.change)
	}
	if mg.w.dryRun {
		return outChanged, nil
	}
	if mg.w.beforeWrite != nil {
		mg.w.beforeWrite(ctx, w.change.Key)
	}
	var used []*types.ConsumedCapacity
	if w.tx == nil {
		out, err := mg.db.client.PutItem(ctx, w.put)
		if err != nil {
			var ccf *types.ConditionalCheckFailedException
			if errors.As(err, &ccf) {
				return outConflict, opError(mg.op, err)
			}
			return outFailed, opError(mg.op, err)
		}
		used = append(used, out.ConsumedCapacity)
	} else {
		out, err := mg.db.client.TransactWriteItems(ctx, w.tx)
		if err != nil {
			return moveFailure(mg.op, err)
		}
		for i := range out.ConsumedCapacity {
			used = append(used, &out.ConsumedCapacity[i])
		}
	}
	return outChanged, mg.units.take(ctx, mg.consumed(used...))
}

// moveFailure says what a failed move transaction (delete the old item,
// put the new one) means: a conflict on the old item, or an item already
// at the new key.
func moveFailure(op string, err error) (outcome, error) {
	var tce *types.TransactionCanceledException
	if errors.As(err, &tce) {
		for i, r := range tce.CancellationReasons {
			switch code := aws.ToString(r.Code); {
			case code == "TransactionConflict" || (i == 0 && code == "ConditionalCheckFailed"):
				return outConflict, opError(op, err)
			case i == 1 && code == "ConditionalCheckFailed":
				return outFailed, &ConditionError{Op: op, Key: nil, Kind: ErrAlreadyExists, Err: err,
					Reason: "the item's new key is taken by another item"}
			}
		}
	}
	return outFailed, opError(op, err)
}

// limiter paces work to rate units per second: each take reserves its
// units' share of time after the previous ones, and waits for its turn.
type limiter struct {
	rate  float64
	now   func() time.Time
	sleep func(context.Context, time.Duration) error
	mu    sync.Mutex
	next  time.Time
}

func newLimiter(rate float64, now func() time.Time, sleep func(context.Context, time.Duration) error) *limiter {
	if rate <= 0 {
		return nil
	}
	return &limiter{rate: rate, now: now, sleep: sleep}
}

func (l *limiter) take(ctx context.Context, units float64) error {
	if l == nil || units <= 0 {
		return ctx.Err()
	}
	l.mu.Lock()
	now := l.now()
	if l.next.Before(now) {
		l.next = now
	}
	wait := l.next.Sub(now)
	l.next = l.next.Add(time.Duration(units / l.rate * float64(time.Second)))
	l.mu.Unlock()
	if wait <= 0 {
		return ctx.Err()
	}
	return l.sleep(ctx, wait)
}
