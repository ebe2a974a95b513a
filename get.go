package singletable

import (
	"context"
	"reflect"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/expr"
	"github.com/singletable/singletable/internal/model"
	writes "github.com/singletable/singletable/internal/write"
)

// Each operation comes in two halves: XxxInput builds the request (pure: no
// network, safe to log or golden-test: a dry run), and Xxx sends it through
// the DB's client and decodes the answer.

// GetInput is the GetItem request Get sends for the item whose primary key
// fields are set in key.
func (e *Entity[T]) GetInput(db *DB, key T, opts ...GetOption) (*dynamodb.GetItemInput, error) {
	in, _, err := e.m.getInput(db, reflect.ValueOf(&key).Elem(), opts)
	return in, err
}

// getInput is GetInput for the key struct value key, and the settings of
// opts.
func (m *entityModel) getInput(db *DB, key reflect.Value, opts []GetOption) (*dynamodb.GetItemInput, *settings, error) {
	op := m.ops.get
	s, err := collect(op, opts)
	if err != nil {
		return nil, nil, err
	}
	if err := db.checkTable(op, m); err != nil {
		return nil, nil, err
	}
	k, err := m.Key(key)
	if err != nil {
		return nil, nil, err
	}
	in, table := writes.NewWithTable[dynamodb.GetItemInput](db.name)
	in.TableName, in.Key = table, k
	if s.consistent {
		in.ConsistentRead = aws.Bool(true)
	}
	return in, s, nil
}

// Get reads the item whose primary key fields are set in key. A missing
// item is ErrNotFound, and so is an expired one (see Expires) unless
// IncludeExpired is given; an item of another entity is ErrWrongEntity.
func (e *Entity[T]) Get(ctx context.Context, db *DB, key T, opts ...GetOption) (T, error) {
	// The key and the result go through reflection, which moves them to
	// the heap: one allocation for both rather than one each.
	vs := &struct{ key, out T }{key: key}
	err := e.m.get(ctx, db, reflect.ValueOf(&vs.key).Elem(), reflect.ValueOf(&vs.out).Elem(), opts)
	return vs.out, err
}

// get is Get of the item whose key fields are set in struct value key,
// decoded into out, a zero struct value.
func (m *entityModel) get(ctx context.Context, db *DB, key, out reflect.Value, opts []GetOption) error {
	in, s, err := m.getInput(db, key, opts)
	if err != nil {
		return err
	}
	id := db.table.idOf(in.Key) // for ErrNotFound: the Client may change in
	res, err := db.via(db.meter(s, m.ops.get, m.Name, "", ""), 0).GetItem(ctx, in)
	if err != nil {
		return opError(m.ops.get, err)
	}
	if len(res.Item) == 0 || db.expiryFor(s, m).expired(res.Item) {
		return &notFoundError{op: m.ops.get, key: db.table.keyOfID(id)}
	}
	if err = m.decode(res.Item, out); err == nil && m.managed.revision != nil {
		db.writeBack(ctx, m, res.Item, out, s) // revision.WriteBack
	}
	return err
}

// GetInput is the GetItem request of a GetItem pattern for params (a dry
// run). It is an error for a Query pattern: see QueryInput.
func (p *Pattern[T]) GetInput(db *DB, params T, opts ...PatternGetOption) (*dynamodb.GetItemInput, error) {
	s, err := checkedSettings(p.d, p.d.name, opts)
	if err != nil {
		return nil, err
	}
	r, err := p.requestWith(db, params, nil, s)
	if err != nil {
		return nil, err
	}
	if r.get == nil {
		return nil, &InputError{Op: p.d.name, Reason: "the pattern runs as Query: use QueryInput"}
	}
	return r.get, nil
}

// Get returns the one item of the pattern for params. A GetItem pattern
// sends GetItem; a Query pattern reads until it has found two matching
// items, and fails with ErrNotUnique if it has. No item is ErrNotFound.
// It takes the PatternGetOptions: the query options that decide which
// item is found or how it is read, not those that page or order a list
// (a GetItem pattern: only ConsistentRead, Project and IncludeExpired).
func (p *Pattern[T]) Get(ctx context.Context, db *DB, params T, opts ...PatternGetOption) (T, error) {
	var zero T
	s, err := checkedSettings(p.d, p.d.name, opts)
	if err != nil {
		return zero, err
	}
	if p.d.fans() {
		return p.fanGet(ctx, db, params, s)
	}
	r, err := p.requestWith(db, params, nil, s)
	if err != nil {
		return zero, err
	}
	var id model.ItemID // for ErrNotFound: the Client may change r.get
	if r.get != nil {
		id = db.table.idOf(r.get.Key)
	}
	found, _, err := queryPage(ctx, db, r, 2, decodeMember[T], nil)
	switch {
	case err != nil:
		return zero, err
	case len(found.Items) == 0 && r.get != nil:
		return zero, &notFoundError{op: r.Op, key: db.table.keyOfID(id)}
	case len(found.Items) == 0:
		return zero, &notFoundError{op: r.Op, key: map[string]types.AttributeValue{p.d.pkAttr(): expr.S(r.Binding.Partition)}}
	case len(found.Items) > 1:
		return zero, &notUniqueError{op: r.Op}
	}
	return found.Items[0], nil
}

// getRequest resolves a GetItem pattern for one call: the key of params v.
func (p *Pattern[T]) getRequest(db *DB, op string, mem *readMember, s *settings, v reflect.Value) (*readReq, error) {
	d := p.d
	key, err := mem.m.Key(v)
	if err != nil {
		return nil, err
	}
	in, table := writes.NewWithTable[dynamodb.GetItemInput](db.name)
	in.TableName, in.Key = table, key
	r := &readReq{d: d, mem: mem, s: s, get: in, expiry: db.expiryFor(s, mem.m)}
	r.Op, r.m = op, d.meter(db, s, op)
	if s.consistent {
		in.ConsistentRead = aws.Bool(true)
	}
	if len(s.read.project) > 0 {
		var b expr.Builder
		proj, err := d.project(op, s.read.project, &b)
		if err != nil {
			return nil, err
		}
		in.ProjectionExpression = aws.String(proj)
		in.ExpressionAttributeNames = b.Names
		r.parseKeys = true
	}
	return r, nil
}

// getItem sends the GetItem of r: the item, or nil if there is none.
func (r *readReq) getItem(ctx context.Context, db *DB) (map[string]types.AttributeValue, error) {
	res, err := db.via(r.m, 0).GetItem(ctx, r.get)
	if err != nil {
		return nil, opError(r.Op, err)
	}
	if len(res.Item) == 0 || r.expiry.expired(res.Item) {
		return nil, nil
	}
	return res.Item, nil
}
