package keys

import "reflect"

// AppendKeyFrom is AppendKey from the values of the template's
// placeholders rather than from a struct holding them: vals[i] is the
// value of the i-th placeholder (in Placeholders' order), of its field's
// type. A caller that knows the fields' values spares building a struct.
func (t *Template) AppendKeyFrom(dst []byte, vals []reflect.Value) ([]byte, error) {
	i := 0
	for _, s := range t.segs {
		if s.ph == nil {
			dst = append(dst, s.lit...)
			continue
		}
		var ok bool
		var err error
		dst, ok, err = s.ph.AppendValue(dst, vals[i], t.Delim)
		i++
		if err != nil {
			return dst, err
		}
		if !ok {
			return dst, MissingError{Field: s.ph.Field.GoName}
		}
	}
	return dst, nil
}
