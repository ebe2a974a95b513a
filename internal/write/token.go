package write

import (
	"crypto/rand"
	"encoding/hex"
	"unsafe"
)

// Token writes a fresh random idempotency token (32 hex digits) into dst
// and returns it, a string over dst, which the caller never writes again
// (a transaction keeps dst beside the token). Every call reads crypto/rand,
// rather than counting from a random start, so that two copies of a
// process (a restored VM snapshot) never share tokens.
//
// What the unsafe.String buys: the token is not copied out of dst, one
// allocation fewer per transaction (bench's Tx budgets count it).
func Token(dst *[32]byte) string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	hex.Encode(dst[:], b[:])
	return unsafe.String(&dst[0], len(dst))
}
