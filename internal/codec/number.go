package codec

import (
	"errors"
	"fmt"
)

// DynamoDB's number limits: up to 38 significant digits, and a magnitude
// from 1E-130 to 9.9999999999999999999999999999999999999E+125 (or zero).
const (
	maxNumberDigits = 38
	maxNumberExp    = 125  // the exponent of the largest leading digit
	minNumberExp    = -130 // the exponent of the smallest leading digit
)

// number is what DynamoDB keeps of a number string: its sign and its
// significant digits, from the decimal position hi (10^hi) of the first
// down to lo (10^lo) of the last. Leading and trailing zeros are trimmed.
type number struct {
	neg, zero bool
	digits    int // significant digits
	hi, lo    int
}

// errNumberSyntax is a string that is not a decimal number.
var errNumberSyntax = errors.New("is not a decimal number")

// parseNumber reads a number string as DynamoDB does: an optional sign,
// digits with an optional decimal point, an optional exponent. It does not
// allocate.
func parseNumber(s string) (number, error) {
	var n number
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		n.neg = s[i] == '-'
		i++
	}
	// first and last index the nonzero digits among all seen; intDigits
	// counts those before the point.
	intDigits, first, last, seen := 0, -1, -1, 0
	dot := false
digits:
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			if c != '0' {
				if first < 0 {
					first = seen
				}
				last = seen
			}
			seen++
			if !dot {
				intDigits++
			}
		case c == '.' && !dot:
			dot = true
		default:
			break digits
		}
	}
	if seen == 0 {
		return n, errNumberSyntax
	}
	exp := 0
	if i < len(s) {
		if s[i] != 'e' && s[i] != 'E' {
			return n, errNumberSyntax
		}
		i++
		eneg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			eneg = s[i] == '-'
			i++
		}
		if i == len(s) {
			return n, errNumberSyntax
		}
		for ; i < len(s); i++ {
			c := s[i]
			if c < '0' || c > '9' {
				return n, errNumberSyntax
			}
			if exp < 1e6 { // far beyond any valid exponent: saturate
				exp = exp*10 + int(c-'0')
			}
		}
		if eneg {
			exp = -exp
		}
	}
	if first < 0 {
		n.zero, n.neg = true, false
		return n, nil
	}
	// The digit at index k (among all digits) is at position intDigits-1-k.
	n.digits = last - first + 1
	n.hi = intDigits - 1 - first + exp
	n.lo = intDigits - 1 - last + exp
	return n, nil
}

// check returns why DynamoDB refuses the number, or nil.
func (n number) check() error {
	switch {
	case n.zero:
		return nil
	case n.digits > maxNumberDigits:
		return fmt.Errorf("has %d significant digits; DynamoDB allows %d", n.digits, maxNumberDigits)
	case n.hi > maxNumberExp:
		return errors.New("is larger in magnitude than DynamoDB's largest number, 9.9999999999999999999999999999999999999E+125")
	case n.hi < minNumberExp:
		return errors.New("is smaller in magnitude than DynamoDB's smallest non-zero number, 1E-130")
	}
	return nil
}

// size is the number's size as DynamoDB counts it: one byte per pair of
// digits, pairs aligned on the decimal point (1.2 is 01|20: two pairs), plus
// one byte, plus one more when negative. That is the documented "1 byte per
// two significant digits, plus 1 byte" where the digits fall on whole pairs,
// and one byte more where they straddle one (as DynamoDB Local counts).
func (n number) size() int {
	if n.zero {
		return 1
	}
	size := floorDiv2(n.hi) - floorDiv2(n.lo) + 2
	if n.neg {
		size++
	}
	return size
}

func floorDiv2(x int) int {
	if x < 0 {
		return -((-x + 1) / 2)
	}
	return x / 2
}

// numberSize is the size of number string s; a string that is not a number
// (DynamoDB refuses it: CheckValue) counts as its length.
func numberSize(s string) int {
	n, err := parseNumber(s)
	if err != nil {
		return len(s)
	}
	return n.size()
}

// CheckNumber returns why DynamoDB refuses number string s: not a decimal
// number (NaN, Inf), more than 38 significant digits, or a magnitude out
// of its range. nil when it is valid.
func CheckNumber(s string) error {
	n, err := parseNumber(s)
	if err == nil {
		err = n.check()
	}
	if err != nil {
		return numberError(s, err)
	}
	return nil
}

// numberError says which number is refused, and why; a long one is cut.
func numberError(s string, err error) error {
	if len(s) > 48 {
		return fmt.Errorf("the number %q... (%d characters) %w", s[:40], len(s), err)
	}
	return fmt.Errorf("the number %q %w", s, err)
}

// sigDigits calls yield with the significant digits of number string s, in
// order (s must parse). It does not allocate.
func sigDigits(s string, n number, yield func(c byte)) {
	left := n.digits
	started := false
	for i := 0; i < len(s) && left > 0; i++ {
		c := s[i]
		if c < '0' || c > '9' {
			continue
		}
		if c != '0' {
			started = true
		}
		if started {
			yield(c)
			left--
		}
	}
}

// sameNumber reports whether two number strings are the same number for
// DynamoDB ("1" and "1.0" are): a set may not hold both.
func sameNumber(a, b string) bool {
	x, errA := parseNumber(a)
	y, errB := parseNumber(b)
	if errA != nil || errB != nil {
		return a == b
	}
	if x.zero || y.zero {
		return x.zero == y.zero
	}
	if x.neg != y.neg || x.hi != y.hi || x.lo != y.lo {
		return false
	}
	// Same positions: compare the digits in step.
	var buf [maxNumberDigits]byte
	k := 0
	sigDigits(a, x, func(c byte) {
		if k < len(buf) {
			buf[k] = c
		}
		k++
	})
	same, k := true, 0
	sigDigits(b, y, func(c byte) {
		if k < len(buf) && buf[k] != c {
			same = false
		}
		k++
	})
	return same
}

// canonicalNumber is one string for every spelling of the number in s
// ("1", "1.0" and "10E-1" give the same).
func canonicalNumber(s string) string {
	n, err := parseNumber(s)
	if err != nil || n.zero {
		return s
	}
	b := make([]byte, 0, n.digits+12)
	if n.neg {
		b = append(b, '-')
	}
	sigDigits(s, n, func(c byte) { b = append(b, c) })
	b = append(b, 'E')
	b = fmt.Appendf(b, "%d", n.lo)
	return string(b)
}

// CompareNumbers orders two number strings by value, exactly, as DynamoDB
// sorts number keys: -1, 0 or +1. No float64 conversion, so integers past
// 2^53 and 38-digit decimals keep their order. A string that is not a
// number sorts before every number (DynamoDB stores none).
func CompareNumbers(a, b string) int {
	x, errA := parseNumber(a)
	y, errB := parseNumber(b)
	switch {
	case errA != nil || errB != nil:
		return boolCompare(errA == nil, errB == nil)
	case x.zero || y.zero || x.neg != y.neg:
		return boolCompare(x.sign() > y.sign(), x.sign() < y.sign())
	}
	c := compareMagnitude(a, x, b, y)
	if x.neg {
		return -c
	}
	return c
}

func (n number) sign() int {
	switch {
	case n.zero:
		return 0
	case n.neg:
		return -1
	}
	return 1
}

func boolCompare(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// compareMagnitude orders two non-zero numbers by absolute value: by the
// position of their first digit, then digit by digit (a missing digit is a
// zero).
func compareMagnitude(a string, x number, b string, y number) int {
	if x.hi != y.hi {
		return boolCompare(x.hi > y.hi, x.hi < y.hi)
	}
	var da, db [maxNumberDigits]byte
	na, nb := 0, 0
	sigDigits(a, x, func(c byte) {
		if na < len(da) {
			da[na] = c
		}
		na++
	})
	sigDigits(b, y, func(c byte) {
		if nb < len(db) {
			db[nb] = c
		}
		nb++
	})
	for i := range max(min(na, len(da)), min(nb, len(db))) {
		ca, cb := byte('0'), byte('0')
		if i < na && i < len(da) {
			ca = da[i]
		}
		if i < nb && i < len(db) {
			cb = db[i]
		}
		if ca != cb {
			return boolCompare(ca > cb, ca < cb)
		}
	}
	return 0
}
