package migrate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/capacity"
	"github.com/singletable/singletable/internal/bridge"
)

// ErrSkipItem is what a migration's transform returns to leave an item
// as it is stored; it is counted as skipped.
var ErrSkipItem = errors.New("singletable: skip this item")

// maxReportedFailures caps Report.Failures.
const maxReportedFailures = 100

// Change is one item a migration changes.
type Change struct {
	// Key is the item's stored key; NewKey its new one when the key
	// changes (nil otherwise).
	Key, NewKey map[string]types.AttributeValue
	// Attributes are the attributes added, changed or removed, sorted.
	Attributes []string
}

// Report is what a migration did.
type Report struct {
	// Entity is the entity migrated; DryRun says that nothing was
	// written (see DryRun).
	Entity string
	DryRun bool
	// Scanned items of the entity were read and handled; of them,
	// Changed were written (or, in a dry run, would be), Skipped were
	// left as they are (already in the target shape, ErrSkipItem, or
	// deleted by another writer meanwhile) and Failed were not written
	// (Failures says why, for the first 100): Scanned is always Changed
	// + Skipped + Failed. An item the migration had read but not finished
	// when it stopped (a cancelled context: its write may or may not have
	// happened) is in none of them; a resumed migration reads it again,
	// as it does every item of a page not handled in full, and an item a
	// resumed migration reads again counts again.
	Scanned, Changed, Skipped, Failed int64
	// Retried counts the writes made again because another writer
	// changed the item between the read and the write.
	Retried int64
	// ConsumedCapacity is the capacity the migration's reads and writes
	// consumed, as DynamoDB reported them (the total: by table only, not
	// by index).
	ConsumedCapacity capacity.Consumed
	// Failures are the first failed items.
	Failures []Failure
	// Position is where the migration stopped (see SaveCheckpoints).
	Position string
	// Orphans counts the table-wide guard items ScopeUnique found that no
	// item holds (each is in Failures too, matching ErrOrphanGuard).
	Orphans int64
	// RevisionsBefore and RevisionsAfter count the handled items (those
	// in Scanned) of an entity that declares shape revisions
	// (revision.Current) by revision: Before as each was stored when
	// first read, After as it is stored once handled (the current
	// revision once written, or in a dry run would be; else as last
	// read). An item deleted meanwhile is in Before only, and one whose
	// revision attribute is not a revision in neither. nil for an entity
	// without revisions.
	RevisionsBefore, RevisionsAfter map[int]int64
}

// Failure is an item a migration did not write, and why.
type Failure struct {
	// Key is the item's stored key; Err why it was not written (the
	// transform's error, a decoding or condition error, the write's).
	Key map[string]types.AttributeValue
	Err error
}

// Run applies transform to every item of entity e in db and writes back
// those whose stored form changes (see the package doc). transform may
// change any field; it returns ErrSkipItem to leave an item alone, or
// another error to report the item failed. The returned error is what
// stopped the migration (a cancelled context, a failed scan, a checkpoint
// that could not be saved); items that failed are in the report, which is
// returned in either case once the scan started. A write DynamoDB
// throttles past the SDK's own retries is made again after a wait (100 ms,
// doubled each time) up to 5 times before the item fails. With
// SaveCheckpoints, a resumed migration retries the failed items.
func Run[T any](ctx context.Context, db *st.DB, e *st.Entity[T], transform func(ctx context.Context, v *T) error, opts ...Option) (*Report, error) {
	if e == nil {
		return nil, &st.InputError{Op: "migrate.Run", Reason: "the entity is nil"}
	}
	op := e.Name() + ".Migrate"
	if transform == nil {
		return nil, &st.InputError{Op: op, Reason: "the transform is nil"}
	}
	return run(ctx, db, e, op, transform, "", false, opts)
}

// BackfillIndex writes the keys of index into every item of entity e in
// db that lacks them (or holds stale ones): the migration that follows
// adding an index to the model (and to the table: see
// singletable.AddMissingIndexes). Items whose stored form already matches
// the model are skipped. The entity must write keys of its own into the
// index. The index is a GSI or a local secondary index (an LSI exists only
// if the table was created with it; its sort key is written like any
// index key, sparse rules included).
func BackfillIndex[T any](ctx context.Context, db *st.DB, e *st.Entity[T], index string, opts ...Option) (*Report, error) {
	if e == nil {
		return nil, &st.InputError{Op: "migrate.BackfillIndex", Reason: "the entity is nil"}
	}
	op := e.Name() + ".BackfillIndex"
	if err := bridge.Backfills(op, e, index); err != nil {
		return nil, err
	}
	return run(ctx, db, e, op, func(context.Context, *T) error { return nil }, "", false, opts)
}

// UpgradeRevisions upgrades every item of entity e in db to the entity's
// current shape revision (revision.Current): each older item is read,
// upgraded as reads upgrade it (its upgraders) and written back in the
// current shape, with the machinery and options of Run (segments, rate and
// capacity limits, checkpoints, dry run, OnChange, writes conditioned on
// the item being unchanged, read again after a conflict). The version
// field, if any, is kept: the value is the same, only its shape changes.
//
// Items already at the current revision are counted (Skipped) and not
// written, even if their stored form differs from the model's (that is
// BackfillIndex's or Run's to fix). An item of a newer revision than the
// entity's is not written: it counts as Failed, its *revision.NewerError
// (matching revision.ErrNewer) in Failures. The report's RevisionsBefore
// and RevisionsAfter count the items per revision. An entity that
// declares no revisions is an *singletable.InputError, and nothing is
// sent.
func UpgradeRevisions[T any](ctx context.Context, db *st.DB, e *st.Entity[T], opts ...Option) (*Report, error) {
	if e == nil {
		return nil, &st.InputError{Op: "migrate.UpgradeRevisions", Reason: "the entity is nil"}
	}
	op := e.Name() + ".UpgradeRevisions"
	return run(ctx, db, e, op, func(context.Context, *T) error { return nil }, "", true, opts)
}

// migration is one run of Run, BackfillIndex, UpgradeRevisions or
// ScopeUnique.
type migration[T any] struct {
	g      bridge.Migration
	client st.Client
	table  string
	op     string
	fn     func(context.Context, *T) error
	s      *settings
	items  *limiter
	units  *limiter
	sleep  func(ctx context.Context, d time.Duration) error
	rep    *Report
	counts struct{ scanned, changed, skipped, failed, retried atomic.Int64 }
	mu     sync.Mutex // guards rep.Failures and rep.ConsumedCapacity
	// scope is set for ScopeUnique: each item's guard moves (scope.go).
	scope bridge.Rescope
	// upgrade is set for UpgradeRevisions: only older items are written.
	upgrade bool
	// moved holds the new keys (keyString) of the items this run moved:
	// met again there, they are not handled or counted a second time.
	moved sync.Map
}

// run is a migration of e's items by fn; with a unique field named, the
// move of its guards to their scoped form instead (ScopeUnique); with
// upgrade, the upgrade of older items to the current shape revision
// (UpgradeRevisions).
func run[T any](ctx context.Context, db *st.DB, e *st.Entity[T], op string, fn func(context.Context, *T) error, unique string, upgrade bool, opts []Option) (*Report, error) {
	if db == nil {
		return nil, &st.InputError{Op: op, Reason: "the DB is nil"}
	}
	s, err := collect(op, opts)
	if err != nil {
		return nil, err
	}
	g, err := bridge.Migrate(op, db, e, s.walk)
	if err != nil {
		return nil, err
	}
	_, _, revisioned := g.Revision(nil) // an item without the attribute: the base
	if upgrade && !revisioned {
		return nil, &st.InputError{Op: op, Reason: fmt.Sprintf("entity %s declares no shape revision (revision.Current): there is nothing to upgrade", e.Name())}
	}
	var scope bridge.Rescope
	if unique != "" {
		if scope, err = g.Rescope(unique); err != nil {
			return nil, err
		}
	}
	if s.dryRun {
		s.store = nil
	}
	// Its writes and rereads go through the DB's observer, if it has one.
	client := bridge.Capacity.Client(db, op, e.Name(), "", "", nil).(st.Client)
	mg := &migration[T]{g: g, client: client, table: db.TableName(), op: op, fn: fn, s: s,
		rep: &Report{Entity: e.Name(), DryRun: s.dryRun}, scope: scope, upgrade: upgrade}
	if revisioned {
		mg.rep.RevisionsBefore, mg.rep.RevisionsAfter = map[int]int64{}, map[int]int64{}
	}
	now, sleep := s.now, s.sleep
	if now == nil {
		now = time.Now
	}
	if sleep == nil {
		sleep = g.Sleep
	}
	mg.items, mg.units, mg.sleep = newLimiter(s.items, now, sleep), newLimiter(s.units, now, sleep), sleep
	if s.store != nil {
		pos, err := s.store.Load(ctx)
		if err != nil {
			return nil, opError(op, fmt.Errorf("loading the checkpoint: %w", err))
		}
		if pos != "" {
			if err := g.Resume(pos); err != nil {
				return nil, err
			}
		}
	}
	var lastSave time.Time
	walkErr := g.Walk(ctx, mg.page, func(pos string) error {
		mg.rep.Position = pos
		if s.store == nil || (s.every > 0 && now().Sub(lastSave) < s.every) {
			return nil
		}
		lastSave = now()
		return mg.save(ctx, pos)
	})
	if s.store != nil {
		// The last position whatever stopped the walk: every page it
		// covers was handled in full.
		pos, err := g.Position()
		if err == nil {
			mg.rep.Position = pos
			err = mg.save(context.WithoutCancel(ctx), pos)
		}
		walkErr = errors.Join(walkErr, err)
	}
	if scope != nil && walkErr == nil {
		walkErr = mg.sweep(ctx)
	}
	c := &mg.counts
	mg.rep.Scanned, mg.rep.Changed, mg.rep.Skipped = c.scanned.Load(), c.changed.Load(), c.skipped.Load()
	mg.rep.Failed, mg.rep.Retried = c.failed.Load(), c.retried.Load()
	return mg.rep, walkErr
}

// opError wraps err, an SDK or checkpoint error, with the operation, as
// singletable's errors are.
func opError(op string, err error) error {
	return fmt.Errorf("singletable: %s: %w", op, err)
}

func (mg *migration[T]) save(ctx context.Context, pos string) error {
	if err := mg.s.store.Save(ctx, pos); err != nil {
		return opError(mg.op, fmt.Errorf("saving the checkpoint: %w", err))
	}
	return nil
}

// page handles the items of one page of a segment, one after the other.
// A page with a failed item is to be read again (again): a migration
// resumed from a checkpoint retries its items, so that running it until
// it reports no failure migrates every item.
func (mg *migration[T]) page(ctx context.Context, page *dynamodb.ScanOutput) (again bool, err error) {
	if err := mg.units.take(ctx, mg.consumed(false, page.ConsumedCapacity)); err != nil {
		return false, err
	}
	for _, raw := range page.Items {
		if err := mg.items.take(ctx, 1); err != nil {
			return false, err
		}
		failed, err := mg.item(ctx, raw)
		if err != nil {
			return false, err
		}
		again = again || failed
	}
	return again, nil
}

// outcome is what one attempt at an item came to.
type outcome uint8

const (
	outChanged outcome = iota
	outSkipped
	outConflict  // another writer changed the item: read it again
	outThrottled // DynamoDB throttled the write: write it again, later
	outFailed
)

// item migrates one item, reading it again after a conflict, and reports
// whether it failed. Only what stops the whole migration (a cancelled
// context) is returned. The item counts as scanned with its outcome, so
// that Report.Scanned is the sum of the outcomes: an item left unfinished
// counts nowhere.
func (mg *migration[T]) item(ctx context.Context, raw map[string]types.AttributeValue) (failed bool, err error) {
	key := mg.g.KeyOf(raw)
	if _, ok := mg.moved.Load(keyString(key)); ok {
		return false, nil
	}
	revs := mg.revisions(raw)
	attempt, throttled := 0, 0 // retries after a conflict, after a throttle
	for {
		out, err := mg.try(ctx, raw)
		switch {
		case out == outChanged && err == nil:
			mg.count(&mg.counts.changed, revs.written())
		case out == outSkipped:
			mg.count(&mg.counts.skipped, revs)
		case ctx.Err() != nil:
			// Cancelled: not the item's failure, and not a conflict to
			// retry; a resumed migration handles it again.
			return false, ctx.Err()
		case out == outChanged: // written, then the pacing wait failed
			mg.count(&mg.counts.changed, revs.written())
			return false, err
		case out == outThrottled && throttled < maxThrottleRetries:
			// The SDK's retries are spent: wait longer, and write again.
			throttled++
			if err := mg.sleep(ctx, throttleDelay(throttled)); err != nil {
				return false, err
			}
			continue
		case out == outFailed || out == outThrottled:
			mg.fail(key, err, revs)
			return true, nil
		case out == outConflict:
			if attempt >= mg.s.retries {
				mg.fail(key, fmt.Errorf("singletable: %s: the item kept changing: %d retries: %w", mg.op, mg.s.retries, err), revs)
				return true, nil
			}
			attempt++
			mg.counts.retried.Add(1)
			if raw, err = mg.reread(ctx, key); err != nil || raw == nil {
				if ctx.Err() != nil {
					return false, ctx.Err()
				}
				if err != nil {
					mg.fail(key, err, revs)
					return true, nil
				}
				revs.after = noRevision
				mg.count(&mg.counts.skipped, revs) // deleted meanwhile
				return false, nil
			}
			revs.after = mg.revisions(raw).after
			continue
		}
		return false, nil
	}
}

// maxThrottleRetries is how often a migration writes an item again after
// DynamoDB throttled the write (past the SDK's own retries).
const maxThrottleRetries = 5

// throttleDelay is the wait before the n-th write again of a throttled
// item (from 1): 100 ms doubled each time, up to 1.6 s, the migration's
// other segments going on meanwhile.
func throttleDelay(n int) time.Duration { return 100 * time.Millisecond << (n - 1) }

// noRevision is an itemRevisions entry counted nowhere.
const noRevision = -1

// itemRevisions are the revisions an item counts under in the report:
// before as first read, after as last read (noRevision: none).
type itemRevisions struct{ before, after, current int }

// written is r once the item is written: at the current revision, unless
// ScopeUnique moved only its guard.
func (r itemRevisions) written() itemRevisions {
	if r.after != noRevision && r.current != noRevision {
		r.after = r.current
	}
	return r
}

// revisions is the revisions of raw, noRevision when the entity declares
// none or the item's attribute is not one.
func (mg *migration[T]) revisions(raw map[string]types.AttributeValue) itemRevisions {
	rev, current, ok := mg.g.Revision(raw)
	if !ok {
		return itemRevisions{noRevision, noRevision, noRevision}
	}
	if mg.scope != nil {
		current = noRevision // a guard's move does not rewrite the item
	}
	return itemRevisions{rev, rev, current}
}

// count counts an item handled, with its outcome and revisions.
func (mg *migration[T]) count(outcome *atomic.Int64, revs itemRevisions) {
	if revs.before != noRevision && mg.rep.RevisionsBefore != nil {
		mg.mu.Lock()
		mg.rep.RevisionsBefore[revs.before]++
		if revs.after != noRevision {
			mg.rep.RevisionsAfter[revs.after]++
		}
		mg.mu.Unlock()
	}
	mg.counts.scanned.Add(1)
	outcome.Add(1)
}

func (mg *migration[T]) fail(key map[string]types.AttributeValue, err error, revs itemRevisions) {
	mg.count(&mg.counts.failed, revs)
	mg.mu.Lock()
	if len(mg.rep.Failures) < maxReportedFailures {
		mg.rep.Failures = append(mg.rep.Failures, Failure{Key: key, Err: err})
	}
	mg.mu.Unlock()
}

// consumed adds the capacity of reads or writes to the report, and
// returns the units.
func (mg *migration[T]) consumed(write bool, c ...*types.ConsumedCapacity) float64 {
	mg.mu.Lock()
	defer mg.mu.Unlock()
	return mg.rep.ConsumedCapacity.AddReported(write, c...)
}

// reread reads the item again, strongly consistent; nil when it is gone.
func (mg *migration[T]) reread(ctx context.Context, key map[string]types.AttributeValue) (map[string]types.AttributeValue, error) {
	out, err := mg.client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(mg.table), Key: key, ConsistentRead: aws.Bool(true),
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
	})
	if err != nil {
		return nil, opError(mg.op, err)
	}
	if err := mg.units.take(ctx, mg.consumed(false, out.ConsumedCapacity)); err != nil {
		return nil, err
	}
	return out.Item, nil
}

// try makes one attempt at migrating the item read as raw.
func (mg *migration[T]) try(ctx context.Context, raw map[string]types.AttributeValue) (outcome, error) {
	if mg.scope != nil {
		return mg.moveGuard(ctx, raw)
	}
	if mg.upgrade {
		if rev, current, ok := mg.g.Revision(raw); ok && rev == current {
			return outSkipped, nil // current: not decoded, not written
		}
	}
	var v T
	if err := mg.g.Decode(raw, &v); err != nil {
		return outFailed, err
	}
	if err := mg.fn(ctx, &v); err != nil {
		if errors.Is(err, ErrSkipItem) {
			return outSkipped, nil
		}
		return outFailed, fmt.Errorf("singletable: %s: transform: %w", mg.op, err)
	}
	w, err := mg.g.Plan(raw, &v, mg.s.touch, mg.upgrade)
	if w == nil || err != nil {
		if err != nil {
			return outFailed, err
		}
		return outSkipped, nil
	}
	if mg.s.onChange != nil {
		mg.s.onChange(Change{Key: w.Key, NewKey: w.NewKey, Attributes: w.Attributes})
	}
	if mg.s.dryRun {
		return outChanged, nil
	}
	if mg.s.beforeWrite != nil {
		mg.s.beforeWrite(ctx, w.Key)
	}
	var used []*types.ConsumedCapacity
	if w.Tx == nil {
		out, err := mg.client.PutItem(ctx, w.Put)
		if err != nil {
			var ccf *types.ConditionalCheckFailedException
			if errors.As(err, &ccf) {
				return outConflict, opError(mg.op, err)
			}
			if bridge.Throttled(err) {
				return outThrottled, opError(mg.op, err)
			}
			return outFailed, opError(mg.op, err)
		}
		used = append(used, out.ConsumedCapacity)
	} else {
		out, err := mg.client.TransactWriteItems(ctx, w.Tx)
		if err != nil {
			return moveFailure(mg.op, err)
		}
		mg.moved.Store(keyString(w.NewKey), struct{}{})
		for i := range out.ConsumedCapacity {
			used = append(used, &out.ConsumedCapacity[i])
		}
	}
	return outChanged, mg.units.take(ctx, mg.consumed(true, used...))
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
				return outFailed, &st.ConditionError{Op: op, Key: nil, Kind: st.ErrAlreadyExists, Err: err,
					Reason: "the item's new key is taken by another item"}
			}
		}
	}
	return outFailed, opError(op, err)
}

// keyString is key (S, N or B attributes) as one comparable string.
func keyString(key map[string]types.AttributeValue) string {
	names := make([]string, 0, len(key))
	for name := range key {
		names = append(names, name)
	}
	slices.Sort(names)
	var b strings.Builder
	for _, name := range names {
		b.WriteString(name)
		switch v := key[name].(type) {
		case *types.AttributeValueMemberS:
			b.WriteString("\x00S" + v.Value)
		case *types.AttributeValueMemberN:
			b.WriteString("\x00N" + v.Value)
		case *types.AttributeValueMemberB:
			b.WriteString("\x00B" + string(v.Value))
		}
		b.WriteByte(0)
	}
	return b.String()
}
