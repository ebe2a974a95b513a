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
	// clauses are the update expression's SET, REMOVE, ADD and DELETE
	// clauses, each written (keyword first) as its actions come: no string
	// per action to join later.
	clauses [4]strings.Builder

	m       *entityModel
	key     reflect.Value // the key value the update was given
	changes []change
	next    reflect.Value // see nextValue; invalid until then
}

// The clauses of an update expression, in order.
const (
	clauseSet = iota
	clauseRemove
	clauseAdd
	clauseDelete
)

var clauseKeywords = [...]string{clauseSet: "SET ", clauseRemove: "REMOVE ", clauseAdd: "ADD ", clauseDelete: "DELETE "}

// act adds one action, the concatenation of parts, to clause c.
func (p *updatePlan) act(c int, parts ...string) {
	w := &p.clauses[c]
	if w.Len() == 0 {
		w.Grow(64) // one allocation for most clauses
		w.WriteString(clauseKeywords[c])
	} else {
		w.WriteString(", ")
	}
	for _, s := range parts {
		w.WriteString(s)
	}
}

// expression is the update expression: the non-empty clauses, space
// separated. A single clause (the usual SET) is returned as written.
func (p *updatePlan) expression() string {
	n, last := 0, -1
	for i := range p.clauses {
		if l := p.clauses[i].Len(); l > 0 {
			n += l + 1
			last = i
		}
	}
	if last < 0 {
		return ""
	}
	if n == p.clauses[last].Len()+1 {
		return p.clauses[last].String()
	}
	var update strings.Builder
	update.Grow(n - 1)
	for i := range p.clauses {
		if p.clauses[i].Len() == 0 {
			continue
		}
		if update.Len() > 0 {
			update.WriteByte(' ')
		}
		update.WriteString(p.clauses[i].String())
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
func (p *updatePlan) touches(goName string) bool { return touches(p.changes, goName) }

// touches reports whether one of changes is to top-level field goName.
func touches(changes []change, goName string) bool {
	for _, c := range changes {
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
