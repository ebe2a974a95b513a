package codec

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func TestEqual(t *testing.T) {
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	n := func(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }
	m := func(kv ...any) types.AttributeValue {
		out := map[string]types.AttributeValue{}
		for i := 0; i < len(kv); i += 2 {
			out[kv[i].(string)] = kv[i+1].(types.AttributeValue)
		}
		return &types.AttributeValueMemberM{Value: out}
	}
	cases := []struct {
		name string
		a, b types.AttributeValue
		want bool
	}{
		{"both absent", nil, nil, true},
		{"absent and empty string", nil, s(""), false},
		{"same string", s("a#b"), s("a#b"), true},
		{"string and number", s("1"), n("1"), false},
		{"number", n("1.5"), n("1.5"), true},
		{"binary", &types.AttributeValueMemberB{Value: []byte{1, 2}}, &types.AttributeValueMemberB{Value: []byte{1, 2}}, true},
		{"binary differs", &types.AttributeValueMemberB{Value: []byte{1}}, &types.AttributeValueMemberB{Value: []byte{2}}, false},
		{"bool", &types.AttributeValueMemberBOOL{Value: true}, &types.AttributeValueMemberBOOL{Value: false}, false},
		{"null", &types.AttributeValueMemberNULL{Value: true}, &types.AttributeValueMemberNULL{Value: true}, true},
		{"string set in any order", &types.AttributeValueMemberSS{Value: []string{"a", "b"}}, &types.AttributeValueMemberSS{Value: []string{"b", "a"}}, true},
		{"string sets differ", &types.AttributeValueMemberSS{Value: []string{"a", "a"}}, &types.AttributeValueMemberSS{Value: []string{"a", "b"}}, false},
		{"number set", &types.AttributeValueMemberNS{Value: []string{"1", "2"}}, &types.AttributeValueMemberNS{Value: []string{"2", "1"}}, true},
		{"binary set in any order", &types.AttributeValueMemberBS{Value: [][]byte{{1}, {2}}}, &types.AttributeValueMemberBS{Value: [][]byte{{2}, {1}}}, true},
		{"binary sets of other sizes", &types.AttributeValueMemberBS{Value: [][]byte{{1}}}, &types.AttributeValueMemberBS{Value: [][]byte{{1}, {2}}}, false},
		{"list keeps order", &types.AttributeValueMemberL{Value: []types.AttributeValue{s("a"), s("b")}}, &types.AttributeValueMemberL{Value: []types.AttributeValue{s("b"), s("a")}}, false},
		{"nested map", m("a", m("b", n("1"))), m("a", m("b", n("1"))), true},
		{"map with one more key", m("a", n("1")), m("a", n("1"), "b", n("2")), false},
		{"empty map and absent", m(), nil, false},
	}
	for _, c := range cases {
		if got := Equal(c.a, c.b); got != c.want {
			t.Errorf("%s: Equal = %v, want %v", c.name, got, c.want)
		}
		if got := Equal(c.b, c.a); got != c.want {
			t.Errorf("%s (swapped): Equal = %v, want %v", c.name, got, c.want)
		}
	}
}
