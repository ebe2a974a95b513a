package codec

import (
	"fmt"
	"reflect"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Transform changes how one field is stored, between the field's own
// encoding and the item: compression (internal/compress) is one. Store
// runs on every value the field's encoder produces (not on an omitted
// one), Load on every stored value before the field's decoder, so that
// every path that encodes or decodes through the plan (items, single
// fields, updates' values) sees the field's own values.
type Transform interface {
	Store(av types.AttributeValue) (types.AttributeValue, error)
	Load(av types.AttributeValue) (types.AttributeValue, error)
}

// Transformed is a plan of p's type whose field f (a top-level field of
// p's Fields) is stored through t; p itself, cached per type, is left as
// it is. A struct type that encodes itself (a Marshaler or Unmarshaler)
// has no field encoders to wrap, and is an error.
func (p *Plan) Transformed(f *Field, t Transform) (*Plan, error) {
	if p.marshals || p.ptrMarshals || p.unmarshals {
		return nil, fmt.Errorf("%s encodes itself (attributevalue.Marshaler or Unmarshaler), so its fields are not encoded one by one", p.typ)
	}
	if len(f.Index) != 1 {
		return nil, fmt.Errorf("field %s is promoted from an embedded struct; only a field of %s itself can be transformed", f.GoName, p.typ)
	}
	fp, err := p.planOf(f)
	if err != nil {
		return nil, err
	}
	q := &Plan{
		typ: p.typ, fields: p.fields,
		plans:  append([]fieldPlan(nil), p.plans...),
		byAttr: make(map[string]*fieldPlan, len(p.plans)),
		byFold: make(map[string]*fieldPlan, len(p.plans)),
		lends:  p.lends,
	}
	for i := range q.plans {
		qp := &q.plans[i]
		q.byAttr[qp.attr] = qp
		if k := foldKey(qp.attr); q.byFold[k] == nil {
			q.byFold[k] = qp
		}
	}
	qp := q.byAttr[fp.attr]
	enc, dec := qp.enc, qp.dec
	qp.enc = func(v reflect.Value, addr bool, a *arena) (types.AttributeValue, error) {
		av, err := enc(v, addr, a)
		if err != nil || av == nil {
			return av, err
		}
		return t.Store(av)
	}
	qp.dec = func(av types.AttributeValue, v reflect.Value) error {
		av, err := t.Load(av)
		if err != nil {
			return err
		}
		return dec(av, v)
	}
	return q, nil
}
