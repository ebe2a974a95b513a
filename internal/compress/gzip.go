package compress

import (
	"bytes"
	"compress/gzip"
	"io"
	"sync"
)

// Gzip is the standard library's gzip at its default level: always
// registered, the codec of a compressed field unless the entity names
// another.
var Gzip Codec = gzipCodec{}

type gzipCodec struct{}

// Writers and readers hold large tables (a writer some hundreds of KB):
// pooled, a compression allocates only its output.
var (
	gzipWriters = sync.Pool{New: func() any { return gzip.NewWriter(nil) }}
	gzipReaders sync.Pool
)

func (gzipCodec) ID() byte     { return IDGzip }
func (gzipCodec) Name() string { return "gzip" }

func (gzipCodec) Compress(dst, src []byte) ([]byte, error) {
	buf := bytes.NewBuffer(dst)
	w := gzipWriters.Get().(*gzip.Writer)
	defer gzipWriters.Put(w)
	w.Reset(buf)
	if _, err := w.Write(src); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func (gzipCodec) Decompress(dst, src []byte) ([]byte, error) {
	r, _ := gzipReaders.Get().(*gzip.Reader)
	var err error
	if r == nil {
		r, err = gzip.NewReader(bytes.NewReader(src))
	} else {
		err = r.Reset(bytes.NewReader(src))
	}
	if err != nil {
		return nil, err
	}
	defer gzipReaders.Put(r)
	return ReadAppend(dst, r)
}

// ReadAppend appends what r reads to dst until io.EOF, within dst's
// capacity: the size the header records. A value that decompresses to more
// is refused at the first byte past it (io.ErrShortBuffer), so a small
// damaged or hostile item cannot make a read allocate up to MaxDecoded.
func ReadAppend(dst []byte, r io.Reader) ([]byte, error) {
	for {
		if len(dst) == cap(dst) {
			var one [1]byte
			n, err := r.Read(one[:])
			if n == 0 && err == io.EOF {
				return dst, nil
			}
			if err != nil && err != io.EOF {
				return nil, err
			}
			if n > 0 {
				return nil, io.ErrShortBuffer
			}
			continue
		}
		n, err := r.Read(dst[len(dst):cap(dst)])
		dst = dst[:len(dst)+n]
		if err == io.EOF {
			return dst, nil
		}
		if err != nil {
			return nil, err
		}
	}
}
