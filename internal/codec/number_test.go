package codec

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"strings"
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

// Number keys sort by exact value: float64 would tie integers past 2^53
// and 38-digit decimals that differ in their last digits.
func TestCompareNumbers(t *testing.T) {
	sorted := []string{"-1E+125", "-9007199254740993", "-9007199254740992", "-1.0000000000000000000000000000000000001",
		"-1", "-0.5", "-1E-130", "0", "1E-130", "0.1", "1", "1.0000000000000000000000000000000000001",
		"1.0000000000000000000000000000000000002", "9007199254740992", "9007199254740993", "9007199254740994",
		"12345678901234567890123456789012345678", "12345678901234567890123456789012345679", "1E+125"}
	for i, a := range sorted {
		for j, b := range sorted {
			want := boolCompare(i > j, i < j)
			if got := CompareNumbers(a, b); got != want {
				t.Errorf("CompareNumbers(%s, %s) = %d, want %d", a, b, got, want)
			}
		}
	}
	for _, same := range [][2]string{{"1", "1.0"}, {"100", "1E2"}, {"0", "-0.000"}, {"-12.50", "-1.25e1"}, {".5", "5E-1"}} {
		if CompareNumbers(same[0], same[1]) != 0 {
			t.Errorf("CompareNumbers(%s, %s) != 0", same[0], same[1])
		}
	}
	// Against math/big on random numbers of up to 38 digits.
	rng := rand.New(rand.NewPCG(1, 2))
	random := func() string {
		var sb strings.Builder
		if rng.IntN(2) == 0 {
			sb.WriteByte('-')
		}
		n := 1 + rng.IntN(38)
		for range n {
			sb.WriteByte(byte('0' + rng.IntN(10)))
		}
		s := sb.String()
		if rng.IntN(2) == 0 {
			s = fmt.Sprintf("%sE%d", s, rng.IntN(40)-20)
		}
		return s
	}
	for range 5000 {
		a, b := random(), random()
		x, _ := new(big.Rat).SetString(a)
		y, _ := new(big.Rat).SetString(b)
		if got, want := CompareNumbers(a, b), x.Cmp(y); got != want {
			t.Fatalf("CompareNumbers(%s, %s) = %d, math/big says %d", a, b, got, want)
		}
	}
}
