package singletable

import (
	"fmt"
	"reflect"
)

// UpdateCacheLen is how many expression strings an entity's updates share
// (exported for the external test package only).
func UpdateCacheLen[T any](e *Entity[T]) int { return e.m.updates.Shared.Len() }

// UpdateIndexKeysBothWays plans Update of key with ch as Update does and,
// for every index key the plan renders from the values the update gives,
// renders it from a struct built for it too (nextValue): the two lists
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
	var plan updatePlan
	w := write{a: &action{m: m, op: op}, now: m.managed.clock(db), b: b, key: kv, old: kv, upsert: s.upsert}
	if err := m.planChanges(op, kv, m.managed.beforeUpdate(&w, &s, &plan), b, &plan); err != nil {
		return nil, nil, err
	}
	defer plan.releaseNext()
	for i := range plan.shape.Indexes {
		is := &plan.shape.Indexes[i]
		if len(is.Missing) > 0 || is.Sources == nil || !plan.created.IsZero() {
			continue
		}
		pk, sk, ok, err := plan.indexKey(is)
		fromValues = append(fromValues, fmt.Sprint(pk, "|", sk, "|", ok, "|", err))
		pk, sk, ok, err = m.IndexKey(is.EI, plan.nextValue())
		fromStruct = append(fromStruct, fmt.Sprint(pk, "|", sk, "|", ok, "|", err))
	}
	return fromValues, fromStruct, nil
}

// UpdateShapes is how many update shapes an entity holds resolved.
func UpdateShapes[T any](e *Entity[T]) int { return e.m.updates.Shapes.Len() }
