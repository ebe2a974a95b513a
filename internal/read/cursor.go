package read

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/codec"
)

// Cursors of one partition
//
// A page's cursor is the key to resume after, bound to the read (Binding)
// and sealed (see token.go). The sort bounds are bound rather than checked
// against the cursor's key: a cursor resumes one query, and a query whose
// bounds changed while its cursor was kept would silently skip the items
// between its new start and the cursor, or be refused by DynamoDB.

// SortCond is a sort-key condition: Op "" (none), "=", "<", "<=", ">",
// ">=", "begins_with" or "BETWEEN" (A .. B).
type SortCond struct{ Op, A, B string }

// Holds reports whether sort key value v meets the condition, comparing
// strings by their bytes as DynamoDB compares UTF-8.
func (c SortCond) Holds(v string) bool {
	switch c.Op {
	case "":
		return true
	case "=":
		return v == c.A
	case "begins_with":
		return strings.HasPrefix(v, c.A)
	case "BETWEEN":
		return c.A <= v && v <= c.B
	case "<":
		return v < c.A
	case "<=":
		return v <= c.A
	case ">":
		return v > c.A
	case ">=":
		return v >= c.A
	}
	return true
}

// Digest identifies the condition in a cursor: the first 16 bytes of its
// SHA-256, base64url; "" for none. A digest rather than the bounds
// themselves keeps the cursor short (a bound may be 1 KB).
func (c SortCond) Digest() string {
	if c.Op == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(c.Op + "\x00" + c.A + "\x00" + c.B))
	return base64.RawURLEncoding.EncodeToString(sum[:16])
}

// Binding is what a cursor is bound to.
type Binding struct {
	Pattern    string
	Partition  string
	Sort       SortCond
	Descending bool
	KeyAttrs   []string // the attributes an ExclusiveStartKey must have, sorted
	// The read's key attributes and its partition's value, which a start
	// key must hold, and meet the sort condition with.
	PKAttr, SKAttr string
	PKValue        types.AttributeValue
	// Equal are the key attributes a start key must hold these values
	// of: a multi-attribute key's partition and sort equalities.
	Equal []KeyValue
}

// KeyValue is a key attribute's value.
type KeyValue struct {
	Attr  string
	Value types.AttributeValue
}

// Admits says why start key key cannot resume the read ("" when it can):
// outside its partition, or its sort condition. A cursor sealed under a
// key others can derive (the default one) may carry any key; DynamoDB
// would refuse one outside the query with a ValidationException.
func (b *Binding) Admits(key map[string]types.AttributeValue) string {
	if b.PKValue != nil && !codec.Equal(key[b.PKAttr], b.PKValue) {
		return fmt.Sprintf("its start key is not in partition %q", b.Partition)
	}
	for _, e := range b.Equal {
		if !codec.Equal(key[e.Attr], e.Value) {
			return fmt.Sprintf("its start key is not in partition %q (its %s differs)", b.Partition, e.Attr)
		}
	}
	if sk, ok := key[b.SKAttr].(*types.AttributeValueMemberS); ok && b.SKAttr != "" && !b.Sort.Holds(sk.Value) {
		return "its start key lies outside the read's sort bounds"
	}
	return ""
}

// KeyOf picks the key to resume after item from it: where a page that
// stops inside a DynamoDB page resumes.
func (b *Binding) KeyOf(item map[string]types.AttributeValue) map[string]types.AttributeValue {
	k := make(map[string]types.AttributeValue, len(b.KeyAttrs))
	for _, a := range b.KeyAttrs {
		k[a] = item[a]
	}
	return k
}

type cursorPayload struct {
	Version    int                        `json:"v"`
	Pattern    string                     `json:"n"`
	Partition  string                     `json:"p"`
	Sort       string                     `json:"s,omitempty"` // Digest of the sort-key condition
	Descending bool                       `json:"d,omitempty"`
	Key        map[string]json.RawMessage `json:"k"`
}

// SealCursor encodes key (a LastEvaluatedKey) as a cursor of the read b
// binds; "" for no key (the end). An error says why key cannot be sealed.
func SealCursor(secret []byte, b *Binding, key map[string]types.AttributeValue) (string, error) {
	if len(key) == 0 {
		return "", nil
	}
	raw, err := encodeKey(key)
	if err != nil {
		return "", fmt.Errorf("cursor: %w", err)
	}
	p := cursorPayload{Version: 1, Pattern: b.Pattern, Partition: b.Partition, Sort: b.Sort.Digest(), Descending: b.Descending, Key: raw}
	body, err := json.Marshal(p)
	if err != nil {
		return "", err
	}
	return sealToken(body, CursorMAC(secret, body)), nil
}

// OpenCursor checks a cursor against the binding and any of the keys, and
// returns the ExclusiveStartKey it carries; reason says why it cannot
// resume the read otherwise.
func OpenCursor(keys [][]byte, b *Binding, cursor string) (key map[string]types.AttributeValue, reason string) {
	body, reason := openToken(keys, cursor, CursorMAC)
	if reason != "" {
		return nil, reason
	}
	var p cursorPayload
	if err := json.Unmarshal(body, &p); err != nil || p.Version != 1 {
		return nil, "malformed"
	}
	switch {
	case p.Pattern != b.Pattern:
		return nil, "it was issued by pattern " + p.Pattern
	case p.Partition != b.Partition:
		return nil, fmt.Sprintf("it was issued for another partition (%q, not %q)", p.Partition, b.Partition)
	case p.Sort != b.Sort.Digest():
		return nil, "it was issued for other sort bounds: resume a query with the params (and upper bound, PartialMatch) that issued it"
	case p.Descending != b.Descending:
		return nil, "it was issued for the other sort direction"
	}
	key, err := decodeKey(p.Key, b.KeyAttrs)
	if err != nil {
		return nil, err.Error()
	}
	if reason := b.Admits(key); reason != "" {
		return nil, reason
	}
	return key, ""
}
