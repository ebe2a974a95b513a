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

type changeOp int

const (
	changeSet changeOp = iota
	changeRemove
	changeAdd
)

var changeNames = [...]string{changeSet: "Set", changeRemove: "Remove", changeAdd: "Add"}

// change is one field change of an Update.
type change struct {
	op    changeOp
	field string
	value any
}

func changeOption(c change) Option {
	return Option{optChange, changeNames[c.op], func(s *settings) { s.changes = append(s.changes, c) }}
}

// Set sets a field (by Go name) to v, encoded by the field's `dynamodbav`
// rules. Setting an omitempty field to its zero value removes the attribute,
// as Put would leave it out.
func Set(field string, v any) Option { return changeOption(change{changeSet, field, v}) }

// Remove removes a field's attribute from the item.
func Remove(field string) Option { return changeOption(change{changeRemove, field, nil}) }

// Add adds v to a number field (use a negative v to subtract), or adds the
// elements of v to a set field. The new value is computed by DynamoDB, so a
// field that an index key reads cannot be changed with Add: use Set.
func Add(field string, v any) Option { return changeOption(change{changeAdd, field, v}) }

// updatePlan is an Update resolved against the entity: the expression parts
// and what the index keys become.
type updatePlan struct {
	set, remove, add []string
}

// UpdateInput is the UpdateItem request Update sends. Options: Set, Remove,
// Add, If, Upsert.
func (e *Entity[T]) UpdateInput(db *DB, key T, opts ...Option) (*dynamodb.UpdateItemInput, error) {
	in, _, err := e.updateInput(db, key, opts)
	return in, err
}

func (e *Entity[T]) updateInput(db *DB, key T, opts []Option) (*dynamodb.UpdateItemInput, *settings, error) {
	m := e.m
	op := m.name + ".Update"
	s, err := collect(op, optChange|optCondition|optUpsert, opts)
	if err != nil {
		return nil, nil, err
	}
	if err := db.checkTable(op, m); err != nil {
		return nil, nil, err
	}
	if len(s.changes) == 0 {
		return nil, nil, &InputError{Op: op, Reason: "no change given: pass Set, Remove or Add"}
	}
	keyValue := reflect.ValueOf(&key).Elem()
	k, err := m.key(keyValue)
	if err != nil {
		return nil, nil, err
	}
	var b expr.Builder
	var plan updatePlan
	if err := m.planChanges(op, keyValue, s, &b, &plan); err != nil {
		return nil, nil, err
	}
	if s.upsert {
		// A new item must still decode as this entity, and carry its key fields.
		plan.set = append(plan.set, b.Name(m.table.typeAttr)+" = "+b.Value(expr.S(m.name)))
		for _, f := range m.fields.List {
			if !m.keyFields[f.GoName] {
				continue
			}
			av, err := m.encodeValue(f.GoName, keyValue.FieldByIndex(f.Index).Interface(), false)
			if err != nil {
				return nil, nil, &InputError{Op: op, Reason: err.Error()}
			}
			plan.set = append(plan.set, b.Name(f.Attr)+" = "+b.Value(av))
		}
	}
	var update strings.Builder
	for i, part := range [][]string{plan.set, plan.remove, plan.add} {
		if len(part) == 0 {
			continue
		}
		if update.Len() > 0 {
			update.WriteByte(' ')
		}
		update.WriteString([]string{"SET ", "REMOVE ", "ADD "}[i])
		update.WriteString(strings.Join(part, ", "))
	}
	if update.Len() > expr.MaxExpressionBytes {
		return nil, nil, &InputError{Op: op, Reason: fmt.Sprintf("the update expression is %d bytes; DynamoDB allows %d", update.Len(), expr.MaxExpressionBytes)}
	}
	c := s.cond
	if !s.upsert {
		c = And(attrExists(m.table.pk), c)
	}
	cond, err := renderCond(c, m, &b)
	if err != nil {
		return nil, nil, &InputError{Op: op, Reason: err.Error()}
	}
	in := &dynamodb.UpdateItemInput{
		TableName:                           aws.String(db.name),
		Key:                                 k,
		UpdateExpression:                    aws.String(update.String()),
		ConditionExpression:                 expr.Ptr(cond),
		ExpressionAttributeNames:            b.Names,
		ExpressionAttributeValues:           b.Values,
		ReturnValues:                        types.ReturnValueAllNew,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}
	return in, s, nil
}

// planChanges resolves the field changes and recomputes every index key
// that depends on a changed field, so that index keys are never stale.
func (m *entityModel) planChanges(op string, keyValue reflect.Value, s *settings, b *expr.Builder, plan *updatePlan) error {
	fail := func(format string, args ...any) error {
		return &InputError{Op: op, Reason: fmt.Sprintf(format, args...)}
	}
	// next is the item as far as the update knows it: the key fields plus
	// every field the update sets or removes.
	next := reflect.New(m.typ).Elem()
	next.Set(keyValue)
	known := map[string]bool{}
	for f := range m.keyFields {
		known[f] = true
	}
	changed := map[string]changeOp{}
	for _, c := range s.changes {
		f, ok := m.fields.ByGoName(c.field)
		if !ok {
			return fail("%s(%q): entity %s has no such field", changeNames[c.op], c.field, m.name)
		}
		if m.keyFields[c.field] {
			return fail("%s(%q): the field is part of the primary key (%s); delete the item and create it under the new key",
				changeNames[c.op], c.field, m.primaryTemplates())
		}
		if _, dup := changed[c.field]; dup {
			return fail("field %s is changed twice in one update", c.field)
		}
		changed[c.field] = c.op
		name := b.Name(f.Attr)
		switch c.op {
		case changeSet:
			av, err := m.encodeValue(c.field, c.value, false)
			if err != nil {
				return fail("Set(%q): %v", c.field, err)
			}
			// A raw AttributeValue tells nothing the index keys could use.
			_, raw := c.value.(types.AttributeValue)
			fv := next.FieldByIndex(f.Index)
			if rv := reflect.ValueOf(c.value); !raw && rv.IsValid() {
				if !rv.Type().AssignableTo(f.Type) {
					rv = rv.Convert(f.Type)
				}
				fv.Set(rv)
			} else if !raw {
				fv.SetZero() // Set(field, nil)
			}
			known[c.field] = !raw
			if !raw && f.Tag.OmitEmpty && fv.IsZero() {
				plan.remove = append(plan.remove, name)
				continue
			}
			plan.set = append(plan.set, name+" = "+b.Value(av))
		case changeRemove:
			next.FieldByIndex(f.Index).SetZero()
			known[c.field] = true
			plan.remove = append(plan.remove, name)
		case changeAdd:
			av, err := m.encodeValue(c.field, c.value, true)
			if err != nil {
				return fail("Add(%q): %v", c.field, err)
			}
			switch av.(type) {
			case *types.AttributeValueMemberN, *types.AttributeValueMemberSS, *types.AttributeValueMemberNS, *types.AttributeValueMemberBS:
			default:
				return fail("Add(%q): Add takes a number or a set, got %T", c.field, c.value)
			}
			plan.add = append(plan.add, name+" "+b.Value(av))
		}
	}

	for _, ei := range m.indexes {
		affected := false
		for f, op := range changed {
			if !ei.dependsOn(f) {
				continue
			}
			if op == changeAdd {
				return fail("Add(%q): index %s's key or condition reads %s, and Add leaves its new value to DynamoDB; use Set", f, ei.index.name, f)
			}
			affected = true
		}
		var missing []string
		for _, f := range ei.inputs() {
			if !known[f] {
				missing = append(missing, f)
			}
		}
		if !affected {
			if s.upsert && len(missing) == 0 {
				affected = true // a new item needs the keys it can have
			} else {
				continue
			}
		}
		if len(missing) > 0 {
			slices.Sort(missing)
			return fail("the change to index %s's key (%s) also needs %s: Set them too (to their current values if they do not change)",
				ei.index.name, ei.describe(), strings.Join(missing, ", "))
		}
		pk, sk, ok, err := m.indexKey(ei, next)
		if err != nil {
			return err
		}
		if !ok {
			plan.remove = append(plan.remove, b.Name(ei.index.pk))
			if ei.index.sk != "" {
				plan.remove = append(plan.remove, b.Name(ei.index.sk))
			}
			continue
		}
		plan.set = append(plan.set, b.Name(ei.index.pk)+" = "+b.Value(expr.S(pk)))
		if ei.index.sk != "" {
			plan.set = append(plan.set, b.Name(ei.index.sk)+" = "+b.Value(expr.S(sk)))
		}
	}
	return nil
}

// primaryTemplates describes the primary key templates for messages.
func (m *entityModel) primaryTemplates() string {
	if m.sk == nil {
		return fmt.Sprintf("%s %q", m.table.pk, m.pk.raw)
	}
	return fmt.Sprintf("%s %q, %s %q", m.table.pk, m.pk.raw, m.table.sk, m.sk.raw)
}

// describe names an index key's templates for messages.
func (ei *entityIndex) describe() string {
	s := fmt.Sprintf("%s %q", ei.index.pk, ei.pk.raw)
	if ei.sk != nil {
		s += fmt.Sprintf(", %s %q", ei.index.sk, ei.sk.raw)
	}
	if ei.when != nil {
		s += fmt.Sprintf(", when %s", strings.Join(ei.whenFields, ", "))
	}
	return s
}

// Update changes fields of the item whose primary key fields are set in
// key, and returns the item as it is afterwards. Every index key that
// depends on a changed field is recomputed in the same request (or removed,
// when a key field becomes empty or the index's When condition stops
// holding), so index keys are never stale; an update that cannot recompute
// one fails first, naming the fields it needs. Changing a primary-key field
// is an error. Without Upsert, a missing item is ErrNotFound.
func (e *Entity[T]) Update(ctx context.Context, db *DB, key T, opts ...Option) (T, error) {
	var out T
	in, s, err := e.updateInput(db, key, opts)
	if err != nil {
		return out, err
	}
	res, err := db.client.UpdateItem(ctx, in)
	if err != nil {
		return out, conditionError(e.m.name+".Update", e.m, in.Key, err, func(existed bool) error {
			if !existed && !s.upsert {
				return ErrNotFound
			}
			return ErrConditionFailed
		})
	}
	err = e.m.decode(res.Attributes, reflect.ValueOf(&out).Elem())
	return out, err
}
