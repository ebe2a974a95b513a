package write

// Conditions over Go field names: a path resolved to its placeholder
// expression, a value encoded as the field stores it. The root's Cond
// renders through these (its resolver adds FieldRef and the checks of
// managed fields).

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/codec"
	"github.com/singletable/singletable/internal/expr"
	"github.com/singletable/singletable/internal/model"
)

// PathExpr resolves a field path of entity m (raw attribute names when m
// is nil) to its placeholder expression in b. A path is a Go field name,
// optionally followed by nested parts: ".Name" for a field of a nested
// struct (its Go name) or a key of a map, and "[n]" for an element of a
// list: "Address.City", "Tags[0]", "Meta.Labels[2].Name". Every part gets
// its own name placeholder, so reserved words and special characters in
// attribute names always work. nested reports whether the path goes below
// a top-level field.
func PathExpr(m *model.Entity, b *expr.Builder, path string) (p string, nested bool, err error) {
	if !strings.ContainsAny(path, ".[") {
		// A top-level field: its placeholder alone.
		if path == "" {
			return "", false, fmt.Errorf("empty field name")
		}
		attr := path
		if m != nil {
			f, ok := m.Fields.ByGoName(path)
			if !ok {
				return "", false, UnknownField(m, path)
			}
			attr = f.Attr
		}
		return b.Name(attr), false, nil
	}
	var sb strings.Builder
	_, err = WalkPath(m, path, func(attr string, index int) {
		switch {
		case attr == "":
			sb.WriteString("[" + strconv.Itoa(index) + "]")
		case sb.Len() > 0:
			sb.WriteByte('.')
			fallthrough
		default:
			sb.WriteString(b.Name(attr))
		}
	})
	if err != nil {
		return "", false, err
	}
	return sb.String(), true, nil
}

// EncodeCond encodes v for field path of entity m by the field's own
// `dynamodbav` rules (at any depth), plainly over raw attribute names (m
// nil).
func EncodeCond(m *model.Entity, path string, v any, element bool) (types.AttributeValue, error) {
	if m == nil {
		return marshalValue(path, v)
	}
	if TopField(path) == path {
		// A top-level field, the usual case: no path to walk.
		if f, ok := m.Fields.ByGoName(path); ok {
			return EncodeAt(m, codec.Room{}, f, path, v, element)
		}
	}
	return EncodeAt(m, codec.Room{}, nil, path, v, element)
}

// marshalValue encodes a value for an attribute the library knows no Go
// type of (a raw attribute name), plainly, and checks that DynamoDB takes
// it; an AttributeValue passes as is, checked too.
func marshalValue(attr string, v any) (types.AttributeValue, error) {
	av, ok := v.(types.AttributeValue)
	if !ok {
		var err error
		if av, err = PlainValue(attr, v); err != nil {
			return nil, err
		}
	}
	if _, err := codec.CheckedSize(av); err != nil {
		return nil, fmt.Errorf("attribute %s: %w", attr, err)
	}
	return av, nil
}
