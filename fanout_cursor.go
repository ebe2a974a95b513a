package singletable

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The cursor of a fan-out read holds the position of every leg: not
// started, done, or the key to resume after (as a one-partition cursor
// holds its one key). It is sealed like every cursor (cursorMAC, under the
// DB's cursor keys), with version 2, and bound to the pattern, a digest of
// every leg's partition and sort bounds, and the direction. Leading done
// legs are counted and trailing unstarted ones left out, so that a read
// over many buckets keeps a short cursor.

type fanCursorPayload struct {
	Version int    `json:"v"`
	Pattern string `json:"n"`
	Fan     string `json:"f"`
	Done    int    `json:"o,omitempty"`
	// Legs are the positions of the legs after the Done ones: null not
	// started, {} done, else the key to resume after.
	Legs []map[string]json.RawMessage `json:"l,omitempty"`
}

const fanCursorVersion = 2

// legDigest identifies the read's legs and direction: the first 16 bytes
// of a SHA-256 over each leg's partition and sort bounds, base64url.
func (f *fanReq) legDigest() string {
	h := sha256.New()
	h.Write([]byte("singletable fan-out v1\x00" + strconv.FormatBool(f.desc) + "\x00"))
	for i := range f.legs {
		b := &f.legs[i].r.binding
		h.Write([]byte(b.partition + "\x00" + sortDigest(b.sort) + "\x00"))
	}
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil)[:16])
}

// cursor seals the position of every leg; "" when every leg is done.
func (f *fanReq) cursor() (string, error) {
	p := fanCursorPayload{Version: fanCursorVersion, Pattern: f.d.name, Fan: f.digest}
	states := make([]map[string]json.RawMessage, len(f.legs))
	for i := range f.legs {
		key, done := f.legs[i].position()
		switch {
		case done:
			states[i] = map[string]json.RawMessage{}
		case key != nil:
			m, err := encodeKey(key)
			if err != nil {
				return "", &InputError{Op: f.op, Reason: "cursor: " + err.Error()}
			}
			states[i] = m
		}
	}
	for p.Done < len(states) && states[p.Done] != nil && len(states[p.Done]) == 0 {
		p.Done++
	}
	if p.Done == len(states) {
		return "", nil
	}
	end := len(states)
	for end > p.Done && states[end-1] == nil {
		end--
	}
	p.Legs = states[p.Done:end]
	body, err := json.Marshal(p)
	if err != nil {
		return "", err
	}
	return sealToken(body, cursorMAC(f.secret, body)), nil
}

// position is where a cursor resumes the leg: done, after key, or (nil,
// false) from its beginning.
func (l *fanLeg) position() (key map[string]types.AttributeValue, done bool) {
	switch {
	case l.pos < len(l.buf) && l.pos > 0:
		return l.r.keyOf(l.buf[l.pos-1]), false
	case l.pos < len(l.buf):
		return l.bufStart, false
	case l.ended:
		return nil, true
	}
	return l.start, false
}

// openCursor checks a fan-out cursor and sets every leg's position from it.
func (f *fanReq) openCursor(cursor string) error {
	fail := func(format string, args ...any) error {
		return &CursorError{Pattern: f.d.name, Reason: fmt.Sprintf(format, args...)}
	}
	body, reason := openToken(f.keys, cursor, cursorMAC)
	if reason != "" {
		return fail("%s", reason)
	}
	var p fanCursorPayload
	if err := json.Unmarshal(body, &p); err != nil {
		return fail("malformed")
	}
	switch {
	case p.Version != fanCursorVersion:
		return fail("it was issued by a read of one partition, not one that fans out")
	case p.Pattern != f.d.name:
		return fail("it was issued by pattern %s", p.Pattern)
	case p.Fan != f.digest:
		return fail("it was issued for other partitions, sort bounds or direction: resume a read with the params (and bounds) that issued it")
	case p.Done < 0 || p.Done+len(p.Legs) > len(f.legs):
		return fail("malformed")
	}
	for i := range p.Done {
		f.legs[i].ended = true
	}
	want := f.d.keyAttrs()
	for j, st := range p.Legs {
		l := &f.legs[p.Done+j]
		switch {
		case st == nil:
			continue
		case len(st) == 0:
			l.ended = true
			continue
		}
		key, err := decodeKey(st, want)
		if err != nil {
			return fail("%v", err)
		}
		if reason := l.r.binding.admits(key); reason != "" {
			return fail("%s", reason)
		}
		l.start = key
	}
	return nil
}
