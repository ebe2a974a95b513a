package expr

import (
	"errors"
	"strconv"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// encodeAny encodes strings as S, ints as N, bools as BOOL and nil as NULL.
func encodeAny(_ string, v any) (types.AttributeValue, error) {
	switch v := v.(type) {
	case string:
		return S(v), nil
	case int:
		return &types.AttributeValueMemberN{Value: strconv.Itoa(v)}, nil
	case bool:
		return &types.AttributeValueMemberBOOL{Value: v}, nil
	case nil:
		return &types.AttributeValueMemberNULL{Value: true}, nil
	}
	return nil, errors.New("unsupported value")
}

func n(s string) types.AttributeValue { return &types.AttributeValueMemberN{Value: s} }

func TestEvalAsDynamoDB(t *testing.T) {
	item := map[string]types.AttributeValue{
		"S":    S("PENDING"),
		"Num":  n("3.0"), // numbers compare by value: 3.0 = 3
		"Flag": &types.AttributeValueMemberBOOL{Value: true},
		"Null": &types.AttributeValueMemberNULL{Value: true},
		"Bin":  &types.AttributeValueMemberB{Value: []byte("ab")},
	}
	get := func(p string) (types.AttributeValue, bool) { av, ok := item[p]; return av, ok }
	and := func(ns ...Node) Node {
		j := Join("AND")
		for _, x := range ns {
			j.Add(x)
		}
		return j
	}
	or := func(ns ...Node) Node {
		j := Join("OR")
		for _, x := range ns {
			j.Add(x)
		}
		return j
	}
	for _, c := range []struct {
		name string
		n    Node
		want bool
	}{
		{"eq", Compare("S", "=", "PENDING"), true},
		{"eq other", Compare("S", "=", "OPEN"), false},
		{"eq number by value", Compare("Num", "=", 3), true},
		{"eq of two types", Compare("Num", "=", "3"), false},
		{"ne of two types", Compare("Num", "<>", "3"), true},
		{"eq absent", Compare("Missing", "=", "x"), false},
		{"ne absent holds", Compare("Missing", "<>", "x"), true},
		{"lt absent", Compare("Missing", "<", 1), false},
		{"lt", Compare("Num", "<", 4), true},
		{"le", Compare("Num", "<=", 3), true},
		{"gt", Compare("Num", ">", 3), false},
		{"ge", Compare("Num", ">=", -10), true},
		{"gt of two types", Compare("S", ">", 1), false},
		{"string order is bytes", Compare("S", "<", "a"), true},
		{"bool eq", Compare("Flag", "=", true), true},
		{"bool ordered never", Compare("Flag", ">", false), false},
		{"null eq", Compare("Null", "=", nil), true},
		{"between", Between("Num", 3, 5), true},
		{"between below", Between("Num", 4, 5), false},
		{"between absent", Between("Missing", 1, 5), false},
		{"in", In("S", []any{"OPEN", "PENDING"}), true},
		{"in none", In("S", []any{"OPEN"}), false},
		{"begins", CallString("begins_with", "S", "PEN"), true},
		{"begins not", CallString("begins_with", "S", "pen"), false},
		{"begins on a number", CallString("begins_with", "Num", "3"), false},
		{"begins on binary", CallString("begins_with", "Bin", "a"), false},
		{"exists", Unary("attribute_exists", "Null"), true},
		{"exists absent", Unary("attribute_exists", "Missing"), false},
		{"not exists", Unary("attribute_not_exists", "Missing"), true},
		{"and", and(Compare("S", "=", "PENDING"), Compare("Num", "=", 3)), true},
		{"and fails", and(Compare("S", "=", "PENDING"), Compare("Num", "=", 4)), false},
		{"or", or(Compare("S", "=", "X"), Compare("Num", "=", 3)), true},
		{"or fails", or(Compare("S", "=", "X"), Compare("Num", "=", 4)), false},
		{"not", Not(Unary("attribute_exists", "Missing")), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := Compile(c.n, encodeAny)
			require.NoError(t, err)
			assert.Equal(t, c.want, p.Eval(get))
		})
	}
}

func TestCompileRefusesWhatItCannotEvaluate(t *testing.T) {
	for name, nd := range map[string]Node{
		"Contains": Call("contains", "S", "x", true),
		"IsType":   CallType("attribute_type", "S", "S"),
		"Size":     Size("S", ">", 1),
		"nested":   Not(Size("S", ">", 1)),
		"raw attr": UnaryAttr("attribute_exists", "PK"),
	} {
		_, err := Compile(nd, encodeAny)
		var unsup *UnsupportedError
		require.ErrorAs(t, err, &unsup, name)
	}
	// A value the encoder refuses, and bounds DynamoDB refuses.
	_, err := Compile(Compare("S", "=", 1.5), encodeAny)
	require.Error(t, err)
	_, err = Compile(Between("Num", 5, 3), encodeAny)
	require.ErrorContains(t, err, "above the upper bound")
	_, err = Compile(In("S", nil), encodeAny)
	require.ErrorContains(t, err, "1 to 100 values")
}

func TestPredPathsOnceInOrder(t *testing.T) {
	j := Join("OR")
	j.Add(Compare("B", "=", "x"))
	j.Add(Unary("attribute_exists", "A"))
	j.Add(Not(Compare("B", "<>", "y")))
	p, err := Compile(j, encodeAny)
	require.NoError(t, err)
	assert.Equal(t, []string{"B", "A"}, p.Paths())
}
