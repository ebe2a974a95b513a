package singletable

import (
	"context"
	"reflect"
	"time"
	"unsafe"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/codec"
	"github.com/singletable/singletable/internal/model"
	writes "github.com/singletable/singletable/internal/write"
)

// Put, Create and their transaction actions: one planner, planPut, for
// them and for the puts of a BatchWrite. The generic entries make one call
// into the non-generic code: their T by address when the write plans with
// a copy of it (see copies.go), else as a reflect.Value.

// PutInput is the PutItem request Put sends. For an entity
// with unique fields Put is a transaction: see TxPut and DB.TransactInput.
func (e *Entity[T]) PutInput(db *DB, v T, opts ...PutOption) (*dynamodb.PutItemInput, error) {
	return e.m.putInput(db, reflect.ValueOf(&v).Elem(), writeOne, opts)
}

// Put writes v, replacing any item with the same key. Its index keys are
// computed from v: an index whose key fields are empty, or whose When
// condition is false, gets no key, and the item leaves that index.
//
// On an entity with a version field, Put of version 0 needs the item not to
// exist and Put of version n needs the stored version to be n; it stores
// n+1 (v is passed by value: read the item back, or add one yourself, to
// write it again). Timestamps are set (created only when zero). On an entity
// with unique fields Put is a transaction that also writes the guard items.
// When the existing item holds other unique values (or scopes), Put moves
// their guards as Update does: its first transaction fails and returns the
// stored item, and a second one deletes the old guards and puts the new ones,
// conditioned on the item still holding the old values. Unchanged values
// cost one request, changed ones two; TxPut cannot read, and refuses a change.
func (e *Entity[T]) Put(ctx context.Context, db *DB, v T, opts ...PutOption) error {
	return e.m.put(ctx, db, unsafe.Pointer(&v), writeOne, opts)
}

// CreateInput is the PutItem request Create sends. For an entity with unique fields Create is a transaction: see TxCreate and
// DB.TransactInput.
func (e *Entity[T]) CreateInput(db *DB, v T, opts ...PutOption) (*dynamodb.PutItemInput, error) {
	return e.m.putInput(db, reflect.ValueOf(&v).Elem(), writeCreate, opts)
}

// Create writes v only if no item has its key; otherwise it fails with a
// *ConditionError matching ErrAlreadyExists. A version field is stored as 1;
// timestamps are set when zero. On an entity with unique fields, Create is
// a transaction that also creates the guard items, and a value another item
// holds is a *UniqueViolationError (ErrUniqueViolation).
func (e *Entity[T]) Create(ctx context.Context, db *DB, v T, opts ...PutOption) error {
	return e.m.put(ctx, db, unsafe.Pointer(&v), writeCreate, opts)
}

// putInput builds the single request of a Put or Create (mode) of struct
// value v.
func (m *entityModel) putInput(db *DB, v reflect.Value, mode writeMode, opts []PutOption) (*dynamodb.PutItemInput, error) {
	op, tx := m.putOp(mode), "TxPut"
	if mode == writeCreate {
		tx = "TxCreate"
	}
	acts, _, err := m.planPutOpts(nil, db, op, v, mode, opts)
	if err != nil {
		return nil, err
	}
	a, err := singleInput(op, acts, tx)
	if err != nil {
		return nil, err
	}
	return a.PutItemInput(db.name), nil
}

// put plans and sends a Put or Create (mode) of a copy of the value at v
// (see copyOf).
func (m *entityModel) put(ctx context.Context, db *DB, v unsafe.Pointer, mode writeMode, opts []PutOption) error {
	if mode == writeOne && len(opts) == 0 && m.plainPut(db) {
		return m.putPlain(ctx, db, v)
	}
	op := m.putOp(mode)
	p, h := m.copyOf(v)
	defer m.recycle(p, h)
	acts, s, err := m.planPutOpts(nil, db, op, p, mode, opts)
	if err != nil {
		return err
	}
	err = db.sendActions(ctx, op, acts, s)
	if err != nil && mode == writeOne && len(m.managed.unique) > 0 {
		// A copy of its own, here only, not on every Put.
		return m.putMovingGuards(ctx, db, op, m.heapCopy(v), s, err)
	}
	return err
}

// plainPut reports whether a Put without options of m on db is a plain
// one, which putPlain sends: no managed field (nothing to set in the value,
// no condition, no guard item), no shard to place, and an encoding that
// keeps no pointer into the value (the copy a put plans with could be
// recycled; see recycling). What it buys: the common put runs one short
// path, with no copy of the value, no action and no plan, about a sixth
// less CPU and memory (bench/'s Put: see CHANGELOG).
func (m *entityModel) plainPut(db *DB) bool {
	return len(m.managed.fields) == 0 && m.Shard == nil && !m.Plan.LendsAddress() &&
		db != nil && db.table == m.table
}

// putPlain sends the Put of the value at v (see valueAt) that plainPut
// allows: the request planPut would build, {TableName, Item}, from the
// value itself, which stays the caller's and unchanged (the encoding only
// reads it, and keeps nothing of it but copies and strings), and the same
// errors.
func (m *entityModel) putPlain(ctx context.Context, db *DB, v unsafe.Pointer) error {
	item, facts, err := m.itemIn(m.valueAt(v), nil)
	if err != nil {
		return inOp(m.ops.put, "", err)
	}
	in, name := writes.NewWithTable[dynamodb.PutItemInput](db.name)
	in.TableName, in.Item = name, item
	c := db.via(db.meter(&noOptions, m.ops.put, m.Name, "", ""), 0)
	if _, err = c.PutItem(ctx, in); err != nil {
		// The action planPut would have sent, to explain the failure.
		a := &action{Action: plainPutAction(item, facts), op: m.ops.put, m: m}
		return a.sendError(err)
	}
	return nil
}

// plainPutAction is the action a put without hooks or condition sends:
// its item, its id and its size.
func plainPutAction(item map[string]types.AttributeValue, facts model.ItemFacts) writes.Action {
	return writes.Action{Kind: actPut, Item: item, ID: facts.ID, Bytes: facts.KeyBytes + facts.Size}
}

// planPlainPut is planPutInto (into a; nil: an action of its own) of a put
// without hooks, condition or shard to place: its action is its item, its
// id and its size, as the planner would make it, in fewer steps. Its
// error is the encoding's, for the caller to put in its operation.
func (m *entityModel) planPlainPut(a *action, dst []*action, op string, v reflect.Value, sh *codec.Shared) ([]*action, error) {
	item, facts, err := m.itemIn(v, sh)
	if err != nil {
		return nil, err
	}
	if a == nil {
		a, dst = newAction(dst)
	}
	*a = action{Action: plainPutAction(item, facts), op: op, m: m}
	return append(dst, a), nil
}

// putOp names the operation of a Put or Create (mode).
func (m *entityModel) putOp(mode writeMode) string {
	if mode == writeCreate {
		return m.ops.create
	}
	return m.ops.put
}

// planPutOpts collects opts and plans a Put or Create (mode) of struct
// value v.
func (m *entityModel) planPutOpts(dst []*action, db *DB, op string, v reflect.Value, mode writeMode, opts []PutOption) ([]*action, *settings, error) {
	s, err := collect(op, opts)
	if err != nil {
		return nil, nil, err
	}
	acts, err := m.planPut(dst, db, op, v, mode, m.managed.clock(db), s)
	return acts, s, err
}

// TxPut adds Put of v to the transaction (see Put).
func (e *Entity[T]) TxPut(tx *Tx, v T, opts ...PutOption) {
	e.m.txPut(tx, unsafe.Pointer(&v), writeOne, opts)
}

// TxCreate adds Create of v to the transaction (see Create): the item must
// not exist.
func (e *Entity[T]) TxCreate(tx *Tx, v T, opts ...PutOption) {
	e.m.txPut(tx, unsafe.Pointer(&v), writeCreate, opts)
}

// txPut adds a Put or Create (mode) of a copy of the value at v (see
// copyOf) to tx.
func (m *entityModel) txPut(tx *Tx, v unsafe.Pointer, mode writeMode, opts []PutOption) {
	if mode == writeOne && len(opts) == 0 && m.plainPut(tx.db) {
		acts, err := m.planPlainPut(nil, tx.actions, m.ops.put, m.valueAt(v), nil)
		if err != nil {
			err = inOp(m.ops.put, "", err)
		}
		tx.add(acts, err)
		return
	}
	p, h := m.copyOf(v)
	acts, _, err := m.planPutOpts(tx.actions, tx.db, m.putOp(mode), p, mode, opts)
	m.recycle(p, h)
	tx.add(acts, err)
}

// planPut plans a put of struct value v, which it changes (the managed
// fields): Put (writeOne), Create (the item must not exist) or a
// BatchWrite's put (no condition). now is what timestamps are set to.
func (m *entityModel) planPut(dst []*action, db *DB, op string, v reflect.Value, mode writeMode, now time.Time, s *settings) ([]*action, error) {
	return m.planPutInto(nil, dst, db, op, v, mode, now, s, nil)
}

// planPutInto is planPut filling in a, an action its caller allocated
// (nil: one of its own), with the item's values from sh (nil: an arena of
// their own).
func (m *entityModel) planPutInto(a *action, dst []*action, db *DB, op string, v reflect.Value, mode writeMode, now time.Time, s *settings, sh *codec.Shared) ([]*action, error) {
	return m.planPutIn(a, dst, db, op, v, reflect.Value{}, false, mode, now, s, sh)
}

// planPutOver is planPutInto over an item known to hold the unique values
// of old (invalid: not known), whose guards the put moves (leaves, when
// oldExpired: they are free).
func (m *entityModel) planPutOver(a *action, dst []*action, db *DB, op string, v, old reflect.Value, oldExpired bool, mode writeMode, now time.Time, s *settings) ([]*action, error) {
	return m.planPutIn(a, dst, db, op, v, old, oldExpired, mode, now, s, nil)
}

// planPutIn is planPutOver with the item's values from sh (nil: an arena
// of their own).
func (m *entityModel) planPutIn(a *action, dst []*action, db *DB, op string, v, old reflect.Value, oldExpired bool, mode writeMode, now time.Time, s *settings, sh *codec.Shared) ([]*action, error) {
	if err := db.checkTable(op, m); err != nil {
		return nil, err
	}
	if err := m.chooseShard(op, v, s); err != nil {
		return nil, err
	}
	if a == nil {
		a, dst = newAction(dst)
	}
	*a = action{Action: writes.Action{Kind: actPut}, op: op, m: m}
	w := write{a: a, mode: mode, now: now, old: old, oldExpired: oldExpired}
	if mode == writeCreate {
		w.cond = m.absent(now)
		a.WhenExists = failAlreadyExists
	}
	if err := m.managed.onPut(&w, v); err != nil {
		return nil, err
	}
	item, facts, err := m.itemIn(v, sh)
	if err != nil {
		return nil, inOp(op, "", err)
	}
	a.Item, a.ID, a.Bytes = item, facts.ID, facts.KeyBytes+facts.Size
	return w.finish(dst, s.cond, nil)
}
