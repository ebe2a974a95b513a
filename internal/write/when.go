package write

// An index's When condition, compiled for the model: Define (internal/model)
// calls CompileWhen through model.Spec.CompileWhen, since the model cannot
// import the engine that encodes the condition's values.

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/expr"
	"github.com/singletable/singletable/internal/model"

	"github.com/singletable/singletable/internal/codec"
)

// FieldRef refers to another field where a condition takes a value. The
// root names it FieldRef too (Gt("Balance", FieldRef("Limit"))).
type FieldRef string

// KeyOnlyRefusal explains why a condition, filter or update cannot name
// field name of m when it is key-only; "" when it is not.
func KeyOnlyRefusal(m *model.Entity, name string) string {
	ko, ok := m.KeyOnlyOf(name)
	if !ok {
		return ""
	}
	return fmt.Sprintf("field %s is key-only (tagged `dynamodbav:\"-\"`): it has no attribute of its own, only its place in key %s %q, so a condition or filter cannot name it (the key already selects the item: condition on another field) and an update cannot change it (that would move the item: delete it and create it under the new key)",
		name, ko.Attr, ko.Tpl.Raw)
}

// KeyOnlyPath refuses a path through a key-only field of m (nil: raw
// attribute names, none refused): its value is in the table key alone,
// which a condition or an update cannot name.
func KeyOnlyPath(m *model.Entity, path string) error {
	if m == nil {
		return nil
	}
	head := path
	if i := strings.IndexAny(path, ".["); i >= 0 {
		head = path[:i]
	}
	if why := KeyOnlyRefusal(m, head); why != "" {
		return errors.New(why)
	}
	return nil
}

// FieldPath resolves a field path of m to its placeholder expression,
// refusing a key-only field (KeyOnlyPath, then PathExpr). nested reports
// whether the path goes below a top-level field.
func FieldPath(m *model.Entity, b *expr.Builder, path string) (p string, nested bool, err error) {
	if err := KeyOnlyPath(m, path); err != nil {
		return "", false, err
	}
	return PathExpr(m, b, path)
}

// CompileWhen compiles an index's When condition n for evaluation in
// process (see expr.Compile) over a struct value of m, as Put would store
// it, and lists the top-level fields it reads. A refused condition is an
// error saying why, for Define's *model.Error. It is model.Spec's
// CompileWhen.
func CompileWhen(m *model.Entity, n expr.Node) (func(reflect.Value) bool, []string, error) {
	if n == nil {
		return nil, nil, nil
	}
	fields := map[string]*codec.Field{}
	// field resolves a path of the condition, once; Exists, NotExists and
	// BeginsWith encode no value, so their paths are resolved after Compile.
	field := func(path string) (*codec.Field, error) {
		if f, ok := fields[path]; ok {
			return f, nil
		}
		f, ok := m.Fields.ByGoName(path)
		if !ok {
			if TopField(path) != path {
				return nil, fmt.Errorf("field path %q: When reads top-level fields only", path)
			}
			if why := KeyOnlyRefusal(m, path); why != "" {
				return nil, errors.New(why)
			}
			return nil, UnknownField(m, path)
		}
		fields[path] = f
		return f, nil
	}
	enc := func(path string, v any) (types.AttributeValue, error) {
		if _, ref := v.(FieldRef); ref {
			return nil, &expr.UnsupportedError{Operator: "FieldRef"}
		}
		f, err := field(path)
		if err != nil {
			return nil, err
		}
		return EncodeAt(m, codec.Room{}, f, f.GoName, v, false)
	}
	pred, err := expr.Compile(n, enc)
	if err != nil {
		var unsup *expr.UnsupportedError
		if errors.As(err, &unsup) {
			return nil, nil, fmt.Errorf("When takes Eq, Ne, Lt, Le, Gt, Ge, Between, In, BeginsWith, Exists, NotExists, And, Or and Not over fields with values, not %s", unsup.Operator)
		}
		return nil, nil, err
	}
	paths := pred.Paths()
	for _, p := range paths {
		if _, err := field(p); err != nil {
			return nil, nil, err
		}
	}
	eval := func(v reflect.Value) bool {
		return pred.Eval(func(path string) (types.AttributeValue, bool) {
			f := fields[path]
			av, ok, err := m.Plan.EncodeFieldValue(f, FieldValue(f, v))
			return av, ok && err == nil
		})
	}
	return eval, slices.Clone(paths), nil
}
