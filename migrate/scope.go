package migrate

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	st "github.com/singletable/singletable"
)

// ErrOrphanGuard is a table-wide guard item of the field ScopeUnique moves
// that no item holds: the item it names is gone, holds another value, or
// failed to move (see Report.Failures). ScopeUnique leaves it in place.
var ErrOrphanGuard = errors.New("singletable: a guard item no item holds")

// ScopeUnique moves the guard items of unique field from the table-wide
// form to the scoped one, after the model changed the field from
// Unique("Email") to Unique("Email within TenantID"): e is the entity as
// the new model declares it. For each item of the entity that holds a
// value, one transaction checks that the item still holds the value and
// scope, puts the scoped guard (which must be absent or the item's) and
// deletes the table-wide one (which must be the item's). An item without
// a table-wide guard of its own (moved by an earlier run, or written by
// the new model) is skipped; a scoped value another item holds already (one
// written by the new model meanwhile) fails the item with a
// *singletable.UniqueViolationError in the Report; an item changed
// meanwhile is read again, as Run's are. Once every item is handled, the
// field's table-wide guards left that no item holds are reported
// (Report.Orphans, and Failures matching ErrOrphanGuard) and left in
// place. DryRun reads both guards of each item instead of writing;
// SaveCheckpoints and the other options work as for Run. Run it once
// every writer runs the new model.
func ScopeUnique[T any](ctx context.Context, db *st.DB, e *st.Entity[T], field string, opts ...Option) (*Report, error) {
	if e == nil {
		return nil, &st.InputError{Op: "migrate.ScopeUnique", Reason: "the entity is nil"}
	}
	op := e.Name() + ".ScopeUnique"
	if field == "" {
		return nil, &st.InputError{Op: op, Reason: "the field is empty"}
	}
	return run(ctx, db, e, op, func(context.Context, *T) error { return nil }, field, false, opts)
}

// The actions of a move transaction (see bridge.Rescope.Move).
const (
	moveHolds = iota
	movePut
	moveDelete
)

// moveGuard makes one attempt at moving the guard of the item read as raw.
func (mg *migration[T]) moveGuard(ctx context.Context, raw map[string]types.AttributeValue) (outcome, error) {
	key := mg.scope.Key(raw)
	in, err := mg.scope.Move(raw)
	if in == nil || err != nil {
		if err != nil {
			return outFailed, err
		}
		return outSkipped, nil // no value, no guard
	}
	if mg.s.dryRun {
		return mg.predictMove(ctx, raw, key)
	}
	if mg.s.beforeWrite != nil {
		mg.s.beforeWrite(ctx, key)
	}
	out, err := mg.client.TransactWriteItems(ctx, in)
	if err != nil {
		var tce *types.TransactionCanceledException
		if !errors.As(err, &tce) || len(tce.CancellationReasons) != 3 {
			return outFailed, opError(mg.op, err)
		}
		r := tce.CancellationReasons
		failed := func(i int) bool { return aws.ToString(r[i].Code) == "ConditionalCheckFailed" }
		switch {
		case failed(moveHolds) || aws.ToString(r[moveHolds].Code) == "TransactionConflict" ||
			aws.ToString(r[movePut].Code) == "TransactionConflict" || aws.ToString(r[moveDelete].Code) == "TransactionConflict":
			return outConflict, opError(mg.op, err)
		case failed(movePut):
			return outFailed, mg.scope.Violation(mg.op, raw, mg.scope.Owner(r[movePut].Item), err)
		case failed(moveDelete):
			// No table-wide guard of its own: moved already, or written
			// by the new model (the guard, if any, is another item's).
			return outSkipped, nil
		}
		return outFailed, opError(mg.op, err)
	}
	// Only now: a try that finds the guard moved already changes nothing.
	if mg.s.onChange != nil {
		mg.s.onChange(Change{Key: key})
	}
	used := make([]*types.ConsumedCapacity, 0, len(out.ConsumedCapacity))
	for i := range out.ConsumedCapacity {
		used = append(used, &out.ConsumedCapacity[i])
	}
	return outChanged, mg.units.take(ctx, mg.consumed(true, used...))
}

// predictMove is a dry run's attempt: what the move would do, told by
// reading both guards.
func (mg *migration[T]) predictMove(ctx context.Context, raw, key map[string]types.AttributeValue) (outcome, error) {
	oldKey, newKey, err := mg.scope.Guards(raw)
	if err != nil {
		return outFailed, err
	}
	old, err := mg.reread(ctx, oldKey)
	if err != nil {
		return outFailed, err
	}
	if len(old) == 0 || !sameKey(mg.scope.Owner(old), key) {
		return outSkipped, nil // as the move would be (see moveGuard)
	}
	scoped, err := mg.reread(ctx, newKey)
	if err != nil {
		return outFailed, err
	}
	if owner := mg.scope.Owner(scoped); len(scoped) > 0 && !sameKey(owner, key) {
		return outFailed, mg.scope.Violation(mg.op, raw, owner, nil)
	}
	if mg.s.onChange != nil {
		mg.s.onChange(Change{Key: key})
	}
	return outChanged, nil
}

// sweep reports the field's table-wide guards that no item holds, once
// every item is handled.
func (mg *migration[T]) sweep(ctx context.Context) error {
	in := mg.scope.Sweep()
	for {
		out, err := mg.client.Scan(ctx, in)
		if err != nil {
			return opError(mg.op, err)
		}
		if err := mg.units.take(ctx, mg.consumed(false, out.ConsumedCapacity)); err != nil {
			return err
		}
		for _, guard := range out.Items {
			if !mg.scope.Old(guard) {
				continue
			}
			owner := mg.scope.Owner(guard)
			item, err := mg.reread(ctx, owner)
			if err != nil {
				return err
			}
			if mg.scope.Holds(item, guard) {
				continue // its item moves it (a dry run), or failed to (reported)
			}
			mg.rep.Orphans++
			mg.mu.Lock()
			if len(mg.rep.Failures) < maxReportedFailures {
				mg.rep.Failures = append(mg.rep.Failures, Failure{Key: mg.scope.Key(guard),
					Err: fmt.Errorf("%w: %s names %v, which does not hold its value", ErrOrphanGuard, mg.op, owner)})
			}
			mg.mu.Unlock()
		}
		if len(out.LastEvaluatedKey) == 0 {
			return nil
		}
		next := *in
		next.ExclusiveStartKey = out.LastEvaluatedKey
		in = &next
	}
}

// sameKey reports whether two keys are equal.
func sameKey(a, b map[string]types.AttributeValue) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		s1, ok1 := v.(*types.AttributeValueMemberS)
		s2, ok2 := b[k].(*types.AttributeValueMemberS)
		if !ok1 || !ok2 || s1.Value != s2.Value {
			return false
		}
	}
	return true
}
