package read

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Sealed tokens
//
// Every token that resumes a read (a cursor, a fan-out cursor, a scan
// position) is a JSON body and its HMAC-SHA256 under a cursor key,
// base64url, dot-joined. It is not encrypted: it reveals the keys it
// carries.

// Refusal says why a token cannot resume a read: altered, malformed, or
// issued by another read. The root package reports it as a *CursorError.
type Refusal struct{ Reason string }

func (e *Refusal) Error() string { return e.Reason }

func refuse(format string, args ...any) *Refusal {
	return &Refusal{Reason: fmt.Sprintf(format, args...)}
}

const cursorMACContext = "singletable cursor v1\x00"

// CursorMAC is the MAC of a cursor's body under secret.
func CursorMAC(secret, body []byte) []byte {
	h := hmac.New(sha256.New, secret)
	h.Write([]byte(cursorMACContext))
	h.Write(body)
	return h.Sum(nil)
}

// sealToken is the text form of every sealed token: the body and its MAC,
// base64url, dot-joined.
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
