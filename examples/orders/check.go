package main

import (
	"errors"
	"fmt"
	"reflect"
)

// checker collects differences between what the seed implies and what came
// back.
type checker struct{ failures []string }

func (c *checker) equal(what string, want, got any) {
	if reflect.DeepEqual(want, got) {
		fmt.Printf("  ok: %s\n", what)
		return
	}
	c.failures = append(c.failures, fmt.Sprintf("%s: want %+v, got %+v", what, want, got))
	fmt.Printf("  WRONG: %s\n    want %+v\n    got  %+v\n", what, want, got)
}

func (c *checker) that(what string, ok bool) { c.equal(what, true, ok) }

func (c *checker) err() error {
	if len(c.failures) == 0 {
		return nil
	}
	return errors.New(fmt.Sprint(len(c.failures), " check(s) failed"))
}
