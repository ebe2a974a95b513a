package singletable

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/bridge"
	"github.com/singletable/singletable/internal/codec"
	"github.com/singletable/singletable/internal/expr"
)

// migrationWrite plans the write of v, the transformed value of the item
// stored as raw, into table, for package migrate: nil when v renders as
// raw already. touch sets the updated timestamp from now. upgrade plans a
// shape-revision upgrade (migrate.UpgradeRevisions, revision.WriteBack):
// the value is the same in its current shape, so the version stays. It is
// pure: the request is built, not sent.
func (m *entityModel) migrationWrite(op, table string, raw map[string]types.AttributeValue, v reflect.Value, touch, upgrade bool, now func() time.Time) (*bridge.MigrateWrite, error) {
	// An item of a newer revision is never written back in an older shape
	// (it decodes best-effort under revision.ReadNewer).
	carried, err := m.revision().carried(m, raw)
	if err != nil {
		return nil, err
	}
	item, _, err := m.item(v)
	if err != nil {
		return nil, inOp(op, "", err)
	}
	// Attributes the model does not write (another service's, an older
	// version's) are not the migration's to remove: they go back as read
	// (as the item upgraders left them), and so do not count as a change.
	m.carryUnknown(carried, item)
	if codec.EqualItems(item, raw) {
		return nil, nil
	}
	mf := &m.managed
	for _, f := range mf.guarded() {
		if !codec.Equal(item[f.Attr], raw[f.Attr]) {
			how := "change it with Update"
			if upgrade { // an Update of an older item is refused (ErrOlder)
				how = "read it (which upgrades it) and Put it, which moves the guard"
			}
			return nil, &InputError{Op: op, Reason: fmt.Sprintf("the transform changes %s, whose guard item a migration does not move: %s", mf.describeGuard(f.GoName), how)}
		}
	}
	oldKey, newKey := m.keyOfItem(raw), m.keyOfItem(item)
	moved := !codec.EqualItems(oldKey, newKey)
	if moved {
		if err := m.keyDisagrees(op, raw, oldKey); err != nil {
			return nil, err
		}
	}
	if moved && len(mf.unique) > 0 {
		return nil, &InputError{Op: op, Reason: fmt.Sprintf("the item's key changes from %s to %s, and entity %s has unique fields whose guard items name the old key: a migration cannot move it", formatKey(oldKey), formatKey(newKey), m.Name)}
	}
	// The managed fields: the version goes up (so that other writers see
	// the change), the updated timestamp only when asked.
	restamp := false
	if f := mf.version; f != nil && !upgrade {
		setVersion(f, v, versionOf(f, v)+1)
		restamp = true
	}
	if f := mf.updated; f != nil && touch {
		setTimestamp(f, v, now())
		restamp = true
	}
	if restamp {
		if item, _, err = m.item(v); err != nil {
			return nil, inOp(op, "", err)
		}
		m.carryUnknown(carried, item)
	}
	w := &bridge.MigrateWrite{Key: oldKey, Attributes: changedAttrs(raw, item)}
	var b expr.Builder
	cond := m.unchanged(raw, &b)
	if err := checkExpression(op, "condition", cond); err != nil {
		return nil, &LimitError{Op: op, Reason: err.(*LimitError).Reason + ": an entity this wide needs a version field for a migration to check that an item is unchanged"}
	}
	if !moved {
		w.Put = &dynamodb.PutItemInput{
			TableName: aws.String(table), Item: item, ConditionExpression: aws.String(cond),
			ExpressionAttributeNames: b.Names, ExpressionAttributeValues: b.Values,
			ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
		}
		return w, nil
	}
	w.NewKey = newKey
	var nb expr.Builder
	w.Tx = &dynamodb.TransactWriteItemsInput{
		TransactItems: []types.TransactWriteItem{
			{Delete: &types.Delete{TableName: aws.String(table), Key: oldKey, ConditionExpression: aws.String(cond),
				ExpressionAttributeNames: b.Names, ExpressionAttributeValues: b.Values}},
			{Put: &types.Put{TableName: aws.String(table), Item: item, ConditionExpression: aws.String("attribute_not_exists(" + nb.Name(m.table.schema.PK) + ")"),
				ExpressionAttributeNames: nb.Names}},
		},
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
	}
	return w, nil
}

// carryUnknown copies into item the attributes of raw that the model
// never writes: neither a field's, nor the table key, the type, or a key
// of one of the entity's indexes.
func (m *entityModel) carryUnknown(raw, item map[string]types.AttributeValue) {
	for a, av := range raw {
		if _, ok := item[a]; !ok && !m.writesAttr(a) {
			item[a] = av
		}
	}
}

// writesAttr reports whether attribute a is one the model writes (or
// leaves out on purpose: an omitted field, a sparse index key).
func (m *entityModel) writesAttr(a string) bool {
	t := m.table
	if a == t.schema.PK || a == t.schema.SK || a == t.schema.TypeAttr {
		return true
	}
	if _, ok := m.Fields.ByAttr(a); ok {
		return true
	}
	for _, ei := range m.Indexes {
		if a == ei.Index.PK || a == ei.Index.SK {
			return true
		}
	}
	return false
}

// unchanged renders the condition that the item is still as read (raw):
// its stored version when the entity has one and the item holds it (and
// its shape revision: an upgrade keeps the version), else every attribute
// equal and every other attribute of the model absent.
func (m *entityModel) unchanged(raw map[string]types.AttributeValue, b *expr.Builder) string {
	h := m.revision()
	if f := m.managed.version; f != nil && m.managed.storedVersion(raw) != 0 {
		c := b.Name(f.Attr) + " = " + b.Value(raw[f.Attr])
		if h != nil {
			c += " AND " + h.unchanged(raw, b)
		}
		return c
	}
	names := make([]string, 0, len(raw))
	for a := range raw {
		names = append(names, a)
	}
	slices.Sort(names)
	var parts []string
	for _, a := range names {
		parts = append(parts, b.Name(a)+" = "+b.Value(raw[a]))
	}
	// What another writer could have added: the fields, and the index keys.
	var absent []string
	for _, f := range m.Fields.List {
		absent = append(absent, f.Attr)
	}
	for _, ei := range m.Indexes {
		absent = append(absent, ei.Index.PK, ei.Index.SK)
	}
	if h != nil {
		absent = append(absent, h.attr)
	}
	slices.Sort(absent)
	for _, a := range slices.Compact(absent) {
		if _, ok := raw[a]; !ok && a != "" {
			parts = append(parts, "attribute_not_exists("+b.Name(a)+")")
		}
	}
	return strings.Join(parts, " AND ")
}

// keyDisagrees refuses to move an item whose key is in the current
// templates' shape but whose attributes render another key: nothing in
// the model moved it (a key template change leaves the old key unparsed,
// and a transform that changes a key field starts from agreeing values),
// so moving it would take the item from the key its readers use.
func (m *entityModel) keyDisagrees(op string, raw, oldKey map[string]types.AttributeValue) error {
	if !m.tableMember().parsesKeys(op, raw) {
		return nil // an older key shape: the move is the migration's
	}
	stored := reflect.New(m.Type).Elem()
	if m.decode(raw, stored) != nil {
		return nil // the transform's error, if any, says more
	}
	k, err := m.Key(stored)
	if err != nil || codec.EqualItems(k, oldKey) {
		return nil
	}
	return &DecodeError{Op: op, Entity: m.Name, Key: oldKey, Reason: fmt.Sprintf(
		"the item's attributes give the key %s, not its own: a migration does not move an item whose attributes disagree with its key (correct the attributes, or move it with Put and Delete)", formatKey(k))}
}

// changedAttrs lists, sorted, the attributes added, removed or changed
// from a to b.
func changedAttrs(a, b map[string]types.AttributeValue) []string {
	var out []string
	for k, av := range a {
		if !codec.Equal(av, b[k]) {
			out = append(out, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}
