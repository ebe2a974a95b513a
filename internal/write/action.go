package write

// The planned request of one write: what every write (Put, Update,
// Delete, a transaction's ConditionCheck, a batch item) is planned into,
// and the SDK inputs it is sent as. The root's action (action.go) embeds
// it, with what explains a failure in the root's public errors beside it.

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/model"
)

// Kind is what an action writes.
type Kind uint8

// The kinds of action.
const (
	Put Kind = iota
	Update
	Delete
	Check
)

// KindNames are the kinds' names, as a transaction's failures give them.
var KindNames = [...]string{Put: "Put", Update: "Update", Delete: "Delete", Check: "ConditionCheck"}

// Fail is what a failed condition of an action means: which of the root's
// sentinels its *ConditionError matches. The zero value is a plain failed
// condition.
type Fail uint8

// What a failed condition means.
const (
	FailCondition Fail = iota
	FailNotFound
	FailAlreadyExists
	FailUnique
)

// UniqueRel is what an action's value is to its unique fields' condition.
type UniqueRel uint8

// What the value is.
const (
	UniqueNone   UniqueRel = iota // the condition checks no unique value
	UniqueStored                  // the values a Put would store
	UniqueHeld                    // the values the item must still hold (Update, Delete)
)

// Action is one planned write of one item, as the request sends it.
// Transactions plan one per item (and every single write one): a smaller
// action is less to allocate and collect.
type Action struct {
	Kind Kind
	// What a failed condition means: the Kind of the root's
	// *ConditionError when the item existed and when it did not.
	WhenExists, WhenMissing Fail
	// Versioned is set when the condition checks the version field (for
	// the version the root's action expects).
	Versioned bool
	// UniqueRel tells what the root's action's value holds for the unique
	// fields' messages.
	UniqueRel UniqueRel
	// Key is the item's key; for a put it stays nil until the root's
	// keyAttrs picks it out of the item.
	Key, Item map[string]types.AttributeValue
	// ID is the item's model.ItemID, worked out when its key was encoded.
	ID model.ItemID
	// Bytes is the action's share of a transaction's size: its key or
	// item, its expressions and their names and values, added up as each
	// is made. A batch chunks by it too (16 MB, which 25 items of at most
	// 400 KB never reach).
	Bytes        int
	Update, Cond string
	Names        map[string]string
	Values       map[string]types.AttributeValue
}

// ReturnOld is what the action asks a failed condition to return: the
// item as it was, when there is a condition.
func (a *Action) ReturnOld() types.ReturnValuesOnConditionCheckFailure {
	if a.Cond == "" {
		return ""
	}
	return types.ReturnValuesOnConditionCheckFailureAllOld
}

// CondExpr is the action's ConditionExpression: nil when there is none,
// else a pointer into the action, which outlives its request anyway (one
// allocation less per expression).
func (a *Action) CondExpr() *string {
	if a.Cond == "" {
		return nil
	}
	return &a.Cond
}

// UpdateExpr is the action's UpdateExpression: nil when the update changes
// nothing (its only change stores what Put leaves out), which UpdateItem
// takes, as it takes no expression at all.
func (a *Action) UpdateExpr() *string {
	if a.Update == "" {
		return nil
	}
	return &a.Update
}

// withTable is a request allocated together with the table name its
// TableName points at: one allocation where aws.String would add a second
// (a Client may modify the request: the name is the request's own).
type withTable[In any] struct {
	in    In
	table string
}

// NewWithTable allocates a request of type In and the table name together.
func NewWithTable[In any](table string) (*In, *string) {
	r := &withTable[In]{table: table}
	return &r.in, &r.table
}

// PutItemInput is the action's PutItem request on table.
func (a *Action) PutItemInput(table string) *dynamodb.PutItemInput {
	in, name := NewWithTable[dynamodb.PutItemInput](table)
	*in = dynamodb.PutItemInput{
		TableName: name, Item: a.Item,
		ConditionExpression: a.CondExpr(), ExpressionAttributeNames: a.Names, ExpressionAttributeValues: a.Values,
		ReturnValuesOnConditionCheckFailure: a.ReturnOld(),
	}
	return in
}

// UpdateItemInput is the action's UpdateItem request on table, which
// returns the item after it.
func (a *Action) UpdateItemInput(table string) *dynamodb.UpdateItemInput {
	in, name := NewWithTable[dynamodb.UpdateItemInput](table)
	*in = dynamodb.UpdateItemInput{
		TableName: name, Key: a.Key, UpdateExpression: a.UpdateExpr(),
		ConditionExpression: a.CondExpr(), ExpressionAttributeNames: a.Names, ExpressionAttributeValues: a.Values,
		ReturnValues: types.ReturnValueAllNew, ReturnValuesOnConditionCheckFailure: a.ReturnOld(),
	}
	return in
}

// DeleteItemInput is the action's DeleteItem request on table.
func (a *Action) DeleteItemInput(table string) *dynamodb.DeleteItemInput {
	in, name := NewWithTable[dynamodb.DeleteItemInput](table)
	*in = dynamodb.DeleteItemInput{
		TableName: name, Key: a.Key,
		ConditionExpression: a.CondExpr(), ExpressionAttributeNames: a.Names, ExpressionAttributeValues: a.Values,
		ReturnValuesOnConditionCheckFailure: a.ReturnOld(),
	}
	return in
}
