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
	// the heap: one allocation for both rather than one each. The func
	// field (of no size) makes the pair not comparable, so that no
	// equality function is compiled for it per entity type.
	vs := &struct {
		_        [0]func()
		key, out T
	}{key: key}
	err := e.m.get(ctx, db, reflect.ValueOf(&vs.key).Elem(), reflect.ValueOf(&vs.out).Elem(), opts)
	return vs.out, err
}

// get is Get: it reads the item of key into out (both of m's type).
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
	return p.decl().getInput(db, reflect.ValueOf(&params).Elem(), opts)
}

func (d *readDecl) getInput(db *DB, params reflect.Value, opts []PatternGetOption) (*dynamodb.GetItemInput, error) {
	s, err := checkedSettings(d, d.name, opts)
	if err != nil {
		return nil, err
	}
	r, err := d.requestWith(db, params, reflect.Value{}, s)
	if err != nil {
		return nil, err
	}
	if r.get == nil {
		return nil, &InputError{Op: d.name, Reason: "the pattern runs as Query: use QueryInput"}
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
	// The params and the result go through reflection, which moves them
	// to the heap: one allocation for both rather than one each. Not
	// comparable (the func), so that no equality function is compiled
	// for it.
	vs := &struct {
		params, out T
		_           [0]func()
	}{params: params}
	err := p.decl().get(ctx, db, reflect.ValueOf(&vs.params).Elem(), opts, reflect.ValueOf(&vs.out).Elem())
	return vs.out, err
}

// get is Pattern.Get: it decodes the item into out, left zero on an error.
func (d *readDecl) get(ctx context.Context, db *DB, params reflect.Value, opts []PatternGetOption, out reflect.Value) error {
	s, err := checkedSettings(d, d.name, opts)
	if err != nil {
		return err
	}
	if d.fans() {
		return d.fanGet(ctx, db, params, s, out)
	}
	r, err := d.requestWith(db, params, reflect.Value{}, s)
	if err != nil {
		return err
	}
	var id model.ItemID // for ErrNotFound: the Client may change r.get
	if r.get != nil {
		id = db.table.idOf(r.get.Key)
	}
	found, _, err := queryPage(ctx, db, r, 2, sliceFill{one: out}, decodeMember, nil)
	switch {
	case err != nil:
	case found.items == 0 && r.get != nil:
		err = &notFoundError{op: r.Op, key: db.table.keyOfID(id)}
	case found.items == 0:
		err = &notFoundError{op: r.Op, key: map[string]types.AttributeValue{d.pkAttr(): expr.S(r.Binding.Partition)}}
	case found.items > 1:
		err = &notUniqueError{op: r.Op}
	}
	if err != nil {
		out.SetZero() // the item found first, or a part of it
	}
	return err
}

// getRequest resolves a GetItem pattern for one call: the key of params v.
func (d *readDecl) getRequest(db *DB, op string, mem *readMember, s *settings, v reflect.Value) (*readReq, error) {
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
