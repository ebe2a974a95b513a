package singletable

import (
	"github.com/singletable/singletable/internal/bridge"
	"github.com/singletable/singletable/internal/compress"
)

// Package compress's way in (see internal/bridge/compress.go): the entity
// options of compressed fields (managed_compress.go).
func init() {
	bridge.CompressFields = func(fields []string) any {
		return writeOption(func(s *writeSpec) { s.add("compress", fields...) })
	}
	bridge.CompressWith = func(c any, minSize int) any {
		return writeOption(func(s *writeSpec) {
			if s.settings == nil {
				s.settings = map[string]any{}
			}
			cc, _ := c.(compress.Codec) // nil: refused at Define
			s.settings["compress"] = compressSettings{codec: cc, minSize: minSize, given: true}
		})
	}
}
