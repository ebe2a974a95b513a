package singletable

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/bridge"
	"github.com/singletable/singletable/internal/expr"
	"github.com/singletable/singletable/internal/model"
)

// rescope is a bridge.Rescope: unique field i of entity m, whose guards
// move from the table-wide form to the scoped one (migrate.ScopeUnique).
type rescope struct {
	m     *entityModel
	table string
	h     *uniqueField
	i     int
}

func (g *migration) Rescope(field string) (bridge.Rescope, error) {
	mf := &g.m.managed
	for i, f := range mf.unique {
		if f.GoName != field {
			continue
		}
		if mf.scopes[i] == nil {
			return nil, &InputError{Op: g.op, Reason: fmt.Sprintf("entity %s declares %s unique table-wide: declare the scope it moves into (Unique(\"%s within <Field>\"))", g.m.Name, field, field)}
		}
		return &rescope{m: g.m, table: g.db.name, h: &uniqueField{fields: mf.unique, scopes: mf.scopes}, i: i}, nil
	}
	return nil, &InputError{Op: g.op, Reason: fmt.Sprintf("entity %s has no unique field %s", g.m.Name, field)}
}

// guards are raw's guard of the field in the table-wide form (old) and in
// the scoped one, and its decoded value; ok is false for a zero value.
func (r *rescope) guards(raw map[string]types.AttributeValue) (old, scoped guardOf, v reflect.Value, ok bool, err error) {
	v = reflect.New(r.m.Type).Elem()
	if err := r.m.decode(raw, v); err != nil {
		return old, scoped, v, false, err
	}
	scoped = r.h.guardFor(r.i, v)
	old = guardOf{field: scoped.field, value: scoped.value}
	return old, scoped, v, scoped.value != "", nil
}

func (r *rescope) Guards(raw map[string]types.AttributeValue) (old, scoped map[string]types.AttributeValue, err error) {
	og, sg, _, ok, err := r.guards(raw)
	if !ok || err != nil {
		return nil, nil, err
	}
	if old, err = r.m.guardKey(og); err != nil {
		return nil, nil, err
	}
	scoped, err = r.m.guardKey(sg)
	return old, scoped, err
}

func (r *rescope) Move(raw map[string]types.AttributeValue) (*dynamodb.TransactWriteItemsInput, error) {
	og, sg, v, ok, err := r.guards(raw)
	if !ok || err != nil {
		return nil, err
	}
	m, table := r.m, aws.String(r.table)
	owner := m.keyOfItem(raw)
	oldKey, err := m.guardKey(og)
	if err != nil {
		return nil, err
	}
	newKey, err := m.guardKey(sg)
	if err != nil {
		return nil, err
	}
	held, err := r.h.held(m, r.i, v)
	if err != nil {
		return nil, err
	}
	var hb, pb, db expr.Builder
	holds, err := renderAnd(held, Cond{}, m, &hb)
	if err != nil {
		return nil, err
	}
	free, err := renderAnd(m.ownedBy(owner), Cond{}, nil, &pb)
	if err != nil {
		return nil, err
	}
	// The table-wide guard must be the item's: an absent one says the
	// item was migrated already (or written by the scoped model).
	owned := Eq(guardOwnerPK, owner[m.table.schema.PK])
	if m.table.schema.SK != "" {
		owned = And(owned, Eq(guardOwnerSK, owner[m.table.schema.SK]))
	}
	mine, err := renderAnd(owned, Cond{}, nil, &db)
	if err != nil {
		return nil, err
	}
	item := m.guardItem(newKey, owner)
	if ttl, ok := raw[m.table.schema.TTLAttr]; ok && m.managed.expires != nil {
		item[m.table.schema.TTLAttr] = ttl // guards expire with their item
	}
	old := types.ReturnValuesOnConditionCheckFailureAllOld
	return &dynamodb.TransactWriteItemsInput{
		TransactItems: []types.TransactWriteItem{
			{ConditionCheck: &types.ConditionCheck{TableName: table, Key: owner, ConditionExpression: aws.String(holds),
				ExpressionAttributeNames: hb.NameMap(), ExpressionAttributeValues: hb.Values}},
			{Put: &types.Put{TableName: table, Item: item, ConditionExpression: aws.String(free),
				ExpressionAttributeNames: pb.NameMap(), ExpressionAttributeValues: pb.Values, ReturnValuesOnConditionCheckFailure: old}},
			{Delete: &types.Delete{TableName: table, Key: oldKey, ConditionExpression: aws.String(mine),
				ExpressionAttributeNames: db.NameMap(), ExpressionAttributeValues: db.Values, ReturnValuesOnConditionCheckFailure: old}},
		},
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
	}, nil
}

func (r *rescope) Owner(guard map[string]types.AttributeValue) map[string]types.AttributeValue {
	return r.m.guardOwner(guard)
}

func (r *rescope) Violation(op string, raw, owner map[string]types.AttributeValue, err error) error {
	_, sg, _, _, derr := r.guards(raw)
	if derr != nil {
		return derr
	}
	return sg.violation(op, r.m.Name, owner, err)
}

func (r *rescope) Sweep() *dynamodb.ScanInput {
	var b expr.Builder
	s := r.m.table.schema
	filter := b.Name(s.TypeAttr) + " = " + b.Value(&types.AttributeValueMemberS{Value: model.GuardType}) +
		" AND begins_with(" + b.Name(s.PK) + ", " + b.Value(&types.AttributeValueMemberS{Value: r.m.guardPrefix(r.h.fields[r.i], nil)}) + ")"
	return &dynamodb.ScanInput{TableName: aws.String(r.table), FilterExpression: aws.String(filter),
		ExpressionAttributeNames: b.NameMap(), ExpressionAttributeValues: b.Values,
		ConsistentRead: aws.Bool(true), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal}
}

func (r *rescope) Old(item map[string]types.AttributeValue) bool {
	pk, ok := item[r.m.table.schema.PK].(*types.AttributeValueMemberS)
	prefix := r.m.guardPrefix(r.h.fields[r.i], nil)
	// The value is escaped: a delimiter after the prefix is a scoped key's.
	return ok && strings.HasPrefix(pk.Value, prefix) && strings.IndexByte(pk.Value[len(prefix):], r.m.table.schema.Delim) < 0
}

func (r *rescope) Holds(item, guard map[string]types.AttributeValue) bool {
	if len(item) == 0 {
		return false
	}
	if mem, err := r.m.table.memberOf("ScopeUnique", item); err != nil || mem.m != r.m {
		return false
	}
	og, _, _, ok, err := r.guards(item)
	if !ok || err != nil {
		return false
	}
	key, err := r.m.guardKey(og)
	return err == nil && reflect.DeepEqual(key[r.m.table.schema.PK], guard[r.m.table.schema.PK])
}

func (r *rescope) Key(item map[string]types.AttributeValue) map[string]types.AttributeValue {
	return r.m.keyOfItem(item)
}
