package singletable

import (
	"errors"
	"fmt"
	"go/token"
	"reflect"
	"strings"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/codec"
	"github.com/singletable/singletable/internal/model"
)

// maxItemBytes is DynamoDB's item size limit: names and values, 400 KB.
const maxItemBytes = 400 * 1024

// item encodes struct value v as a complete item: its fields, the entity
// type, the primary key and the key of every index it belongs to. The
// facts (its itemSize, its key's size and itemID) are for the callers to
// keep: transactions and batches need them for their own checks, and
// reading them back from the map costs a walk or lookups.
func (m *entityModel) item(v reflect.Value) (item map[string]types.AttributeValue, facts model.ItemFacts, err error) {
	if m.Shard != nil { // the stored shard field is the one the keys hold
		if v, err = m.PlaceShard(v); err != nil {
			return nil, facts, err
		}
	}
	item = make(map[string]types.AttributeValue, len(m.Fields.List)+3+2*len(m.Indexes))
	// The sizes of what Encode and AddKeys (internal/model) add make itemSize(item), without
	// a walk of the map: the key and type attributes are never fields.
	// The key attributes' values come from the slab of the fields' values:
	// the table key, the type and every index key the item may have.
	fieldBytes, room, err := m.Plan.EncodeRoom(v, item, 3+2*len(m.Indexes))
	if err != nil {
		var fe *codec.FieldError
		if errors.As(err, &fe) {
			if ke := m.KeyFieldError(fe.Field, err); ke != nil {
				return nil, facts, ke
			}
		}
		// A value the codec cannot encode, or that DynamoDB refuses (a
		// number out of its range, an empty set ...): the caller's input.
		return nil, facts, &InputError{Op: m.ops.put, Reason: err.Error()}
	}
	if facts, err = m.AddKeys(item, v, true, room); err != nil {
		return nil, facts, err
	}
	facts.Size += fieldBytes
	if h := m.revision(); h != nil {
		item[h.attr] = h.cur
		facts.Size += len(h.attr) + len(h.curText)
	}
	if facts.Size > maxItemBytes {
		return nil, facts, &LimitError{Op: m.ops.put, Reason: fmt.Sprintf("the item is %d bytes; DynamoDB's limit is 400 KB (%d bytes)", facts.Size, maxItemBytes)}
	}
	return item, facts, nil
}

// decode checks that item is of this entity and decodes it into v, which
// must be an addressable struct value.
func (m *entityModel) decode(item map[string]types.AttributeValue, v reflect.Value) error {
	if err := m.checkType(item); err != nil {
		return err
	}
	if h := m.revision(); h != nil && !h.isCurrent(item) {
		return h.read(m, item, v, func(item map[string]types.AttributeValue) error {
			v.SetZero()
			return m.decodeCurrent(item, v)
		})
	}
	return m.decodeCurrent(item, v)
}

// decodeCurrent decodes item, of this entity at its current revision,
// into v.
func (m *entityModel) decodeCurrent(item map[string]types.AttributeValue, v reflect.Value) error {
	if err := m.Plan.Decode(item, v); err != nil {
		return m.decodeError("", item, err)
	}
	return nil
}

// decodeError is the *DecodeError of a value of item that the codec could
// not decode (err).
func (m *entityModel) decodeError(op string, item map[string]types.AttributeValue, err error) error {
	e := &DecodeError{Op: op, Entity: m.Name, Key: m.keyOfItem(item), Reason: err.Error(), Err: err}
	var ae *codec.AttrError
	if errors.As(err, &ae) {
		e.Attr, e.Field, e.Reason = ae.Attr, ae.Field, ae.Err.Error()
	}
	return e
}

// checkKeys refuses a raw item without the table's key attributes as
// strings: it is no item of the table (nil, {}, a key that is a number).
func (m *entityModel) checkKeys(op string, item map[string]types.AttributeValue) error {
	return m.table.checkKeys(op, m.Name, item)
}

// checkKeys refuses a raw item of entity (empty: not known yet) without
// the table's key attributes as strings.
func (t *Table) checkKeys(op, entity string, item map[string]types.AttributeValue) error {
	for _, a := range []string{t.schema.PK, t.schema.SK} {
		if a == "" {
			continue
		}
		reason := ""
		switch v := item[a].(type) {
		case *types.AttributeValueMemberS:
			continue
		case nil:
			reason = "the item has no such attribute; every item of the table has its key attributes"
		default:
			reason = "a table key attribute is a string (S), not " + strings.TrimPrefix(fmt.Sprintf("%T", v), "*types.AttributeValueMember")
		}
		return &DecodeError{Op: op, Entity: entity, Attr: a, Key: t.keyOfItem(item), Reason: reason}
	}
	return nil
}

func (m *entityModel) checkType(item map[string]types.AttributeValue) error {
	got, _ := item[m.table.schema.TypeAttr].(*types.AttributeValueMemberS)
	if got == nil && m.table.schema.TypeByKeys {
		return m.checkByKeys(m.Name, item)
	}
	if got == nil || got.Value != m.Name {
		e := &EntityMismatchError{Want: m.Name, Key: m.keyOfItem(item)}
		if got != nil {
			e.Got = got.Value
		}
		return e
	}
	return nil
}

// keyOfItem picks the table key attributes out of an item.
func (m *entityModel) keyOfItem(item map[string]types.AttributeValue) map[string]types.AttributeValue {
	key := map[string]types.AttributeValue{}
	for _, a := range []string{m.table.schema.PK, m.table.schema.SK} {
		if v, ok := item[a]; ok && a != "" {
			key[a] = v
		}
	}
	return key
}

// itemSize estimates an item's size as DynamoDB counts it: attribute names
// plus values (see codec.Size).
func itemSize(item map[string]types.AttributeValue) int {
	n := 0
	for k, v := range item {
		n += len(k) + codec.Size(v)
	}
	return n
}

// encodeValue encodes v the way the entity stores the value at field path
// path ("Total", "In.When", "Items[0].At"): a value of the type there (or
// convertible to it) goes through that field's own `dynamodbav` rules, at
// any depth, as Put encodes it. With element set, v may also be an element
// of a set or list (for Contains and set updates). A value the tag would
// omit is encoded as given (a condition on it compares with it). An
// AttributeValue passes as is. Either way the value must be one DynamoDB
// takes (codec.CheckedSize): the error names the field.
func (m *entityModel) encodeValue(path string, v any, element bool) (types.AttributeValue, error) {
	return m.encodeAt(codec.Room{}, nil, path, v, element)
}

// encodeField is encodeValue for top-level field f, resolved already.
func (m *entityModel) encodeField(f *codec.Field, v any, element bool) (types.AttributeValue, error) {
	return m.encodeAt(codec.Room{}, f, f.GoName, v, element)
}

// encodeAt is encodeValue at path, or at top-level field top when it is
// not nil (path is then its name), its values from room r (see
// codec.Room; the zero Room allocates each).
func (m *entityModel) encodeAt(r codec.Room, top *codec.Field, path string, v any, element bool) (types.AttributeValue, error) {
	av, err := m.encodePath(r, top, path, v, element)
	if err != nil {
		return nil, err
	}
	if _, err := codec.CheckedSize(av); err != nil {
		return nil, fmt.Errorf("field %s: %w", path, err)
	}
	return av, nil
}

func (m *entityModel) encodePath(r codec.Room, top *codec.Field, path string, v any, element bool) (types.AttributeValue, error) {
	if av, ok := v.(types.AttributeValue); ok {
		return av, nil
	}
	t := pathTarget{field: top}
	if top != nil {
		t.typ, t.tag = top.Type, top.Tag
	} else {
		var err error
		if t, err = walkPath(m, path, nil); err != nil {
			return nil, err
		}
	}
	rv := reflect.ValueOf(v)
	typ, tag := t.typ, t.tag
	switch {
	case !rv.IsValid():
		return &types.AttributeValueMemberNULL{Value: true}, nil
	case typ == nil:
		return plainValue(path, v)
	case rv.Type().AssignableTo(typ):
	case convertible(rv, typ):
		rv = rv.Convert(typ)
	case pointsTo(rv, typ):
		rv = pointerTo(rv, typ)
	case element && elementOf(typ) != nil && (rv.Type().AssignableTo(elementOf(typ)) || convertible(rv, elementOf(typ))):
		typ, tag = elementOf(typ), tag.Elem()
		if rv.Type() != typ && !rv.Type().AssignableTo(typ) {
			rv = rv.Convert(typ)
		}
	case element:
		return plainValue(path, v)
	default:
		if target := derefType(typ); isNumberKind(rv.Kind()) && isNumberKind(target.Kind()) {
			// A number of another type that does not convert without loss.
			return nil, fmt.Errorf("field %s is a %s, which cannot hold %v (a %T)", path, typ, v, v)
		}
		return nil, fmt.Errorf("field %s is a %s; got a %T", path, typ, v)
	}
	fv := rv // the value as the field holds it
	if fv.Type() != typ {
		fv = reflect.New(typ).Elem() // an interface field, or another named type
		fv.Set(rv)
	}
	if !t.nested && typ == t.field.Type {
		// A top-level field: its own compiled encoder, as Put uses.
		if !m.settable(t.field) {
			return nil, fmt.Errorf("field %s is promoted through an unexported embedded pointer and cannot be set", path)
		}
		av, ok, err := m.Plan.EncodeFieldValueIn(t.field, fv, r)
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", path, err)
		}
		if ok {
			return av, nil
		}
	} else {
		av, ok, err := codec.EncodeValueIn(typ, tag, fv, r)
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", path, err)
		}
		if ok {
			return av, nil
		}
	}
	// Omitted as empty by the tag: encoded as given, still by the tag's
	// other rules (a `,string` zero is "0").
	av, ok, err := codec.EncodeValue(typ, tag.Stored(), fv)
	if err != nil {
		return nil, fmt.Errorf("field %s: %w", path, err)
	}
	if !ok {
		return &types.AttributeValueMemberNULL{Value: true}, nil
	}
	return av, nil
}

// elementOf is the element type of a list, set or map type; nil for others.
func elementOf(t reflect.Type) reflect.Type {
	switch t.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map:
		return t.Elem()
	}
	return nil
}

// settable reports whether field f of a new struct value can be set: not
// when it is unexported (an embedded struct with a tag name) or promoted
// through a nil embedded pointer of an unexported type. Exported top-level
// fields, the usual case, are answered without a struct value to check.
func (m *entityModel) settable(f *codec.Field) bool {
	if len(f.Index) == 1 && token.IsExported(f.GoName) {
		return true
	}
	_, ok := settableField(reflect.New(m.Type).Elem(), f.Index)
	return ok
}

// convertible allows the conversions a caller means and that lose nothing:
// between numeric kinds when the value fits (an untyped 5 for an int64
// field; not 1.5 for an int), and between string kinds (a string for a
// named string type).
func convertible(v reflect.Value, to reflect.Type) bool {
	from := v.Type()
	if from.Kind() == reflect.String && to.Kind() == reflect.String {
		return true
	}
	num := func(k reflect.Kind) bool { return k >= reflect.Int && k <= reflect.Float64 }
	if !num(from.Kind()) || !num(to.Kind()) || !v.CanConvert(to) {
		return false
	}
	back := v.Convert(to).Convert(from)
	return back.Equal(v)
}

// derefType is t without its pointers.
func derefType(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// pointsTo reports whether v is a value of what pointer type typ points
// to (or converts to it without loss): Set(5) and Increment(1) of an *int
// field.
func pointsTo(v reflect.Value, typ reflect.Type) bool {
	return typ.Kind() == reflect.Pointer && (v.Type().AssignableTo(typ.Elem()) || convertible(v, typ.Elem()))
}

// pointerTo is a new pointer of type typ to v (see pointsTo).
func pointerTo(v reflect.Value, typ reflect.Type) reflect.Value {
	p := reflect.New(typ.Elem())
	p.Elem().Set(v.Convert(typ.Elem()))
	return p
}

// marshalValue encodes a value for an attribute the library knows no Go
// type of (a raw attribute name), plainly, and checks that DynamoDB takes
// it; an AttributeValue passes as is, checked too.
func marshalValue(attr string, v any) (types.AttributeValue, error) {
	av, ok := v.(types.AttributeValue)
	if !ok {
		var err error
		if av, err = plainValue(attr, v); err != nil {
			return nil, err
		}
	}
	if _, err := codec.CheckedSize(av); err != nil {
		return nil, fmt.Errorf("attribute %s: %w", attr, err)
	}
	return av, nil
}

// plainValue encodes v with attributevalue's default rules.
func plainValue(path string, v any) (types.AttributeValue, error) {
	av, err := attributevalue.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("field %s: %w", path, err)
	}
	return av, nil
}

// decodeAny decodes a stored item as the entity's Go type, returning a T
// value (not a pointer) as an any.
func (m *entityModel) decodeAny(item map[string]types.AttributeValue) (any, error) {
	v := reflect.New(m.Type).Elem()
	if err := m.decode(item, v); err != nil {
		return nil, err
	}
	return v.Interface(), nil
}
