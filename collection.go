package singletable

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/expr"
)

// Collection is an item collection: entities of several types that share a
// partition, read back in one Query and decoded each into its own Go type
// (a user's profile with its orders; an order with its line items).
type Collection struct {
	table   *Table
	name    string
	raw     string   // the partition template, with free placeholder names
	labels  []string // its placeholder names, in order
	members []*entityModel
	// fieldOf maps, per member, each label to the member's Go field.
	fieldOf []map[string]string
}

// Values gives the placeholders of a collection's partition template by
// name: Values{"UserID": "u123"}.
type Values map[string]any

// NewCollection declares an item collection on table t. partition is a
// template whose placeholders are names for the values a query gives
// ("USER#{UserID}"); each member's partition template must have the same
// shape: the same literal text, with placeholders of the same kinds and
// formats in the same places (User's "USER#{ID}" and Order's
// "USER#{UserID}" both fit).
func NewCollection(t *Table, name, partition string, members ...AnyEntity) (*Collection, error) {
	fail := func(reason string, args ...any) (*Collection, error) {
		return nil, &ModelError{Table: t.name, Entity: "collection " + name, Template: partition, Reason: fmt.Sprintf(reason, args...)}
	}
	if len(members) == 0 {
		return fail("no member entities")
	}
	c := &Collection{table: t, name: name, raw: partition}
	shape, labels, err := templateShape(partition)
	if err != nil {
		return fail("%v", err)
	}
	c.labels = labels
	for _, me := range members {
		m := me.model()
		if m.table != t {
			return fail("entity %s is defined on table %s", m.name, m.table.name)
		}
		mshape, _, _ := templateShape(m.pk.raw)
		if mshape != shape {
			return fail("entity %s's partition template %q does not have the collection's shape", m.name, m.pk.raw)
		}
		if len(c.members) > 0 && !samePlaceholders(c.members[0].pk, m.pk) {
			return fail("entity %s's partition placeholders differ in kind or format from %s's", m.name, c.members[0].name)
		}
		fields := map[string]string{}
		for i, f := range m.pk.fields() {
			fields[labels[i]] = f
		}
		c.members = append(c.members, m)
		c.fieldOf = append(c.fieldOf, fields)
	}
	return c, nil
}

// MustCollection is NewCollection that panics on error.
func MustCollection(t *Table, name, partition string, members ...AnyEntity) *Collection {
	c, err := NewCollection(t, name, partition, members...)
	if err != nil {
		panic(err)
	}
	return c
}

// templateShape replaces each placeholder with {} and lists their names.
func templateShape(raw string) (string, []string, error) {
	var shape strings.Builder
	var labels []string
	rest := raw
	for {
		open := strings.IndexByte(rest, '{')
		if open < 0 {
			shape.WriteString(rest)
			return shape.String(), labels, nil
		}
		end := strings.IndexByte(rest[open:], '}')
		if end < 0 {
			return "", nil, fmt.Errorf("unclosed '{'")
		}
		name, _, _ := strings.Cut(rest[open+1:open+end], ":")
		labels = append(labels, name)
		shape.WriteString(rest[:open])
		shape.WriteString("{}")
		rest = rest[open+end+1:]
	}
}

func samePlaceholders(a, b *template) bool {
	var pa, pb []*placeholder
	for _, s := range a.segs {
		if s.ph != nil {
			pa = append(pa, s.ph)
		}
	}
	for _, s := range b.segs {
		if s.ph != nil {
			pb = append(pb, s.ph)
		}
	}
	if len(pa) != len(pb) {
		return false
	}
	for i := range pa {
		if pa[i].kind != pb[i].kind || pa[i].width != pb[i].width || pa[i].layout != pb[i].layout {
			return false
		}
	}
	return true
}

// Name is the collection's name.
func (c *Collection) Name() string { return c.name }

// partitionKey renders the partition from values through the first member.
func (c *Collection) partitionKey(op string, values Values) (string, error) {
	for k := range values {
		if !slices.Contains(c.labels, k) {
			return "", &InputError{Op: op, Reason: fmt.Sprintf("%q is not a placeholder of %q", k, c.raw)}
		}
	}
	m := c.members[0]
	v := reflect.New(m.typ).Elem()
	for _, label := range c.labels {
		val, ok := values[label]
		if !ok {
			return "", &InputError{Op: op, Reason: fmt.Sprintf("no value for {%s} of %q", label, c.raw)}
		}
		f, _ := m.fields.ByGoName(c.fieldOf[0][label])
		rv := reflect.ValueOf(val)
		switch {
		case !rv.IsValid():
			return "", &InputError{Op: op, Reason: fmt.Sprintf("nil value for {%s}", label)}
		case rv.Type().AssignableTo(f.Type):
		case convertible(rv, f.Type):
			rv = rv.Convert(f.Type)
		default:
			return "", &InputError{Op: op, Reason: fmt.Sprintf("{%s} takes a %s, got a %T", label, f.Type, val)}
		}
		v.FieldByIndex(f.Index).Set(rv)
	}
	return m.renderTableKey(m.pk, c.table.pk, maxPartitionKeyBytes, v)
}

// QueryInput is the first Query request Query sends. Options: Limit,
// Descending, ConsistentRead.
func (c *Collection) QueryInput(db *DB, values Values, opts ...Option) (*dynamodb.QueryInput, error) {
	in, _, err := c.queryInput(db, values, opts)
	return in, err
}

func (c *Collection) queryInput(db *DB, values Values, opts []Option) (*dynamodb.QueryInput, *settings, error) {
	op := c.name + ".Query"
	s, err := collect(op, optLimit|optDescending|optConsistent, opts)
	if err != nil {
		return nil, nil, err
	}
	if db.table != c.table {
		return nil, nil, &InputError{Op: op, Reason: "the collection is declared on table " + c.table.name}
	}
	pk, err := c.partitionKey(op, values)
	if err != nil {
		return nil, nil, err
	}
	var b expr.Builder
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(db.name),
		KeyConditionExpression:    aws.String(b.Name(c.table.pk) + " = " + b.Value(expr.S(pk))),
		ExpressionAttributeNames:  b.Names,
		ExpressionAttributeValues: b.Values,
	}
	if s.descending {
		in.ScanIndexForward = aws.Bool(false)
	}
	if s.consistent {
		in.ConsistentRead = aws.Bool(true)
	}
	return in, s, nil
}

// CollectionResult holds the items of a collection query, decoded each into
// its entity's Go type. Read them with Entity.From, or in query order with
// Items. Items whose type is not a member of the collection are kept in
// Unknown, never dropped silently.
type CollectionResult struct {
	items    []any            // decoded values, in query order
	byEntity map[string][]any // entity name -> decoded values
	// Unknown holds the raw items of entity types the collection does not
	// declare (or with no type attribute).
	Unknown []map[string]types.AttributeValue
}

// Items returns every decoded item in query order; each is a value of its
// entity's Go type (User, Order ...).
func (r *CollectionResult) Items() []any { return r.items }

// Len is the number of items of member types.
func (r *CollectionResult) Len() int { return len(r.items) }

// From returns the items of entity e in a collection result, in query order.
func (e *Entity[T]) From(r *CollectionResult) []T {
	vs := r.byEntity[e.m.name]
	out := make([]T, len(vs))
	for i, v := range vs {
		out[i] = v.(T)
	}
	return out
}

// Query reads the collection's partition and decodes every item into its
// entity's type, following pages until Limit items or the end.
func (c *Collection) Query(ctx context.Context, db *DB, values Values, opts ...Option) (*CollectionResult, error) {
	in, s, err := c.queryInput(db, values, opts)
	if err != nil {
		return nil, err
	}
	res := &CollectionResult{byEntity: map[string][]any{}}
	err = queryPages(ctx, db, c.name+".Query", in, s.limit, func(item map[string]types.AttributeValue) error {
		name, _ := item[c.table.typeAttr].(*types.AttributeValueMemberS)
		var m *entityModel
		for _, mm := range c.members {
			if name != nil && mm.name == name.Value {
				m = mm
			}
		}
		if m == nil {
			res.Unknown = append(res.Unknown, item)
			return nil
		}
		v := reflect.New(m.typ).Elem()
		if err := m.decode(item, v); err != nil {
			return err
		}
		res.items = append(res.items, v.Interface())
		res.byEntity[m.name] = append(res.byEntity[m.name], v.Interface())
		return nil
	})
	return res, err
}
