package tmain

import "testing"

func TestUnitTmain(t *testing.T) {}
