package compress

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var text = strings.Repeat(`{"ts":1700000000,"level":"info","msg":"request served","path":"/api/orders/42"}`+"\n", 40)

// Every kind of value round-trips, compressed or plain.
func TestRoundTrip(t *testing.T) {
	f := &Field{Codec: Gzip, MinSize: 100}
	for _, av := range []types.AttributeValue{
		&types.AttributeValueMemberS{Value: text},
		&types.AttributeValueMemberS{Value: "short"},
		&types.AttributeValueMemberB{Value: []byte(text)},
		&types.AttributeValueMemberB{Value: []byte(Magic + "plain but looks like a header")},
		&types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
			"l":  &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberN{Value: "1.5"}, &types.AttributeValueMemberBOOL{Value: true}, &types.AttributeValueMemberNULL{Value: true}}},
			"ss": &types.AttributeValueMemberSS{Value: []string{text, "b"}},
			"ns": &types.AttributeValueMemberNS{Value: []string{"1", "2"}},
			"bs": &types.AttributeValueMemberBS{Value: [][]byte{[]byte("x"), []byte(text)}},
		}},
	} {
		st, err := f.Store(av)
		require.NoError(t, err)
		back, err := Load(st)
		require.NoError(t, err)
		assert.Equal(t, av, back)
	}
}

// Below the threshold a value is stored as it is: the same value, so
// nothing is allocated.
func TestBelowThresholdAllocatesNothing(t *testing.T) {
	f := &Field{Codec: Gzip, MinSize: 1024}
	s := &types.AttributeValueMemberS{Value: "small"}
	b := &types.AttributeValueMemberB{Value: []byte("small")}
	allocs := testing.AllocsPerRun(100, func() {
		_, _ = f.Store(s)
		_, _ = f.Store(b)
		_, _ = f.Load(s)
		_, _ = f.Load(b)
	})
	assert.Zero(t, allocs)
}

// A value stored with a codec this program does not register is an error
// that says so; a damaged one is ErrCorrupt.
func TestUnknownCodecAndDamage(t *testing.T) {
	f := &Field{Codec: Gzip, MinSize: 10}
	st, err := f.Store(&types.AttributeValueMemberS{Value: text})
	require.NoError(t, err)
	b := bytes.Clone(st.(*types.AttributeValueMemberB).Value)
	b[len(Magic)] = IDZstd
	_, err = Load(&types.AttributeValueMemberB{Value: b})
	require.ErrorIs(t, err, ErrUnknownCodec)
	assert.Contains(t, err.Error(), "compress/zstd")
	b[len(Magic)] = 200
	_, err = Load(&types.AttributeValueMemberB{Value: b})
	require.ErrorIs(t, err, ErrUnknownCodec)
	b[len(Magic)] = IDGzip
	b[len(b)-3] ^= 0xff
	_, err = Load(&types.AttributeValueMemberB{Value: b})
	require.True(t, errors.Is(err, ErrCorrupt), "%v", err)
	require.Error(t, Register(fakeCodec{}))
}

type fakeCodec struct{}

func (fakeCodec) ID() byte                                 { return IDGzip }
func (fakeCodec) Name() string                             { return "fake" }
func (fakeCodec) Compress(dst, src []byte) ([]byte, error) { return append(dst, src...), nil }
func (fakeCodec) Decompress(dst, src []byte) ([]byte, error) {
	return append(dst, src...), nil
}

// A gzip value that decompresses to more than its header records is
// refused at the first byte past it, not read on up to MaxDecoded (a small
// hostile item made a read allocate hundreds of MB).
func TestReadAppendStopsAtTheRecordedSize(t *testing.T) {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	_, err := w.Write(make([]byte, 1<<20))
	require.NoError(t, err)
	require.NoError(t, w.Close())
	r, err := gzip.NewReader(&buf)
	require.NoError(t, err)
	out, err := ReadAppend(make([]byte, 0, 10), r)
	require.ErrorIs(t, err, io.ErrShortBuffer)
	require.Nil(t, out)
}

// The header rule: a binary that begins with the magic but whose header
// is not well-formed is not the library's (a plain binary written before
// its field was compressed) and reads as the plain bytes it is; a
// well-formed one whose payload does not decompress is ErrCorrupt; a
// well-formed one of a codec the program does not register is
// ErrUnknownCodec, naming the codec and the package to import.
func TestHeaderRule(t *testing.T) {
	hdr := func(id, kind byte, n int, payload string) []byte {
		return append(appendHeader(nil, id, kind, n), payload...)
	}
	plain := map[string][]byte{
		"cut short":            []byte(Magic + "\x01S"),
		"unknown kind":         hdr(IDGzip, 'X', 100, "payload"),
		"non-minimal size":     append([]byte(Magic+"\x01S"), 0x85, 0x00, 'p'),
		"size over the limit":  hdr(IDGzip, kindS, MaxDecoded+1, "payload"),
		"stored, wrong length": hdr(idStored, kindB, 3, "four"),
		"stored, not binary":   hdr(idStored, kindS, 4, "four"),
		"empty payload":        hdr(IDGzip, kindS, 100, ""),
		"does not shrink":      hdr(IDGzip, kindB, 5, "longer than five"),
		"unregistered, longer": hdr(IDZstd, kindS, 5, "longer than five"),
	}
	for name, b := range plain {
		t.Run(name, func(t *testing.T) {
			av := &types.AttributeValueMemberB{Value: b}
			got, err := Load(av)
			require.NoError(t, err)
			assert.Same(t, av, got, "read as the plain bytes it is")
		})
	}

	_, err := Load(&types.AttributeValueMemberB{Value: hdr(IDGzip, kindS, 100, "not gzip at all")})
	require.ErrorIs(t, err, ErrCorrupt)
	assert.Contains(t, err.Error(), "gzip")

	// A string that decompresses to bytes no write could have stored (not
	// UTF-8), at the top level or inside a value, is damage too.
	notUTF8 := bytes.Repeat([]byte{0xff, 0xfe, 0xfd}, 1000)
	payload, err := gzipCodec{}.Compress(nil, notUTF8)
	require.NoError(t, err)
	_, err = Load(&types.AttributeValueMemberB{Value: hdr(IDGzip, kindS, len(notUTF8), string(payload))})
	require.ErrorIs(t, err, ErrCorrupt)
	assert.Contains(t, err.Error(), "UTF-8")
	inValue := append([]byte{tagS}, binary.AppendUvarint(nil, uint64(len(notUTF8)))...)
	inValue = append(inValue, notUTF8...)
	payload, err = gzipCodec{}.Compress(nil, inValue)
	require.NoError(t, err)
	_, err = Load(&types.AttributeValueMemberB{Value: hdr(IDGzip, kindV, len(inValue), string(payload))})
	require.ErrorIs(t, err, ErrCorrupt)
	assert.Contains(t, err.Error(), "UTF-8")

	_, err = Load(&types.AttributeValueMemberB{Value: hdr(IDZstd, kindS, 100, "zstd frame")})
	require.ErrorIs(t, err, ErrUnknownCodec)
	assert.Contains(t, err.Error(), "codec zstd")
	assert.Contains(t, err.Error(), "import github.com/singletable/singletable/compress/zstd")

	_, err = Load(&types.AttributeValueMemberB{Value: hdr(200, kindV, 100, "frame")})
	require.ErrorIs(t, err, ErrUnknownCodec)
	assert.Contains(t, err.Error(), "id 200")
}
