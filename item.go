package singletable

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/codec"
	"github.com/singletable/singletable/internal/model"
	writes "github.com/singletable/singletable/internal/write"
)

// maxItemBytes is DynamoDB's item size limit: names and values, 400 KB.
const maxItemBytes = 400 * 1024

// item encodes struct value v as a complete item: its fields, the entity
// type, the primary key and the key of every index it belongs to. The
// facts (its itemSize, its key's size and itemID) are for the callers to
// keep: transactions and batches need them for their own checks, and
// reading them back from the map costs a walk or lookups.
func (m *entityModel) item(v reflect.Value) (item map[string]types.AttributeValue, facts model.ItemFacts, err error) {
	return m.itemIn(v, nil)
}

// itemIn is item with its values from sh (nil: an arena of their own).
func (m *entityModel) itemIn(v reflect.Value, sh *codec.Shared) (item map[string]types.AttributeValue, facts model.ItemFacts, err error) {
	if m.Shard != nil { // the stored shard field is the one the keys hold
		if v, err = m.PlaceShard(v); err != nil {
			return nil, facts, err
		}
	}
	// The key attributes' values come from the slab of the fields' values:
	// the table key, the type and every index key the item may have.
	item, fieldBytes, room, text, err := m.encodeFields(v, m.keyValueCount(), sh)
	if err != nil {
		return nil, facts, err
	}
	if facts, err = m.addItemKeys(item, v, fieldBytes, room, text, sh); err != nil {
		return nil, facts, err
	}
	return item, facts, nil
}

// keyValueCount is how many key attribute values an item may have: its table
// key's, the type and every index key.
func (m *entityModel) keyValueCount() int { return 3 + 2*len(m.Indexes) }

// encodeFields encodes the fields of v into a new item, its values from sh
// (nil: an arena of their own), with room for n key values and their text
// (see codec.Plan.EncodeItem); size is the fields' share of the item's
// size.
func (m *entityModel) encodeFields(v reflect.Value, n int, sh *codec.Shared) (item map[string]types.AttributeValue, size int, room []types.AttributeValueMemberS, text []byte, err error) {
	item = make(map[string]types.AttributeValue, len(m.Fields.List)+m.keyValueCount())
	// The sizes of what Encode and AddKeys (internal/model) add make
	// itemSize(item), without a walk of the map: the key and type
	// attributes are never fields.
	size, room, text, err = m.Plan.EncodeItem(v, item, n, sh)
	if err != nil {
		var fe *codec.FieldError
		if errors.As(err, &fe) {
			if ke := m.KeyFieldError(fe.Field, err); ke != nil {
				return nil, 0, nil, nil, ke
			}
		}
		// A value the codec cannot encode, or that DynamoDB refuses (a
		// number out of its range, an empty set ...): the caller's input.
		return nil, 0, nil, nil, &InputError{Op: m.ops.put, Reason: err.Error()}
	}
	return item, size, room, text, nil
}

// addItemKeys completes an item whose fields (of fieldBytes) encodeFields
// encoded from v: its keys, their values room's and their text text's
// (from sh, or nil), and its shape revision. The facts are the item's.
func (m *entityModel) addItemKeys(item map[string]types.AttributeValue, v reflect.Value, fieldBytes int, room []types.AttributeValueMemberS, text []byte, sh *codec.Shared) (facts model.ItemFacts, err error) {
	if facts, err = m.AddKeysIn(item, v, true, room, text); err != nil {
		return facts, err
	}
	m.Plan.NoteKeyText(facts.KeyText, sh)
	facts.Size += fieldBytes
	if h := m.revision(); h != nil {
		item[h.attr] = h.value()
		facts.Size += len(h.attr) + len(h.curText)
	}
	if facts.Size > maxItemBytes {
		return facts, &LimitError{Op: m.ops.put, Reason: fmt.Sprintf("the item is %d bytes; DynamoDB's limit is 400 KB (%d bytes)", facts.Size, maxItemBytes)}
	}
	return facts, nil
}

// decode checks that item is of this entity and decodes it into v, which
// must be an addressable struct value. An untyped item of a table read by
// its keys that lacks the attribute of a key field is decoded as
// Entity.Decode decodes it: its key fields parsed back from its table keys,
// the attributes it carries laid over them.
func (m *entityModel) decode(item map[string]types.AttributeValue, v reflect.Value) error {
	if m.table.untyped(item) {
		if err := m.checkByKeys(m.Name, item); err != nil {
			return err
		}
		if mem := m.tableMember(); mem.lacksKeyAttr(item) {
			return mem.decode("", item, v, true)
		}
	} else if err := m.checkType(item); err != nil {
		return err
	}
	if h := m.revision(); h != nil && !h.isCurrent(item) {
		return h.read(m, item, v, func(item map[string]types.AttributeValue) error {
			v.SetZero()
			return m.decodeFields("", item, v)
		})
	}
	return m.decodeFields("", item, v)
}

// decodeFields decodes item's attributes into v, and its key-only fields
// from its table key (keyonly.go): item is of this entity at its current
// revision.
func (m *entityModel) decodeFields(op string, item map[string]types.AttributeValue, v reflect.Value) error {
	if err := m.Plan.Decode(item, v); err != nil {
		return m.decodeError(op, item, err)
	}
	if len(m.KeyOnly) > 0 {
		return m.decodeKeyOnly(op, item, v)
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
// writes.EncodeAt, the engine's encoder).
func (m *entityModel) encodeAt(r codec.Room, top *codec.Field, path string, v any, element bool) (types.AttributeValue, error) {
	return writes.EncodeAt(m.Entity, r, top, path, v, element)
}

// settable reports whether field f of a new struct value can be set (see
// writes.Settable).
func (m *entityModel) settable(f *codec.Field) bool { return writes.Settable(m.Entity, f) }

// convertible allows the conversions a caller means and that lose nothing
// (see writes.Convertible).
func convertible(v reflect.Value, to reflect.Type) bool { return writes.Convertible(v, to) }

// decodeAny decodes a stored item as the entity's Go type, returning a T
// value (not a pointer) as an any.
func (m *entityModel) decodeAny(item map[string]types.AttributeValue) (any, error) {
	v := reflect.New(m.Type).Elem()
	if err := m.decode(item, v); err != nil {
		return nil, err
	}
	return v.Interface(), nil
}
