package singletable_test

// Add and DeleteFromSet take any Go shape of a set of the field's element
// kind, and refuse, before sending, what DynamoDB's ADD and DELETE refuse.

import (
	"errors"
	"maps"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/singletabletest"
)

type setColor string

// memberSet is a map that marshals itself as a string set.
type memberSet map[string]struct{}

func (m memberSet) MarshalDynamoDBAttributeValue() (types.AttributeValue, error) {
	return &types.AttributeValueMemberSS{Value: slices.Sorted(maps.Keys(m))}, nil
}

func (m *memberSet) UnmarshalDynamoDBAttributeValue(av types.AttributeValue) error {
	*m = memberSet{}
	if ss, ok := av.(*types.AttributeValueMemberSS); ok {
		for _, s := range ss.Value {
			(*m)[s] = struct{}{}
		}
	}
	return nil
}

type setHolder struct {
	ID     string     `dynamodbav:"id"`
	Tags   []string   `dynamodbav:"tags,stringset,omitempty"`
	Colors []setColor `dynamodbav:"colors,stringset,omitempty"`
	Nums   []int64    `dynamodbav:"nums,numberset,omitempty"`
	Bins   [][]byte   `dynamodbav:"bins,omitempty"`
	List   []string   `dynamodbav:"list,omitempty"`
	Count  int        `dynamodbav:"count"`
	// Stored as a map (M) whatever its tag, as attributevalue stores it.
	Labels  map[string]struct{} `dynamodbav:"labels,stringset,omitempty"`
	Members memberSet           `dynamodbav:"members,omitempty"`
}

var (
	setTable   = st.MustTable("SetHolders")
	setHolders = st.MustDefine[setHolder](setTable, "SetHolder", st.Key("H#{ID}", "H"))
)

// setOperand is the value an update of one change sends for it.
func setOperand(t *testing.T, ch st.Changes) (types.AttributeValue, error) {
	t.Helper()
	db := st.New(&singletabletest.Client{}, setTable)
	in, err := setHolders.UpdateInput(db, setHolder{ID: "h"}, ch)
	if err != nil {
		return nil, err
	}
	// The operand, and the entity type the condition holds the item to.
	require.Len(t, in.ExpressionAttributeValues, 2, "%v", in.ExpressionAttributeValues)
	return in.ExpressionAttributeValues[":v0"], nil
}

func TestUpdateSetOperandShapes(t *testing.T) {
	ss := func(v ...string) types.AttributeValue { return &types.AttributeValueMemberSS{Value: v} }
	ns := func(v ...string) types.AttributeValue { return &types.AttributeValueMemberNS{Value: v} }
	cases := []struct {
		name string
		ch   st.Changes
		want types.AttributeValue
	}{
		{"one element", st.Add("Tags", "a"), ss("a")},
		{"the field's type", st.DeleteFromSet("Tags", []string{"a", "b"}), ss("a", "b")},
		{"a map[string]struct{}", st.DeleteFromSet("Tags", map[string]struct{}{"b": {}, "a": {}}), ss("a", "b")},
		{"a map[string]bool of members", st.Add("Tags", map[string]bool{"a": true, "no": false}), ss("a")},
		{"a []any of strings", st.Add("Tags", []any{"a", "b"}), ss("a", "b")},
		{"an array", st.Add("Tags", [2]string{"a", "b"}), ss("a", "b")},
		{"plain strings for named elements", st.Add("Colors", []string{"red"}), ss("red")},
		{"named elements for plain strings", st.Add("Tags", []setColor{"red"}), ss("red")},
		{"a set of named strings as a map", st.DeleteFromSet("Colors", map[setColor]struct{}{"red": {}}), ss("red")},
		{"ints for an int64 set", st.Add("Nums", []int{1, 2}), ns("1", "2")},
		{"whole floats for an int64 set", st.DeleteFromSet("Nums", []float64{3}), ns("3")},
		{"one int", st.DeleteFromSet("Nums", 4), ns("4")},
		{"one []byte into [][]byte", st.Add("Bins", []byte("ab")), &types.AttributeValueMemberBS{Value: [][]byte{[]byte("ab")}}},
		{"a number", st.Add("Count", 2), &types.AttributeValueMemberN{Value: "2"}},
		{"a map that marshals itself as a set", st.Add("Members", memberSet{"b": {}, "a": {}}), ss("a", "b")},
		{"one element of it", st.DeleteFromSet("Members", "a"), ss("a")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := setOperand(t, tc.ch)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestUpdateSetOperandRefused(t *testing.T) {
	cases := []struct {
		name string
		ch   st.Changes
		want string
	}{
		// ADD of a set to a list attribute is a ValidationException (and to
		// a missing one it would store a set where a list belongs).
		{"add to a list", st.Add("List", "a"), "stored as a list"},
		{"delete from a list", st.DeleteFromSet("List", []string{"a"}), "stored as a list"},
		{"an empty set", st.DeleteFromSet("Tags", []string{}), "empty set"},
		{"an empty map", st.Add("Tags", map[string]struct{}{}), "empty set"},
		{"numbers for a string set", st.Add("Tags", []int{1}), "element 0"},
		{"a fraction for an int set", st.Add("Nums", []float64{1.5}), "element 0"},
		{"a map of strings", st.Add("Tags", map[string]string{"a": "b"}), "takes a number or a set"},
		{"a map of strings to delete", st.DeleteFromSet("Tags", map[string]string{"a": "b"}), "takes a set, got map[string]string"},
		{"a string for a number", st.Add("Count", "x"), "takes a number or a set"},
		{"a set for a number", st.DeleteFromSet("Count", []int{1}), "takes a set"},
		{"a map field", st.Add("Labels", []string{"a"}), "stored as a map"},
		{"a map field, given a map", st.DeleteFromSet("Labels", map[string]struct{}{"a": {}}), "declare it a slice"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := setOperand(t, tc.ch)
			require.Error(t, err)
			assert.True(t, errors.Is(err, st.ErrInvalidInput), "%v", err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
