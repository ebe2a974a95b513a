package write

import (
	"regexp"
	"testing"
)

// Each token is 32 fresh hex digits, over the array it was written into.
func TestToken(t *testing.T) {
	var a, b [32]byte
	ta, tb := Token(&a), Token(&b)
	if !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(ta) || ta == tb {
		t.Fatalf("tokens %q and %q", ta, tb)
	}
	if ta != string(a[:]) {
		t.Fatalf("token %q is not the array's %q", ta, a[:])
	}
}
