package codec

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Sizes as DynamoDB Local counts them (measured at the 400 KB limit): the
// documented "1 byte per two significant digits, plus 1 byte", one more
// when negative, and one more where the digits straddle a pair of decimal
// positions (1.2 is 01|20).
func TestNumberSize(t *testing.T) {
	for s, want := range map[string]int{
		"0": 1, "-0": 1, "0.000": 1, "1": 2, "-1": 3, "12": 2, "-12": 3, "123": 3, "1.2": 3, "12.3": 3,
		"1.23": 3, "100": 2, "1000": 2, "10000": 2, "0.1": 2, "0.01": 2, "0.001": 2, "1234": 3,
		"12345": 4, "123456": 4, "-123456": 5, "1E+100": 2, "1.5E-100": 3, "99": 2, "101": 3,
		"1.01": 3, "-0.5": 3, "12345678901234567890123456789012345678": 20, "+5": 2, ".5": 2, "5.": 2,
	} {
		if got := Size(&types.AttributeValueMemberN{Value: s}); got != want {
			t.Errorf("Size(N %s) = %d, want %d", s, got, want)
		}
	}
}

func TestCheckNumber(t *testing.T) {
	for _, ok := range []string{"0", "0e500", "1E-130", "-9.9999999999999999999999999999999999999E+125",
		"12345678901234567890123456789012345678000", "+5", ".5", "5."} {
		if err := CheckNumber(ok); err != nil {
			t.Errorf("CheckNumber(%s): %v", ok, err)
		}
	}
	for _, bad := range []string{"", "NaN", "+Inf", "-", "1e", "1.2.3", "1E-131", "1E+126", "0x10",
		"123456789012345678901234567890123456789"} {
		if CheckNumber(bad) == nil {
			t.Errorf("CheckNumber(%q) accepted", bad)
		}
	}
	if !sameNumber("1", "1.0") || !sameNumber("100", "1E2") || sameNumber("1", "-1") || sameNumber("1.1", "1.2") {
		t.Error("sameNumber")
	}
	if canonicalNumber("1.0") != canonicalNumber("10E-1") {
		t.Error("canonicalNumber")
	}
}

// Checking a valid item's values costs no allocation.
func TestCheckedSizeDoesNotAllocate(t *testing.T) {
	av := &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
		"n":  &types.AttributeValueMemberN{Value: "-12.5"},
		"l":  &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberS{Value: "x"}}},
		"s":  &types.AttributeValueMemberSS{Value: []string{"a", "b"}},
		"ns": &types.AttributeValueMemberNS{Value: []string{"1", "2"}},
	}}
	if n := testing.AllocsPerRun(100, func() { _, _ = CheckedSize(av) }); n != 0 {
		t.Errorf("CheckedSize allocates %v times", n)
	}
}
