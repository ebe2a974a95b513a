package export_test

import (
	"bytes"
	"path/filepath"
	"testing"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/export"
	goldenfile "github.com/singletable/singletable/internal/golden"
)

// formats are every export, by golden file suffix.
var formats = []struct {
	file string
	make func(*st.Table, export.Options) ([]byte, error)
}{
	{"cloudformation.json", export.CloudFormationJSON},
	{"cloudformation.yaml", export.CloudFormationYAML},
	{"terraform.tf.json", export.TerraformJSON},
	{"workbench.json", export.Workbench},
	{"model.md", export.Document},
}

// golden compares got with testdata/name, or writes it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.File(t, filepath.Join("testdata", name), got)
}

// TestExportsGolden makes every export of every model and compares it with
// its golden file; a second run must give the same bytes (stable output).
func TestExportsGolden(t *testing.T) {
	for _, m := range models() {
		for _, f := range formats {
			t.Run(m.name+"/"+f.file, func(t *testing.T) {
				got, err := f.make(m.table, m.opts)
				if err != nil {
					t.Fatal(err)
				}
				again, err := f.make(m.table, m.opts)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, again) {
					t.Fatal("two exports of one model differ")
				}
				golden(t, m.name+"/"+f.file, got)
			})
		}
	}
}
