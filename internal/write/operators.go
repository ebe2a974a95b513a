package write

// The update operators: how each change is checked, encoded and written
// into the update expression. Adding an operator is one entry in Operators
// (and its root Changes method).

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/codec"
	"github.com/singletable/singletable/internal/expr"
	"github.com/singletable/singletable/internal/model"
)

// Op is an update operator: an index into Operators.
type Op int

// The update operators, one per Changes method.
const (
	OpSet Op = iota
	OpRemove
	OpAdd
	OpDeleteFromSet
	OpAppend
	OpPrepend
	OpSetIfNotExists
	OpIncrement
	OpDecrement
)

// Operator is how an update operator is planned.
type Operator struct {
	Name string
	// Computed: DynamoDB computes the new value from the stored one, so
	// the request cannot know it (nor derive index keys or guards from it).
	Computed bool
	// TopLevel: DynamoDB applies the action to top-level attributes only.
	TopLevel bool
	// SkipOmittedZero: the zero value of an omitempty field (which Put
	// never stores) makes the change do nothing.
	SkipOmittedZero bool
	// Settable: the top-level field must be settable in the Go value (not
	// promoted through an unexported embedded pointer), since the change
	// gives its new value.
	Settable bool
	// Stored: the item holds the change's value afterwards, so its size
	// counts toward the item's.
	Stored bool
	// Sign: the change adds (1) or subtracts (-1) its number value, which
	// must leave an integer field within its type's range (RangeCheck).
	Sign  int
	Value ValueKind
	// Check checks (and adapts) av, the encoded value v of the change to
	// path, whose top-level field is f; a nil value and no error removes
	// the attribute instead, as Put would leave it out.
	Check func(m *model.Entity, path string, v any, f *codec.Field, av types.AttributeValue) (types.AttributeValue, error)
	// Konst makes a constant the action reads ("$k"), added to the
	// request's values before the change's own; from r when it can.
	Konst func(r codec.Room) types.AttributeValue
	// Clause and Action are what the change writes: Action's parts
	// concatenated, "$p" standing for the path, "$v" for the value (see
	// expr.Update.Template).
	Clause expr.Clause
	Action []string
}

// ValueKind is how an operator's value is encoded.
type ValueKind int

// The kinds of an operator's value.
const (
	NoValue      ValueKind = iota
	WholeValue             // as the field's value
	ElementValue           // as a value or an element of the field's set or list
)

// Operators are the update operators, by Op.
var Operators = [...]Operator{
	OpSet: {Name: "Set", Settable: true, Stored: true, Value: WholeValue, Check: checkSet,
		Clause: expr.ClauseSet, Action: []string{"$p", " = ", "$v"}},
	OpRemove: {Name: "Remove", Settable: true,
		Clause: expr.ClauseRemove, Action: []string{"$p"}},
	OpAdd: {Name: "Add", Computed: true, TopLevel: true, Sign: 1, Value: ElementValue, Check: checkAdd,
		Clause: expr.ClauseAdd, Action: []string{"$p", " ", "$v"}},
	OpDeleteFromSet: {Name: "DeleteFromSet", Computed: true, TopLevel: true, Value: ElementValue, Check: checkDeleteFromSet,
		Clause: expr.ClauseDelete, Action: []string{"$p", " ", "$v"}},
	OpAppend: {Name: "Append", Computed: true, Stored: true, Value: ElementValue, Check: checkList, Konst: emptyList,
		Clause: expr.ClauseSet, Action: []string{"$p", " = list_append(if_not_exists(", "$p", ", ", "$k", "), ", "$v", ")"}},
	OpPrepend: {Name: "Prepend", Computed: true, Stored: true, Value: ElementValue, Check: checkList, Konst: emptyList,
		Clause: expr.ClauseSet, Action: []string{"$p", " = list_append(", "$v", ", if_not_exists(", "$p", ", ", "$k", "))"}},
	OpSetIfNotExists: {Name: "SetIfNotExists", Computed: true, SkipOmittedZero: true, Value: WholeValue, Check: checkSetIfNotExists,
		Clause: expr.ClauseSet, Action: []string{"$p", " = if_not_exists(", "$p", ", ", "$v", ")"}},
	OpIncrement: {Name: "Increment", Computed: true, Sign: 1, Value: WholeValue, Check: checkNumber, Konst: zeroNumber,
		Clause: expr.ClauseSet, Action: []string{"$p", " = if_not_exists(", "$p", ", ", "$k", ") + ", "$v"}},
	OpDecrement: {Name: "Decrement", Computed: true, Sign: -1, Value: WholeValue, Check: checkNumber, Konst: zeroNumber,
		Clause: expr.ClauseSet, Action: []string{"$p", " = if_not_exists(", "$p", ", ", "$k", ") - ", "$v"}},
}

// Unknown reports whether a change of operator op to path leaves the
// field's new value unknown to the request: it is below the field
// ("Address.City"), or DynamoDB computes it from the stored value (Add,
// Increment ...).
func Unknown(op Op, path string) bool { return path != TopField(path) || Operators[op].Computed }

// ListOverhead is what a list adds to an item's size besides its elements
// (see codec.Size).
const ListOverhead = 3

func emptyList(codec.Room) types.AttributeValue {
	return &types.AttributeValueMemberL{Value: []types.AttributeValue{}}
}

func zeroNumber(r codec.Room) types.AttributeValue { return r.N("0") }

// checkSet removes, rather than sets, what Put leaves out: an omitempty
// field's zero value (at any depth through structs), and an index key's
// empty value, which is absent.
func checkSet(m *model.Entity, path string, v any, f *codec.Field, av types.AttributeValue) (types.AttributeValue, error) {
	if top := TopField(path); top != path {
		if OmitsZero(m, path, v) {
			return nil, nil
		}
	} else if _, raw := v.(types.AttributeValue); !raw && f.Tag.OmitEmpty && SetValue(v, f).IsZero() {
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
func checkAdd(m *model.Entity, _ string, v any, f *codec.Field, av types.AttributeValue) (types.AttributeValue, error) {
	return SetOperand(m, v, f, av, true)
}

// checkDeleteFromSet takes a set (or a single element of a set field).
func checkDeleteFromSet(m *model.Entity, _ string, v any, f *codec.Field, av types.AttributeValue) (types.AttributeValue, error) {
	return SetOperand(m, v, f, av, false)
}

// checkList takes a list, or a single element as a one-element list, for
// a field stored as a list: a set has no order to add to (Put stores a
// set-tagged field, or a [][]byte, as one).
func checkList(_ *model.Entity, path string, _ any, f *codec.Field, av types.AttributeValue) (types.AttributeValue, error) {
	if TopField(path) == path && StoredAsSet(f.Type, f.Tag) {
		return nil, errors.New("the field is stored as a set, which has no order: use Add (and DeleteFromSet)")
	}
	if _, isList := av.(*types.AttributeValueMemberL); !isList {
		av = &types.AttributeValueMemberL{Value: []types.AttributeValue{av}}
	}
	return av, nil
}

// checkSetIfNotExists refuses an index key's empty value: stored, it would
// be absent, so the change could only ever do nothing.
func checkSetIfNotExists(m *model.Entity, path string, _ any, _ *codec.Field, av types.AttributeValue) (types.AttributeValue, error) {
	if top := TopField(path); top == path && m.IndexedField(top) && model.AbsentKeyValue(av) {
		return nil, errors.New("the field is an index key, whose empty value is absent (DynamoDB refuses it in a key), so this sets nothing: give a value")
	}
	return av, nil
}

// checkNumber takes a number.
func checkNumber(_ *model.Entity, _ string, v any, _ *codec.Field, av types.AttributeValue) (types.AttributeValue, error) {
	if _, ok := av.(*types.AttributeValueMemberN); ok {
		return av, nil
	}
	if _, str := av.(*types.AttributeValueMemberS); str && IsNumberKind(reflect.ValueOf(v).Kind()) {
		return nil, fmt.Errorf("the field stores its number as a string (a `,string` tag), and DynamoDB adds to numbers only: Set the new value instead")
	}
	return nil, fmt.Errorf("takes a number, got %T", v)
}
