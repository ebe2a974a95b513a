package expr

import (
	"fmt"
	"strconv"
)

// Describe writes condition n for people: its expression with the field
// paths and values written in place of placeholders (Status = "OPEN"), as
// the model document shows an index's When condition.
func Describe(n Node) string {
	if n == nil {
		return ""
	}
	s, err := Render(n, describer{}, &Builder{})
	if err != nil {
		return ""
	}
	return s
}

// describer resolves a path to itself and a value to its Go literal.
type describer struct{}

func (describer) Path(_ *Builder, path string) (string, error) { return path, nil }

func (describer) Value(_ *Builder, _ string, v any, _ bool) (string, error) {
	if s, ok := v.(string); ok {
		return strconv.Quote(s), nil
	}
	return fmt.Sprint(v), nil
}
