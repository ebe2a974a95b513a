package singletable

import (
	"errors"
	"reflect"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/codec"
	"github.com/singletable/singletable/internal/expr"
)

// Every write is planned as a list of actions: the item's own Put, Update,
// Delete or ConditionCheck, followed by the unique-value guard items it
// keeps in step. One action is sent as PutItem, UpdateItem or DeleteItem;
// more go in one TransactWriteItems. The same plan serves Put and TxPut, so
// a transaction does exactly what the single operations do.

type actionKind uint8

const (
	actPut actionKind = iota
	actUpdate
	actDelete
	actCheck
)

var actionNames = [...]string{actPut: "Put", actUpdate: "Update", actDelete: "Delete", actCheck: "ConditionCheck"}

// action is one planned write of one item. Transactions plan one per item
// (and every single write one), so rarely used details sit behind
// pointers and the flags are packed: a smaller action is less to allocate
// and collect.
type action struct {
	kind actionKind
	// What a failed condition means: the Kind of the *ConditionError when
	// the item existed and when it did not.
	whenExists, whenMissing failKind
	// versioned is set when the condition checks the version field (for
	// version expected).
	versioned bool
	// uniqueHeld tells what unique is: the values the item must still
	// hold (Update, Delete), or the values a Put would store.
	uniqueHeld bool
	op         string       // the operation that planned it: "User.Create"
	m          *entityModel // the entity (for a guard: the entity it guards)
	// guard is set for a unique-value guard item.
	guard *guardOf

	// key is the item's key; for a put it stays nil until keyAttrs picks
	// it out of the item (see keyAttrs).
	key, item map[string]types.AttributeValue
	// id is the item's itemID, worked out when its key was encoded.
	id itemID
	// bytes is the action's share of a transaction's size: its key or
	// item, its expressions and their names and values, added up as each
	// is made.
	bytes        int
	update, cond string
	names        map[string]string
	values       map[string]types.AttributeValue
	expected     int64 // the version expected (see versioned)
	// unique is set for an entity with unique fields: the struct value
	// whose unique values the condition relies on (see uniqueHeld).
	unique reflect.Value
	// userCond is the caller's own condition (If), for messages.
	userCond Cond
}

// failKind is what a failed condition of an action means: the Kind of
// its *ConditionError. The zero value is a plain failed condition.
type failKind uint8

const (
	failCondition failKind = iota
	failNotFound
	failAlreadyExists
	failUnique
)

var failErrors = [...]error{failCondition: ErrConditionFailed, failNotFound: ErrNotFound,
	failAlreadyExists: ErrAlreadyExists, failUnique: ErrUniqueViolation}

func (k failKind) err() error { return failErrors[k] }

// guardOf is what a unique-value guard item guards: the unique field and
// the value.
type guardOf struct {
	field *codec.Field
	value string
}

// keyAttrs is the key of the action's item. A put's key is picked out of
// its item only when something asks for it as a map (a message, an error,
// a guard's owner): most puts never do.
func (a *action) keyAttrs() map[string]types.AttributeValue {
	if a.key == nil && a.item != nil {
		a.key = a.m.keyOfItem(a.item)
	}
	return a.key
}

// condError turns a condition rendering error into an operation error.
func condError(op string, err error) error {
	var le *LimitError
	if errors.As(err, &le) {
		return &LimitError{Op: op, Reason: le.Reason}
	}
	var ke *KeyError
	if errors.As(err, &ke) {
		return err
	}
	return &InputError{Op: op, Reason: err.Error()}
}

// setCond renders c (over the entity's fields, or raw attribute names for
// a guard) into the action's expression maps: into b's, or, with a nil b,
// into a builder of its own, made only if there is a condition.
func (a *action) setCond(c Cond, b *expr.Builder) error {
	if b == nil {
		if c.IsZero() {
			return nil
		}
		b = new(expr.Builder)
	}
	m := a.m
	if a.guard != nil {
		m = nil
	}
	cond, err := renderCond(c, m, b)
	if err != nil {
		return condError(a.op, err)
	}
	a.cond = cond
	a.names, a.values = b.Names, b.Values
	a.bytes += len(cond) + b.Bytes()
	return nil
}

// addGuard appends to guards the Put or Delete of the guard item for value
// of unique field f, for the item whose key is owner; an empty value has
// no guard. The guard must be absent or already belong to owner, so a
// write never takes another item's value nor removes its guard.
func (m *entityModel) addGuard(guards []*action, op string, kind actionKind, f *codec.Field, value string, owner map[string]types.AttributeValue) ([]*action, error) {
	if value == "" {
		return guards, nil
	}
	key, err := m.guardKey(f, value)
	if err != nil {
		return nil, err
	}
	g := &action{kind: kind, op: op, m: m, guard: &guardOf{field: f, value: value},
		key: key, whenExists: failUnique}
	if kind == actPut {
		g.item = m.guardItem(key, owner)
		g.bytes = itemSize(g.item)
	}
	g.id, g.bytes = m.table.idOf(g.key), g.bytes+m.table.keySize(g.key)
	if err := g.setCond(m.ownedBy(owner), nil); err != nil {
		return nil, err
	}
	return append(guards, g), nil
}

// The planners append the actions they plan to dst (a transaction's
// actions, or nil) and return it; on error they return nil.

// planPut plans Put (create false) or Create (create true) of struct value
// v, which it changes: version and timestamps.
func (m *entityModel) planPut(dst []*action, db *DB, op string, v reflect.Value, create bool, s *settings) ([]*action, error) {
	if err := db.checkTable(op, m); err != nil {
		return nil, err
	}
	a := &action{kind: actPut, op: op, m: m}
	var c Cond
	if create {
		c = m.table.notExists
		a.whenExists = failAlreadyExists
	}
	if ver := m.w.version; ver != nil {
		exp := m.versionOf(v)
		switch {
		case create:
			m.setVersion(v, 1)
		case exp == 0:
			c = m.table.notExists
			a.versioned = true
			m.setVersion(v, 1)
		default:
			c = Eq(ver.GoName, v.FieldByIndex(ver.Index).Interface())
			a.versioned, a.expected = true, exp
			m.setVersion(v, exp+1)
		}
	}
	if m.w.timestamped() {
		m.stamp(v, db.now())
	}
	item, facts, err := m.item(v)
	if err != nil {
		return nil, inOp(op, "", err)
	}
	a.item, a.id, a.bytes = item, facts.id, facts.keyBytes+facts.size
	a.userCond = s.cond
	c = And(c, s.cond)
	var guards []*action
	for _, f := range m.w.unique {
		if !create {
			// An existing item must hold the same value: Put does not move
			// guards (Update does).
			held, err := m.heldValue(f, v)
			if err != nil {
				return nil, &InputError{Op: op, Reason: err.Error()}
			}
			c = And(c, Or(m.table.notExists, held))
			a.unique, a.uniqueHeld = v, false
		}
		if guards, err = m.addGuard(guards, op, actPut, f, uniqueValue(f, v), a.keyAttrs()); err != nil {
			return nil, err
		}
	}
	if err := a.setCond(c, nil); err != nil {
		return nil, err
	}
	return append(append(dst, a), guards...), nil
}

// updateAction is an Update's action with the builder of its expressions.
type updateAction struct {
	action
	b expr.Builder
}

// planUpdate plans Update of the item whose key fields are set in key. old
// holds the unique values the item has now (key itself for TxUpdate, the
// stored item for Update). read is what Update read of the item first, or
// nil: the update is then conditioned on what it read, and an upsert of an
// item not found stores every attribute Put would.
func (m *entityModel) planUpdate(dst []*action, db *DB, op string, key, old reflect.Value, s *settings, read *storedRead) ([]*action, error) {
	if err := db.checkTable(op, m); err != nil {
		return nil, err
	}
	if len(s.changes) == 0 {
		return nil, &InputError{Op: op, Reason: "no change given: pass Set, Remove, Add, Increment ..."}
	}
	k, kf, err := m.keyFacts(key)
	if err != nil {
		return nil, err
	}
	// The action and its expression builder in one allocation: the
	// builder escapes to the heap anyway (conditions render through
	// interfaces), and the action is made below.
	u := new(updateAction)
	b := &u.b
	var now time.Time // read from the clock only for an entity with timestamps
	if m.w.timestamped() {
		now = db.now()
	}
	if f := m.w.updated; f != nil && m.w.updatedIndexed && !touches(s.changes, f.GoName) {
		// An index key reads the updated timestamp, which this update
		// changes: planned as a Set, so that the key follows it.
		withStamp := *s
		withStamp.changes = append(s.changes[:len(s.changes):len(s.changes)], change{changeSet, f.GoName, m.timestampGo(f, now)})
		s = &withStamp
	}
	plan := updatePlan{read: read}
	newItem := read != nil && !read.found
	if f := m.w.created; f != nil && s.upsert && !touches(s.changes, f.GoName) {
		// What the index keys of a new item read: the created timestamp
		// it gets below.
		plan.created = now
		if newItem {
			setTimestamp(f, read.value, now)
		}
	}
	if err := m.planChanges(op, key, s, b, &plan); err != nil {
		return nil, err
	}
	if s.upsert {
		if err := m.planZeroValues(&plan, b, s, newItem); err != nil {
			return nil, &InputError{Op: op, Reason: err.Error()}
		}
		// A new item must still decode as this entity, and carry its key fields.
		plan.act(clauseSet, b.Name(m.table.typeAttr), " = ", b.Value(expr.S(m.name)))
		for _, f := range m.fields.List {
			if !m.keyFields[f.GoName] {
				continue
			}
			av, err := m.encodeValue(f.GoName, key.FieldByIndex(f.Index).Interface(), false)
			if err != nil {
				return nil, &InputError{Op: op, Reason: err.Error()}
			}
			plan.act(clauseSet, b.Name(f.Attr), " = ", b.Value(av))
		}
	}
	a := &u.action
	*a = action{kind: actUpdate, op: op, m: m, key: k, id: kf.id, bytes: kf.keyBytes, whenMissing: failNotFound}
	if s.upsert {
		a.whenMissing = failCondition
	}
	var c Cond
	switch {
	case newItem:
		c = m.table.notExists
	case !s.upsert || read != nil:
		c = m.table.exists
	}
	if read != nil && read.found {
		// The fields read must still hold what the plan was made from.
		for _, name := range read.fields {
			f, _ := m.fields.ByGoName(name)
			if v, ok := read.attrs[f.Attr]; ok {
				c = And(c, Eq(name, v))
			} else {
				c = And(c, NotExists(name))
			}
		}
	}
	if ver := m.w.version; ver != nil {
		plan.act(clauseAdd, b.Name(ver.Attr), " ", b.Value(&types.AttributeValueMemberN{Value: "1"}))
		if exp := m.versionOf(key); exp != 0 {
			c = And(c, Eq(ver.GoName, key.FieldByIndex(ver.Index).Interface()))
			a.versioned, a.expected = true, exp
		}
	}
	if f := m.w.updated; f != nil {
		if !plan.touches(f.GoName) {
			av, err := m.timestampValue(f, now)
			if err != nil {
				return nil, &InputError{Op: op, Reason: err.Error()}
			}
			plan.act(clauseSet, b.Name(f.Attr), " = ", b.Value(av))
		}
	}
	if f := m.w.created; f != nil {
		if !plan.touches(f.GoName) {
			av, err := m.timestampValue(f, now)
			if err != nil {
				return nil, &InputError{Op: op, Reason: err.Error()}
			}
			n := b.Name(f.Attr)
			plan.act(clauseSet, n, " = if_not_exists(", n, ", ", b.Value(av), ")")
		}
	}
	a.update = plan.expression()

	a.bytes += len(a.update)
	if err := checkExpression(op, "update", a.update); err != nil {
		return nil, err
	}
	a.userCond = s.cond
	c = And(c, s.cond)
	var guards []*action
	for _, f := range m.w.unique {
		if !plan.touches(f.GoName) {
			continue
		}
		held, err := m.heldValue(f, old)
		if err != nil {
			return nil, &InputError{Op: op, Reason: err.Error()}
		}
		c = And(c, held)
		a.unique, a.uniqueHeld = old, true
		was, now := uniqueValue(f, old), uniqueValue(f, plan.nextValue())
		if was == now {
			continue
		}
		if guards, err = m.addGuard(guards, op, actDelete, f, was, k); err != nil {
			return nil, err
		}
		if guards, err = m.addGuard(guards, op, actPut, f, now, k); err != nil {
			return nil, err
		}
	}
	if err := a.setCond(c, b); err != nil {
		return nil, err
	}
	if plan.need != nil {
		return nil, plan.need
	}
	return append(append(dst, a), guards...), nil
}

// planZeroValues plans, for an upsert, the attributes Put stores for the
// fields the update does not touch (their zero values; Put leaves out the
// omitempty ones): set outright on an item known to be new, else only where
// the item has none (if_not_exists), which leaves an existing item's values
// alone and gives a new item what Put would.
func (m *entityModel) planZeroValues(plan *updatePlan, b *expr.Builder, s *settings, newItem bool) error {
	zero := make(map[string]types.AttributeValue, len(m.fields.List))
	if _, err := m.plan.Encode(reflect.New(m.typ).Elem(), zero); err != nil {
		return err
	}
	w := &m.w
	for i := range m.fields.List {
		f := &m.fields.List[i]
		av, ok := zero[f.Attr]
		if !ok || m.keyFields[f.GoName] || w.managed(f) || touches(s.changes, f.GoName) {
			continue
		}
		n := b.Name(f.Attr)
		if newItem {
			plan.act(clauseSet, n, " = ", b.Value(av))
		} else {
			plan.act(clauseSet, n, " = if_not_exists(", n, ", ", b.Value(av), ")")
		}
	}
	return nil
}

// planDelete plans Delete of the item whose key fields are set in key; old
// holds its unique values (key itself for TxDelete, the stored item for
// Delete).
func (m *entityModel) planDelete(dst []*action, db *DB, op string, key, old reflect.Value, s *settings) ([]*action, error) {
	if err := db.checkTable(op, m); err != nil {
		return nil, err
	}
	k, kf, err := m.keyFacts(key)
	if err != nil {
		return nil, err
	}
	a := &action{kind: actDelete, op: op, m: m, key: k, id: kf.id, bytes: kf.keyBytes}
	var c Cond
	if s.mustExist {
		c = m.table.exists
		a.whenMissing = failNotFound
	}
	if ver := m.w.version; ver != nil {
		if exp := m.versionOf(key); exp != 0 {
			c = And(c, Eq(ver.GoName, key.FieldByIndex(ver.Index).Interface()))
			a.versioned, a.expected = true, exp
			a.whenMissing = failNotFound
		}
	}
	a.userCond = s.cond
	c = And(c, s.cond)
	var guards []*action
	for _, f := range m.w.unique {
		held, err := m.heldValue(f, old)
		if err != nil {
			return nil, &InputError{Op: op, Reason: err.Error()}
		}
		c = And(c, held)
		a.unique, a.uniqueHeld = old, true
		if guards, err = m.addGuard(guards, op, actDelete, f, uniqueValue(f, old), k); err != nil {
			return nil, err
		}
	}
	if err := a.setCond(c, nil); err != nil {
		return nil, err
	}
	return append(append(dst, a), guards...), nil
}

// planCheck plans a ConditionCheck of the item whose key fields are set in
// key.
func (m *entityModel) planCheck(db *DB, op string, key reflect.Value, c Cond) (*action, error) {
	if err := db.checkTable(op, m); err != nil {
		return nil, err
	}
	if c.IsZero() {
		return nil, &InputError{Op: op, Reason: "a condition check needs a condition"}
	}
	k, kf, err := m.keyFacts(key)
	if err != nil {
		return nil, err
	}
	a := &action{kind: actCheck, op: op, m: m, key: k, id: kf.id, bytes: kf.keyBytes, userCond: c}
	if err := a.setCond(c, nil); err != nil {
		return nil, err
	}
	return a, nil
}
