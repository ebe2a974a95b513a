package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The exports are built as trees of obj (an object whose keys keep their
// order), []any, string, bool, int64 and float64, so that JSON and YAML
// come out of one tree, in a stable order.

// obj is a JSON object whose keys keep the order they were added in.
type obj []field

type field struct {
	k string
	v any
}

// set adds key k (or replaces its value) and returns o.
func (o obj) set(k string, v any) obj {
	for i := range o {
		if o[i].k == k {
			o[i].v = v
			return o
		}
	}
	return append(o, field{k, v})
}

// MarshalJSON writes the object with its keys in order.
func (o obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f.k)
		b.Write(k)
		b.WriteByte(':')
		v, err := json.Marshal(f.v)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// toJSON is the tree as indented JSON with a final newline.
func toJSON(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// toYAML writes the tree as block YAML (YAML 1.2, the JSON-compatible
// subset CloudFormation reads): maps and sequences in block style, empty
// ones in flow style, and strings quoted whenever a plain scalar could be
// read as something else.
func toYAML(v any) []byte {
	var b strings.Builder
	writeYAML(&b, v, 0)
	return []byte(b.String())
}

func writeYAML(b *strings.Builder, v any, indent int) {
	pad := strings.Repeat("  ", indent)
	switch t := v.(type) {
	case obj:
		for _, f := range t {
			b.WriteString(pad + yamlString(f.k) + ":")
			writeYAMLValue(b, f.v, indent)
		}
	case []any:
		for _, e := range t {
			b.WriteString(pad + "-")
			switch e := e.(type) {
			case obj:
				if len(e) == 0 {
					b.WriteString(" {}\n")
					continue
				}
				// The first key on the dash's line, the rest under it.
				var inner strings.Builder
				writeYAML(&inner, e, indent+1)
				b.WriteString(" " + strings.TrimPrefix(inner.String(), pad+"  "))
			default:
				writeYAMLValue(b, e, indent)
			}
		}
	}
}

// writeYAMLValue writes what follows "key:" or "-": a scalar on the same
// line, or a nested block on the next ones.
func writeYAMLValue(b *strings.Builder, v any, indent int) {
	switch t := v.(type) {
	case obj:
		if len(t) == 0 {
			b.WriteString(" {}\n")
			return
		}
		b.WriteString("\n")
		writeYAML(b, t, indent+1)
	case []any:
		if len(t) == 0 {
			b.WriteString(" []\n")
			return
		}
		b.WriteString("\n")
		writeYAML(b, t, indent+1)
	default:
		b.WriteString(" " + yamlScalar(t) + "\n")
	}
}

func yamlScalar(v any) string {
	switch t := v.(type) {
	case string:
		return yamlString(t)
	case bool:
		return strconv.FormatBool(t)
	case int64:
		return strconv.FormatInt(t, 10)
	case int:
		return strconv.Itoa(t)
	case float64:
		return strconv.FormatFloat(t, 'g', -1, 64)
	case nil:
		return "null"
	}
	panic(fmt.Sprintf("export: no YAML for %T", v))
}

// yamlString writes s plain when YAML reads it back as this string, else
// double-quoted with JSON's escapes (a YAML double-quoted string reads
// them the same way).
func yamlString(s string) string {
	if plainSafe(s) {
		return s
	}
	q, _ := json.Marshal(s)
	return string(q)
}

// plainSafe reports whether s can be written as a plain scalar: letters,
// digits and a few inner punctuation marks, not a word YAML reads as a
// boolean or null, not a number.
func plainSafe(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r == '_':
		case r >= '0' && r <= '9', r == '.', r == '-', r == '/', r == ':' && i < len(s)-1 && s[i+1] != ' ':
			if i == 0 && r != '/' {
				return false // a number, a "-" or "." indicator
			}
		default:
			return false
		}
	}
	if strings.Contains(s, ": ") {
		return false
	}
	reserved := []string{"y", "n", "yes", "no", "on", "off", "true", "false", "null", "~"}
	return !slices.Contains(reserved, strings.ToLower(s))
}
