package singletable

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/singletable/singletable/internal/codec"
	"github.com/singletable/singletable/internal/expr"
	"github.com/singletable/singletable/internal/model"
	writes "github.com/singletable/singletable/internal/write"
)

// Every write is planned as a list of actions: the item's own Put, Update,
// Delete or ConditionCheck, followed by the unique-value guard items it
// keeps in step. One action is sent as PutItem, UpdateItem or DeleteItem;
// more go in one TransactWriteItems. The same plan serves Put and TxPut, so
// a transaction does exactly what the single operations do; and a
// BatchWrite's puts and deletes are actions planned the same way (put.go,
// delete.go), so that keys, sizes, ids and the items left unprocessed are
// worked out once, in one type.

// actionKind is what an action writes (the write engine's writes.Kind).
type actionKind = writes.Kind

const (
	actPut    = writes.Put
	actUpdate = writes.Update
	actDelete = writes.Delete
	actCheck  = writes.Check
)

var actionNames = writes.KindNames

// action is one planned write of one item: its request (writes.Action:
// kind, key, item, id, size, expressions) and what explains its failure.
// Transactions plan one per item (and every single write one), so rarely
// used details sit behind pointers and the flags are packed: a smaller
// action is less to allocate and collect.
type action struct {
	writes.Action
	op string       // the operation that planned it: "User.Create"
	m  *entityModel // the entity (for a guard: the entity it guards)
	// guard is set for a unique-value guard item.
	guard *guardOf

	expected int64 // the version expected (see versioned)
	// value is the struct value given: for a batch item, as given (what
	// an unprocessed item returns, and what BatchError.Ops sends again);
	// for an entity with unique fields, the value whose unique values the
	// condition relies on (see uniqueRel).
	value reflect.Value
	// userCond is the caller's own condition (If), for messages.
	userCond Cond
	// extra holds what only some actions need, for messages: a pointer,
	// as every byte here is allocated with each action.
	extra *actionExtra
}

// newAction allocates an action to append to dst: with a nil dst (a single
// write's plan), together with the plan's slice, which it returns empty,
// one allocation for the two.
func newAction(dst []*action) (*action, []*action) {
	if dst != nil {
		return new(action), dst
	}
	p := new(struct {
		a    action
		plan [1]*action
	})
	return &p.a, p.plan[:0]
}

// actionExtra is what only some actions need to explain a failure.
type actionExtra struct {
	// ranges are an update's changes to integer fields, whose room its
	// condition checks.
	ranges []writes.RangeCheck
	// liveAt is set when the condition checks that the item has not
	// expired by then (an upsert's: see planUpdate), in epoch seconds.
	liveAt int64
	// given is what Current gave an update, which its condition holds
	// the item to (see StaleError).
	given *writes.Stored
}

// rangeReason explains a failed condition by a change that would have
// left its integer field's range (see writes.RangeReason); "" when none
// would have.
func (a *action) rangeReason(item map[string]types.AttributeValue) string {
	if a.extra == nil {
		return ""
	}
	return writes.RangeReason(a.extra.ranges, item)
}

// expiredReason says that an upsert failed on an expired item.
func (a *action) expiredReason(item map[string]types.AttributeValue) string {
	if a.extra == nil || a.extra.liveAt == 0 {
		return ""
	}
	if !(expiryCheck{attr: a.m.table.schema.TTLAttr, now: a.extra.liveAt}).expired(item) {
		return ""
	}
	at, _ := expiryAt(item[a.m.table.schema.TTLAttr])
	return fmt.Sprintf("the item expired at %s and DynamoDB has not deleted it yet: to reads it is absent, so an upsert does not update it; Update replaces it, a transaction cannot (Delete it first, or Create over it)",
		time.Unix(int64(at), 0).UTC().Format(time.RFC3339))
}

// failKind is what a failed condition of an action means (writes.Fail):
// the Kind of its *ConditionError, failErr.
type failKind = writes.Fail

const (
	failCondition     = writes.FailCondition
	failNotFound      = writes.FailNotFound
	failAlreadyExists = writes.FailAlreadyExists
	failUnique        = writes.FailUnique
)

var failErrors = [...]error{failCondition: ErrConditionFailed, failNotFound: ErrNotFound,
	failAlreadyExists: ErrAlreadyExists, failUnique: ErrUniqueViolation}

// failErr is the sentinel a failed condition of kind k matches.
func failErr(k failKind) error { return failErrors[k] }

// uniqueRel is what an action's value is to its unique fields' condition
// (writes.UniqueRel).
type uniqueRel = writes.UniqueRel

const (
	uniqueNone   = writes.UniqueNone
	uniqueStored = writes.UniqueStored
	uniqueHeld   = writes.UniqueHeld
)

// keyAttrs is the key of the action's item. A put's key is picked out of
// its item only when something asks for it as a map (a message, an error,
// a guard's owner): most puts never do.
func (a *action) keyAttrs() map[string]types.AttributeValue {
	if a.Key == nil && a.Item != nil {
		a.Key = a.m.keyOfItem(a.Item)
	}
	return a.Key
}

// sentKey is the item's key as the library built it, for the errors and
// results that name it after the request was sent (see Table.keyOfID).
func (a *action) sentKey() map[string]types.AttributeValue {
	if a.ID == (model.ItemID{}) {
		return a.keyAttrs()
	}
	return a.m.table.keyOfID(a.ID)
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

// setCond renders And(c, and) (over the entity's fields, or raw attribute
// names for a guard) into the action's expression maps: into b's, or, with
// a nil b, into a builder of its own, made only if there is a condition.
func (a *action) setCond(c, and Cond, b *expr.Builder) error {
	if b == nil {
		if c.IsZero() && and.IsZero() {
			return nil
		}
		b = new(expr.Builder)
	}
	m := a.m
	if a.guard != nil {
		m = nil
	}
	cond, err := renderAnd(c, and, m, b)
	if err != nil {
		return condError(a.op, err)
	}
	a.Cond = cond
	a.Names, a.Values = b.NameMap(), b.Values
	a.Bytes += len(cond) + b.Bytes()
	return nil
}

// guardAction is the Put or Delete of the guard item of the value (and
// scope) of, for the item whose key is owner. The guard must be absent or
// already belong to owner, so a write never takes another item's value nor
// removes its guard. A put guard of an item that expires carries its
// expiry, ttl (an epoch number; anything else is none), so that DynamoDB
// deletes the two together; and the guard of an item that expires may be
// claimed once its own expiry has passed by now (expiry == now included,
// as reads judge items), so that a value is free as soon as its item is
// absent to reads: the condition reads the stored expiry, so a live
// guard is never taken, and of several claims of one expired guard the
// first wins (its guard then carries the new item's expiry).
func (m *entityModel) guardAction(op string, kind actionKind, of guardOf, owner map[string]types.AttributeValue, ttl types.AttributeValue, now time.Time) (*action, error) {
	key, err := m.guardKey(of)
	if err != nil {
		return nil, err
	}
	g := &action{Action: writes.Action{Kind: kind, Key: key, WhenExists: failUnique}, op: op, m: m, guard: &of}
	if kind == actPut {
		g.Item = m.guardItem(key, owner)
		if _, ok := expiryAt(ttl); ok && m.managed.expires != nil {
			g.Item[m.table.schema.TTLAttr] = ttl
		}
		g.Bytes = itemSize(g.Item)
	}
	g.ID, g.Bytes = m.table.idOf(g.Key), g.Bytes+m.table.keySize(g.Key)
	cond := m.ownedBy(owner)
	if kind == actPut && m.managed.expires != nil {
		cond = Or(cond, expiredAt(m.table.schema.TTLAttr, now)) // a guard's names are its attributes
	}
	if err := g.setCond(cond, Cond{}, nil); err != nil {
		return nil, err
	}
	return g, nil
}

// ownConds are an entity's conditions that an update or a delete writes
// only the entity's own item: another entity's item stored at the same key
// (another entity sharing the key space, other code's item) is never
// changed, taken over nor deleted. Built once per entity: its type
// attribute and name are constants.
type ownConds struct {
	// typed holds when the item's type attribute is the entity's name
	// ("#type = :T"); on a table read by its keys or that writes no type
	// (WithTypeAttribute's "keys", "omit"), also when the item has none,
	// as its keys then say it is the entity's (the write's key is
	// rendered from the entity's templates). Zero without a type
	// attribute.
	typed Cond
	// exists: the item exists and is the entity's (an update, Delete
	// with MustExist); absentOrOwn: the item is absent or the entity's
	// (an upsert, Delete).
	exists, absentOrOwn Cond
}

func newOwnConds(t *Table, name string) ownConds {
	s := &t.schema
	if s.TypeAttr == "" {
		return ownConds{exists: t.exists}
	}
	typed := Cond{expr.EqAttrString(s.TypeAttr, name)}
	if s.TypeByKeys || s.TypeOmit {
		// Items without the attribute are the entity's by their keys (on
		// an omit table, all of its own); one that names another type
		// (another writer's, a guard) is not, as reads tell.
		typed = Or(attrNotExists(s.TypeAttr), typed)
	}
	return ownConds{typed: typed, exists: And(t.exists, typed), absentOrOwn: Or(t.notExists, typed)}
}

// otherEntity reports whether a stored item a failed condition returned is
// not this entity's by its type attribute, as its update or delete
// checks it (ownConds): the condition failed for that.
func (m *entityModel) otherEntity(item map[string]types.AttributeValue) bool {
	if m.own.typed.IsZero() || len(item) == 0 {
		return false
	}
	got, ok := item[m.table.schema.TypeAttr]
	if !ok {
		return !m.table.schema.TypeByKeys && !m.table.schema.TypeOmit
	}
	s, isS := got.(*types.AttributeValueMemberS)
	return !isS || s.Value != m.Name
}

// entityMismatch is the error of an update or delete refused because the
// item at its key is another entity's (see otherEntity).
func (m *entityModel) entityMismatch(key, item map[string]types.AttributeValue) *EntityMismatchError {
	e := &EntityMismatchError{Want: m.Name, Key: key}
	if s, ok := item[m.table.schema.TypeAttr].(*types.AttributeValueMemberS); ok {
		e.Got = s.Value
	}
	return e
}

// writeMode is how a put or delete is written.
type writeMode uint8

const (
	writeOne    writeMode = iota // a single write, or a transaction's action
	writeCreate                  // Create: the item must not exist
	writeBatch                   // a BatchWrite item: no condition, no guard item
)

// write is one item's write while it is planned: its action, and what the
// managed-field hooks add to it (managed.go). A planner builds it, sets the
// write's own condition, applies the hooks and finishes it: the same steps
// for every write, so that no planner handles a managed field itself.
type write struct {
	a    *action
	mode writeMode
	now  time.Time // what timestamps are set to
	// cond is the write's own condition followed by the hooks' checks,
	// which come before the caller's condition; held are what the hooks
	// need to hold, after it. They are joined in that order, one And at a
	// time: the order shapes the expression.
	cond   Cond
	held   []Cond
	guards []pendingGuard

	// An update's expression builder (its plan and settings are
	// arguments of the update steps: held here, they would escape with
	// the conditions), the key given, and the value holding the unique
	// values the item has now.
	b        *expr.Builder
	key, old reflect.Value
	upsert   bool // the update is an upsert
	// oldExpired: the item holding old has expired, its guards are free
	// (a Put over it leaves them to expire; see putMovingGuards).
	oldExpired bool
	// guardTTL is the expiry an update's guard items carry, once
	// hasGuardTTL (see guardExpiry); a put's come from its item.
	guardTTL    types.AttributeValue
	hasGuardTTL bool
}

// pendingGuard is a guard item a hook asks for, made once the item's key
// (its owner) is known.
type pendingGuard struct {
	kind actionKind
	of   guardOf
}

// check adds a condition before the caller's.
func (w *write) check(c Cond) { w.cond = And(w.cond, c) }

// hold adds a condition after the caller's.
func (w *write) hold(c Cond) { w.held = append(w.held, c) }

// guard asks for the Put or Delete of the guard item of g; an empty value
// has no guard.
func (w *write) guard(kind actionKind, g guardOf) {
	if g.value != "" {
		w.guards = append(w.guards, pendingGuard{kind, g})
	}
}

// finish appends the write's action and its guard items to dst, with its
// condition: the write's own and the hooks' checks, the caller's (user),
// then what the hooks need held. b is the builder of the action's other
// expressions (nil: a builder of the condition's own, if any).
func (w *write) finish(dst []*action, user Cond, b *expr.Builder) ([]*action, error) {
	a := w.a
	var guards []*action
	ttl := w.guardTTL
	if len(w.guards) > 0 && a.Item != nil && a.m.managed.expires != nil {
		ttl = a.Item[a.m.table.schema.TTLAttr] // a put's guards expire with its item
	}
	for _, pg := range w.guards {
		g, err := a.m.guardAction(a.op, pg.kind, pg.of, a.keyAttrs(), ttl, w.now)
		if err != nil {
			return nil, err
		}
		guards = append(guards, g)
	}
	a.userCond = user
	// And(And(w.cond, user), held...), its last And rendered without
	// building it.
	c, and := w.cond, user
	for _, h := range w.held {
		c, and = And(c, and), h
	}
	if err := a.setCond(c, and, b); err != nil {
		return nil, err
	}
	return append(append(dst, a), guards...), nil
}

// sendActions sends a plan: one action as a single-item request, more as
// one transaction (under a fresh idempotency token). A failed transaction
// returns the error of the action that failed first (a *ConditionError, a
// *VersionConflictError, a *UniqueViolationError), or the *TxError.
func (db *DB) sendActions(ctx context.Context, op string, acts []*action, s *settings) error {
	if len(acts) == 1 {
		a := acts[0]
		c := db.via(db.meter(s, op, a.m.Name, "", ""), 0)
		var err error
		switch a.Kind {
		case actPut:
			_, err = c.PutItem(ctx, a.PutItemInput(db.name))
		case actUpdate:
			_, err = c.UpdateItem(ctx, a.UpdateItemInput(db.name))
		case actDelete:
			_, err = c.DeleteItem(ctx, a.DeleteItemInput(db.name))
		default:
			return &InputError{Op: op, Reason: "a condition check alone is not a write"}
		}
		if err != nil {
			return a.sendError(err)
		}
		return nil
	}
	tx := &Tx{db: db, actions: acts}
	err := tx.send(ctx, op, s)
	var te *TxError
	if errors.As(err, &te) {
		if cause := te.cause(); cause != nil {
			return cause
		}
	}
	return err
}

// singleInput returns the one action of a plan, or explains that the plan
// is a transaction.
func singleInput(op string, acts []*action, tx string) (*action, error) {
	if len(acts) != 1 {
		return nil, &InputError{Op: op, Reason: fmt.Sprintf("the entity has unique fields, so this write is a transaction of %d actions; build it with %s and DB.TransactInput", len(acts), tx)}
	}
	return acts[0], nil
}

// CurrentItem returns the stored item carried by a failed write's error,
// decoded as T: the current item of a *VersionConflictError or a
// *ConditionError of this entity (also inside a *TxError). ok is false when
// err carries no such item (for example, the item did not exist).
func (e *Entity[T]) CurrentItem(err error) (item T, ok bool) {
	ok = e.m.currentItem(err, reflect.ValueOf(&item).Elem())
	return item, ok
}

// currentItem is CurrentItem decoding into item, a zero struct value of the
// entity's, which it leaves zero when err carries no item.
func (m *entityModel) currentItem(err error, item reflect.Value) bool {
	var vc *VersionConflictError
	if errors.As(err, &vc) && vc.Entity == m.Name {
		if cur := reflect.ValueOf(vc.Current); cur.IsValid() && cur.Type() == m.Type {
			item.Set(cur)
			return true
		}
	}
	var ce *ConditionError
	if errors.As(err, &ce) && ce.Entity == m.Name && len(ce.Item) > 0 {
		if m.decode(ce.Item, item) == nil {
			return true
		}
	}
	var te *TxError
	if errors.As(err, &te) {
		for _, f := range te.Actions {
			if f.Entity == m.Name && f.Guard == "" && len(f.Item) > 0 {
				if m.decode(f.Item, item) == nil {
					return true
				}
			}
		}
	}
	item.SetZero()
	return false
}

// failure explains a failed condition of the action, given the item as it
// was (nil when it did not exist) and the SDK error.
func (a *action) failure(item map[string]types.AttributeValue, err error) error {
	existed := len(item) > 0
	if a.guard != nil {
		// A guard's Put fails only when another item holds the value, even
		// if the service did not return the guard item.
		if a.Kind == actPut {
			return a.guard.violation(a.op, a.m.Name, a.m.guardOwner(item), err)
		}
		return &ConditionError{Op: a.op, Entity: a.m.Name, Key: a.sentKey(), Item: item, Kind: ErrConditionFailed, Err: err,
			Reason: fmt.Sprintf("the guard item of unique %s belongs to another item %s", a.guard.describe(), formatKey(a.m.guardOwner(item)))}
	}
	if (a.Kind == actUpdate || a.Kind == actDelete) && a.m.otherEntity(item) {
		// Its condition holds the item to the entity's type (ownConds):
		// nothing was written to another entity's item.
		return a.m.entityMismatch(a.sentKey(), item)
	}
	ce := &ConditionError{Op: a.op, Entity: a.m.Name, Key: a.sentKey(), Item: item, Kind: failErr(a.WhenMissing), Err: err}
	if existed {
		ce.Kind = failErr(a.WhenExists)
		if re := a.m.revision().refusal(a, item, ce); re != nil {
			return re
		}
	}
	if a.Versioned && (existed || a.WhenMissing != failNotFound) {
		if actual := a.m.managed.storedVersion(item); actual != a.expected {
			vc := &VersionConflictError{ConditionError: ce, Expected: a.expected, Actual: actual}
			if existed {
				vc.Current, _ = a.m.decodeAny(item)
			}
			ce.Reason = fmt.Sprintf("expected version %d, the item is at version %d", a.expected, actual)
			return vc
		}
	}
	if existed && a.extra != nil && a.extra.given != nil {
		if f, given, stored := a.extra.given.StaleField(a.m.Entity, item); f != "" {
			ce.Reason = fmt.Sprintf("the current value given is stale: the item holds %s %s, not %s", f, formatValue(stored), formatValue(given))
			return &StaleError{ConditionError: ce, Field: f, Given: given, Stored: stored}
		}
	}
	if existed {
		ce.Reason = a.uniqueReason(item)
	}
	if ce.Reason == "" && (existed || a.WhenMissing != failNotFound) {
		ce.Reason = a.rangeReason(item)
	}
	if ce.Reason == "" && existed {
		ce.Reason = a.expiredReason(item)
	}
	if ce.Reason == "" && !a.userCond.IsZero() && (existed || a.Kind == actCheck) {
		ce.Reason = "the condition " + describeCond(a.m, a.userCond) + " does not hold"
		if !existed {
			ce.Reason += " (there is no such item)"
		}
	}
	return ce
}

// uniqueReason says which unique value a failed condition was about, when
// the stored item's values differ from those the action relied on.
func (a *action) uniqueReason(item map[string]types.AttributeValue) string {
	if a.UniqueRel == uniqueNone {
		return ""
	}
	v := a.value
	verb := "would change"
	if a.UniqueRel == uniqueHeld {
		verb = "holds"
	}
	for _, f := range a.m.managed.guarded() {
		if !a.m.managed.heldIn(f, v) {
			continue
		}
		want, err := a.m.encodeValue(f.GoName, fieldValue(f, v).Interface(), false)
		if err != nil {
			continue
		}
		got := item[f.Attr]
		if codec.Equal(got, want) || (got == nil && fieldValue(f, v).IsZero()) {
			continue
		}
		if verb == "holds" {
			return fmt.Sprintf("the item holds %s %s, not %s as expected", a.m.managed.describeGuard(f.GoName), formatValue(got), formatValue(want))
		}
		return fmt.Sprintf("Put would change %s from %s to %s, and a Put in a transaction cannot move its guard (that needs the stored value): change it with TxUpdate, or with Put or Update outside a transaction", a.m.managed.describeGuard(f.GoName), formatValue(got), formatValue(want))
	}
	return ""
}

// sendError turns the error of a single-item request into the library's:
// a failed condition explained by failure, anything else wrapped.
func (a *action) sendError(err error) error {
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return a.failure(ccf.Item, err)
	}
	var ae smithy.APIError
	if a.Kind == actUpdate && errors.As(err, &ae) && ae.ErrorCode() == "ValidationException" && strings.Contains(ae.ErrorMessage(), "incorrect data type") {
		// What DynamoDB says of a change computed from a value of another
		// type, most often a NULL.
		return fmt.Errorf("singletable: %s %s: %w; if a change computes from the stored value (Increment, Decrement, Add, Append, Prepend), the item may hold NULL there, %s", a.op, formatKey(a.sentKey()), err, writes.NullHint)
	}
	return opError(a.op, err)
}
