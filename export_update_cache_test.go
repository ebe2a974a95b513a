package singletable

import (
	"fmt"
	"github.com/singletable/singletable/internal/expr"
	"reflect"

	writes "github.com/singletable/singletable/internal/write"
)

// UpdateCacheLen is how many expression strings an entity's updates share
// (exported for the external test package only).
func UpdateCacheLen[T any](e *Entity[T]) int { return e.m.updates.Shared.Len() }

// UpdateIndexKeysBothWays plans Update of key with ch as Update does and,
// for every index key the plan renders from the values the update gives,
// renders it from a struct built for it too (writes.Plan.NextValue): the two lists
// must be equal (exported for the external test package only).
func UpdateIndexKeysBothWays[T any](e *Entity[T], db *DB, key T, ch Changes, opts ...UpdateOption) (fromValues, fromStruct []string, err error) {
	m, op := e.m, e.m.ops.update
	s, err := updateSettings(op, ch, opts)
	if err != nil {
		return nil, nil, err
	}
	kv := reflect.ValueOf(&key).Elem()
	b := m.updates.Builder()
	defer m.updates.ReleaseBuilder(b)
	plan := writes.Plan{M: m.Entity, Values: &m.values, CreatedField: m.managed.created}
	w := write{a: &action{m: m, op: op}, now: m.managed.clock(db), b: b, key: kv, old: kv, upsert: s.upsert}
	if err := m.planChanges(op, kv, m.managed.beforeUpdate(&w, &s, &plan), b, &plan); err != nil {
		return nil, nil, err
	}
	defer plan.ReleaseNext()
	for i := range plan.Shape.Indexes {
		is := &plan.Shape.Indexes[i]
		if len(is.Missing) > 0 || is.Sources == nil || !plan.Created.IsZero() {
			continue
		}
		pk, sk, ok, err := plan.IndexKey(is)
		fromValues = append(fromValues, fmt.Sprint(pk, "|", sk, "|", ok, "|", err))
		pk, sk, ok, err = m.IndexKey(is.EI, plan.NextValue())
		fromStruct = append(fromStruct, fmt.Sprint(pk, "|", sk, "|", ok, "|", err))
	}
	return fromValues, fromStruct, nil
}

// UpdateShapes is how many update shapes an entity holds resolved.
func UpdateShapes[T any](e *Entity[T]) int { return e.m.updates.Shapes.Len() }

// SetUpdateSkeletons turns update skeletons (update_skeleton.go) on or
// off, and says whether they were on: tests compare the requests built
// with and without them.
func SetUpdateSkeletons(on bool) (was bool) {
	was = !skeletonsOff
	skeletonsOff = !on
	return was
}

// MaxSharedForTest bounds the skeletons' table (expr.MaxShared).
const MaxSharedForTest = expr.MaxShared

// UpdateSkeletons is how many skeletons an entity's updates keep, and how
// many shapes take none (a skeleton did not reproduce their request).
func UpdateSkeletons[T any](e *Entity[T]) (kept, refused int) {
	return e.m.updates.Skeletons.Len(), e.m.updates.NoSkeleton.Len()
}
