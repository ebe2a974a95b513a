package codec

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func TestCompare(t *testing.T) {
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	n := func(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }
	b := func(v ...byte) types.AttributeValue { return &types.AttributeValueMemberB{Value: v} }
	for _, tc := range []struct {
		a, b types.AttributeValue
		want int
		ok   bool
	}{
		{s("a"), s("b"), -1, true},
		{s("b"), s("a"), 1, true},
		{s("é"), s("z"), 1, true}, // UTF-8 bytes: é is 0xC3 0xA9
		{n("1E2"), n("99"), 1, true},
		{n("100"), n("1e2"), 0, true},
		{n("1.0"), n("1"), 0, true},
		{n("-5"), n("-4.9999999999999999999999999999999999999"), -1, true},
		{n("12345678901234567890123456789012345678"), n("12345678901234567890123456789012345679"), -1, true},
		{n("1E-130"), n("0"), 1, true},
		{b(2), b(1), 1, true},
		{b(1), b(1, 0), -1, true},
		{n("1"), s("1"), 0, false},
		{&types.AttributeValueMemberBOOL{}, &types.AttributeValueMemberBOOL{}, 0, false},
		{n("x"), n("1"), 0, false},
	} {
		got, ok := Compare(tc.a, tc.b)
		if got != tc.want || ok != tc.ok {
			t.Errorf("Compare(%v, %v) = %d, %v; want %d, %v", tc.a, tc.b, got, ok, tc.want, tc.ok)
		}
	}
	for _, v := range []types.AttributeValue{s(""), n("1"), b()} {
		if !Ordered(v) {
			t.Errorf("Ordered(%T) = false", v)
		}
	}
	for _, v := range []types.AttributeValue{&types.AttributeValueMemberBOOL{}, &types.AttributeValueMemberNULL{}, &types.AttributeValueMemberL{}, &types.AttributeValueMemberSS{}, &types.AttributeValueMemberM{}} {
		if Ordered(v) {
			t.Errorf("Ordered(%T) = true", v)
		}
	}
}
