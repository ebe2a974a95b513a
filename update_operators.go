package singletable

// The update operators: how each change is checked, encoded and written
// into the update expression. Adding an operator is one entry in operators
// (and its Changes method).

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/codec"
	"github.com/singletable/singletable/internal/expr"
	"github.com/singletable/singletable/internal/model"
)

// operator is how an update operator is planned. Adding an operator is
// one entry in operators (and its Changes method).
type operator struct {
	name string
	// computed: DynamoDB computes the new value from the stored one, so
	// the request cannot know it (nor derive index keys or guards from it).
	computed bool
	// topLevel: DynamoDB applies the action to top-level attributes only.
	topLevel bool
	// skipOmittedZero: the zero value of an omitempty field (which Put
	// never stores) makes the change do nothing.
	skipOmittedZero bool
	// settable: the top-level field must be settable in the Go value (not
	// promoted through an unexported embedded pointer), since the change
	// gives its new value.
	settable bool
	// stored: the item holds the change's value afterwards, so its size
	// counts toward the item's (see updatePlan.storedBytes).
	stored bool
	// sign: the change adds (1) or subtracts (-1) its number value, which
	// must leave an integer field within its type's range (rangeCheck).
	sign  int
	value valueKind
	// check checks (and adapts) the encoded value; a nil value and no
	// error removes the attribute instead, as Put would leave it out.
	check func(m *entityModel, c change, f *codec.Field, av types.AttributeValue) (types.AttributeValue, error)
	// konst makes a constant the action reads ("$k"), added to the
	// request's values before the change's own; from r when it can.
	konst func(r codec.Room) types.AttributeValue
	// clause and action are what the change writes: action's parts
	// concatenated, "$p" standing for the path, "$v" for the value (see
	// expr.Update.Template).
	clause expr.Clause
	action []string
}

// valueKind is how an operator's value is encoded.
type valueKind int

const (
	noValue      valueKind = iota
	wholeValue             // as the field's value
	elementValue           // as a value or an element of the field's set or list
)

var operators = [...]operator{
	changeSet: {name: "Set", settable: true, stored: true, value: wholeValue, check: checkSet,
		clause: expr.ClauseSet, action: []string{"$p", " = ", "$v"}},
	changeRemove: {name: "Remove", settable: true,
		clause: expr.ClauseRemove, action: []string{"$p"}},
	changeAdd: {name: "Add", computed: true, topLevel: true, sign: 1, value: elementValue, check: checkAdd,
		clause: expr.ClauseAdd, action: []string{"$p", " ", "$v"}},
	changeDeleteFromSet: {name: "DeleteFromSet", computed: true, topLevel: true, value: elementValue, check: checkDeleteFromSet,
		clause: expr.ClauseDelete, action: []string{"$p", " ", "$v"}},
	changeAppend: {name: "Append", computed: true, stored: true, value: elementValue, check: checkList, konst: emptyList,
		clause: expr.ClauseSet, action: []string{"$p", " = list_append(if_not_exists(", "$p", ", ", "$k", "), ", "$v", ")"}},
	changePrepend: {name: "Prepend", computed: true, stored: true, value: elementValue, check: checkList, konst: emptyList,
		clause: expr.ClauseSet, action: []string{"$p", " = list_append(", "$v", ", if_not_exists(", "$p", ", ", "$k", "))"}},
	changeSetIfNotExists: {name: "SetIfNotExists", computed: true, skipOmittedZero: true, value: wholeValue, check: checkSetIfNotExists,
		clause: expr.ClauseSet, action: []string{"$p", " = if_not_exists(", "$p", ", ", "$v", ")"}},
	changeIncrement: {name: "Increment", computed: true, sign: 1, value: wholeValue, check: checkNumber, konst: zeroNumber,
		clause: expr.ClauseSet, action: []string{"$p", " = if_not_exists(", "$p", ", ", "$k", ") + ", "$v"}},
	changeDecrement: {name: "Decrement", computed: true, sign: -1, value: wholeValue, check: checkNumber, konst: zeroNumber,
		clause: expr.ClauseSet, action: []string{"$p", " = if_not_exists(", "$p", ", ", "$k", ") - ", "$v"}},
}

// listOverhead is what a list adds to an item's size besides its elements
// (see codec.Size).
const listOverhead = 3

func emptyList(codec.Room) types.AttributeValue {
	return &types.AttributeValueMemberL{Value: []types.AttributeValue{}}
}

func zeroNumber(r codec.Room) types.AttributeValue { return r.N("0") }

// checkSet removes, rather than sets, what Put leaves out: an omitempty
// field's zero value (at any depth through structs), and an index key's
// empty value, which is absent.
func checkSet(m *entityModel, c change, f *codec.Field, av types.AttributeValue) (types.AttributeValue, error) {
	if top := topField(c.field); top != c.field {
		if m.omitsZero(c.field, c.value) {
			return nil, nil
		}
	} else if _, raw := c.value.(types.AttributeValue); !raw && f.Tag.OmitEmpty && setValue(c.value, f).IsZero() {
		return nil, nil
	} else if ei, sort, ok := m.IndexOfField(top); ok {
		if model.AbsentKeyValue(av) {
			return nil, nil
		}
		attr, tpl, limit := ei.FieldKey(sort)
		if err := m.CheckFieldKey(ei.Index, top, attr, tpl.Raw, av, limit); err != nil {
			return nil, err
		}
	}
	return av, nil
}

// checkAdd takes a number or a set (a single element of a set field is a
// one-element set).
func checkAdd(m *entityModel, c change, f *codec.Field, av types.AttributeValue) (types.AttributeValue, error) {
	return m.setOperand(c, f, av, true)
}

// checkDeleteFromSet takes a set (or a single element of a set field).
func checkDeleteFromSet(m *entityModel, c change, f *codec.Field, av types.AttributeValue) (types.AttributeValue, error) {
	return m.setOperand(c, f, av, false)
}

// checkList takes a list, or a single element as a one-element list, for
// a field stored as a list: a set has no order to add to (Put stores a
// set-tagged field, or a [][]byte, as one).
func checkList(_ *entityModel, c change, f *codec.Field, av types.AttributeValue) (types.AttributeValue, error) {
	if topField(c.field) == c.field && storedAsSet(f.Type, f.Tag) {
		return nil, errors.New("the field is stored as a set, which has no order: use Add (and DeleteFromSet)")
	}
	if _, isList := av.(*types.AttributeValueMemberL); !isList {
		av = &types.AttributeValueMemberL{Value: []types.AttributeValue{av}}
	}
	return av, nil
}

// checkSetIfNotExists refuses an index key's empty value: stored, it would
// be absent, so the change could only ever do nothing.
func checkSetIfNotExists(m *entityModel, c change, _ *codec.Field, av types.AttributeValue) (types.AttributeValue, error) {
	if top := topField(c.field); top == c.field && m.IndexedField(top) && model.AbsentKeyValue(av) {
		return nil, errors.New("the field is an index key, whose empty value is absent (DynamoDB refuses it in a key), so this sets nothing: give a value")
	}
	return av, nil
}

// checkNumber takes a number.
func checkNumber(_ *entityModel, c change, _ *codec.Field, av types.AttributeValue) (types.AttributeValue, error) {
	if _, ok := av.(*types.AttributeValueMemberN); ok {
		return av, nil
	}
	if _, str := av.(*types.AttributeValueMemberS); str && isNumberKind(reflect.ValueOf(c.value).Kind()) {
		return nil, fmt.Errorf("the field stores its number as a string (a `,string` tag), and DynamoDB adds to numbers only: Set the new value instead")
	}
	return nil, fmt.Errorf("takes a number, got %T", c.value)
}

func isNumberKind(k reflect.Kind) bool {
	return k >= reflect.Int && k <= reflect.Float64
}
