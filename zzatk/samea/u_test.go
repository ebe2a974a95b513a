package samea

import "testing"

var runs int

func TestSame(t *testing.T) { t.Log("samea unit TestSame ran") }
