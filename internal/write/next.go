package write

// What the item becomes after an update, as far as the request knows it:
// which fields it knows (Known), the struct value they make (NextValue),
// the index keys it renders, whether it leaves a sparse index.

import (
	"reflect"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/codec"
	"github.com/singletable/singletable/internal/model"
)

// Touches reports whether the update changes top-level field goName.
func (p *Plan) Touches(goName string) bool { return Touches(p.Changes, goName) }

// Known reports whether the update knows field goName's value after it: a
// key field, or a field that the update sets (other than to a raw
// AttributeValue, which tells nothing) or removes as a whole, with no change
// that leaves its value unknown.
func (p *Plan) Known(goName string) bool {
	known := p.M.KeyFields[goName] || p.Read.Has(goName) || p.M.ShardDerived(goName)
	for _, c := range p.Changes {
		if TopField(c.Field) != goName {
			continue
		}
		switch {
		case c.Unknown():
			return false
		case c.Op == OpSet:
			_, raw := c.Value.(types.AttributeValue)
			known = !raw
		case c.Op == OpRemove:
			known = true
		}
	}
	return known
}

// NextValue is the item as far as the update knows it: the key fields
// and the fields read (or, with nothing read, the created timestamp a new
// item gets), with every field a top-level Set or Remove gives a value; the
// other fields are zero, as in an item the update creates. Which of its
// fields are known is for Known to say. Built on first use.
func (p *Plan) NextValue() reflect.Value {
	if p.next.IsValid() {
		return p.next
	}
	next, ptr := p.Values.New(p.M.Type)
	p.nextPtr = ptr
	if p.Read != nil {
		next.Set(p.Read.Value)
	} else {
		BaseValue(p.M, p.CreatedField, next, p.Key, p.Created)
	}
	for i, c := range p.Changes {
		if p.Shape.Nested[i] || (c.Op != OpSet && c.Op != OpRemove) {
			continue
		}
		f := p.Shape.Fields[i]
		// Reached as for any Set, allocating embedded pointers on the way;
		// Bind refused the fields that cannot be set.
		fv, ok := SettableField(next, f.Index)
		if !ok {
			continue
		}
		if _, raw := c.Value.(types.AttributeValue); raw {
			continue
		}
		if c.Op == OpSet {
			fv.Set(SetValue(c.Value, f))
		} else {
			fv.SetZero()
		}
	}
	p.next = next
	return next
}

// IndexKey is the key of index is.EI that the item has after the update
// (see model.Entity.IndexKey): rendered from the values the update gives
// when their sources are known, else from NextValue.
func (p *Plan) IndexKey(is *IndexShape) (pk, sk string, ok bool, err error) {
	if is.Sources == nil || p.Read != nil || !p.Created.IsZero() || len(is.Sources) > 8 {
		return p.M.IndexKey(is.EI, p.NextValue())
	}
	var room [8]reflect.Value
	vals := room[:len(is.Sources)]
	for i, src := range is.Sources {
		f := src.Field
		switch {
		case src.From == FromKey:
			vals[i] = FieldValue(f, p.Key)
		case src.From == FromZero || p.Changes[src.From].Op == OpRemove:
			vals[i] = reflect.Zero(f.Type)
		default:
			vals[i] = SetValue(p.Changes[src.From].Value, f)
		}
	}
	return p.M.IndexKeyFrom(is.EI, vals[:is.NPK], vals[is.NPK:])
}

// ReleaseNext recycles the value NextValue built, once the plan is done
// with it (the root's planUpdate's last step).
func (p *Plan) ReleaseNext() {
	if p.next.IsValid() {
		p.Values.Release(p.next, p.nextPtr)
		p.next, p.nextPtr = reflect.Value{}, nil
	}
}

// leaves reports whether the update takes the item out of sparse index ei
// by the fields it gives: every field the index's When condition reads is
// known, and the condition is false.
func (p *Plan) leaves(ei *model.EntityIndex) bool {
	if ei.When == nil {
		return false
	}
	for _, f := range ei.WhenFields {
		if !p.Known(f) {
			return false
		}
	}
	return !ei.When(p.NextValue())
}

// BaseValue sets into v, a zero struct value of m, the key fields of key
// and, when created is not zero, the created timestamp a new item gets in
// field createdField (nil: none).
func BaseValue(m *model.Entity, createdField *codec.Field, v, key reflect.Value, created time.Time) {
	for _, f := range m.KeyFieldList {
		if fv, ok := SettableField(v, f.Index); ok {
			fv.Set(FieldValue(f, key))
		}
	}
	for _, ko := range m.KeyOnly { // key fields too, with no attribute
		if fv, ok := SettableField(v, ko.Field.Index); ok {
			fv.Set(FieldValue(ko.Field, key))
		}
	}
	if f := createdField; f != nil && !created.IsZero() {
		SetTimestamp(f, v, created)
	}
}

// SetTimestamp stores now into a timestamp field of struct value v.
func SetTimestamp(f *codec.Field, v reflect.Value, now time.Time) {
	if fv, ok := SettableField(v, f.Index); ok {
		SetTime(fv, now)
	}
}

// SetTime stores now into fv: a time.Time, an integer of epoch seconds, or
// (an expiry field) a pointer to either, pointed at a new value.
func SetTime(fv reflect.Value, now time.Time) {
	switch {
	case fv.Kind() == reflect.Pointer:
		p := reflect.New(fv.Type().Elem())
		SetTime(p.Elem(), now)
		fv.Set(p)
	case fv.Type() == timeType:
		fv.Set(reflect.ValueOf(now))
	case fv.CanInt():
		fv.SetInt(now.Unix())
	default:
		fv.SetUint(uint64(now.Unix()))
	}
}
