package codec

import (
	"bytes"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Size is the size DynamoDB counts for an attribute value (see
// CapacityUnitCalculations in its developer guide): strings at their UTF-8
// length, binaries at their raw length, numbers by their significant digits
// (see number.size), booleans and nulls at 1 byte, sets as the sum of their
// elements, lists and maps at 3 bytes plus 1 per element plus the elements
// (and a map's keys). A value DynamoDB refuses (CheckedSize) is counted as
// best it can be.
func Size(v types.AttributeValue) int {
	n, _ := size(v, false)
	return n
}

// CheckedSize is Size(v), and why DynamoDB refuses v when it does: a number
// it cannot store (NaN, Inf, more than 38 significant digits, out of
// range), an empty set, a set with duplicate elements or a nil binary
// element, a map with an empty key. It allocates nothing for valid values
// but sets of more than maxQuadraticSet elements.
func CheckedSize(v types.AttributeValue) (int, error) {
	return size(v, true)
}

// maxQuadraticSet bounds the sets whose elements are compared pairwise
// for duplicates; larger ones are checked through a map.
const maxQuadraticSet = 32

// ErrInvalidUTF8 is a string DynamoDB cannot store as given: the SDK
// would send its invalid bytes as U+FFFD, changing the value.
var ErrInvalidUTF8 = errors.New("the string is not valid UTF-8, which DynamoDB stores strings as (sent, its invalid bytes would become U+FFFD, changing the value)")

// errEmptySet is a set without elements, which DynamoDB refuses.
var errEmptySet = errors.New("a set may not be empty: DynamoDB refuses empty sets")

func size(v types.AttributeValue, check bool) (int, error) {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		if check && !utf8.ValidString(v.Value) {
			return len(v.Value), ErrInvalidUTF8
		}
		return len(v.Value), nil
	case *types.AttributeValueMemberN:
		n, err := parseNumber(v.Value)
		if err != nil {
			if check {
				return len(v.Value), numberError(v.Value, err)
			}
			return len(v.Value), nil
		}
		if check {
			if err := n.check(); err != nil {
				return n.size(), numberError(v.Value, err)
			}
		}
		return n.size(), nil
	case *types.AttributeValueMemberB:
		return len(v.Value), nil
	case *types.AttributeValueMemberBOOL, *types.AttributeValueMemberNULL:
		return 1, nil
	case *types.AttributeValueMemberSS:
		n := 0
		for _, s := range v.Value {
			n += len(s)
		}
		if check {
			for _, s := range v.Value {
				if !utf8.ValidString(s) {
					return n, ErrInvalidUTF8
				}
			}
			return n, checkSet(len(v.Value), func(i, j int) bool { return v.Value[i] == v.Value[j] },
				func(i int) string { return v.Value[i] })
		}
		return n, nil
	case *types.AttributeValueMemberNS:
		n := 0
		for _, s := range v.Value {
			n += numberSize(s)
		}
		if check {
			for _, s := range v.Value {
				if err := CheckNumber(s); err != nil {
					return n, err
				}
			}
			return n, checkSet(len(v.Value), func(i, j int) bool { return sameNumber(v.Value[i], v.Value[j]) },
				func(i int) string { return canonicalNumber(v.Value[i]) })
		}
		return n, nil
	case *types.AttributeValueMemberBS:
		n := 0
		for _, b := range v.Value {
			n += len(b)
		}
		if check {
			for _, b := range v.Value {
				if b == nil {
					return n, errors.New("a binary set may not hold a nil element")
				}
			}
			return n, checkSet(len(v.Value), func(i, j int) bool { return bytes.Equal(v.Value[i], v.Value[j]) },
				func(i int) string { return string(v.Value[i]) })
		}
		return n, nil
	case *types.AttributeValueMemberL:
		n := 3
		for _, e := range v.Value {
			s, err := size(e, check)
			if err != nil {
				return n, err
			}
			n += 1 + s
		}
		return n, nil
	case *types.AttributeValueMemberM:
		n := 3
		for k, e := range v.Value {
			if check && k == "" {
				return n, errors.New("a map may not have an empty key: DynamoDB refuses empty attribute names")
			}
			if check && !utf8.ValidString(k) {
				return n, fmt.Errorf("key %q: %w", k, ErrInvalidUTF8)
			}
			s, err := size(e, check)
			if err != nil {
				if k != "" {
					err = fmt.Errorf("key %q: %w", k, err)
				}
				return n, err
			}
			n += 1 + len(k) + s
		}
		return n, nil
	}
	return 0, nil
}

// checkSet refuses an empty set and one with duplicates (DynamoDB refuses
// both): same compares two elements, key gives an element's identity.
func checkSet(n int, same func(i, j int) bool, key func(i int) string) error {
	switch {
	case n == 0:
		return errEmptySet
	case n <= maxQuadraticSet:
		for i := 1; i < n; i++ {
			for j := 0; j < i; j++ {
				if same(i, j) {
					return fmt.Errorf("a set may not hold an element twice: DynamoDB refuses duplicates (element %d is element %d)", i, j)
				}
			}
		}
		return nil
	}
	seen := make(map[string]int, n)
	for i := 0; i < n; i++ {
		k := key(i)
		if j, dup := seen[k]; dup {
			return fmt.Errorf("a set may not hold an element twice: DynamoDB refuses duplicates (element %d is element %d)", i, j)
		}
		seen[k] = i
	}
	return nil
}
