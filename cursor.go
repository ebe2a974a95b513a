package singletable

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Cursors
//
// A page's Cursor is DynamoDB's LastEvaluatedKey (or the key of the last
// item returned, when a page stops early), bound to the pattern's name, its
// partition value and its sort direction, and sealed with HMAC-SHA256 under
// the DB's cursor key. It is an opaque base64url string, safe to hand to a
// client. It is not encrypted: it reveals the key of the last item read.
// A cursor that was altered, or comes from another pattern, another
// partition or the other direction, is a *CursorError matching
// ErrInvalidCursor, and no request is sent.

// ErrInvalidCursor: a cursor passed to After was tampered with, is
// malformed, or was issued for another pattern, partition, sort direction
// or key.
var ErrInvalidCursor = errors.New("singletable: invalid cursor")

// CursorError says why a cursor was refused. It matches ErrInvalidCursor.
type CursorError struct {
	Pattern string // the pattern or collection the cursor was given to
	Reason  string
}

// Error says which pattern refused the cursor and why.
func (e *CursorError) Error() string {
	return "singletable: " + e.Pattern + ": invalid cursor: " + e.Reason
}

// Is makes errors.Is(err, ErrInvalidCursor) true.
func (e *CursorError) Is(target error) bool { return target == ErrInvalidCursor }

// MinCursorKeyBytes is the shortest key WithCursorKey accepts.
const MinCursorKeyBytes = 16

// cursorKey is a DB's cursor key, if it was given one.
type cursorKey struct {
	key []byte
	set bool
}

// WithCursorKey sets the secret that seals query cursors: at least
// MinCursorKeyBytes random bytes, the same on every instance of a service
// that hands cursors out, so that a cursor issued by one is accepted by the
// others and across restarts. Without it, a DB uses a random key made once
// per Table model in this process: fine for local use and tests, but its
// cursors do not survive a restart and are refused by other processes. A
// key that is too short makes every query that reads or issues a cursor
// fail with ErrInvalidInput.
func WithCursorKey(key []byte) DBOption {
	k := slices.Clone(key)
	return func(db *DB) { db.cursor = cursorKey{key: k, set: true} }
}

// cursorSecret returns the key that seals the DB's cursors.
func (db *DB) cursorSecret(op string) ([]byte, error) {
	if db.cursor.set {
		if len(db.cursor.key) < MinCursorKeyBytes {
			return nil, &InputError{Op: op, Reason: fmt.Sprintf("the cursor key is %d bytes; WithCursorKey needs at least %d", len(db.cursor.key), MinCursorKeyBytes)}
		}
		return db.cursor.key, nil
	}
	return db.table.reads.defaultCursorKey(), nil
}

// defaultCursorKey is the per-model random key, made on first use.
func (r *readRegistry) defaultCursorKey() []byte {
	r.keyOnce.Do(func() {
		r.key = make([]byte, 32)
		if _, err := rand.Read(r.key); err != nil {
			panic("singletable: crypto/rand failed: " + err.Error())
		}
	})
	return r.key
}

// cursorBinding is what a cursor is bound to.
type cursorBinding struct {
	pattern    string
	partition  string
	descending bool
	keyAttrs   []string // the attributes an ExclusiveStartKey must have, sorted
}

type cursorPayload struct {
	Version    int                        `json:"v"`
	Pattern    string                     `json:"n"`
	Partition  string                     `json:"p"`
	Descending bool                       `json:"d,omitempty"`
	Key        map[string]json.RawMessage `json:"k"`
}

const cursorMACContext = "singletable cursor v1\x00"

// sealCursor encodes key (a LastEvaluatedKey) as a cursor.
func sealCursor(secret []byte, b cursorBinding, key map[string]types.AttributeValue) (string, error) {
	p := cursorPayload{Version: 1, Pattern: b.pattern, Partition: b.partition, Descending: b.descending, Key: map[string]json.RawMessage{}}
	for name, av := range key {
		raw, err := encodeKeyValue(av)
		if err != nil {
			return "", fmt.Errorf("cursor: key attribute %s: %w", name, err)
		}
		p.Key[name] = raw
	}
	body, err := json.Marshal(p)
	if err != nil {
		return "", err
	}
	mac := cursorMAC(secret, body)
	enc := base64.RawURLEncoding
	return enc.EncodeToString(body) + "." + enc.EncodeToString(mac), nil
}

func cursorMAC(secret, body []byte) []byte {
	h := hmac.New(sha256.New, secret)
	h.Write([]byte(cursorMACContext))
	h.Write(body)
	return h.Sum(nil)
}

// openCursor checks a cursor against the binding and returns the
// ExclusiveStartKey it carries.
func openCursor(secret []byte, b cursorBinding, cursor string) (map[string]types.AttributeValue, error) {
	fail := func(format string, args ...any) (map[string]types.AttributeValue, error) {
		return nil, &CursorError{Pattern: b.pattern, Reason: fmt.Sprintf(format, args...)}
	}
	bodyPart, macPart, ok := strings.Cut(cursor, ".")
	if !ok {
		return fail("malformed")
	}
	enc := base64.RawURLEncoding
	body, err1 := enc.DecodeString(bodyPart)
	mac, err2 := enc.DecodeString(macPart)
	if err1 != nil || err2 != nil {
		return fail("malformed")
	}
	if !hmac.Equal(mac, cursorMAC(secret, body)) {
		return fail("its signature does not match: it was altered, or sealed with another cursor key")
	}
	var p cursorPayload
	if err := json.Unmarshal(body, &p); err != nil || p.Version != 1 {
		return fail("malformed")
	}
	switch {
	case p.Pattern != b.pattern:
		return fail("it was issued by pattern %s", p.Pattern)
	case p.Partition != b.partition:
		return fail("it was issued for another partition (%q, not %q)", p.Partition, b.partition)
	case p.Descending != b.descending:
		return fail("it was issued for the other sort direction")
	}
	key := make(map[string]types.AttributeValue, len(p.Key))
	names := make([]string, 0, len(p.Key))
	for name, raw := range p.Key {
		av, err := decodeKeyValue(raw)
		if err != nil {
			return fail("key attribute %s: %v", name, err)
		}
		key[name] = av
		names = append(names, name)
	}
	slices.Sort(names)
	if !slices.Equal(names, b.keyAttrs) {
		return fail("it holds key attributes %v; this pattern's keys are %v", names, b.keyAttrs)
	}
	return key, nil
}

// encodeKeyValue writes a key attribute value (S, N or B: the only key
// types) as DynamoDB JSON.
func encodeKeyValue(av types.AttributeValue) (json.RawMessage, error) {
	var v map[string]any
	switch av := av.(type) {
	case *types.AttributeValueMemberS:
		v = map[string]any{"S": av.Value}
	case *types.AttributeValueMemberN:
		v = map[string]any{"N": av.Value}
	case *types.AttributeValueMemberB:
		v = map[string]any{"B": av.Value} // []byte: base64 in JSON
	default:
		return nil, fmt.Errorf("a %T cannot be a key", av)
	}
	return json.Marshal(v)
}

func decodeKeyValue(raw json.RawMessage) (types.AttributeValue, error) {
	var v struct {
		S *string
		N *string
		B []byte
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	switch {
	case v.S != nil && v.N == nil && v.B == nil:
		return &types.AttributeValueMemberS{Value: *v.S}, nil
	case v.N != nil && v.S == nil && v.B == nil:
		return &types.AttributeValueMemberN{Value: *v.N}, nil
	case v.B != nil && v.S == nil && v.N == nil:
		return &types.AttributeValueMemberB{Value: v.B}, nil
	}
	return nil, fmt.Errorf("not a key value")
}
