// Package zstd is the zstd codec for compressed fields (see package
// compress), from github.com/klauspost/compress: smaller and faster than
// gzip on most text. Only a program that imports this package compiles it.
//
//	st.Define[Document](table, "Document", st.Key(...), compress.With(zstd.Codec, 1024))
//
// Importing the package registers the codec, so that a program reads the
// values it compressed even when it writes with another.
package zstd

import (
	"sync"

	"github.com/klauspost/compress/zstd"

	"github.com/singletable/singletable/compress"
	icompress "github.com/singletable/singletable/internal/compress"
)

// Codec is zstd at its default level, ID 2.
var Codec compress.Codec = codec{}

func init() {
	if err := compress.Register(Codec); err != nil {
		panic(err)
	}
}

type codec struct{}

// One encoder and one decoder serve every call: their EncodeAll and
// DecodeAll are safe for concurrent use. Built on first use, so that
// importing the package costs nothing.
var (
	once    sync.Once
	encoder *zstd.Encoder
	decoder *zstd.Decoder
)

func coders() (*zstd.Encoder, *zstd.Decoder) {
	once.Do(func() {
		var err error
		if encoder, err = zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1)); err != nil {
			panic(err) // only invalid options fail
		}
		if decoder, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(icompress.MaxDecoded)); err != nil {
			panic(err)
		}
	})
	return encoder, decoder
}

func (codec) ID() byte     { return icompress.IDZstd }
func (codec) Name() string { return "zstd" }

func (codec) Compress(dst, src []byte) ([]byte, error) {
	enc, _ := coders()
	return enc.EncodeAll(src, dst), nil
}

func (codec) Decompress(dst, src []byte) ([]byte, error) {
	_, dec := coders()
	return dec.DecodeAll(src, dst)
}
