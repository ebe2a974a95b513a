// Package soak sizes the randomized and concurrent tests: short within make
// test's time budget, long under make soak (which CI runs after make test).
package soak

import "os"

// Size returns long when SINGLETABLE_SOAK is set and short otherwise.
func Size(short, long int) int {
	if os.Getenv("SINGLETABLE_SOAK") != "" {
		return long
	}
	return short
}
