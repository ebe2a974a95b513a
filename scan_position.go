package singletable

import (
	"encoding/json"
	"fmt"
)

// Scan positions
//
// A scan's position (ScanProgress.Position) is where each of its segments
// stands: the LastEvaluatedKey of the last page it finished, or that it is
// done, with how many items it has read. It is sealed like a query cursor
// (HMAC-SHA256 under the DB's cursor key, base64url) and bound to what was
// scanned (one entity, or the table) and the number of segments, which
// decides how DynamoDB splits the table: a position resumes only the scan
// that reported it. Its size grows with the number of segments.

const scanPositionContext = "singletable scan position v1\x00"

type positionPayload struct {
	Version  int               `json:"v"`
	Target   string            `json:"t"`
	Segments []positionSegment `json:"s"`
}

type positionSegment struct {
	Key     map[string]json.RawMessage `json:"k,omitempty"`
	Done    bool                       `json:"d,omitempty"`
	Scanned int64                      `json:"n,omitempty"`
}

// seal encodes where every segment stands. Called with r.mu held.
func (r *scanReq) seal() (string, error) {
	p := positionPayload{Version: 1, Target: r.bind, Segments: make([]positionSegment, len(r.segs))}
	for i, s := range r.segs {
		ps := positionSegment{Done: s.done, Scanned: s.scanned}
		if len(s.key) > 0 {
			key, err := encodeKey(s.key)
			if err != nil {
				return "", &InputError{Op: r.op, Reason: "scan position: " + err.Error()}
			}
			ps.Key = key
		}
		p.Segments[i] = ps
	}
	body, err := json.Marshal(p)
	if err != nil {
		return "", err
	}
	return sealToken(body, positionMAC(r.secret, body)), nil
}

func positionMAC(secret, body []byte) []byte {
	return cursorMAC(secret, append([]byte(scanPositionContext), body...))
}

// open sets where every segment starts from a sealed position.
func (r *scanReq) open(keys [][]byte, position string) error {
	fail := func(format string, args ...any) error {
		return &CursorError{Pattern: r.op, Reason: "scan position: " + fmt.Sprintf(format, args...)}
	}
	body, reason := openToken(keys, position, positionMAC)
	if reason != "" {
		return fail("%s", reason)
	}
	var p positionPayload
	if err := json.Unmarshal(body, &p); err != nil || p.Version != 1 {
		return fail("malformed")
	}
	switch {
	case p.Target != r.bind:
		return fail("it was issued by %q, not %q", p.Target, r.bind)
	case len(p.Segments) != r.total:
		return fail("it was issued for %d segments, not %d: a scan resumes with the Segments it started with", len(p.Segments), r.total)
	}
	for i, ps := range p.Segments {
		s := segState{done: ps.Done, scanned: ps.Scanned}
		if len(ps.Key) > 0 {
			key, err := decodeKey(ps.Key, nil)
			if err != nil {
				return fail("segment %d: %v", i, err)
			}
			s.key = key
		}
		if s.done && s.key != nil {
			return fail("malformed")
		}
		if s.done {
			r.nDone++
		}
		r.segs[i] = s
	}
	return nil
}
