package codec

import (
	"testing"
	"unicode/utf8"
)

// validUTF8, the inlined pre-check of encodeInto, answers as
// utf8.ValidString does, wherever the first non-ASCII byte lies.
func TestValidUTF8MatchesValidString(t *testing.T) {
	for _, s := range []string{"", "a", "plain ascii text", "caf\u00e9", "\u00e9t\u00e9", "a\xffb", "\xff", "abc\xe2\x82", "abc\xe2\x82\xac", "\xed\xa0\x80",
		// Around its eight-byte steps.
		"abcdefgh", "abcdefghi", "abcdefgh\xff", "\xffabcdefgh", "abcdefgh\u00e9", "abcdefg\u00e9", "abcdefghijklmnop\xc3"} {
		if got, want := validUTF8(s), utf8.ValidString(s); got != want {
			t.Errorf("validUTF8(%q) = %v, utf8.ValidString's %v", s, got, want)
		}
	}
}
