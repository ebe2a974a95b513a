package singletable

import (
	"fmt"
	"reflect"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/codec"
	"github.com/singletable/singletable/internal/keys"
	"github.com/singletable/singletable/internal/model"
)

// Attributes of a guard item naming the item that holds the value.
const (
	guardOwnerPK = "_ownerPK"
	guardOwnerSK = "_ownerSK"
)

// Unique declares fields (strings or integers) whose values no two items of
// the entity may share, such as a user's email, as the tag
// `singletable:"unique"` does. Each value is held by a hidden guard item in
// the same table (partition key "_unique#<Entity>#<attribute>#<value>", type
// "_unique"), written in the same transaction as the item:
//
//   - Create and Put write the item and a guard that must not exist (or
//     already belong to the item); a clash is a *UniqueViolationError.
//   - Update that changes a unique field deletes the old guard and creates the
//     new one in one transaction, conditioned on the item still holding the
//     old value. Update reads the item first (a strongly consistent GetItem)
//     to learn the old value, and reads it again after the transaction to
//     return it, since a transaction returns no item; TxUpdate instead takes
//     the old value from the key argument, and the condition makes a wrong
//     one fail rather than orphan a guard.
//   - Delete removes the item and its guards in one transaction; like Update
//     it reads the item first to learn the values.
//
// On an entity that expires (see Expires), the guards carry the item's
// expiry, so that DynamoDB's time to live deletes them with it: Update of
// a unique value or of the expiry rewrites them with the expiry the item
// has after it, and TxUpdate of either is an ErrInvalidInput (a
// transaction cannot read the expiry). See docs/ttl.md.
//
// Zero values (an empty string, 0) are not guarded: any number of items may
// lack the value. Values are compared exactly; normalise them (for example
// lower-case emails) before writing. BatchWrite refuses entities with unique
// fields, since BatchWriteItem cannot keep guards in step.
func Unique(fields ...string) EntityOption {
	return writeOption(func(s *writeSpec) { s.add("unique", fields...) })
}

// uniqueField is the unique-values feature: the unique fields, in the
// order declared, each with its guard items.
type uniqueField struct {
	noHooks
	fields []*codec.Field
}

// resolveUnique resolves the unique fields: strings or integers, which may
// be key fields.
func resolveUnique(r *managedResolver) (managedField, *ModelError) {
	for _, name := range r.names["unique"] {
		f, err := r.lookup("unique", name, true)
		if err != nil {
			return nil, err
		}
		if err := r.claim("unique", f); err != nil {
			return nil, err
		}
		if f.Type.Kind() != reflect.String && !isIntegerType(f.Type) {
			return nil, r.fail(f.GoName, "a unique field must be a string or an integer, not %s", f.Type)
		}
		r.m.managed.unique = append(r.m.managed.unique, f)
	}
	if len(r.m.managed.unique) == 0 {
		return nil, nil
	}
	return &uniqueField{fields: r.m.managed.unique}, nil
}

// onPut puts each value's guard; an existing item must hold the same
// values: Put does not move guards (Update does).
func (h *uniqueField) onPut(w *write, v reflect.Value) error {
	a := w.a
	for _, f := range h.fields {
		if w.mode == writeBatch {
			return refuseBatch(w)
		}
		if w.mode != writeCreate {
			held, err := a.m.heldValue(f, v)
			if err != nil {
				return &InputError{Op: a.op, Reason: err.Error()}
			}
			w.hold(Or(a.m.table.notExists, held))
			a.value, a.uniqueRel = v, uniqueStored
		}
		w.guard(actPut, f, uniqueValue(f, v))
	}
	return nil
}

// onUpdate moves the guard of a changed value, on the condition that the
// item holds the old value (w.old); on an entity that expires, a changed
// expiry rewrites the guards with it too (see guardExpiry).
func (h *uniqueField) onUpdate(w *write, plan *updatePlan) error {
	a := w.a
	exp := a.m.managed.expires
	expiryChanges := exp != nil && plan.touches(exp.GoName)
	for _, f := range h.fields {
		if !plan.touches(f.GoName) && !expiryChanges {
			continue
		}
		if exp != nil {
			if err := guardExpiry(w, plan); err != nil {
				return err
			}
		}
		held, err := a.m.heldValue(f, w.old)
		if err != nil {
			return &InputError{Op: a.op, Reason: err.Error()}
		}
		w.hold(held)
		a.value, a.uniqueRel = w.old, uniqueHeld
		switch was, now := uniqueValue(f, w.old), uniqueValue(f, plan.nextValue()); {
		case was != now:
			w.guard(actDelete, f, was)
			w.guard(actPut, f, now)
		case expiryChanges:
			w.guard(actPut, f, now) // the same value, its guard's new expiry
		}
	}
	return nil
}

// onDelete deletes the guards of the values the item holds (w.old) with
// it.
func (h *uniqueField) onDelete(w *write) error {
	a := w.a
	for _, f := range h.fields {
		if w.mode == writeBatch {
			return refuseBatch(w)
		}
		held, err := a.m.heldValue(f, w.old)
		if err != nil {
			return &InputError{Op: a.op, Reason: err.Error()}
		}
		w.hold(held)
		a.value, a.uniqueRel = w.old, uniqueHeld
		w.guard(actDelete, f, uniqueValue(f, w.old))
	}
	return nil
}

// refuseBatch is a unique field's answer to a batch: BatchWriteItem cannot
// keep guard items in step.
func refuseBatch(w *write) error {
	return &InputError{Op: w.a.op, Reason: fmt.Sprintf("entity %s has unique fields, whose guard items BatchWriteItem cannot keep in step; use Put, Delete or a transaction", w.a.m.Name)}
}

// isUnique reports whether the Go field is declared unique.
func (mf *managed) isUnique(goName string) bool {
	for _, f := range mf.unique {
		if f.GoName == goName {
			return true
		}
	}
	return false
}

// deleteReads reports whether Delete reads the item first: the unique
// hooks delete the guards of the values it holds.
func (mf *managed) deleteReads() bool { return len(mf.unique) > 0 }

// uniqueValue renders a unique field's value of struct value v as the guard
// key holds it; "" for the zero value, which is not guarded.
func uniqueValue(f *codec.Field, v reflect.Value) string {
	fv := fieldValue(f, v)
	switch {
	case fv.Kind() == reflect.String:
		return fv.String()
	case fv.CanInt():
		if fv.Int() == 0 {
			return ""
		}
		return strconv.FormatInt(fv.Int(), 10)
	default:
		if fv.Uint() == 0 {
			return ""
		}
		return strconv.FormatUint(fv.Uint(), 10)
	}
}

// guardKey is the key of the guard item for a unique value. The same
// string is the partition and the sort key, so on a table with a sort key
// it must fit the sort key's limit: a value too long for it is a *KeyError,
// as for any other key.
func (m *entityModel) guardKey(f *codec.Field, value string) (map[string]types.AttributeValue, error) {
	t := m.table
	d := string(t.schema.Delim)
	k := model.GuardType + d + keys.Escape(m.Name, t.schema.Delim) + d + keys.Escape(f.Attr, t.schema.Delim) + d + keys.Escape(value, t.schema.Delim)
	attr, limit := t.schema.PK, t.schema.PKLimit
	if t.schema.SK != "" {
		attr, limit = t.schema.SK, maxSortKeyBytes
	}
	if len(k) > limit {
		// The template, made only for the error: how the guard key is built.
		return nil, m.CheckKeySize(attr, model.GuardType+d+m.Name+d+f.Attr+d+"{"+f.GoName+"}", f.GoName, len(k), limit)
	}
	key := map[string]types.AttributeValue{t.schema.PK: &types.AttributeValueMemberS{Value: k}}
	if t.schema.SK != "" {
		key[t.schema.SK] = &types.AttributeValueMemberS{Value: k}
	}
	return key, nil
}

// guardItem is the guard item of guard key key (see guardKey), held by the
// item with primary key owner.
func (m *entityModel) guardItem(key, owner map[string]types.AttributeValue) map[string]types.AttributeValue {
	item := make(map[string]types.AttributeValue, len(key)+3)
	for a, v := range key {
		item[a] = v
	}
	item[m.table.schema.TypeAttr] = &types.AttributeValueMemberS{Value: model.GuardType}
	item[guardOwnerPK] = owner[m.table.schema.PK]
	if m.table.schema.SK != "" {
		item[guardOwnerSK] = owner[m.table.schema.SK]
	}
	return item
}

// ownedBy is the condition that a guard item is absent or belongs to owner.
func (m *entityModel) ownedBy(owner map[string]types.AttributeValue) Cond {
	c := Eq(guardOwnerPK, owner[m.table.schema.PK])
	if m.table.schema.SK != "" {
		c = And(c, Eq(guardOwnerSK, owner[m.table.schema.SK]))
	}
	return Or(m.table.notExists, c)
}

// guardOwner reads the owner key out of a guard item.
func (m *entityModel) guardOwner(item map[string]types.AttributeValue) map[string]types.AttributeValue {
	if len(item) == 0 {
		return nil
	}
	owner := map[string]types.AttributeValue{}
	if v, ok := item[guardOwnerPK]; ok {
		owner[m.table.schema.PK] = v
	}
	if v, ok := item[guardOwnerSK]; ok && m.table.schema.SK != "" {
		owner[m.table.schema.SK] = v
	}
	return owner
}

// heldValue is the condition that the stored item holds value (as rendered
// by uniqueValue) in unique field f; for "" that it holds none.
func (m *entityModel) heldValue(f *codec.Field, v reflect.Value) (Cond, error) {
	if uniqueValue(f, v) == "" {
		zero, err := m.encodeValue(f.GoName, reflect.Zero(f.Type).Interface(), false)
		if err != nil {
			return Cond{}, err
		}
		return Or(NotExists(f.GoName), Eq(f.GoName, zero)), nil
	}
	return Eq(f.GoName, fieldValue(f, v).Interface()), nil
}
