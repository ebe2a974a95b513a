package singletable

import (
	"reflect"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/codec"
)

// updatePlan is an Update resolved against the entity: the expression parts
// and what the item becomes, as far as the request knows it.
//
// What the item becomes is worked out from the changes only when something
// needs it (an index key or a unique guard that depends on a changed
// field), so that an update of plain fields builds no struct value and no
// lookup tables.
type updatePlan struct {
	set, remove, add, del []string

	m       *entityModel
	key     reflect.Value // the key value the update was given
	changes []change
	next    reflect.Value // see nextValue; invalid until then
}

// updateClauses are the keywords of an update expression's clauses, in the
// order of updatePlan's parts.
var updateClauses = [...]string{"SET ", "REMOVE ", "ADD ", "DELETE "}

// expression is the update expression: each non-empty clause with its
// actions, written into one buffer of the exact size.
func (p *updatePlan) expression() string {
	parts := [...][]string{p.set, p.remove, p.add, p.del}
	n := 0
	for i, part := range parts {
		if len(part) == 0 {
			continue
		}
		n += 1 + len(updateClauses[i]) + 2*(len(part)-1)
		for _, a := range part {
			n += len(a)
		}
	}
	var update strings.Builder
	update.Grow(n)
	for i, part := range parts {
		if len(part) == 0 {
			continue
		}
		if update.Len() > 0 {
			update.WriteByte(' ')
		}
		update.WriteString(updateClauses[i])
		for j, a := range part {
			if j > 0 {
				update.WriteString(", ")
			}
			update.WriteString(a)
		}
	}
	return update.String()
}

// topField is the top-level Go field a change's path starts with:
// "Address" for "Address.City" and "Tags" for "Tags[0]".
func topField(path string) string {
	if i := strings.IndexAny(path, ".["); i >= 0 {
		return path[:i]
	}
	return path
}

// unknown reports whether the change leaves the field's new value unknown
// to the request: it is below the field ("Address.City"), or DynamoDB
// computes it from the stored value (Add, Increment ...).
func (c change) unknown() bool { return c.field != topField(c.field) || c.op.computed() }

// touches reports whether the update changes top-level field goName.
func (p *updatePlan) touches(goName string) bool {
	for _, c := range p.changes {
		if topField(c.field) == goName {
			return true
		}
	}
	return false
}

// known reports whether the update knows field goName's value after it: a
// key field, or a field that the update sets (other than to a raw
// AttributeValue, which tells nothing) or removes as a whole, with no change
// that leaves its value unknown.
func (p *updatePlan) known(goName string) bool {
	known := p.m.keyFields[goName]
	for _, c := range p.changes {
		if topField(c.field) != goName {
			continue
		}
		switch {
		case c.unknown():
			return false
		case c.op == changeSet:
			_, raw := c.value.(types.AttributeValue)
			known = !raw
		case c.op == changeRemove:
			known = true
		}
	}
	return known
}

// nextValue is the item as far as the update knows it: the key value with
// every field a top-level Set or Remove gives a value. Which of its fields
// are known is for known to say. Built on first use.
func (p *updatePlan) nextValue() reflect.Value {
	if p.next.IsValid() {
		return p.next
	}
	next := reflect.New(p.m.typ).Elem()
	next.Set(p.key)
	for _, c := range p.changes {
		if c.field != topField(c.field) || (c.op != changeSet && c.op != changeRemove) {
			continue
		}
		f, _ := p.m.fields.ByGoName(c.field)
		// Reached as for any Set, allocating embedded pointers on the way;
		// planChanges refused the fields that cannot be set.
		fv, ok := settableField(next, f.Index)
		if !ok {
			continue
		}
		if _, raw := c.value.(types.AttributeValue); raw {
			continue
		}
		if c.op == changeSet {
			fv.Set(setValue(c.value, f))
		} else {
			fv.SetZero()
		}
	}
	p.next = next
	return next
}

// setValue is v as Set stores it in field f: converted to the field's type
// (planChanges checked that it converts without loss), the zero value for
// nil.
func setValue(v any, f *codec.Field) reflect.Value {
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
	}
	return rv.Convert(f.Type)
}
