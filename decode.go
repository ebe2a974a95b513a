package singletable

import (
	"github.com/singletable/singletable/internal/model"

	"fmt"
	"reflect"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Decoding raw items
//
// Table.Decode turns any item of the table — read by the user's own code,
// a scan, or a stream record's image — into the Go value of its entity,
// found by the type attribute. An item that does not carry the type (from a
// KEYS_ONLY or INCLUDE index, or a stream's Keys) is matched by its keys:
// it is of the one entity whose key templates parse them, as collections
// match such items; no entity, or several, is an *UnknownEntityError. The
// fields the key templates name are parsed back from the keys, and the
// attributes the item carries are laid over them.

// Decode decodes a raw item of the table (a base-table item or an index
// item) into the Go value of its entity: an Order item gives an Order (not
// a *Order); switch on the type, or use Entity.Decode for one entity. An
// item of no registered entity is an *UnknownEntityError (matching
// ErrWrongEntity) that carries the item. The keys decide, not the
// attributes: an untyped item whose keys parse as one entity's is that
// entity's, and a wrong attribute is its *DecodeError.
func (t *Table) Decode(item map[string]types.AttributeValue) (any, error) {
	v, _, err := t.decodeItem("Decode", item)
	return v, err
}

// EntityOf names the entity an item is of, by its type attribute or, when
// it has none, by its keys (see Decode); an item of no registered entity
// is an *UnknownEntityError.
func (t *Table) EntityOf(item map[string]types.AttributeValue) (string, error) {
	mem, err := t.memberOf("EntityOf", item)
	if err != nil {
		return "", err
	}
	return mem.m.Name, nil
}

// Decode decodes a raw item of entity e (a base-table item, an index item
// or a stream image). An item of another entity is an
// *EntityMismatchError (matching ErrWrongEntity); an item without the type
// attribute is decoded if its keys parse as e's.
func (e *Entity[T]) Decode(item map[string]types.AttributeValue) (T, error) {
	var v T
	err := e.m.decodeRaw(item, reflect.ValueOf(&v).Elem())
	return v, err
}

// decodeRaw is Entity.Decode: it decodes item into v, of m's type.
func (m *entityModel) decodeRaw(item map[string]types.AttributeValue, v reflect.Value) error {
	if m.table.untyped(item) {
		if err := m.checkByKeys(m.Name+".Decode", item); err != nil {
			return err
		}
	}
	return m.rawMember(item).decode(m.Name+".Decode", item, v, true)
}

// decodeItem decodes an item of any entity of the table.
func (t *Table) decodeItem(op string, item map[string]types.AttributeValue) (any, *entityModel, error) {
	mem, err := t.memberOf(op, item)
	if err != nil {
		return nil, nil, err
	}
	rv := reflect.New(mem.m.Type).Elem()
	if err := mem.decode(op, item, rv, true); err != nil {
		return nil, nil, err
	}
	return rv.Interface(), mem.m, nil
}

// memberOf finds the entity of an item among all the table's entities.
func (t *Table) memberOf(op string, item map[string]types.AttributeValue) (*readMember, error) {
	if err := t.checkKeys(op, "", item); err != nil {
		return nil, err
	}
	var mem *readMember
	if s, typed := item[t.schema.TypeAttr].(*types.AttributeValueMemberS); typed {
		t.mu.RLock()
		m := t.entities[s.Value]
		t.mu.RUnlock()
		if m != nil {
			mem = m.rawMember(item)
		}
	} else {
		t.mu.RLock()
		members := make([]*readMember, len(t.entityOrder))
		for i, m := range t.entityOrder {
			members[i] = m.tableMember()
		}
		t.mu.RUnlock()
		if mm := memberOf(op, members, t.schema.TypeAttr, item, true); mm != nil {
			mem = mm.m.rawMember(item)
		}
	}
	if mem == nil {
		if t.untyped(item) {
			return nil, t.unknownByKeys(item, t.byKeys(op, item))
		}
		e := &UnknownEntityError{Table: t.schema.Name, Key: t.keyOfItem(item), Item: item}
		if s, ok := item[t.schema.TypeAttr].(*types.AttributeValueMemberS); ok {
			e.Type = s.Value
		}
		return nil, e
	}
	return mem, nil
}

// memberOf picks the member an item is of: the one its type attribute
// names or, with byKeys (the read does not carry the type), the one member
// whose key templates all parse the item's keys (a value never holds the
// delimiter, so "ORDER#o1#LINE#1" is a line's, not an order's). The keys
// decide, not the attributes: an item whose keys parse as one member's
// but whose attribute has the wrong type is that member's, and fails its
// decode. An item no member, or several, can be is nil: unknown, never a
// guess.
func memberOf(op string, members []*readMember, typeAttr string, item map[string]types.AttributeValue, byKeys bool) *readMember {
	if name, ok := item[typeAttr].(*types.AttributeValueMemberS); ok {
		for _, mm := range members {
			if mm.m.Name == name.Value {
				return mm
			}
		}
		return nil
	}
	if !byKeys {
		return nil
	}
	var found *readMember
	for _, mm := range members {
		if mm.parsesKeys(op, item) {
			if found != nil {
				return nil
			}
			found = mm
		}
	}
	return found
}

// rawMember is the member that decodes a raw item of m: on the table, and
// on the index whose own key attributes the item carries when it has no
// type attribute (a KEYS_ONLY or INCLUDE index item), so that the fields
// only that index's keys hold are parsed back too. A base-table item has
// every index key but also every field, so the table's keys suffice.
func (m *entityModel) rawMember(item map[string]types.AttributeValue) *readMember {
	if _, typed := item[m.table.schema.TypeAttr]; typed {
		return m.tableMember()
	}
	mem := &readMember{m: m, pk: m.PK, sk: m.SK}
	for _, ei := range m.Indexes {
		if ei.PKFrom != model.KeyOwn {
			continue
		}
		if _, ok := item[ei.Index.PK].(*types.AttributeValueMemberS); ok {
			mem.ei = ei
			return mem
		}
	}
	return mem
}

// tableMember is m's member on the table, made once with its key skips:
// Decode runs for every stream image, and a read of a table read by its
// keys for every untyped item.
func (m *entityModel) tableMember() *readMember {
	if mem := m.tableMem.Load(); mem != nil {
		return mem
	}
	mem := &readMember{m: m, pk: m.PK, sk: m.SK}
	kts := mem.keyTemplates()
	mem.skips = keySkips(kts, []bool{true, true, true, true}[:len(kts)])
	m.tableMem.Store(mem)
	return mem
}

// keyOfItem picks the table key attributes out of an item.
func (t *Table) keyOfItem(item map[string]types.AttributeValue) map[string]types.AttributeValue {
	key := map[string]types.AttributeValue{}
	for _, a := range []string{t.schema.PK, t.schema.SK} {
		if v, ok := item[a]; ok && a != "" {
			key[a] = v
		}
	}
	return key
}

// UnknownEntityError is an item of no entity registered on the table: its
// type attribute names none (Type), or it has no type attribute and its
// keys parse as no entity's, or as several. It matches ErrWrongEntity and
// carries the item, so that nothing is dropped unseen.
type UnknownEntityError struct {
	Table string
	Type  string                          // the item's type attribute; empty if it has none
	Key   map[string]types.AttributeValue // the item's table key
	Item  map[string]types.AttributeValue // the whole item, as given
	// Candidates are the entities whose key templates all parse the keys
	// of an item without the type attribute, when there are several: the
	// item is ambiguous, and the library does not guess.
	Candidates []string
}

func (e *UnknownEntityError) Error() string {
	if len(e.Candidates) > 1 {
		return fmt.Sprintf("singletable: table %s: item %s has no entity type attribute and its keys are ambiguous: they parse as each of %s", e.Table, formatKey(e.Key), strings.Join(e.Candidates, ", "))
	}
	if e.Type == "" {
		return fmt.Sprintf("singletable: table %s: item %s has no entity type attribute and its keys match no single entity", e.Table, formatKey(e.Key))
	}
	return fmt.Sprintf("singletable: table %s: item %s is of entity type %q, which is not defined on the table", e.Table, formatKey(e.Key), e.Type)
}

// Is makes errors.Is(err, ErrWrongEntity) true.
func (e *UnknownEntityError) Is(target error) bool { return target == ErrWrongEntity }
