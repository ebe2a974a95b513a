// Package compress configures compressed fields: which codec an entity's
// compressed fields are written with, and from what size.
//
// A field is compressed when its struct tag says so:
//
//	type Document struct {
//		ID   string
//		Body string `singletable:"compress"`
//	}
//
// With the tag alone, the core compresses the field with gzip (the
// standard library's) once its value reaches DefaultMinSize bytes, and
// stores it in a binary attribute; every read restores it. This package is
// only for what goes beyond that: another codec (With, and package
// compress/zstd for zstd), another threshold, fields declared without a
// tag (Fields), and codecs of your own (Codec, Register).
//
// The stored format names its codec, so an entity can switch codecs or
// thresholds at any time: items written before stay readable, as long as
// the program registers the codec they were written with (importing its
// package does). See docs/compression.md.
package compress

import (
	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/bridge"
	"github.com/singletable/singletable/internal/compress"
)

// DefaultMinSize is the threshold of a compressed field without With: a
// value whose encoding is smaller is stored plain. DynamoDB bills a write
// unit per KB, so a smaller value rarely saves one.
const DefaultMinSize = 1024

// Codec compresses and decompresses a field's bytes. ID is recorded in
// the header of every value the codec compresses, and is how reads find
// the codec again: once items are stored with an ID, the ID must keep
// naming that codec. The library's codecs are gzip (1) and zstd (2); use
// an ID from 16 up for a codec of your own.
type Codec interface {
	// ID is the codec's id in the stored header, 1 to 255.
	ID() byte
	// Name names the codec in messages.
	Name() string
	// Compress appends src compressed to dst.
	Compress(dst, src []byte) ([]byte, error)
	// Decompress appends src decompressed to dst, which has capacity for
	// the size the value had.
	Decompress(dst, src []byte) ([]byte, error)
}

// Gzip is the standard library's gzip at its default level, the codec of
// compressed fields unless With names another. It is always registered.
var Gzip Codec = compress.Gzip

// ErrUnknownCodec is wrapped by the *singletable.DecodeError of a read
// that meets a value compressed with a codec the program does not register
// (zstd's values in a program that does not import compress/zstd): the
// message names the codec and, for the library's, the package to import.
var ErrUnknownCodec = compress.ErrUnknownCodec

// ErrCorrupt is wrapped by the *singletable.DecodeError of a read that
// meets a value with a well-formed header whose payload does not
// decompress to what the header records. A value whose header is not
// well-formed is not an error: it is read as the plain bytes it is (see
// docs/compression.md).
var ErrCorrupt = compress.ErrCorrupt

// Register makes reads understand values that c compressed. With
// registers its codec itself; Register is for a program that reads items
// written with a codec it no longer writes with. Registering the same
// codec twice is harmless; another codec under a taken ID is an error.
func Register(c Codec) error { return compress.Register(c) }

// With writes the entity's compressed fields with codec c, compressing a
// value once its encoding reaches minSize bytes (0: every value that
// shrinks). It changes only what is written: values stored with another
// codec or threshold read as before. A nil codec or a negative minSize is
// a *singletable.ModelError at Define, and so is With on an entity without
// a compressed field.
func With(c Codec, minSize int) st.EntityOption {
	return bridge.CompressWith(c, minSize).(st.EntityOption)
}

// Fields declares the named Go fields compressed, as the tag
// `singletable:"compress"` does, for a struct whose tags you do not own.
func Fields(fields ...string) st.EntityOption {
	return bridge.CompressFields(fields).(st.EntityOption)
}
