package singletable

// An update's request from its skeleton: an update given no options, of
// an entity without managed fields or shards, whose shape was seen before
// and whose values decide its request alike (writes.Plan.FastValues),
// takes the request the general planner (planUpdate) built for the last
// such update, with its own values in its own maps (writes.Skeleton).
// Fewer steps, and far less code run per call: most of an update's time
// went into fetching the planner's many functions' instructions. A
// skeleton is kept only once a request filled from it matched the
// planner's byte for byte; a shape it did not match is planned in full
// from then on.

import (
	"maps"
	"reflect"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/codec"
	"github.com/singletable/singletable/internal/expr"
	writes "github.com/singletable/singletable/internal/write"
)

// skeletonsOff turns skeletons off, for tests that compare the requests
// with and without them.
var skeletonsOff bool

// planPlainUpdate is planUpdate (reading nothing) of an update given no
// options (s holds only its changes and condition), of an entity whose
// updates may take skeletons (skeletal): from a skeleton when there is one
// for it, else planned, and its skeleton kept. ok is false, and nothing
// done, for an update that takes no skeleton (a change below a field or
// with a raw value, a shape not seen yet, one that reads the item first).
func (m *entityModel) planPlainUpdate(dst []*action, db *DB, op string, key reflect.Value, s *settings) (acts []*action, ok bool, err error) {
	if skeletonsOff || !plainChanges(s.changes) {
		return nil, false, nil
	}
	var kb [256]byte
	shapeKey := writes.ShapeKey(kb[:0], false, s.changes)
	sh, ok := m.updates.Shapes.Load(shapeKey)
	if !ok || !readsNothing(sh) {
		return nil, false, nil
	}
	if _, never := m.updates.NoSkeleton.Load(shapeKey); never {
		return nil, false, nil
	}
	acts, missing, ok, err := m.fromSkeleton(dst, db, op, key, s, sh, shapeKey, nil)
	if ok || err != nil {
		return acts, true, err
	}
	// No skeleton yet: plan it, and keep the skeleton of its request once
	// a request filled from it is the same.
	if acts, err = m.planUpdate(dst, db, op, key, key, s, nil); err != nil || len(acts) != len(dst)+1 {
		return acts, true, err
	}
	if missing != nil && m.mayKeepSkeleton(missing.cond) {
		planned := acts[len(dst)]
		sk := skeletonOf(planned, missing.CondFixed)
		if filled, _, ok, err := m.fromSkeleton(nil, db, op, key, s, sh, shapeKey, sk); ok && err == nil && sameAction(filled[0], planned) {
			m.updates.Skeletons.Store(string(missing.key), sk.Skeleton)
		} else if missing.cond {
			// Only this condition's shape (a skeleton key never reads as a
			// shape key: its first byte is a length, a shape key's a flag).
			m.updates.NoSkeleton.Store(string(missing.key), true)
		} else {
			m.updates.NoSkeleton.Store(string(shapeKey), true)
		}
	}
	return acts, true, nil
}

// mayKeepSkeleton reports whether the skeletons' table (bounded) has room
// for one more, of an update with the caller's condition (cond) or not:
// conditions may take half of it, so that shapes of conditions made from
// data leave room for the updates seen after them. A full table is not
// tried: an update it has no room for is planned, and nothing more.
func (m *entityModel) mayKeepSkeleton(cond bool) bool {
	n := m.updates.Skeletons.Len()
	return n < expr.MaxShared && (!cond || n < expr.MaxShared/2)
}

// refusedSkeleton reports whether the skeleton under key (SkeletonKey)
// did not reproduce the planner's request: it is not tried again.
func (m *entityModel) refusedSkeleton(key []byte) bool {
	_, refused := m.updates.NoSkeleton.Load(key)
	return refused
}

// skeletal reports whether m's updates may take skeletons: no managed
// field (whose hooks add to an update), no shard.
func (m *entityModel) skeletal() bool {
	mf := &m.managed
	return len(mf.fields) == 0 && mf.version == nil && len(mf.unique) == 0 && mf.expires == nil &&
		!mf.timestamped() && mf.revision == nil && m.Shard == nil
}

// plainChanges reports whether every change is to a top-level field, with
// a Go value (or none, for an operator that takes none): what FastValues
// takes.
func plainChanges(changes []change) bool {
	for _, c := range changes {
		_, raw := c.Value.(types.AttributeValue)
		if raw || writes.TopField(c.Field) != c.Field || (c.Value == nil && writes.Operators[c.Op].Value != writes.NoValue) {
			return false
		}
	}
	return true
}

// readsNothing reports whether an update of shape sh knows every field its
// index keys read (else it reads the item, or fails).
func readsNothing(sh *writes.Shape) bool {
	for i := range sh.Indexes {
		if len(sh.Indexes[i].Missing) > 0 {
			return false
		}
	}
	return true
}

// newSkeleton is what fromSkeleton found missing: the key a skeleton of
// the update would be kept under, whether its condition is fixed, and
// whether the key holds the caller's condition's shape.
type newSkeleton struct {
	*writes.Skeleton
	key  []byte
	cond bool
}

// fromSkeleton plans the update from skeleton use, or, with a nil use,
// the one kept for its shape (sh, shapeKey) and its values' decisions.
// ok is false when it did not: there was none (then missing says under
// which key to keep one), or the update takes none (missing is nil); err
// is set only for what the planner would fail on too, before the
// skeleton (the table).
func (m *entityModel) fromSkeleton(dst []*action, db *DB, op string, key reflect.Value, s *settings, sh *writes.Shape, shapeKey []byte, use *newSkeleton) (acts []*action, missing *newSkeleton, ok bool, err error) {
	if err := db.checkTable(op, m); err != nil {
		return nil, nil, false, err
	}
	if len(s.changes) == 0 {
		return nil, nil, false, nil
	}
	u, room := m.newUpdateAction()
	k, kf, err := m.KeyFacts(key, u.primary[:])
	if err != nil {
		room.Release()
		return nil, nil, false, nil // the planner says what is wrong
	}
	plan := writes.Plan{M: m.Entity, Values: &m.values, Key: key, Changes: s.changes, Room: room}
	var vbuf [8]types.AttributeValue
	var sbuf [192]byte // the decisions and the condition's shape
	vals, sig, vbytes, fast := plan.FastValues(sh, vbuf[:0], sbuf[:0])
	// The values are taken: what is left of the room, and the value the
	// index keys were worked out from (if any), go back.
	plan.ReleaseNext()
	room.Release()
	if !fast || kf.KeyBytes+plan.StoredBytes > maxItemBytes {
		return nil, nil, false, nil
	}
	// The condition is fixed by the skeleton's key when there is no range
	// check and the caller's condition, if any, has a shape (its values
	// are then bound after the update's).
	fixed, n := len(plan.Ranges) == 0, len(sig)
	withCond := fixed && !s.cond.IsZero()
	if fixed {
		sig = append(sig, 'f')
		if withCond {
			if sig, withCond = expr.AppendShape(s.cond.n, append(sig, 'c'), shapeable); !withCond {
				fixed, sig = false, sig[:n]
			}
		}
	}
	var sk *writes.Skeleton
	if use != nil {
		sk = use.Skeleton
	} else {
		var kbuf [256]byte
		skKey := writes.SkeletonKey(kbuf[:0], shapeKey, sig)
		sk, ok = m.updates.Skeletons.Load(skKey)
		if !ok && withCond && (!m.mayKeepSkeleton(true) || m.refusedSkeleton(skKey)) {
			// No room for the condition's shape, or it takes none: the
			// update's skeleton, with the condition rendered.
			fixed, withCond, sig = false, false, sig[:n]
			skKey = writes.SkeletonKey(kbuf[:0], shapeKey, sig)
			sk, ok = m.updates.Skeletons.Load(skKey)
		}
		if !ok {
			if m.refusedSkeleton(skKey) {
				return nil, nil, false, nil
			}
			return nil, &newSkeleton{&writes.Skeleton{CondFixed: fixed}, append([]byte(nil), skKey...), withCond}, false, nil
		}
	}
	a := &u.action
	*a = action{Action: writes.Action{Kind: actUpdate, Key: k, ID: kf.ID, Bytes: kf.KeyBytes + len(sk.Update), WhenMissing: failNotFound, Update: sk.Update}, op: op, m: m}
	var values map[string]types.AttributeValue
	if len(vals) > 0 || (sk.CondFixed && !m.own.typed.IsZero()) {
		values = make(map[string]types.AttributeValue, len(vals)+1)
		for i, v := range vals {
			values[expr.ValuePlaceholder(i)] = v
		}
	}
	if dst == nil {
		dst = u.acts[:0]
	}
	if sk.CondFixed {
		n := len(vals)
		if !m.own.typed.IsZero() {
			// The condition's type check (ownConds) binds the entity's
			// name first, as the planner renders it: in the action's room.
			u.typ.Value = m.Name
			p := expr.ValuePlaceholder(n)
			values[p] = &u.typ
			vbytes += len(p) + codec.Size(&u.typ)
			n++
		}
		if !s.cond.IsZero() {
			var ok bool
			if values, ok = m.bindCondValues(s.cond, values, n, &vbytes); !ok {
				return nil, nil, false, nil // the planner says what is wrong
			}
		}
		a.Cond, a.Values, a.userCond = sk.Cond, values, s.cond
		a.Names = make(map[string]string, len(sk.Names))
		for i, n := range sk.Names {
			a.Names[expr.NamePlaceholder(i)] = n
		}
		a.Bytes += len(sk.Cond) + sk.NameBytes + vbytes
		return append(dst, a), nil, true, nil
	}
	// The condition (the caller's, range checks) is rendered as the
	// planner does, after the update expression's names and values.
	b := m.updates.Builder()
	b.Preset(sk.Names, values, sk.NameBytes+vbytes)
	w := write{a: a, b: b, key: key, old: key, cond: m.own.exists}
	if len(plan.Ranges) > 0 {
		for _, rc := range plan.Ranges {
			w.hold(Cond{rc.Cond()})
		}
		a.extra = &actionExtra{ranges: plan.Ranges}
	}
	acts, err = w.finish(dst, s.cond, b)
	m.updates.ReleaseBuilder(b)
	if err != nil {
		return nil, nil, false, nil // the planner says what is wrong
	}
	return acts, nil, true, nil
}

// shapeable reports, for expr.AppendShape, whether a condition on path
// with value v (nil: none) may be part of a skeleton's key: v is bound as
// a value (not a FieldRef, which names another field), and path is a
// top-level field's (a path below one may hold a map key, which data
// makes: as many shapes as keys, and the skeletons' table is bounded).
func shapeable(path string, v any) bool {
	_, ref := v.(FieldRef)
	return !ref && writes.TopField(path) == path
}

// bindCondValues binds the values of the caller's condition c, of a shape
// a skeleton holds, into values (nil: a map of its own, made only if c
// binds any) after the n there, as rendering c binds them
// (condFields.Value), with its checks, adding what they count toward the
// request's size to bytes (see expr.Builder.Bytes). ok is false when
// rendering c fails.
func (m *entityModel) bindCondValues(c Cond, values map[string]types.AttributeValue, n int, bytes *int) (_ map[string]types.AttributeValue, ok bool) {
	var buf [4]expr.CondValue
	for _, cv := range expr.AppendValues(c.n, buf[:0]) {
		av := cv.Raw
		if av == nil {
			var err error
			if av, err = (resolver{m: m}).encode(cv.Path, cv.V, cv.Element); err != nil {
				return nil, false
			}
			if cv.Ordering != "" && !codec.Ordered(av) {
				return nil, false
			}
		}
		if values == nil {
			values = make(map[string]types.AttributeValue, 2)
		}
		p := expr.ValuePlaceholder(n)
		values[p] = av
		*bytes += len(p) + codec.Size(av)
		n++
	}
	return values, true
}

// skeletonOf is the skeleton of a's request (planned by planUpdate): with
// its condition when fixed, else the names of its update expression only
// (the first ones handed out, as the planner renders it first).
// The key is left to the caller.
func skeletonOf(a *action, fixed bool) *newSkeleton {
	sk := &writes.Skeleton{Update: a.Update, Cond: a.Cond, CondFixed: fixed}
	n := len(a.Names)
	if !fixed {
		sk.Cond, n = "", namesIn(a.Update)
	}
	for i := range n {
		p := expr.NamePlaceholder(i)
		name, ok := a.Names[p]
		if !ok {
			return &newSkeleton{Skeleton: sk} // not as expected: the check fails
		}
		sk.Names = append(sk.Names, name)
		sk.NameBytes += len(p) + len(name)
	}
	return &newSkeleton{Skeleton: sk}
}

// namesIn counts the name placeholders of expression e: one more than the
// highest.
func namesIn(e string) int {
	n := 0
	for i := 0; i+2 < len(e); i++ {
		if e[i] != '#' || e[i+1] != 'n' {
			continue
		}
		j, v := i+2, 0
		for ; j < len(e) && e[j] >= '0' && e[j] <= '9'; j++ {
			v = v*10 + int(e[j]-'0')
		}
		if j > i+2 && v+1 > n {
			n = v + 1
		}
	}
	return n
}

// sameAction reports whether an update's action filled from a skeleton
// is the one the planner built: the same request, size and explanations.
func sameAction(filled, planned *action) bool {
	if filled.Update != planned.Update || filled.Cond != planned.Cond || filled.Bytes != planned.Bytes ||
		filled.WhenMissing != planned.WhenMissing || filled.WhenExists != planned.WhenExists ||
		!maps.Equal(filled.Names, planned.Names) || len(filled.Values) != len(planned.Values) ||
		// DynamoDB refuses empty maps: nil where the planner's is nil.
		(filled.Names == nil) != (planned.Names == nil) || (filled.Values == nil) != (planned.Values == nil) ||
		(filled.extra == nil) != (planned.extra == nil) || !codec.EqualItems(filled.Key, planned.Key) {
		return false
	}
	for p, v := range planned.Values {
		if w, ok := filled.Values[p]; !ok || !codec.Equal(v, w) {
			return false
		}
	}
	if filled.extra != nil && (len(filled.extra.ranges) != len(planned.extra.ranges) || filled.extra.liveAt != planned.extra.liveAt || filled.extra.given != planned.extra.given) {
		return false
	}
	return true
}
