package bridge

// What package compress needs of the root: entity options, which cannot
// be built outside it. Filled in by the root's bridge_compress.go.
var (
	// CompressFields returns a singletable.EntityOption (as any) that
	// declares the Go fields compressed, as the tag
	// `singletable:"compress"` does.
	CompressFields func(fields []string) any
	// CompressWith returns a singletable.EntityOption (as any): the
	// entity's compressed fields are written with codec (an
	// internal/compress.Codec) once their encoding reaches minSize bytes.
	CompressWith func(codec any, minSize int) any
)
