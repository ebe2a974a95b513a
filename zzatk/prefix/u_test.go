package prefix

import "testing"

func TestFooBaz(t *testing.T) {}
