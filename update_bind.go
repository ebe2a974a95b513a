package singletable

// Binding an update, the root's side: the action and the room for its
// values, the managed fields' hooks and the condition around the write
// engine's binding (internal/write's bind.go: the values, checked and
// encoded, into the update expression on the compiled shape of the
// changes, update_compile.go; the recomputed index keys).

import (
	"fmt"
	"reflect"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/codec"
	"github.com/singletable/singletable/internal/expr"
	writes "github.com/singletable/singletable/internal/write"
)

// updateAction is an Update's action with room for what its request
// holds, so that it is allocated with the action rather than bit by bit.
// It holds no settings: the caller's stay on its stack (see planUpdate).
type updateAction struct {
	action
	// primary holds its table key's values.
	primary [2]types.AttributeValueMemberS
	// acts is room for the plan of an Update, this action alone.
	acts [1]*action
	// nums is room for the numbers the update gives (its changes' values,
	// Increment's zero): see writes.Plan.Room.
	nums [2]types.AttributeValueMemberN
	// typ is room for the entity's name, the value of its condition's
	// type check when filled from a skeleton (see ownConds).
	typ types.AttributeValueMemberS
}

// plainUpdateAction is the updateAction of an entity without index keys
// to write, with room for the strings its changes give.
type plainUpdateAction struct {
	updateAction
	strs [2]types.AttributeValueMemberS
}

// indexedUpdateAction is the updateAction of an entity with index keys
// to write, with room for the index key values the update sets (two
// indexes' keys, see keyValue) besides two strings its changes give.
type indexedUpdateAction struct {
	updateAction
	strs [6]types.AttributeValueMemberS
}

// newUpdateAction allocates an update's action with room for its values,
// and the codec.Room that hands that room out (to Release once the plan
// is made).
func (m *entityModel) newUpdateAction() (*updateAction, codec.Room) {
	for _, ei := range m.Indexes {
		if ei.Writes() {
			u := new(indexedUpdateAction)
			return &u.updateAction, codec.NewRoom(u.strs[:], u.nums[:])
		}
	}
	u := new(plainUpdateAction)
	return &u.updateAction, codec.NewRoom(u.strs[:], u.nums[:])
}

// planUpdate plans Update of the item whose key fields are set in key. old
// holds the unique values the item has now (key itself for TxUpdate, the
// stored item for Update). read is what Update read of the item first, or
// nil: the update is then conditioned on what it read, and an upsert of an
// item not found stores every attribute Put would.
func (m *entityModel) planUpdate(dst []*action, db *DB, op string, key, old reflect.Value, given *settings, read *writes.Stored) ([]*action, error) {
	if err := db.checkTable(op, m); err != nil {
		return nil, err
	}
	if len(given.changes) == 0 {
		return nil, &InputError{Op: op, Reason: "no change given: pass Set, Remove, Add, Increment ..."}
	}
	if read == nil { // the first plan of the update: later ones keep its shard
		if err := m.chooseShard(op, key, given); err != nil {
			return nil, err
		}
	}
	// The action and room for its values in one allocation; the
	// settings are the caller's, on its stack (nothing the plan keeps
	// points to them); the builder is recycled (see writes.Cache).
	u, room := m.newUpdateAction()
	k, kf, err := m.KeyFacts(key, u.primary[:])
	if err != nil {
		room.Release()
		return nil, err
	}
	s := given
	b := m.updates.Builder()
	a := &u.action
	*a = action{Action: writes.Action{Kind: actUpdate, Key: k, ID: kf.ID, Bytes: kf.KeyBytes, WhenMissing: failNotFound}, op: op, m: m}
	if s.upsert {
		a.WhenMissing = failCondition
	}
	plan := writes.Plan{M: m.Entity, Values: &m.values, CreatedField: m.managed.created, Read: read, Room: room}
	defer func() {
		plan.ReleaseNext()
		plan.Room.Release()
		m.updates.ReleaseBuilder(b)
	}()
	w := write{a: a, now: m.managed.clock(db), b: b, key: key, old: old, upsert: given.upsert}
	s = m.managed.beforeUpdate(&w, s, &plan)
	newItem := read != nil && !read.Found
	if err := m.planChanges(op, key, s, b, &plan); err != nil {
		return nil, err
	}
	if len(plan.Ranges) > 0 {
		for _, rc := range plan.Ranges {
			w.hold(Cond{rc.Cond()})
		}
		a.extra = &actionExtra{ranges: plan.Ranges}
	}
	if min := kf.KeyBytes + plan.StoredBytes; min > maxItemBytes {
		return nil, &LimitError{Op: op, Reason: fmt.Sprintf("the update stores %d bytes of values, which with the key make an item of at least %d bytes; DynamoDB's limit is 400 KB (%d bytes)", plan.StoredBytes, min, maxItemBytes)}
	}
	if s.upsert {
		if newItem {
			// Zero values fill only an item the upsert creates: on one that
			// exists they would bring back attributes nobody named.
			fills, err := writes.ZeroFills(m.Entity, s.changes, m.managed.manages)
			if err != nil {
				return nil, &InputError{Op: op, Reason: err.Error()}
			}
			for _, f := range fills {
				plan.Update.Act(expr.ClauseSet, b.Name(f.Attr), " = ", b.Value(f.AV))
			}
		}
		// A new item must still decode as this entity, and carry its key fields.
		if !m.table.schema.TypeOmit {
			plan.Update.Act(expr.ClauseSet, b.Name(m.table.schema.TypeAttr), " = ", b.Value(expr.S(m.Name)))
		}
		for _, f := range m.KeyFieldList {
			av, err := m.encodeValue(f.GoName, key.FieldByIndex(f.Index).Interface(), false)
			if err != nil {
				return nil, &InputError{Op: op, Reason: err.Error()}
			}
			plan.Update.Act(expr.ClauseSet, b.Name(f.Attr), " = ", b.Value(av))
		}
	}
	// Only the entity's own item is updated (ownConds): an item of
	// another entity at the key fails the condition, unchanged.
	switch {
	case newItem:
		w.cond = m.table.notExists
	case !s.upsert || read != nil:
		w.cond = m.own.exists
	default:
		w.cond = m.own.absentOrOwn
	}
	if s.upsert && !newItem && m.upsertsReplace() {
		// To every read an expired item is absent, so an upsert does not
		// update it (its stale attributes would come back, or stay hidden
		// behind the past expiry): Update deletes it first and sends again
		// (removeExpired); a transaction fails.
		w.check(Not(m.expiredBy(w.now)))
		if a.extra == nil {
			a.extra = new(actionExtra)
		}
		a.extra.liveAt = w.now.Unix()
	}
	if read != nil && read.Given {
		if a.extra == nil {
			a.extra = new(actionExtra)
		}
		a.extra.given = read
	}
	if read != nil && read.Found {
		// The fields read must still hold what the plan was made from.
		for _, name := range read.Fields {
			f, _ := m.Fields.ByGoName(name)
			if v, ok := read.Attrs[f.Attr]; ok {
				w.check(Eq(name, v))
			} else {
				w.check(NotExists(name))
			}
		}
	}
	if err := m.managed.onUpdate(&w, &plan); err != nil {
		return nil, err
	}
	var text [512]byte
	a.Update = m.updates.Shared.Intern(plan.Update.Append(text[:0]))
	a.Bytes += len(a.Update)
	if err := checkExpression(op, "update", a.Update); err != nil {
		return nil, err
	}
	if dst == nil {
		dst = u.acts[:0]
	}
	acts, err := w.finish(dst, s.cond, b)
	if err != nil {
		return nil, err
	}
	if plan.Need != nil {
		plan.Need.Op = op
		return nil, plan.Need
	}
	return acts, nil
}

// planChanges binds the changes (writes.Plan.Bind: their values into the
// update expression, every index key that depends on a changed field
// recomputed) on the compiled shape of the changes (shapeOf).
func (m *entityModel) planChanges(op string, keyValue reflect.Value, s *settings, b *expr.Builder, plan *writes.Plan) error {
	plan.Key, plan.Changes = keyValue, s.changes
	sh, err := m.shapeOf(op, s, plan)
	if err != nil {
		return err
	}
	return plan.Bind(op, sh, b)
}
