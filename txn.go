package singletable

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"unsafe"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/bridge"
	"github.com/singletable/singletable/internal/model"
	writes "github.com/singletable/singletable/internal/write"
)

// Service limits of transactions.
const (
	maxTxActions = 100
	maxTxBytes   = 4 * 1024 * 1024
)

// Tx collects the actions of one write transaction: Put, Create, Update,
// Delete and ConditionCheck of items of any entities of the DB's table,
// added with the entities' TxPut, TxCreate, TxUpdate, TxDelete and TxCheck.
// All happen or none does. Unique-value guard items are added as the single
// operations add them, and version fields are checked and incremented.
//
// A Tx is built inside DB.Transact (or DB.TransactInput) and is not safe for
// concurrent use. An action that cannot be built (an unknown field, a bad
// key) is remembered, and Transact returns that error without sending.
type Tx struct {
	db      *DB
	actions []*action
	errs    []error
	token   string // the request's ClientRequestToken points here
	// small holds the actions of a small transaction (most are), so that
	// adding them costs no allocation.
	small [4]*action
	// The request is built in the Tx (see input): its table name, token
	// and, in a small transaction, its items cost no allocation of their
	// own. The room is for the common shapes (a put or two beside an
	// update, an update with a guard item), and no more: every byte of
	// it is allocated with every Tx, used or not.
	in      dynamodb.TransactWriteItemsInput
	name    string
	tok     [32]byte
	items   [3]types.TransactWriteItem
	puts    [2]types.Put
	updates [1]types.Update
}

// add records what planning an action gave: tx.actions with the planned
// actions appended (the planners append to it), or the error.
func (tx *Tx) add(acts []*action, err error) {
	if err != nil {
		tx.errs = append(tx.errs, err)
		return
	}
	tx.actions = acts
}

// Len is the number of actions so far, guard items included.
func (tx *Tx) Len() int { return len(tx.actions) }

// TxCheck adds a ConditionCheck: the transaction happens only if the item
// whose key fields are set in key meets cond, which it does not change. To
// require that the item exists, check a field it always has, such as
// Exists on one of its key fields.
func (e *Entity[T]) TxCheck(tx *Tx, key T, cond Cond) {
	e.m.txCheck(tx, unsafe.Pointer(&key), cond)
}

// txCheck adds a ConditionCheck of the item whose key fields are set in the
// value at key to tx, planned with a copy of it (see copyOf).
func (m *entityModel) txCheck(tx *Tx, key unsafe.Pointer, cond Cond) {
	kv, h := m.copyOf(key)
	a, err := m.planCheck(tx.db, m.ops.check, kv, cond)
	m.recycle(kv, h)
	if err != nil {
		tx.add(nil, err)
		return
	}
	tx.add(append(tx.actions, a), nil)
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
	k, kf, err := m.KeyFacts(key, nil)
	if err != nil {
		return nil, err
	}
	a := &action{Action: writes.Action{Kind: actCheck, Key: k, ID: kf.ID, Bytes: kf.KeyBytes}, op: op, m: m, userCond: c}
	if err := a.setCond(c, Cond{}, nil); err != nil {
		return nil, err
	}
	return a, nil
}

// txRoom holds the Put, Update, Delete and ConditionCheck structs of a
// request's items: one slice of each kind the request has, sized by its
// count (or the Tx's own room), rather than one allocation per item.
type txRoom struct {
	puts    []types.Put
	updates []types.Update
	deletes []types.Delete
	checks  []types.ConditionCheck
}

// room makes the room for the items of the transaction's actions: the
// Tx's own for a few puts and updates.
func (tx *Tx) room() txRoom {
	var n [actCheck + 1]int
	for _, a := range tx.actions {
		n[a.Kind]++
	}
	r := txRoom{puts: tx.puts[:0], updates: tx.updates[:0]}
	if n[actPut] > len(tx.puts) {
		r.puts = make([]types.Put, 0, n[actPut])
	}
	if n[actUpdate] > len(tx.updates) {
		r.updates = make([]types.Update, 0, n[actUpdate])
	}
	if n[actDelete] > 0 {
		r.deletes = make([]types.Delete, 0, n[actDelete])
	}
	if n[actCheck] > 0 {
		r.checks = make([]types.ConditionCheck, 0, n[actCheck])
	}
	return r
}

// transactItem is the action as one item of a TransactWriteItems request,
// on the table whose name name points to (one pointer serves all the
// items of a request), its struct taken from r.
func (a *action) transactItem(name *string, r *txRoom) types.TransactWriteItem {
	switch a.Kind {
	case actPut:
		r.puts = append(r.puts, types.Put{TableName: name, Item: a.Item,
			ConditionExpression: a.CondExpr(), ExpressionAttributeNames: a.Names, ExpressionAttributeValues: a.Values,
			ReturnValuesOnConditionCheckFailure: a.ReturnOld()})
		return types.TransactWriteItem{Put: &r.puts[len(r.puts)-1]}
	case actUpdate:
		r.updates = append(r.updates, types.Update{TableName: name, Key: a.Key, UpdateExpression: &a.Update,
			ConditionExpression: a.CondExpr(), ExpressionAttributeNames: a.Names, ExpressionAttributeValues: a.Values,
			ReturnValuesOnConditionCheckFailure: a.ReturnOld()})
		return types.TransactWriteItem{Update: &r.updates[len(r.updates)-1]}
	case actDelete:
		r.deletes = append(r.deletes, types.Delete{TableName: name, Key: a.Key,
			ConditionExpression: a.CondExpr(), ExpressionAttributeNames: a.Names, ExpressionAttributeValues: a.Values,
			ReturnValuesOnConditionCheckFailure: a.ReturnOld()})
		return types.TransactWriteItem{Delete: &r.deletes[len(r.deletes)-1]}
	default:
		r.checks = append(r.checks, types.ConditionCheck{TableName: name, Key: a.Key,
			ConditionExpression: &a.Cond, ExpressionAttributeNames: a.Names, ExpressionAttributeValues: a.Values,
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld})
		return types.TransactWriteItem{ConditionCheck: &r.checks[len(r.checks)-1]}
	}
}

// Transact runs build to collect a transaction's actions, checks them and
// sends them as one TransactWriteItems request: all happen or none does.
//
// Checked before sending (an error, and nothing is sent): an action that
// could not be built, no actions, more than 100 actions, two actions on one
// item, more than 4 MB. Each Transact call is one logical transaction under
// a fresh idempotency token (unless IdempotencyToken gives one), which the
// SDK's retries reuse, so a retried request is never applied twice.
//
// A cancelled transaction is a *TxError listing each failed action: its
// position, entity, key, reason code and, for a failed condition, the item
// as it was. It matches ErrConditionFailed when a condition failed,
// ErrTransactionConflict when another request was changing an item, and
// the more specific errors of the actions (ErrVersionConflict,
// ErrUniqueViolation, ErrAlreadyExists, ErrNotFound).
func (db *DB) Transact(ctx context.Context, build func(tx *Tx) error, opts ...TxOption) error {
	tx, s, err := db.buildTx(build, opts)
	if err != nil {
		return err
	}
	return tx.send(ctx, "Transact", s)
}

// TransactInput is the TransactWriteItems request Transact would send for
// build, without sending it (a dry run). Without IdempotencyToken it holds a
// fresh random token.
func (db *DB) TransactInput(build func(tx *Tx) error, opts ...TxOption) (*dynamodb.TransactWriteItemsInput, error) {
	tx, s, err := db.buildTx(build, opts)
	if err != nil {
		return nil, err
	}
	return tx.input("Transact", s)
}

func (db *DB) buildTx(build func(tx *Tx) error, opts []TxOption) (*Tx, *settings, error) {
	s, err := collect("Transact", opts)
	if err != nil {
		return nil, nil, err
	}
	if build == nil {
		return nil, nil, &InputError{Op: "Transact", Reason: "the function that adds the actions is nil"}
	}
	// An empty token would be replaced by a fresh one, silently losing the
	// idempotency the caller asked for.
	if s.write.hasToken && s.write.token == "" {
		return nil, nil, &InputError{Op: "Transact", Reason: "IdempotencyToken is empty; DynamoDB allows 1 to 36 characters"}
	}
	tx := &Tx{db: db}
	tx.actions = tx.small[:0]
	if err := build(tx); err != nil {
		return nil, nil, err
	}
	if len(tx.errs) > 0 {
		return nil, nil, errors.Join(tx.errs...)
	}
	return tx, s, nil
}

// check applies the checks the service would otherwise fail.
func (tx *Tx) check(op string) error {
	n := len(tx.actions)
	switch {
	case n == 0:
		return &InputError{Op: op, Reason: "the transaction has no actions"}
	case n > maxTxActions:
		return &LimitError{Op: op, Reason: fmt.Sprintf("the transaction has %d actions (guard items of unique values included); DynamoDB allows %d", n, maxTxActions)}
	}
	// At most 100 actions: a scan of the earlier ones finds a duplicate
	// without a map.
	size := 0
	for i, a := range tx.actions {
		for j, prev := range tx.actions[:i] {
			if prev.ID == a.ID {
				return &InputError{Op: op, Reason: fmt.Sprintf("actions %d (%s) and %d (%s) are on the same item %s; DynamoDB allows one action per item in a transaction",
					j, prev.describe(), i, a.describe(), formatKey(a.keyAttrs()))}
			}
		}
		size += a.Bytes
	}
	if size > maxTxBytes {
		return &LimitError{Op: op, Reason: fmt.Sprintf("the transaction is about %d bytes; DynamoDB allows %d", size, maxTxBytes)}
	}
	return nil
}

// describe names an action for messages: "User.Update", "User.Create guard of Email".
func (a *action) describe() string {
	if a.guard != nil {
		return a.op + " " + actionNames[a.Kind] + " of the unique " + a.guard.field.GoName + " guard"
	}
	return a.op
}

// input checks the transaction and builds its request, once: in the Tx
// itself, which the request then keeps alive.
func (tx *Tx) input(op string, s *settings) (*dynamodb.TransactWriteItemsInput, error) {
	if err := tx.check(op); err != nil {
		return nil, err
	}
	tx.token = s.write.token
	if tx.token == "" {
		tx.token = writes.Token(&tx.tok)
	} else if len(tx.token) > 36 {
		return nil, &InputError{Op: op, Reason: fmt.Sprintf("IdempotencyToken is %d characters; DynamoDB allows 1 to 36", len(tx.token))}
	}
	in := &tx.in
	*in = dynamodb.TransactWriteItemsInput{ClientRequestToken: &tx.token}
	if n := len(tx.actions); n <= len(tx.items) {
		in.TransactItems = tx.items[:n:n]
	} else {
		in.TransactItems = make([]types.TransactWriteItem, n)
	}
	tx.name = tx.db.name
	room := tx.room()
	for i, a := range tx.actions {
		in.TransactItems[i] = a.transactItem(&tx.name, &room)
	}
	return in, nil
}

// send sends the transaction once, under one token.
func (tx *Tx) send(ctx context.Context, op string, s *settings) error {
	in, err := tx.input(op, s)
	if err != nil {
		return err
	}
	if _, err := tx.db.via(tx.meter(op, s), 0).TransactWriteItems(ctx, in); err != nil {
		return tx.error(op, tx.token, err)
	}
	return nil
}

// error turns the SDK error of TransactWriteItems into a *TxError.
func (tx *Tx) error(op, token string, err error) error {
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		var conflict *types.TransactionConflictException
		if errors.As(err, &conflict) {
			return &TxError{Op: op, Token: token, Err: err,
				Actions: []TxFailure{{Index: -1, Code: "TransactionConflict", Message: aws.ToString(conflict.Message)}}}
		}
		var mismatch *types.IdempotentParameterMismatchException
		if errors.As(err, &mismatch) {
			return fmt.Errorf("singletable: %s: token %q: %w: %w", op, token, ErrTokenReused, err)
		}
		return opError(op, err)
	}
	te := &TxError{Op: op, Token: token, Err: err}
	for i, r := range tce.CancellationReasons {
		code := aws.ToString(r.Code)
		if code == "" || code == "None" || i >= len(tx.actions) {
			continue
		}
		a := tx.actions[i]
		f := TxFailure{Index: i, Entity: a.m.Name, Op: actionNames[a.Kind], Key: a.sentKey(), Code: code,
			Message: aws.ToString(r.Message), Item: r.Item}
		if a.guard != nil {
			f.Guard = a.guard.field.GoName
		}
		if code == "ConditionalCheckFailed" {
			f.Err = a.failure(r.Item, err)
		}
		te.Actions = append(te.Actions, f)
	}
	return te
}

// Transactional reads

// GetTx collects the reads of one TransactGetItems request: a consistent
// snapshot of up to 100 items of any entities. Add reads with an entity's
// TxGet, then Run; each TxGet returns a *TxValue that holds its item after
// Run.
type GetTx struct {
	db   *DB
	gets []txGet
	errs []error
	now  int64 // the DB's clock at Run, in epoch seconds: what expired means
	// sink is a TxGet's capacity option's (meter.go), or nil.
	sink bridge.Sink
}

type txGet struct {
	m *entityModel
	// key is the read's key until a request takes it (Input): a Client,
	// or a dry run's caller, may modify what it is given, so the library
	// keeps id, and makes the key anew from it after that.
	key map[string]types.AttributeValue
	id  model.ItemID
	// done fills in the read's TxValue from the item read, or with the
	// error of a failed Run (so that no earlier run's value stays).
	done func(item map[string]types.AttributeValue, runErr error) error
}

// TransactGet starts a transactional read.
func (db *DB) TransactGet() *GetTx { return &GetTx{db: db} }

// TxValue is the result of one read of a GetTx, filled in by Run.
type TxValue[T any] struct {
	value T
	txRead
}

// txRead is what a TxValue holds besides its value, which Run fills in
// through the read's txGet.done.
type txRead struct {
	found bool
	err   error
}

// Get returns the item read, or ErrNotFound if there was none.
func (v *TxValue[T]) Get() (T, error) { return v.value, v.err }

// Found reports whether the item existed.
func (v *TxValue[T]) Found() bool { return v.found }

// Value is the item read (the zero value if there was none).
func (v *TxValue[T]) Value() T { return v.value }

// TxGet adds a read of the item whose key fields are set in key to a
// transactional read; its value is there after tg.Run. An expired item
// (see Expires) is not found, unless IncludeExpired is given. A
// transactional read is always strongly consistent, so ConsistentRead,
// which asks for that, is met already: it is taken, and changes nothing.
func (e *Entity[T]) TxGet(tg *GetTx, key T, opts ...GetOption) *TxValue[T] {
	out := new(TxValue[T])
	e.m.txGet(tg, reflect.ValueOf(&key).Elem(), reflect.ValueOf(&out.value).Elem(), &out.txRead, opts)
	return out
}

// txGet is TxGet for key, of m's type: Run decodes the item into value
// (of m's type too) and reports on it in res.
func (m *entityModel) txGet(tg *GetTx, key, value reflect.Value, res *txRead, opts []GetOption) {
	res.err = errors.New("singletable: TxValue read before GetTx.Run succeeded")
	op := m.ops.txGet
	s, err := collect(op, opts)
	if err != nil {
		tg.errs = append(tg.errs, err)
		return
	}
	expiry := tg.db.expiryFor(s, m)
	if s.sink != nil {
		tg.sink = s.sink
	}
	if err := tg.db.checkTable(op, m); err != nil {
		tg.errs = append(tg.errs, err)
		return
	}
	k, err := m.Key(key)
	if err != nil {
		tg.errs = append(tg.errs, err)
		return
	}
	id := tg.db.table.idOf(k)
	tg.gets = append(tg.gets, txGet{m: m, key: k, id: id, done: func(item map[string]types.AttributeValue, runErr error) error {
		value.SetZero()
		res.found, res.err = false, runErr
		switch {
		case runErr != nil:
			return nil
		case len(item) == 0 || expiry.at(tg.now).expired(item):
			res.err = &notFoundError{op: op, key: tg.db.table.keyOfID(id)}
			return nil
		}
		if err := m.decode(item, value); err != nil {
			res.err = err
			return err
		}
		res.found = true
		return nil
	}})
}

// Input is the TransactGetItems request Run sends, after the same checks:
// a read that could not be built, no reads, more than 100, the same item
// twice.
func (tg *GetTx) Input() (*dynamodb.TransactGetItemsInput, error) {
	const op = "TransactGet"
	if len(tg.errs) > 0 {
		return nil, errors.Join(tg.errs...)
	}
	switch n := len(tg.gets); {
	case n == 0:
		return nil, &InputError{Op: op, Reason: "no reads"}
	case n > maxTxActions:
		return nil, &LimitError{Op: op, Reason: fmt.Sprintf("%d reads; DynamoDB allows %d in one transaction", n, maxTxActions)}
	}
	in := &dynamodb.TransactGetItemsInput{TransactItems: make([]types.TransactGetItem, len(tg.gets))}
	seen := make(map[model.ItemID]int, len(tg.gets))
	for i, g := range tg.gets {
		if j, dup := seen[g.id]; dup {
			return nil, &InputError{Op: op, Reason: fmt.Sprintf("reads %d and %d are of the same item %s", j, i, formatKey(tg.db.table.keyOfID(g.id)))}
		}
		seen[g.id] = i
	}
	for i := range tg.gets {
		g := &tg.gets[i]
		key := g.key
		if key == nil {
			key = tg.db.table.keyOfID(g.id)
		}
		g.key = nil // the request's now
		in.TransactItems[i] = types.TransactGetItem{Get: &types.Get{TableName: aws.String(tg.db.name), Key: key}}
	}
	return in, nil
}

// Run sends the reads as one TransactGetItems request and fills in every
// TxValue. A missing item is not an error of Run: its TxValue reports it.
// An item of another entity type is an error (ErrWrongEntity). When Run
// fails, every TxValue reports its error (none keeps an earlier run's item).
func (tg *GetTx) Run(ctx context.Context) error {
	in, err := tg.Input()
	if err != nil {
		return err
	}
	tg.now = tg.db.now().Unix()
	res, err := tg.db.via(tg.meter("TransactGet"), 0).TransactGetItems(ctx, in)
	if err != nil {
		err = tg.error(err)
		for _, g := range tg.gets {
			_ = g.done(nil, err)
		}
		return err
	}
	var errs []error
	for i, g := range tg.gets {
		var item map[string]types.AttributeValue
		if i < len(res.Responses) {
			item = res.Responses[i].Item
		}
		if err := g.done(item, nil); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// error turns the SDK error of TransactGetItems into the library's: a
// cancellation into a *TxError naming the reads that failed.
func (tg *GetTx) error(err error) error {
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		return opError("TransactGet", err)
	}
	te := &TxError{Op: "TransactGet", Err: err}
	for i, r := range tce.CancellationReasons {
		if code := aws.ToString(r.Code); code != "" && code != "None" && i < len(tg.gets) {
			te.Actions = append(te.Actions, TxFailure{Index: i, Entity: tg.gets[i].m.Name, Op: "Get", Key: tg.db.table.keyOfID(tg.gets[i].id),
				Code: code, Message: aws.ToString(r.Message)})
		}
	}
	return te
}
