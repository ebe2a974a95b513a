package singletable_test

import (
	"testing"

	"github.com/singletable/singletable/internal/golden"
)

func goldenAssert(t *testing.T, name string, v any) {
	t.Helper()
	golden.Assert(t, name, v)
}

func strp(v string) *string { return &v }
