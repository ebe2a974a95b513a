package read

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
// holds its one key). It is sealed like every cursor (CursorMAC, under the
// DB's cursor keys), with version 2, and bound to the pattern, a digest of
// the read (see readDigest), and the direction. Leading done legs are
// counted and trailing unstarted ones left out, so that a read over many
// buckets keeps a short cursor.

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

// readDigest identifies the read and its direction: the first 16 bytes
// of a SHA-256 over its count of buckets and shards and the partition and
// sort bounds of its first and last buckets' legs, base64url. Every other
// leg is those of the first with the bucket's time: the params and bounds
// that give the ends give them all, so a long range is not built to be
// named.
func (f *Fan) readDigest() (string, error) {
	h := sha256.New()
	h.Write([]byte("singletable fan-out v2\x00" + strconv.FormatBool(f.Desc) + "\x00" +
		strconv.Itoa(f.Groups) + "\x00" + strconv.Itoa(f.Width) + "\x00"))
	last := f.legs[:f.Width]
	if f.Groups > 1 {
		var err error
		if last, err = f.group(f.Groups - 1); err != nil {
			return "", err
		}
	}
	for _, legs := range [][]leg{f.legs[:f.Width], last} {
		for i := range legs {
			b := &legs[i].r.Binding
			h.Write([]byte(b.Partition + "\x00" + b.Sort.Digest() + "\x00"))
		}
	}
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil)[:16]), nil
}

// Cursor seals the position of every leg; "" when every leg is done. The
// legs before the window are done; those after it not started. An error
// says why a position cannot be sealed.
func (f *Fan) Cursor() (string, error) {
	p := fanCursorPayload{Version: fanCursorVersion, Pattern: f.Pattern, Fan: f.digest}
	states := make([]map[string]json.RawMessage, len(f.legs))
	for i := range f.legs {
		key, done := f.legs[i].position()
		switch {
		case done:
			states[i] = map[string]json.RawMessage{}
		case key != nil:
			m, err := encodeKey(key)
			if err != nil {
				return "", fmt.Errorf("cursor: %w", err)
			}
			states[i] = m
		}
	}
	lead := 0
	for lead < len(states) && states[lead] != nil && len(states[lead]) == 0 {
		lead++
	}
	p.Done = f.base*f.Width + lead
	if p.Done == f.Total() {
		return "", nil
	}
	end := len(states)
	for end > lead && states[end-1] == nil {
		end--
	}
	p.Legs = states[lead:end]
	body, err := json.Marshal(p)
	if err != nil {
		return "", err
	}
	return sealToken(body, CursorMAC(f.Secret, body)), nil
}

// position is where a cursor resumes the leg: done, after key, or (nil,
// false) from its beginning.
func (l *leg) position() (key map[string]types.AttributeValue, done bool) {
	switch {
	case l.pos < len(l.buf) && l.pos > 0:
		return l.r.KeyOf(l.buf[l.pos-1]), false
	case l.pos < len(l.buf):
		return l.bufStart, false
	case l.ended:
		return nil, true
	}
	return l.start, false
}

// open checks a fan-out cursor and sets every leg's position from it.
func (f *Fan) open(cursor string) error {
	body, reason := openToken(f.Keys, cursor, CursorMAC)
	if reason != "" {
		return &Refusal{Reason: reason}
	}
	var p fanCursorPayload
	if err := json.Unmarshal(body, &p); err != nil {
		return refuse("malformed")
	}
	switch {
	case p.Version != fanCursorVersion:
		return refuse("it was issued by a read of one partition, not one that fans out")
	case p.Pattern != f.Pattern:
		return refuse("it was issued by pattern %s", p.Pattern)
	case p.Fan != f.digest:
		return refuse("it was issued for other partitions, sort bounds or direction: resume a read with the params (and bounds) that issued it")
	case p.Done < 0 || p.Done > f.Total() || len(p.Legs) > f.Total()-p.Done:
		return refuse("malformed")
	}
	// The read resumes at the group of the first leg not done: the window
	// starts there, and holds the legs the cursor has positions of.
	f.legs, f.base = nil, p.Done/f.Width
	if err := f.extend(max((p.Done+len(p.Legs)+f.Width-1)/f.Width, f.base+1)); err != nil {
		return err
	}
	for i := f.base * f.Width; i < p.Done; i++ {
		f.at(i).ended = true
	}
	for j, st := range p.Legs {
		l := f.at(p.Done + j)
		switch {
		case st == nil:
			continue
		case len(st) == 0:
			l.ended = true
			continue
		}
		key, err := decodeKey(st, f.KeyAttrs)
		if err != nil {
			return &Refusal{Reason: err.Error()}
		}
		if reason := l.r.Binding.Admits(key); reason != "" {
			return &Refusal{Reason: reason}
		}
		l.start = key
	}
	return nil
}
