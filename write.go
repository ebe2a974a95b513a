package singletable

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
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
	// id is the item's itemID and bytes its key's and item's share of a
	// transaction's size, worked out when they were encoded.
	id           itemID
	bytes        int
	update, cond string
	// exprBytes is the size of names and values (expr.Builder.Bytes).
	exprBytes int
	names     map[string]string
	values    map[string]types.AttributeValue

	// What a failed condition means: the Kind of the *ConditionError when
	// the item existed and when it did not, and the version expected (see
	// versioned).
	whenExists, whenMissing error
	expected                int64
	// unique is set for an entity with unique fields: the struct value
	// whose unique values the condition relies on (see uniqueHeld).
	unique reflect.Value
	// userCond is the caller's own condition (If), for messages.
	userCond Cond
}

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
	a.names, a.values, a.exprBytes = b.Names, b.Values, b.Bytes()
	return nil
}

// guardAction plans the Put or Delete of the guard item for value of
// unique field f, for the item whose key is owner. The guard must be absent
// or already belong to owner, so a write never takes another item's value
// nor removes its guard.
func (m *entityModel) guardAction(op string, kind actionKind, f *codec.Field, value string, owner map[string]types.AttributeValue) (*action, error) {
	g := &action{kind: kind, op: op, m: m, guard: &guardOf{field: f, value: value},
		key: m.guardKey(f, value), whenExists: ErrUniqueViolation, whenMissing: ErrConditionFailed}
	if kind == actPut {
		g.item = m.guardItem(f, value, owner)
		g.bytes = itemSize(g.item)
	}
	g.id, g.bytes = m.table.idOf(g.key), g.bytes+m.table.keySize(g.key)
	if err := g.setCond(m.ownedBy(owner), nil); err != nil {
		return nil, err
	}
	return g, nil
}

// The planners append the actions they plan to dst (a transaction's
// actions, or nil) and return it; on error they return nil.

// planPut plans Put (create false) or Create (create true) of struct value
// v, which it changes: version and timestamps.
func (m *entityModel) planPut(dst []*action, db *DB, op string, v reflect.Value, create bool, s *settings) ([]*action, error) {
	if err := db.checkTable(op, m); err != nil {
		return nil, err
	}
	a := &action{kind: actPut, op: op, m: m, whenExists: ErrConditionFailed, whenMissing: ErrConditionFailed}
	var c Cond
	if create {
		c = m.table.notExists
		a.whenExists = ErrAlreadyExists
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
		var ie *InputError
		if errors.As(err, &ie) {
			return nil, &LimitError{Op: op, Reason: ie.Reason}
		}
		return nil, err
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
		val := uniqueValue(f, v)
		if val == "" {
			continue
		}
		g, err := m.guardAction(op, actPut, f, val, a.keyAttrs())
		if err != nil {
			return nil, err
		}
		guards = append(guards, g)
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
// stored item for Update).
func (m *entityModel) planUpdate(dst []*action, db *DB, op string, key, old reflect.Value, s *settings) ([]*action, error) {
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
	var plan updatePlan
	if err := m.planChanges(op, key, s, b, &plan); err != nil {
		return nil, err
	}
	if s.upsert {
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
	*a = action{kind: actUpdate, op: op, m: m, key: k, id: kf.id, bytes: kf.keyBytes, whenExists: ErrConditionFailed, whenMissing: ErrNotFound}
	if s.upsert {
		a.whenMissing = ErrConditionFailed
	}
	var c Cond
	if !s.upsert {
		c = m.table.exists
	}
	if ver := m.w.version; ver != nil {
		plan.act(clauseAdd, b.Name(ver.Attr), " ", b.Value(&types.AttributeValueMemberN{Value: "1"}))
		if exp := m.versionOf(key); exp != 0 {
			c = And(c, Eq(ver.GoName, key.FieldByIndex(ver.Index).Interface()))
			a.versioned, a.expected = true, exp
		}
	}
	var now time.Time // read from the clock only for an entity with timestamps
	if m.w.timestamped() {
		now = db.now()
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
	if len(a.update) > expr.MaxExpressionBytes {
		return nil, &LimitError{Op: op, Reason: fmt.Sprintf("the update expression is %d bytes; DynamoDB allows %d", len(a.update), expr.MaxExpressionBytes)}
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
		if was != "" {
			g, err := m.guardAction(op, actDelete, f, was, k)
			if err != nil {
				return nil, err
			}
			guards = append(guards, g)
		}
		if now != "" {
			g, err := m.guardAction(op, actPut, f, now, k)
			if err != nil {
				return nil, err
			}
			guards = append(guards, g)
		}
	}
	if err := a.setCond(c, b); err != nil {
		return nil, err
	}
	return append(append(dst, a), guards...), nil
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
	a := &action{kind: actDelete, op: op, m: m, key: k, id: kf.id, bytes: kf.keyBytes, whenExists: ErrConditionFailed, whenMissing: ErrConditionFailed}
	var c Cond
	if s.mustExist {
		c = m.table.exists
		a.whenMissing = ErrNotFound
	}
	if ver := m.w.version; ver != nil {
		if exp := m.versionOf(key); exp != 0 {
			c = And(c, Eq(ver.GoName, key.FieldByIndex(ver.Index).Interface()))
			a.versioned, a.expected = true, exp
			a.whenMissing = ErrNotFound
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
		if val := uniqueValue(f, old); val != "" {
			g, err := m.guardAction(op, actDelete, f, val, k)
			if err != nil {
				return nil, err
			}
			guards = append(guards, g)
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
	a := &action{kind: actCheck, op: op, m: m, key: k, id: kf.id, bytes: kf.keyBytes, whenExists: ErrConditionFailed, whenMissing: ErrConditionFailed, userCond: c}
	if err := a.setCond(c, nil); err != nil {
		return nil, err
	}
	return a, nil
}

// The requests of one action.

func (a *action) returnOld() types.ReturnValuesOnConditionCheckFailure {
	if a.cond == "" {
		return ""
	}
	return types.ReturnValuesOnConditionCheckFailureAllOld
}

func (a *action) putItemInput(db *DB) *dynamodb.PutItemInput {
	return &dynamodb.PutItemInput{
		TableName: aws.String(db.name), Item: a.item,
		ConditionExpression: expr.Ptr(a.cond), ExpressionAttributeNames: a.names, ExpressionAttributeValues: a.values,
		ReturnValuesOnConditionCheckFailure: a.returnOld(),
	}
}

func (a *action) updateItemInput(db *DB) *dynamodb.UpdateItemInput {
	return &dynamodb.UpdateItemInput{
		TableName: aws.String(db.name), Key: a.key, UpdateExpression: aws.String(a.update),
		ConditionExpression: expr.Ptr(a.cond), ExpressionAttributeNames: a.names, ExpressionAttributeValues: a.values,
		ReturnValues: types.ReturnValueAllNew, ReturnValuesOnConditionCheckFailure: a.returnOld(),
	}
}

func (a *action) deleteItemInput(db *DB) *dynamodb.DeleteItemInput {
	return &dynamodb.DeleteItemInput{
		TableName: aws.String(db.name), Key: a.key,
		ConditionExpression: expr.Ptr(a.cond), ExpressionAttributeNames: a.names, ExpressionAttributeValues: a.values,
		ReturnValuesOnConditionCheckFailure: a.returnOld(),
	}
}

// transactItem is the action as one item of a TransactWriteItems request,
// on the table whose name name points to (one pointer serves all the
// items of a request).
func (a *action) transactItem(name *string) types.TransactWriteItem {
	switch a.kind {
	case actPut:
		return types.TransactWriteItem{Put: &types.Put{TableName: name, Item: a.item,
			ConditionExpression: expr.Ptr(a.cond), ExpressionAttributeNames: a.names, ExpressionAttributeValues: a.values,
			ReturnValuesOnConditionCheckFailure: a.returnOld()}}
	case actUpdate:
		return types.TransactWriteItem{Update: &types.Update{TableName: name, Key: a.key, UpdateExpression: aws.String(a.update),
			ConditionExpression: expr.Ptr(a.cond), ExpressionAttributeNames: a.names, ExpressionAttributeValues: a.values,
			ReturnValuesOnConditionCheckFailure: a.returnOld()}}
	case actDelete:
		return types.TransactWriteItem{Delete: &types.Delete{TableName: name, Key: a.key,
			ConditionExpression: expr.Ptr(a.cond), ExpressionAttributeNames: a.names, ExpressionAttributeValues: a.values,
			ReturnValuesOnConditionCheckFailure: a.returnOld()}}
	default:
		return types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{TableName: name, Key: a.key,
			ConditionExpression: aws.String(a.cond), ExpressionAttributeNames: a.names, ExpressionAttributeValues: a.values,
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}}
	}
}

// size estimates the action's share of a transaction's 4 MB: its item or
// key, its expressions and their values.
func (a *action) size() int {
	return a.bytes + len(a.update) + len(a.cond) + a.exprBytes
}

// failure explains a failed condition of the action, given the item as it
// was (nil when it did not exist) and the SDK error.
func (a *action) failure(item map[string]types.AttributeValue, err error) error {
	existed := len(item) > 0
	if a.guard != nil {
		if existed && a.kind == actPut {
			return &UniqueViolationError{Op: a.op, Entity: a.m.name, Field: a.guard.field.GoName, Value: a.guard.value,
				Owner: a.m.guardOwner(item), Err: err}
		}
		return &ConditionError{Op: a.op, Entity: a.m.name, Key: a.keyAttrs(), Item: item, Kind: ErrConditionFailed, Err: err,
			Reason: fmt.Sprintf("the guard item of unique %s %q belongs to another item %s", a.guard.field.GoName, a.guard.value, formatKey(a.m.guardOwner(item)))}
	}
	ce := &ConditionError{Op: a.op, Entity: a.m.name, Key: a.keyAttrs(), Item: item, Kind: a.whenMissing, Err: err}
	if existed {
		ce.Kind = a.whenExists
	}
	if a.versioned && (existed || a.whenMissing != ErrNotFound) {
		if actual := a.m.storedVersion(item); actual != a.expected {
			vc := &VersionConflictError{ConditionError: ce, Expected: a.expected, Actual: actual}
			if existed {
				vc.Current, _ = a.m.decodeAny(item)
			}
			ce.Reason = fmt.Sprintf("expected version %d, the item is at version %d", a.expected, actual)
			return vc
		}
	}
	if existed {
		ce.Reason = a.uniqueReason(item)
	}
	if ce.Reason == "" && !a.userCond.IsZero() && (existed || a.kind == actCheck) {
		ce.Reason = "the condition " + describeCond(a.m, a.userCond) + " does not hold"
		if !existed {
			ce.Reason += " (there is no such item)"
		}
	}
	return ce
}

var placeholderRE = regexp.MustCompile(`#n\d+|:v\d+`)

// describeCond renders a condition for messages, with attribute names and
// values in place of the placeholders: "inventory >= 101".
func describeCond(m *entityModel, c Cond) string {
	var b expr.Builder
	s, err := renderCond(c, m, &b)
	if err != nil {
		return "(unrenderable)"
	}
	return placeholderRE.ReplaceAllStringFunc(s, func(p string) string {
		if n, ok := b.Names[p]; ok {
			return n
		}
		if v, ok := b.Values[p]; ok {
			return formatValue(v)
		}
		return p
	})
}

// uniqueReason says which unique value a failed condition was about, when
// the stored item's values differ from those the action relied on.
func (a *action) uniqueReason(item map[string]types.AttributeValue) string {
	v := a.unique
	if !v.IsValid() {
		return ""
	}
	verb := "would change"
	if a.uniqueHeld {
		verb = "holds"
	}
	for _, f := range a.m.w.unique {
		want, err := a.m.encodeValue(f.GoName, v.FieldByIndex(f.Index).Interface(), false)
		if err != nil {
			continue
		}
		got := item[f.Attr]
		if sameValue(got, want) || (got == nil && uniqueValue(f, v) == "") {
			continue
		}
		if verb == "holds" {
			return fmt.Sprintf("the item holds unique %s %s, not %s as expected", f.GoName, formatValue(got), formatValue(want))
		}
		return fmt.Sprintf("Put would change unique %s from %s to %s; change it with Update, which moves its guard", f.GoName, formatValue(got), formatValue(want))
	}
	return ""
}

func sameValue(a, b types.AttributeValue) bool {
	switch a := a.(type) {
	case *types.AttributeValueMemberS:
		b, ok := b.(*types.AttributeValueMemberS)
		return ok && a.Value == b.Value
	case *types.AttributeValueMemberN:
		b, ok := b.(*types.AttributeValueMemberN)
		return ok && a.Value == b.Value
	}
	return false
}

func formatValue(v types.AttributeValue) string {
	switch v := v.(type) {
	case nil:
		return "nothing"
	case *types.AttributeValueMemberS:
		return fmt.Sprintf("%q", v.Value)
	case *types.AttributeValueMemberN:
		return v.Value
	case *types.AttributeValueMemberBOOL:
		return fmt.Sprint(v.Value)
	case *types.AttributeValueMemberNULL:
		return "NULL"
	}
	return strings.TrimPrefix(fmt.Sprintf("%T", v), "*types.AttributeValueMember")
}

// decodeAny decodes a stored item as the entity's Go type, returning a T
// value (not a pointer) as an any.
func (m *entityModel) decodeAny(item map[string]types.AttributeValue) (any, error) {
	v := reflect.New(m.typ).Elem()
	if err := m.decode(item, v); err != nil {
		return nil, err
	}
	return v.Interface(), nil
}

// sendError turns the error of a single-item request into the library's:
// a failed condition explained by failure, anything else wrapped.
func (a *action) sendError(err error) error {
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return a.failure(ccf.Item, err)
	}
	return opError(a.op, err)
}

// sendActions sends a plan: one action as a single-item request, more as
// one transaction (under a fresh idempotency token). A failed transaction
// returns the error of the action that failed first (a *ConditionError, a
// *VersionConflictError, a *UniqueViolationError), or the *TxError.
func (db *DB) sendActions(ctx context.Context, op string, acts []*action, s *settings) error {
	if len(acts) == 1 {
		a := acts[0]
		var err error
		switch a.kind {
		case actPut:
			_, err = db.client.PutItem(ctx, a.putItemInput(db))
		case actUpdate:
			_, err = db.client.UpdateItem(ctx, a.updateItemInput(db))
		case actDelete:
			_, err = db.client.DeleteItem(ctx, a.deleteItemInput(db))
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

// readCurrent reads the stored item (strongly consistent) into a new
// struct value; found is false when there is none.
func (m *entityModel) readCurrent(ctx context.Context, db *DB, op string, key reflect.Value) (reflect.Value, bool, error) {
	v := reflect.New(m.typ).Elem()
	k, err := m.key(key)
	if err != nil {
		return v, false, err
	}
	res, err := db.client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(db.name), Key: k, ConsistentRead: aws.Bool(true)})
	if err != nil {
		return v, false, opError(op, err)
	}
	if len(res.Item) == 0 {
		return v, false, nil
	}
	if err := m.decode(res.Item, v); err != nil {
		return v, false, err
	}
	return v, true, nil
}

// The public single-item writes.

// singleInput returns the one action of a plan, or explains that the plan
// is a transaction.
func singleInput(op string, acts []*action, tx string) (*action, error) {
	if len(acts) != 1 {
		return nil, &InputError{Op: op, Reason: fmt.Sprintf("the entity has unique fields, so this write is a transaction of %d actions; build it with %s and DB.TransactInput", len(acts), tx)}
	}
	return acts[0], nil
}

// PutInput is the PutItem request Put sends. Options: If. For an entity
// with unique fields Put is a transaction: see TxPut and DB.TransactInput.
func (e *Entity[T]) PutInput(db *DB, v T, opts ...Option) (*dynamodb.PutItemInput, error) {
	return e.putInput(db, &v, false, opts)
}

// Put writes v, replacing any item with the same key. Its index keys are
// computed from v: an index whose key fields are empty, or whose When
// condition is false, gets no key, and the item leaves that index.
//
// On an entity with a version field, Put of version 0 needs the item not to
// exist and Put of version n needs the stored version to be n; it stores
// n+1 (v is passed by value: read the item back, or add one yourself, to
// write it again). Timestamps are set (created only when zero). On an entity
// with unique fields Put is a transaction that also writes the guard items;
// an existing item must already hold the same unique values (change them
// with Update).
func (e *Entity[T]) Put(ctx context.Context, db *DB, v T, opts ...Option) error {
	return e.put(ctx, db, &v, false, opts)
}

// CreateInput is the PutItem request Create sends. Options: If. For an
// entity with unique fields Create is a transaction: see TxCreate and
// DB.TransactInput.
func (e *Entity[T]) CreateInput(db *DB, v T, opts ...Option) (*dynamodb.PutItemInput, error) {
	return e.putInput(db, &v, true, opts)
}

// Create writes v only if no item has its key; otherwise it fails with a
// *ConditionError matching ErrAlreadyExists. A version field is stored as 1;
// timestamps are set when zero. On an entity with unique fields, Create is
// a transaction that also creates the guard items, and a value another item
// holds is a *UniqueViolationError (ErrUniqueViolation).
func (e *Entity[T]) Create(ctx context.Context, db *DB, v T, opts ...Option) error {
	return e.put(ctx, db, &v, true, opts)
}

// putInput builds the single request of a Put or Create (create).
func (e *Entity[T]) putInput(db *DB, v *T, create bool, opts []Option) (*dynamodb.PutItemInput, error) {
	op, tx := e.m.ops.put, "TxPut"
	if create {
		op, tx = e.m.ops.create, "TxCreate"
	}
	acts, _, err := e.planPut(nil, db, op, v, create, opts)
	if err != nil {
		return nil, err
	}
	a, err := singleInput(op, acts, tx)
	if err != nil {
		return nil, err
	}
	return a.putItemInput(db), nil
}

// put plans and sends a Put or Create (create).
func (e *Entity[T]) put(ctx context.Context, db *DB, v *T, create bool, opts []Option) error {
	op := e.m.ops.put
	if create {
		op = e.m.ops.create
	}
	acts, s, err := e.planPut(nil, db, op, v, create, opts)
	if err != nil {
		return err
	}
	return db.sendActions(ctx, op, acts, s)
}

func (e *Entity[T]) planPut(dst []*action, db *DB, op string, v *T, create bool, opts []Option) ([]*action, *settings, error) {
	s, err := collect(op, optCondition, opts)
	if err != nil {
		return nil, nil, err
	}
	acts, err := e.m.planPut(dst, db, op, reflect.ValueOf(v).Elem(), create, s)
	return acts, s, err
}

// DeleteInput is the DeleteItem request Delete sends. Options: MustExist,
// If. For an entity with unique fields Delete is a transaction: see TxDelete
// and DB.TransactInput.
func (e *Entity[T]) DeleteInput(db *DB, key T, opts ...Option) (*dynamodb.DeleteItemInput, error) {
	op := e.m.ops.delete
	s, err := collect(op, optMustExist|optCondition, opts)
	if err != nil {
		return nil, err
	}
	kv := reflect.ValueOf(&key).Elem()
	if len(e.m.w.unique) > 0 {
		_, err := singleInput(op, make([]*action, 2), "TxDelete")
		return nil, err
	}
	acts, err := e.m.planDelete(nil, db, op, kv, kv, s)
	if err != nil {
		return nil, err
	}
	return acts[0].deleteItemInput(db), nil
}

// Delete removes the item whose primary key fields are set in key. Deleting
// a missing item succeeds, unless MustExist is given (then ErrNotFound).
//
// On an entity with a version field, a key whose version is non-zero must
// match the stored one (else a *VersionConflictError). On an entity with
// unique fields, Delete reads the item first (strongly consistent) to learn
// its unique values, then deletes it and its guard items in one transaction
// conditioned on the item still holding them.
func (e *Entity[T]) Delete(ctx context.Context, db *DB, key T, opts ...Option) error {
	op := e.m.ops.delete
	s, err := collect(op, optMustExist|optCondition, opts)
	if err != nil {
		return err
	}
	kv := reflect.ValueOf(&key).Elem()
	acts, err := e.m.planDelete(nil, db, op, kv, kv, s) // checks everything before any read
	if err != nil {
		return err
	}
	if len(e.m.w.unique) > 0 {
		cur, found, err := e.m.readCurrent(ctx, db, op, kv)
		if err != nil {
			return err
		}
		if !found {
			if s.mustExist {
				k, _ := e.m.key(kv)
				return &notFoundError{op: op, key: k}
			}
			return nil
		}
		if acts, err = e.m.planDelete(nil, db, op, kv, cur, s); err != nil {
			return err
		}
	}
	return db.sendActions(ctx, op, acts, s)
}

// CurrentItem returns the stored item carried by a failed write's error,
// decoded as T: the current item of a *VersionConflictError or a
// *ConditionError of this entity (also inside a *TxError). ok is false when
// err carries no such item (for example, the item did not exist).
func (e *Entity[T]) CurrentItem(err error) (item T, ok bool) {
	var vc *VersionConflictError
	if errors.As(err, &vc) && vc.Entity == e.m.name {
		if cur, isT := vc.Current.(T); isT {
			return cur, true
		}
	}
	var ce *ConditionError
	if errors.As(err, &ce) && ce.Entity == e.m.name && len(ce.Item) > 0 {
		if e.m.decode(ce.Item, reflect.ValueOf(&item).Elem()) == nil {
			return item, true
		}
	}
	var te *TxError
	if errors.As(err, &te) {
		for _, f := range te.Actions {
			if f.Entity == e.m.name && f.Guard == "" && len(f.Item) > 0 {
				if e.m.decode(f.Item, reflect.ValueOf(&item).Elem()) == nil {
					return item, true
				}
			}
		}
	}
	var zero T
	return zero, false
}
