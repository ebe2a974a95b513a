package write

// The operand of Add and DeleteFromSet: DynamoDB's ADD takes a number or a
// set, DELETE a set, and both refuse an empty set and any other attribute
// type, so the operand is made a set by the field's own rules, or refused.

import (
	"cmp"
	"errors"
	"fmt"
	"reflect"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/codec"
	"github.com/singletable/singletable/internal/model"
)

// SetOperand is the operand of Add (number: a number is allowed too) or
// DeleteFromSet on top-level field f of entity m, av being the change's
// value v encoded as the field or one of its elements. When the field is a
// slice, any Go shape of a set of its elements (one element, a slice or an
// array, a map[K]struct{} or map[K]bool of members) is converted to the
// field's type and encoded as Put encodes the field, which must give a
// set: a field stored as a list would make DynamoDB refuse the request, or
// store a set where the list belongs.
func SetOperand(m *model.Entity, v any, f *codec.Field, av types.AttributeValue, number bool) (types.AttributeValue, error) {
	switch av.(type) {
	case *types.AttributeValueMemberSS, *types.AttributeValueMemberNS, *types.AttributeValueMemberBS:
		return av, nil
	}
	if t := f.Type; t.Kind() == reflect.Map && !t.Implements(MarshalerType) && !reflect.PointerTo(t).Implements(MarshalerType) {
		// A Go set type, but attributevalue (and Put) store a map as M
		// whatever its tag (unless it marshals itself), and ADD and
		// DELETE do not take an M.
		return nil, fmt.Errorf("field %s is stored as a map (M), which DynamoDB's ADD and DELETE do not take (attributevalue ignores `stringset` on a map): declare it a slice tagged stringset, numberset or binaryset", f.GoName)
	}
	if t := f.Type; t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8 {
		if _, raw := v.(types.AttributeValue); !raw {
			return fieldSet(m, v, f, number)
		}
	}
	if set := asSet(av, f.Type); set != nil {
		return set, nil // one element of an array or a [][]byte field
	}
	_, isNumber := av.(*types.AttributeValueMemberN)
	switch {
	case !number && isNumber:
		return nil, errors.New("takes a set or a set element, got a number")
	case !number:
		return nil, fmt.Errorf("takes a set, got %T", v)
	case !isNumber:
		return nil, fmt.Errorf("takes a number or a set, got %T", v)
	}
	return av, nil
}

// fieldSet is a change's value v as a value of slice field f, encoded: it
// must be a non-empty set (number: for Add, whose error names numbers too).
func fieldSet(m *model.Entity, v any, f *codec.Field, number bool) (types.AttributeValue, error) {
	elems, ok, err := setElements(v, f.Type.Elem())
	switch {
	case err != nil:
		return nil, err
	case !ok && number:
		return nil, fmt.Errorf("takes a number or a set, got %T", v)
	case !ok:
		return nil, fmt.Errorf("takes a set, got %T", v)
	}
	sv := reflect.MakeSlice(f.Type, 0, len(elems))
	sv = reflect.Append(sv, elems...)
	av, err := EncodeAt(m, codec.Room{}, f, f.GoName, sv.Interface(), false)
	if err != nil {
		return nil, err
	}
	switch av.(type) {
	case *types.AttributeValueMemberSS, *types.AttributeValueMemberNS, *types.AttributeValueMemberBS:
		return av, nil
	case *types.AttributeValueMemberNULL:
		return nil, errors.New("an empty set, which DynamoDB refuses (and which would change nothing)")
	case *types.AttributeValueMemberL:
		return nil, fmt.Errorf("field %s is stored as a list, which DynamoDB's ADD and DELETE do not take: tag it stringset, numberset or binaryset to store a set, or use Append for a list", f.GoName)
	}
	return nil, fmt.Errorf("field %s is stored as a %T, not a set", f.GoName, av)
}

// setElements are the members of v, a Go set of elements of type elem or
// a single one, converted to elem as Set converts a value (without loss);
// a map's keys are sorted, so that requests are deterministic. ok is false
// when v is no shape of a set.
func setElements(v any, elem reflect.Type) (_ []reflect.Value, ok bool, _ error) {
	rv := reflect.ValueOf(v)
	var members []reflect.Value
	switch {
	case !rv.IsValid():
	case rv.Type().AssignableTo(elem) || Convertible(rv, elem):
		members = []reflect.Value{rv}
	case rv.Kind() == reflect.Slice || rv.Kind() == reflect.Array:
		for i := range rv.Len() {
			members = append(members, rv.Index(i))
		}
	case rv.Kind() == reflect.Map && (rv.Type().Elem().Kind() == reflect.Bool || rv.Type().Elem() == reflect.TypeFor[struct{}]()):
		iter := rv.MapRange()
		for iter.Next() {
			if iter.Value().Kind() != reflect.Bool || iter.Value().Bool() {
				members = append(members, iter.Key())
			}
		}
		slices.SortFunc(members, func(a, b reflect.Value) int {
			return cmp.Compare(fmt.Sprint(a.Interface()), fmt.Sprint(b.Interface()))
		})
	default:
		return nil, false, nil
	}
	for i, e := range members {
		if e.Kind() == reflect.Interface && !e.IsNil() {
			e = e.Elem()
		}
		switch {
		case e.Kind() != reflect.Interface && e.Type().AssignableTo(elem):
		case e.Kind() != reflect.Interface && Convertible(e, elem):
			e = e.Convert(elem)
		default:
			return nil, true, fmt.Errorf("element %d (%v) is not a %s", i, e, elem)
		}
		members[i] = e
	}
	return members, true, nil
}

// asSet turns a single element into a one-element set when the field is a
// set (a slice or a map other than []byte), for Add and DeleteFromSet.
func asSet(av types.AttributeValue, field reflect.Type) types.AttributeValue {
	k := field.Kind()
	if (k != reflect.Slice && k != reflect.Map && k != reflect.Array) || field.Elem().Kind() == reflect.Uint8 && k == reflect.Slice {
		return nil
	}
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		return &types.AttributeValueMemberSS{Value: []string{v.Value}}
	case *types.AttributeValueMemberN:
		return &types.AttributeValueMemberNS{Value: []string{v.Value}}
	case *types.AttributeValueMemberB:
		return &types.AttributeValueMemberBS{Value: [][]byte{v.Value}}
	}
	return nil
}
