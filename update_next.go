package singletable

// What the item becomes after an update, as far as the request knows it:
// which fields it knows (known), the struct value they make (nextValue),
// the index keys it renders, whether it leaves a sparse index.

import (
	"reflect"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/model"
	writes "github.com/singletable/singletable/internal/write"
)

// touches reports whether the update changes top-level field goName.
func (p *updatePlan) touches(goName string) bool { return touches(p.changes, goName) }

// known reports whether the update knows field goName's value after it: a
// key field, or a field that the update sets (other than to a raw
// AttributeValue, which tells nothing) or removes as a whole, with no change
// that leaves its value unknown.
func (p *updatePlan) known(goName string) bool {
	known := p.m.KeyFields[goName] || p.read.has(goName) || p.m.ShardDerived(goName)
	for _, c := range p.changes {
		if topField(c.Field) != goName {
			continue
		}
		switch {
		case c.Unknown():
			return false
		case c.Op == changeSet:
			_, raw := c.Value.(types.AttributeValue)
			known = !raw
		case c.Op == changeRemove:
			known = true
		}
	}
	return known
}

// nextValue is the item as far as the update knows it: the key fields
// and the fields read (or, with nothing read, the created timestamp a new
// item gets), with every field a top-level Set or Remove gives a value; the
// other fields are zero, as in an item the update creates. Which of its
// fields are known is for known to say. Built on first use.
func (p *updatePlan) nextValue() reflect.Value {
	if p.next.IsValid() {
		return p.next
	}
	next, ptr := p.m.newValue()
	p.nextPtr = ptr
	if p.read != nil {
		next.Set(p.read.value)
	} else {
		p.m.baseValue(next, p.key, p.created)
	}
	for i, c := range p.changes {
		if p.shape.Nested[i] || (c.Op != changeSet && c.Op != changeRemove) {
			continue
		}
		f := p.shape.Fields[i]
		// Reached as for any Set, allocating embedded pointers on the way;
		// planChanges refused the fields that cannot be set.
		fv, ok := settableField(next, f.Index)
		if !ok {
			continue
		}
		if _, raw := c.Value.(types.AttributeValue); raw {
			continue
		}
		if c.Op == changeSet {
			fv.Set(writes.SetValue(c.Value, f))
		} else {
			fv.SetZero()
		}
	}
	p.next = next
	return next
}

// indexKey is the key of index is.EI that the item has after the update
// (see model.Entity.IndexKey): rendered from the values the update gives
// when their sources are known, else from nextValue.
func (p *updatePlan) indexKey(is *writes.IndexShape) (pk, sk string, ok bool, err error) {
	if is.Sources == nil || p.read != nil || !p.created.IsZero() || len(is.Sources) > 8 {
		return p.m.IndexKey(is.EI, p.nextValue())
	}
	var room [8]reflect.Value
	vals := room[:len(is.Sources)]
	for i, src := range is.Sources {
		f := src.Field
		switch {
		case src.From == writes.FromKey:
			vals[i] = fieldValue(f, p.key)
		case src.From == writes.FromZero || p.changes[src.From].Op == changeRemove:
			vals[i] = reflect.Zero(f.Type)
		default:
			vals[i] = writes.SetValue(p.changes[src.From].Value, f)
		}
	}
	return p.m.IndexKeyFrom(is.EI, vals[:is.NPK], vals[is.NPK:])
}

// releaseNext recycles the value nextValue built, once the plan is done
// with it (planUpdate's last step).
func (p *updatePlan) releaseNext() {
	if p.next.IsValid() {
		p.m.releaseValue(p.next, p.nextPtr)
		p.next, p.nextPtr = reflect.Value{}, nil
	}
}

// leaves reports whether the update takes the item out of sparse index ei
// by the fields it gives: every field the index's When condition reads is
// known, and the condition is false.
func (p *updatePlan) leaves(ei *model.EntityIndex) bool {
	if ei.When == nil {
		return false
	}
	for _, f := range ei.WhenFields {
		if !p.known(f) {
			return false
		}
	}
	return !ei.When(p.nextValue())
}

// baseValue sets into v, a zero struct value, the key fields of key and
// the created timestamp a new item gets (when created is not zero).
func (m *entityModel) baseValue(v, key reflect.Value, created time.Time) {
	for _, f := range m.KeyFieldList {
		if fv, ok := settableField(v, f.Index); ok {
			fv.Set(fieldValue(f, key))
		}
	}
	for _, ko := range m.KeyOnly { // key fields too, with no attribute
		if fv, ok := settableField(v, ko.Field.Index); ok {
			fv.Set(fieldValue(ko.Field, key))
		}
	}
	if f := m.managed.created; f != nil && !created.IsZero() {
		setTimestamp(f, v, created)
	}
}
