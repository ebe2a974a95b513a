package singletable

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/codec"
)

// Cursors
//
// A page's Cursor is DynamoDB's LastEvaluatedKey (or the key of the last
// item returned, when a page stops early), bound to the pattern's name, its
// partition value, its sort-key condition (the bounds the params,
// QueryBetween's upper one or PartialMatch gave) and its sort direction,
// and sealed with
// HMAC-SHA256 under the DB's cursor key. It is an opaque base64url string,
// safe to hand to a client. It is not encrypted: it reveals the key of the
// last item read. A cursor that was altered, or comes from another pattern,
// another partition, other sort bounds or the other direction, or whose
// start key lies outside the read's partition or sort bounds, is a
// *CursorError matching ErrInvalidCursor, and no request is sent.
//
// The sort bounds are bound rather than checked against the cursor's key:
// a cursor resumes one query, and a query whose bounds changed while its
// cursor was kept would silently skip the items between its new start and
// the cursor, or be refused by DynamoDB (ValidationException) when the
// cursor's key lies outside the new bounds.
//
// Cursor keys: the default, derived from the table, and secret ones with
// rotation; see WithCursorKey and WithCursorKeys.

// cursorKeys are the keys a DB seals and opens cursors with: keys[0] seals,
// every key opens. New fills them in (see DB.initCursorKeys).
type cursorKeys struct {
	keys    [][]byte
	set     bool   // given with WithCursorKey(s); else derived by New
	invalid string // why the given keys are refused; "" if they are not
}

// initCursorKeys checks the keys given, or derives the default key: New
// calls it once the options are applied (the table name is one of them).
func (db *DB) initCursorKeys() {
	c := &db.cursor
	if !c.set {
		c.keys = [][]byte{defaultCursorKey(db.name, db.table)}
		return
	}
	for i, k := range c.keys {
		if len(k) >= MinCursorKeyBytes {
			continue
		}
		if i == 0 {
			c.invalid = fmt.Sprintf("the cursor key is %d bytes; WithCursorKey needs at least %d", len(k), MinCursorKeyBytes)
		} else {
			c.invalid = fmt.Sprintf("previous cursor key %d is %d bytes; WithCursorKeys needs at least %d", i, len(k), MinCursorKeyBytes)
		}
		return
	}
}

// defaultCursorKey derives a DB's default cursor key from the physical
// table name and the table's key schema: the same in every process that
// serves the table with the same model (see Cursors). The indexes and
// entities are left out, so that a deployment adding one keeps the cursors
// in flight valid; a cursor of an index is checked against its key
// attributes anyway.
func defaultCursorKey(name string, t *Table) []byte {
	h := sha256.New()
	for _, s := range []string{"singletable default cursor key v1", name, t.pk, t.sk, string(t.delim)} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return h.Sum(nil)
}

// cursorSecret returns the key that seals the DB's cursors.
func (db *DB) cursorSecret(op string) ([]byte, error) {
	if db.cursor.invalid != "" {
		return nil, &InputError{Op: op, Reason: db.cursor.invalid}
	}
	return db.cursor.keys[0], nil
}

// cursorBinding is what a cursor is bound to.
type cursorBinding struct {
	pattern    string
	partition  string
	sort       skCond // the sort-key condition
	descending bool
	keyAttrs   []string // the attributes an ExclusiveStartKey must have, sorted
	// The read's key attributes and its partition's value, which a start
	// key must hold, and meet the sort condition with.
	pkAttr, skAttr string
	pkValue        types.AttributeValue
}

// admits says why start key key cannot resume the read ("" when it can):
// outside its partition, or its sort condition. A cursor sealed under a
// key others can derive (the default one) may carry any key; DynamoDB
// would refuse one outside the query with a ValidationException.
func (b *cursorBinding) admits(key map[string]types.AttributeValue) string {
	if b.pkValue != nil && !codec.Equal(key[b.pkAttr], b.pkValue) {
		return fmt.Sprintf("its start key is not in partition %q", b.partition)
	}
	if sk, ok := key[b.skAttr].(*types.AttributeValueMemberS); ok && b.skAttr != "" && !b.sort.holds(sk.Value) {
		return "its start key lies outside the read's sort bounds"
	}
	return ""
}

type cursorPayload struct {
	Version    int                        `json:"v"`
	Pattern    string                     `json:"n"`
	Partition  string                     `json:"p"`
	Sort       string                     `json:"s,omitempty"` // sortDigest of the sort-key condition
	Descending bool                       `json:"d,omitempty"`
	Key        map[string]json.RawMessage `json:"k"`
}

// sortDigest identifies a sort-key condition in a cursor: the first 16
// bytes of its SHA-256, base64url; "" for none. A digest rather than the
// bounds themselves keeps the cursor short (a bound may be 1 KB).
func sortDigest(c skCond) string {
	if c.op == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(c.op + "\x00" + c.a + "\x00" + c.b))
	return base64.RawURLEncoding.EncodeToString(sum[:16])
}

const cursorMACContext = "singletable cursor v1\x00"

// sealCursor encodes key (a LastEvaluatedKey) as a cursor.
func sealCursor(secret []byte, b cursorBinding, key map[string]types.AttributeValue) (string, error) {
	raw, err := encodeKey(key)
	if err != nil {
		return "", fmt.Errorf("cursor: %w", err)
	}
	p := cursorPayload{Version: 1, Pattern: b.pattern, Partition: b.partition, Sort: sortDigest(b.sort), Descending: b.descending, Key: raw}
	body, err := json.Marshal(p)
	if err != nil {
		return "", err
	}
	return sealToken(body, cursorMAC(secret, body)), nil
}

// sealToken is the text form of every sealed token (cursors, fan-out
// cursors, scan positions): the body and its MAC, base64url, dot-joined.
func sealToken(body, mac []byte) string {
	enc := base64.RawURLEncoding
	return enc.EncodeToString(body) + "." + enc.EncodeToString(mac)
}

// openToken returns the body of a token sealed by sealToken with a MAC
// (by macOf) under any of keys; reason says why not otherwise.
func openToken(keys [][]byte, token string, macOf func(key, body []byte) []byte) (body []byte, reason string) {
	bodyPart, macPart, ok := strings.Cut(token, ".")
	if !ok {
		return nil, "malformed"
	}
	enc := base64.RawURLEncoding
	body, err1 := enc.DecodeString(bodyPart)
	mac, err2 := enc.DecodeString(macPart)
	if err1 != nil || err2 != nil {
		return nil, "malformed"
	}
	if !slices.ContainsFunc(keys, func(k []byte) bool { return hmac.Equal(mac, macOf(k, body)) }) {
		return nil, "its signature does not match: it was altered, or sealed with a cursor key this DB does not have"
	}
	return body, ""
}

func cursorMAC(secret, body []byte) []byte {
	h := hmac.New(sha256.New, secret)
	h.Write([]byte(cursorMACContext))
	h.Write(body)
	return h.Sum(nil)
}

// openCursor checks a cursor against the binding and any of the keys, and
// returns the ExclusiveStartKey it carries.
func openCursor(keys [][]byte, b cursorBinding, cursor string) (map[string]types.AttributeValue, error) {
	fail := func(format string, args ...any) (map[string]types.AttributeValue, error) {
		return nil, &CursorError{Pattern: b.pattern, Reason: fmt.Sprintf(format, args...)}
	}
	body, reason := openToken(keys, cursor, cursorMAC)
	if reason != "" {
		return fail("%s", reason)
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
	case p.Sort != sortDigest(b.sort):
		return fail("it was issued for other sort bounds: resume a query with the params (and upper bound, PartialMatch) that issued it")
	case p.Descending != b.descending:
		return fail("it was issued for the other sort direction")
	}
	key, err := decodeKey(p.Key, b.keyAttrs)
	if err != nil {
		return fail("%v", err)
	}
	if reason := b.admits(key); reason != "" {
		return fail("%s", reason)
	}
	return key, nil
}

// encodeKey writes a key (a LastEvaluatedKey) for a sealed token.
func encodeKey(key map[string]types.AttributeValue) (map[string]json.RawMessage, error) {
	out := make(map[string]json.RawMessage, len(key))
	for name, av := range key {
		raw, err := encodeKeyValue(av)
		if err != nil {
			return nil, fmt.Errorf("key attribute %s: %w", name, err)
		}
		out[name] = raw
	}
	return out, nil
}

// decodeKey reads a key written by encodeKey; its attribute names, sorted,
// must be want unless want is nil.
func decodeKey(raw map[string]json.RawMessage, want []string) (map[string]types.AttributeValue, error) {
	key := make(map[string]types.AttributeValue, len(raw))
	names := make([]string, 0, len(raw))
	for name, r := range raw {
		av, err := decodeKeyValue(r)
		if err != nil {
			return nil, fmt.Errorf("key attribute %s: %v", name, err)
		}
		key[name] = av
		names = append(names, name)
	}
	slices.Sort(names)
	if want != nil && !slices.Equal(names, want) {
		return nil, fmt.Errorf("it holds key attributes %v; this pattern's keys are %v", names, want)
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

// keyOf picks the key to resume after item from it: where a page that
// stops inside a DynamoDB page resumes.
func (r *readReq) keyOf(item map[string]types.AttributeValue) map[string]types.AttributeValue {
	k := make(map[string]types.AttributeValue, len(r.binding.keyAttrs))
	for _, a := range r.binding.keyAttrs {
		k[a] = item[a]
	}
	return k
}

// cursor seals the key to resume from; "" at the end.
func (r *readReq) cursor(next map[string]types.AttributeValue) (string, error) {
	if len(next) == 0 {
		return "", nil
	}
	c, err := sealCursor(r.secret, r.binding, next)
	if err != nil {
		return "", &InputError{Op: r.op, Reason: err.Error()}
	}
	return c, nil
}
