package singletable

// Binding an update: its values, checked and encoded, into the request,
// on the compiled shape of its changes (update_compile.go): the update
// expression, the recomputed index keys, the condition, the action.

import (
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/codec"
	"github.com/singletable/singletable/internal/expr"
	"github.com/singletable/singletable/internal/model"
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
	// Increment's zero): see updatePlan.room.
	nums [2]types.AttributeValueMemberN
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
func (m *entityModel) planUpdate(dst []*action, db *DB, op string, key, old reflect.Value, given *settings, read *storedRead) ([]*action, error) {
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
	*a = action{kind: actUpdate, op: op, m: m, key: k, id: kf.ID, bytes: kf.KeyBytes, whenMissing: failNotFound}
	if s.upsert {
		a.whenMissing = failCondition
	}
	plan := updatePlan{read: read, room: room}
	defer func() {
		plan.releaseNext()
		plan.room.Release()
		m.updates.ReleaseBuilder(b)
	}()
	w := write{a: a, now: m.managed.clock(db), b: b, key: key, old: old, upsert: given.upsert}
	s = m.managed.beforeUpdate(&w, s, &plan)
	newItem := read != nil && !read.found
	if err := m.planChanges(op, key, s, b, &plan); err != nil {
		return nil, err
	}
	if len(plan.ranges) > 0 {
		for _, rc := range plan.ranges {
			w.hold(Cond{rc.Cond()})
		}
		a.extra = &actionExtra{ranges: plan.ranges}
	}
	if min := kf.KeyBytes + plan.storedBytes; min > maxItemBytes {
		return nil, &LimitError{Op: op, Reason: fmt.Sprintf("the update stores %d bytes of values, which with the key make an item of at least %d bytes; DynamoDB's limit is 400 KB (%d bytes)", plan.storedBytes, min, maxItemBytes)}
	}
	if s.upsert {
		if newItem {
			// Zero values fill only an item the upsert creates: on one that
			// exists they would bring back attributes nobody named.
			fills, err := m.zeroFills(s)
			if err != nil {
				return nil, &InputError{Op: op, Reason: err.Error()}
			}
			for _, f := range fills {
				plan.update.Act(expr.ClauseSet, b.Name(f.attr), " = ", b.Value(f.av))
			}
		}
		// A new item must still decode as this entity, and carry its key fields.
		if !m.table.schema.TypeOmit {
			plan.update.Act(expr.ClauseSet, b.Name(m.table.schema.TypeAttr), " = ", b.Value(expr.S(m.Name)))
		}
		for _, f := range m.KeyFieldList {
			av, err := m.encodeValue(f.GoName, key.FieldByIndex(f.Index).Interface(), false)
			if err != nil {
				return nil, &InputError{Op: op, Reason: err.Error()}
			}
			plan.update.Act(expr.ClauseSet, b.Name(f.Attr), " = ", b.Value(av))
		}
	}
	switch {
	case newItem:
		w.cond = m.table.notExists
	case !s.upsert || read != nil:
		w.cond = m.table.exists
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
	if read != nil && read.given {
		if a.extra == nil {
			a.extra = new(actionExtra)
		}
		a.extra.given = read
	}
	if read != nil && read.found {
		// The fields read must still hold what the plan was made from.
		for _, name := range read.fields {
			f, _ := m.Fields.ByGoName(name)
			if v, ok := read.attrs[f.Attr]; ok {
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
	a.update = m.updates.Shared.Intern(plan.update.Append(text[:0]))
	a.bytes += len(a.update)
	if err := checkExpression(op, "update", a.update); err != nil {
		return nil, err
	}
	if dst == nil {
		dst = u.acts[:0]
	}
	acts, err := w.finish(dst, s.cond, b)
	if err != nil {
		return nil, err
	}
	if plan.need != nil {
		plan.need.op = op
		return nil, plan.need
	}
	return acts, nil
}

// updatePlan is an Update resolved against the entity: the expression parts
// and what the item becomes, as far as the request knows it.
//
// What the item becomes is worked out from the changes only when something
// needs it (an index key or a unique guard that depends on a changed
// field), so that an update of plain fields builds no struct value and no
// lookup tables.
type updatePlan struct {
	// update is the update expression's SET, REMOVE, ADD and DELETE
	// clauses.
	update expr.Update

	m       *entityModel
	key     reflect.Value // the key value the update was given
	changes []change
	shape   *writes.Shape // what the changes' shape decides (see writes.Shape)
	next    reflect.Value // see nextValue; invalid until then
	nextPtr any           // what releaseNext recycles (see entityModel.newValue)
	// read is what Update read of the stored item before planning; nil
	// when it read nothing.
	read *storedRead
	// need is set when index keys need fields the update neither gives nor
	// has read.
	need *readNeeded
	// created is the created timestamp a new item gets (zero without one):
	// what the index keys of an upsert-created item read.
	created time.Time
	// room hands out the values the update gives (its changes' values,
	// its index keys'), from room allocated with its action (see
	// updateAction) rather than one by one; the zero Room allocates each.
	room codec.Room
	// ranges are the room the changes to integer fields need.
	ranges []writes.RangeCheck
	// storedBytes is what the values the item holds after the update add
	// up to (names of top-level attributes included): with the key, a
	// lower bound of the item's size.
	storedBytes int
}

// keyValue is the string attribute value s, from the plan's room.
func (p *updatePlan) keyValue(s string) types.AttributeValue { return p.room.S(s) }

// render adds operator o's action on path p with value av.
// It returns av's size (codec.Size).
func (p *updatePlan) render(o *writes.Operator, b *expr.Builder, path string, av types.AttributeValue) (size int) {
	var k, v string
	if o.Konst != nil {
		k = b.Value(o.Konst(p.room))
	}
	if av != nil {
		v, size = b.SizedValue(av)
	}
	p.update.Template(o.Clause, o.Action, path, v, k)
	return size
}

// planChanges resolves the field changes and recomputes every index key
// that depends on a changed field, so that index keys are never stale.
// What the shape of the changes decides is checked once per shape (see
// writes.Shape); what their values decide, on every call.
func (m *entityModel) planChanges(op string, keyValue reflect.Value, s *settings, b *expr.Builder, plan *updatePlan) error {
	plan.m, plan.key, plan.changes = m, keyValue, s.changes
	sh, err := m.shapeOf(op, s, plan)
	if err != nil {
		return err
	}
	plan.shape = sh
	r := resolver{m: m, b: b}
	for i, c := range s.changes {
		o := &writes.Operators[c.Op]
		f, nested := sh.Fields[i], sh.Nested[i]
		if o.SkipOmittedZero && writes.OmitsZero(m.Entity, c.Field, c.Value) {
			// Put never stores this zero value: setting it where there is
			// none would store what Put leaves out, and keep a later
			// SetIfNotExists from storing a real value.
			continue
		}
		p, err := changePath(r, f, nested, c.Field)
		if err != nil {
			return inputError(op, "%s(%q): %v", o.Name, c.Field, err)
		}
		var av types.AttributeValue
		if o.Value != writes.NoValue {
			if c.Value == nil && !nested && !writes.Nillable(f.Type) {
				// A NULL in place of a string or a number would read back as
				// its zero value, and match no condition on it (nor a guard).
				return inputError(op, "%s(%q): the field is a %s, which nil is not a value of: Remove the field, or give its zero value", o.Name, c.Field, f.Type)
			}
			// By the field's own rules, at any depth.
			if av, err = m.encodeChange(plan.room, f, nested, c, o.Value == writes.ElementValue); err != nil {
				if ke := m.KeyFieldError(f.GoName, err); ke != nil && !nested {
					return ke // a key field's value, as Put and Get say
				}
				return inputError(op, "%s(%q): %v", o.Name, c.Field, err)
			}
		}
		// A raw AttributeValue tells nothing the model could check.
		if _, raw := c.Value.(types.AttributeValue); o.Settable && !nested && !raw && !m.settable(f) {
			return inputError(op, "%s(%q): the field is promoted through an unexported embedded pointer", o.Name, c.Field)
		}
		if o.Check != nil {
			if av, err = o.Check(m.Entity, c.Field, c.Value, f, av); err != nil {
				if ke := (*KeyError)(nil); errors.As(err, &ke) {
					return err // an index key the value would break, as Put says
				}
				return inputError(op, "%s(%q): %v", o.Name, c.Field, err)
			}
			if av == nil {
				plan.update.Act(expr.ClauseRemove, p) // what Put leaves out
				continue
			}
		}
		size := plan.render(o, b, p, av)
		if o.Stored {
			n := size
			if o.Value == writes.ElementValue {
				n -= writes.ListOverhead // elements joining a list, which has its own
			}
			if !nested {
				n += len(f.Attr)
			}
			plan.storedBytes += n
		}
		if o.Sign != 0 {
			if rc, ok := writes.RangeCheckOf(m.Entity, o, c.Field, f, nested, av); ok {
				plan.ranges = append(plan.ranges, rc)
			}
		}
	}

	var need *readNeeded
	for _, is := range sh.Indexes {
		ei := is.EI
		if len(is.Missing) > 0 {
			switch {
			case is.Affected && plan.leaves(ei):
				// The item leaves the index whatever the other fields hold.
				plan.update.Act(expr.ClauseRemove, b.Name(ei.Index.PK))
				if ei.Index.SK != "" {
					plan.update.Act(expr.ClauseRemove, b.Name(ei.Index.SK))
				}
				continue
			case !is.Affected:
				// An upsert: an existing item keeps its keys, and a new one
				// gets the keys its zero values give, if any.
				if _, _, ok, err := m.IndexKey(ei, plan.nextValue()); err != nil || !ok {
					if err != nil {
						return err
					}
					continue
				}
			}
			need = need.add(ei, is.Missing)
			continue
		}
		pk, sk, ok, err := plan.indexKey(&is)
		if err != nil {
			return err
		}
		if !ok {
			if ei.PKFrom == model.KeyOwn {
				plan.update.Act(expr.ClauseRemove, b.Name(ei.Index.PK))
			}
			if ei.Index.SK != "" && ei.SKFrom == model.KeyOwn {
				plan.update.Act(expr.ClauseRemove, b.Name(ei.Index.SK))
			}
			continue
		}
		if ei.PKFrom == model.KeyOwn {
			plan.update.Act(expr.ClauseSet, b.Name(ei.Index.PK), " = ", b.Value(plan.keyValue(pk)))
		}
		if ei.Index.SK != "" && ei.SKFrom == model.KeyOwn {
			plan.update.Act(expr.ClauseSet, b.Name(ei.Index.SK), " = ", b.Value(plan.keyValue(sk)))
		}
	}
	if need != nil {
		// A value the update sets is checked against the index keys that
		// render it now, not after the read (see CheckIndexValue).
		for i, c := range s.changes {
			if o := &writes.Operators[c.Op]; o.Computed || o.Value != writes.WholeValue || sh.Nested[i] {
				continue
			}
			if _, raw := c.Value.(types.AttributeValue); raw {
				continue
			}
			if err := m.CheckIndexValue(sh.Fields[i].GoName, writes.SetValue(c.Value, sh.Fields[i])); err != nil {
				return err
			}
		}
		// Returned by planUpdate once everything else is checked, so that
		// no read is sent for an update that would fail anyway (which
		// names the operation).
		plan.need = need
	}
	return nil
}

// changePath is the placeholder path of a change to path, below
// top-level field f when nested.
func changePath(r resolver, f *codec.Field, nested bool, path string) (string, error) {
	if !nested {
		return r.b.Name(f.Attr), nil
	}
	p, _, err := r.path(path)
	return p, err
}

// encodeChange encodes the value of change c to a path below top-level
// field f when nested, else to f itself, its values from room r.
func (m *entityModel) encodeChange(r codec.Room, f *codec.Field, nested bool, c change, element bool) (types.AttributeValue, error) {
	if nested {
		return m.encodeAt(r, nil, c.Field, c.Value, element)
	}
	return m.encodeAt(r, f, f.GoName, c.Value, element)
}

// inputError is an *InputError of op, its reason formatted.
func inputError(op, format string, args ...any) error {
	return &InputError{Op: op, Reason: fmt.Sprintf(format, args...)}
}

// zeroFill is an attribute Put stores for a field an upsert does not
// touch: its zero value.
type zeroFill struct {
	attr string
	av   types.AttributeValue
}

// zeroFills lists, for an upsert, the attributes Put stores for the fields
// the update does not touch (their zero values; Put leaves out the
// omitempty ones): what an item the upsert creates gets besides what the
// update names. Key fields and managed fields are not among them.
func (m *entityModel) zeroFills(s *settings) ([]zeroFill, error) {
	zero := make(map[string]types.AttributeValue, len(m.Fields.List))
	if _, err := m.Plan.Encode(reflect.New(m.Type).Elem(), zero); err != nil {
		return nil, err
	}
	var out []zeroFill
	for i := range m.Fields.List {
		f := &m.Fields.List[i]
		av, ok := zero[f.Attr]
		if !ok || m.KeyFields[f.GoName] || m.managed.manages(f) || touches(s.changes, f.GoName) {
			continue
		}
		out = append(out, zeroFill{f.Attr, av})
	}
	return out, nil
}
