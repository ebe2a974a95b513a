// Package compress is the engine of compressed fields: the stored format
// (a header naming the codec, then the compressed bytes), the registry of
// codecs by the id the header holds, gzip (the standard library's, always
// registered), and Field, the codec.Transform a compressed field's values
// go through on every write and read.
//
// The stored format is self-describing, so that the codec or the threshold
// can change without a migration: a compressed value is a binary (B)
//
//	magic "\x00STZ" | codec id (1 byte) | kind (1 byte) | uvarint n | payload
//
// where kind says what the n decompressed bytes are (a string's bytes, a
// binary's, or any other attribute value in the encoding of value.go) and
// codec id 0 means the payload is stored as is. Values below the threshold,
// and values that do not shrink, are stored plain: as the field's own
// attribute value, which a read takes as it is. A plain binary that happens
// to begin with the magic is stored under codec id 0, so that it is never
// mistaken for a compressed one; a binary whose header is not well-formed
// (parseHeader: one written before its field was compressed) is read as
// the plain bytes it is.
package compress

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"unicode/utf8"
	"unsafe"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/codec"
)

// Codec compresses and decompresses bytes. ID is the byte every value it
// compresses records in its header, which reads find it by: once values
// are stored with an ID, the ID names that codec for good.
type Codec interface {
	// ID is the codec's id in the stored header: 1 to 255 (0 is "stored
	// as is").
	ID() byte
	// Name names the codec in messages ("gzip").
	Name() string
	// Compress appends src compressed to dst.
	Compress(dst, src []byte) ([]byte, error)
	// Decompress appends src decompressed to dst, which has capacity for
	// the decompressed size the header records.
	Decompress(dst, src []byte) ([]byte, error)
}

// The ids of the library's codecs.
const (
	idStored = 0
	IDGzip   = 1
	IDZstd   = 2
)

// Magic begins every value stored through the header.
const Magic = "\x00STZ"

// headerMax is the largest header: magic, id, kind and a uvarint.
const headerMax = len(Magic) + 2 + binary.MaxVarintLen64

// MaxDecoded bounds the decompressed size of a value, so that a damaged or
// hostile header cannot make a read allocate without limit; a write of a
// larger value is refused.
const MaxDecoded = 64 << 20

// The kinds of payload.
const (
	kindS = 'S' // a string's bytes
	kindB = 'B' // a binary's bytes
	kindV = 'V' // any other attribute value (value.go)
)

// registry holds the codecs by id, copied on write: reads look codecs up
// without a lock.
var (
	registry   atomic.Pointer[[256]Codec]
	registerMu sync.Mutex
)

func init() {
	if err := Register(Gzip); err != nil {
		panic(err)
	}
}

// Register makes c readable by its id (and usable for writes). Registering
// the same codec again is a no-op; another codec under a taken id, or id
// 0, is an error.
func Register(c Codec) error {
	if c == nil {
		return errors.New("compress: Register(nil)")
	}
	id := c.ID()
	if id == idStored {
		return fmt.Errorf("compress: codec %s has id 0, which means \"stored as is\": ids are 1 to 255", c.Name())
	}
	registerMu.Lock()
	defer registerMu.Unlock()
	var next [256]Codec
	if cur := registry.Load(); cur != nil {
		next = *cur
	}
	if old := next[id]; old != nil {
		if old == c || old.Name() == c.Name() {
			return nil
		}
		return fmt.Errorf("compress: codec id %d is %s's; %s needs another", id, old.Name(), c.Name())
	}
	next[id] = c
	registry.Store(&next)
	return nil
}

// Lookup is the codec registered under id.
func Lookup(id byte) (Codec, bool) {
	if cur := registry.Load(); cur != nil && cur[id] != nil {
		return cur[id], true
	}
	return nil, false
}

// ErrUnknownCodec is a stored value whose header names a codec this
// program has not registered.
var ErrUnknownCodec = errors.New("compressed with a codec this program has not registered")

// ErrCorrupt is a stored value whose header is well-formed but whose
// payload does not decompress to the value the header describes.
var ErrCorrupt = errors.New("the compressed value is damaged")

// errNotUTF8 is a decompressed string that is not UTF-8.
var errNotUTF8 = errors.New("a string is not valid UTF-8")

// known names the library's codec ids for the message of a value stored
// with one the program does not register.
var known = map[byte]struct{ name, pkg string }{
	IDZstd: {"zstd", "github.com/singletable/singletable/compress/zstd"},
}

// Field is how a compressed field is stored: values whose plain size
// reaches MinSize are compressed with Codec, when that makes them smaller.
// It is the field's codec.Transform.
type Field struct {
	Codec   Codec
	MinSize int
}

var _ codec.Transform = (*Field)(nil)

// Store is the attribute value to store for av, the field's own encoding.
// Below MinSize it is av itself: nothing is allocated.
func (f *Field) Store(av types.AttributeValue) (types.AttributeValue, error) {
	var plain, kind = 0, byte(kindV)
	var payload []byte
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		if plain = len(v.Value); plain < f.MinSize {
			return av, nil
		}
		// Read only: the codec compresses the string's bytes in place.
		// What the unsafe.Slice buys: no copy of a large string (the
		// field compressed because it is large) before compressing it.
		payload, kind = unsafe.Slice(unsafe.StringData(v.Value), len(v.Value)), kindS
	case *types.AttributeValueMemberB:
		if plain = len(v.Value); plain < f.MinSize {
			return escape(v), nil
		}
		payload, kind = v.Value, kindB
	default:
		n, err := codec.CheckedSize(av)
		if err != nil {
			return nil, err
		}
		if plain = n; plain < f.MinSize {
			return av, nil
		}
		payload = appendValue(nil, av)
	}
	if len(payload) > MaxDecoded {
		return nil, fmt.Errorf("a compressed field's value may be at most %d bytes; this one is %d", MaxDecoded, len(payload))
	}
	out := make([]byte, 0, headerMax+len(payload)/2)
	out = appendHeader(out, f.Codec.ID(), kind, len(payload))
	out, err := f.Codec.Compress(out, payload)
	if err != nil {
		return nil, fmt.Errorf("compressing with %s: %w", f.Codec.Name(), err)
	}
	if len(out) >= plain {
		// It does not shrink: stored plain.
		if b, ok := av.(*types.AttributeValueMemberB); ok {
			return escape(b), nil
		}
		return av, nil
	}
	return &types.AttributeValueMemberB{Value: out}, nil
}

// escape stores plain binary b under the header (codec id 0) when it
// begins with the magic, which a read would take for a header.
func escape(b *types.AttributeValueMemberB) types.AttributeValue {
	if !bytes.HasPrefix(b.Value, []byte(Magic)) {
		return b
	}
	out := appendHeader(make([]byte, 0, headerMax+len(b.Value)), idStored, kindB, len(b.Value))
	return &types.AttributeValueMemberB{Value: append(out, b.Value...)}
}

func appendHeader(dst []byte, id, kind byte, n int) []byte {
	dst = append(dst, Magic...)
	dst = append(dst, id, kind)
	return binary.AppendUvarint(dst, uint64(n))
}

// Load is the field's own encoding of stored value av: av itself unless
// it is a binary with the header.
func (f *Field) Load(av types.AttributeValue) (types.AttributeValue, error) {
	return Load(av)
}

// header is a stored value's header, read by parseHeader.
type header struct {
	id, kind byte
	n        uint64 // the decompressed size
	payload  []byte
}

// parseHeader reads the header of b, if b is a value the library could
// have written: the magic; a kind of S, B or V; the size as a minimal
// uvarint of at most MaxDecoded; and a payload consistent with it: under
// codec id 0 (stored as is, only ever a binary) exactly the size's bytes;
// under another id not empty, and for a string or a binary, with the
// whole value shorter than the size (Store keeps a value compressed only
// when it shrinks). Anything else is not the library's (a plain binary
// written before its field was compressed): ok is false, and the value is
// read as the plain bytes it is.
func parseHeader(b []byte) (h header, ok bool) {
	if len(b) < len(Magic)+3 || string(b[:len(Magic)]) != Magic {
		return h, false
	}
	rest := b[len(Magic):]
	h.id, h.kind = rest[0], rest[1]
	n, w := binary.Uvarint(rest[2:])
	if w <= 0 || n > MaxDecoded || w != uvarintLen(n) {
		return h, false
	}
	h.n, h.payload = n, rest[2+w:]
	switch {
	case h.kind != kindS && h.kind != kindB && h.kind != kindV:
		return h, false
	case h.id == idStored:
		return h, h.kind == kindB && uint64(len(h.payload)) == n
	case len(h.payload) == 0:
		return h, false
	case h.kind != kindV && uint64(len(b)) >= n:
		return h, false
	}
	return h, true
}

// uvarintLen is the length of n's minimal uvarint encoding.
func uvarintLen(n uint64) int {
	w := 1
	for ; n >= 0x80; n >>= 7 {
		w++
	}
	return w
}

// Load restores a value Field.Store stored, whatever its codec and
// threshold were: av itself unless it is a binary with a well-formed
// header (parseHeader). A well-formed header of a codec the program does
// not register is ErrUnknownCodec; one whose payload does not decompress
// to the size it records is ErrCorrupt.
func Load(av types.AttributeValue) (types.AttributeValue, error) {
	b, ok := av.(*types.AttributeValueMemberB)
	if !ok {
		return av, nil
	}
	h, ok := parseHeader(b.Value)
	if !ok {
		return av, nil
	}
	id, kind, n, payload := h.id, h.kind, h.n, h.payload
	var data []byte
	if id == idStored {
		data = bytes.Clone(payload)
	} else {
		c, ok := Lookup(id)
		if !ok {
			if k, ok := known[id]; ok {
				return nil, fmt.Errorf("%w: codec %s (id %d): import %s", ErrUnknownCodec, k.name, id, k.pkg)
			}
			return nil, fmt.Errorf("%w (id %d): register it with compress.Register", ErrUnknownCodec, id)
		}
		var err error
		data, err = c.Decompress(make([]byte, 0, n), payload)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrCorrupt, c.Name(), err)
		}
	}
	if uint64(len(data)) != n {
		return nil, fmt.Errorf("%w: %d bytes where the header records %d", ErrCorrupt, len(data), n)
	}
	switch kind {
	case kindS:
		if !utf8.Valid(data) {
			return nil, fmt.Errorf("%w: %v", ErrCorrupt, errNotUTF8)
		}
		// data is this call's own and never written again: the string
		// over it saves a copy of the decompressed field.
		return &types.AttributeValueMemberS{Value: unsafe.String(unsafe.SliceData(data), len(data))}, nil
	case kindB:
		return &types.AttributeValueMemberB{Value: data}, nil
	case kindV:
		v, err := readValue(data)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
		}
		return v, nil
	}
	panic("unreachable: parseHeader admits only kinds S, B and V")
}
