package write

// What a value becomes in the item: a Set's value as the field holds it,
// and which zero values Put leaves out.

import (
	"reflect"
	"strings"

	"github.com/singletable/singletable/internal/codec"
	"github.com/singletable/singletable/internal/model"
)

// OmitsZero reports whether Put leaves out field path's zero value: the
// field (at any depth through structs) is tagged omitempty and v is its
// zero value. A path through a list or a map, or into an unknown type, is
// not known to omit anything.
func OmitsZero(m *model.Entity, path string, v any) bool {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() || !rv.IsZero() {
		return false
	}
	f, ok := m.Fields.ByGoName(TopField(path))
	if !ok {
		return false
	}
	for rest := path[len(f.GoName):]; rest != ""; {
		if rest[0] != '.' {
			return false
		}
		name := rest[1:]
		rest = ""
		if i := strings.IndexAny(name, ".["); i >= 0 {
			name, rest = name[:i], name[i:]
		}
		t := f.Type
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || t == timeType {
			return false
		}
		fs, err := codec.FieldsOf(t)
		if err != nil {
			return false
		}
		if f, ok = fs.ByGoName(name); !ok {
			return false
		}
	}
	return f.Tag.OmitEmpty && (rv.Type() == f.Type || Convertible(rv, f.Type))
}

// SetValue is v as Set stores it in field f: converted to the field's type
// (the update's planning checked that it converts without loss), the zero
// value for nil.
func SetValue(v any, f *codec.Field) reflect.Value {
	rv := reflect.ValueOf(v)
	switch {
	case !rv.IsValid():
		return reflect.Zero(f.Type)
	case rv.Type() == f.Type:
		return rv
	case rv.Type().AssignableTo(f.Type):
		fv := reflect.New(f.Type).Elem() // an interface field, or another named type
		fv.Set(rv)
		return fv
	case PointsTo(rv, f.Type):
		return PointerTo(rv, f.Type)
	}
	return rv.Convert(f.Type)
}
