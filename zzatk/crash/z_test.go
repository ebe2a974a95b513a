package crash

import "testing"

func TestZUnitBroken(t *testing.T) { t.Fatal("a failing unit test") }
