package singletable

import (
	"sync/atomic"

	writes "github.com/singletable/singletable/internal/write"
)

// changeOp is an update operator: an index into writes.Operators, the
// engine's operator table.
type changeOp = writes.Op

const (
	changeSet            = writes.OpSet
	changeRemove         = writes.OpRemove
	changeAdd            = writes.OpAdd
	changeDeleteFromSet  = writes.OpDeleteFromSet
	changeAppend         = writes.OpAppend
	changePrepend        = writes.OpPrepend
	changeSetIfNotExists = writes.OpSetIfNotExists
	changeIncrement      = writes.OpIncrement
	changeDecrement      = writes.OpDecrement
)

// change is one field change of an Update, as the write engine and the
// managed fields' hooks see it.
type change = writes.Change

// Changes is what an Update does to an item: field changes, built by
// chaining (Set("Status", "SHIPPED").Increment("Count", 1).Remove("Note")),
// and the condition the item must meet (If). A Changes is a value: each
// method returns a new one and leaves its receiver as it was, so a common
// part can be extended in several ways. The zero Changes changes nothing
// (an update of nothing is an error).
//
// Every change names a field by its Go name, or a path below it:
// "Address.City" (a field of a nested struct, by Go name, or a map key),
// "Tags[0]" (a list element). Values of top-level fields are encoded by the
// field's own `dynamodbav` rules; values below them plainly. Changes whose
// new value DynamoDB computes from the stored one (Add, Increment, Decrement,
// Append, Prepend, DeleteFromSet, SetIfNotExists) cannot be applied to a
// field that an index key, an index's When condition or a Unique declaration
// reads, since the request could not recompute what depends on it: use Set.
type Changes struct {
	list []change
	blk  *changeBlock // where list lives while it fits in one (see with)
	cond Cond
}

// changeBlock holds the first changes of a chain: a chain of a few
// changes (the usual update) costs one allocation, not one per change.
// used counts the slots taken: a Changes extends its list in place only
// by taking the next free slot, so that two Changes extended from one
// never share a change.
type changeBlock struct {
	used  atomic.Int32
	items [2]change
}

// with is c plus one change, c left as it was.
func (c Changes) with(op changeOp, field string, v any) Changes {
	n := len(c.list)
	ch := change{Op: op, Field: field, Value: v}
	switch {
	case c.blk != nil && n < len(c.blk.items) && c.blk.used.CompareAndSwap(int32(n), int32(n+1)):
		c.blk.items[n] = ch
		c.list = c.blk.items[:n+1]
	case n < len(changeBlock{}.items):
		blk := &changeBlock{}
		blk.used.Store(int32(n + 1))
		if n > 0 {
			copy(blk.items[:], c.list)
		}
		blk.items[n] = ch
		c.list, c.blk = blk.items[:n+1], blk
	default:
		c.list, c.blk = append(c.list[:n:n], ch), nil
	}
	return c
}

// If adds a condition the item must meet for the update to happen; when it
// does not, the update fails with a *ConditionError (ErrConditionFailed).
// Several If must all hold.
func (c Changes) If(cond Cond) Changes {
	c.cond = And(c.cond, cond)
	return c
}

// Set sets a field (by Go name, or a path below it) to v, encoded by the
// field's `dynamodbav` rules. Setting an omitempty field (at any depth
// through structs) to its zero value removes the attribute, as Put would
// leave it out. nil is a value only of pointer, map, slice and interface
// fields (a NULL attribute); for any other field it is an error.
func (c Changes) Set(field string, v any) Changes { return c.with(changeSet, field, v) }

// Remove removes a field's attribute (or a nested part) from the item.
func (c Changes) Remove(field string) Changes { return c.with(changeRemove, field, nil) }

// Add adds v to a number field (use a negative v to subtract), or adds the
// elements of v to a set field (v may be a set or a single element). A
// missing attribute counts as 0 or the empty set. DynamoDB allows Add on
// top-level fields only.
func (c Changes) Add(field string, v any) Changes { return c.with(changeAdd, field, v) }

// DeleteFromSet removes the elements of v (a set, or a single element) from
// a set field: DynamoDB's DELETE action, on top-level fields only. (It is
// not named Delete, which deletes the item.)
func (c Changes) DeleteFromSet(field string, v any) Changes {
	return c.with(changeDeleteFromSet, field, v)
}

// Append appends v (a list, or a single element) to a list field; a missing
// list counts as empty: SET f = list_append(if_not_exists(f, []), v).
func (c Changes) Append(field string, v any) Changes { return c.with(changeAppend, field, v) }

// Prepend puts v (a list, or a single element) in front of a list field; a
// missing list counts as empty.
func (c Changes) Prepend(field string, v any) Changes { return c.with(changePrepend, field, v) }

// SetIfNotExists sets a field to v only if the item has no value for it:
// SET f = if_not_exists(f, v). The zero value of an omitempty field is no
// value (Put never stores it), so it sets nothing.
func (c Changes) SetIfNotExists(field string, v any) Changes {
	return c.with(changeSetIfNotExists, field, v)
}

// Increment adds n to a number field, a missing one counting as 0:
// SET f = if_not_exists(f, 0) + n. Unlike Add it works on nested paths.
func (c Changes) Increment(field string, n any) Changes { return c.with(changeIncrement, field, n) }

// Decrement subtracts n from a number field, a missing one counting as 0:
// SET f = if_not_exists(f, 0) - n. Combine it with If(Ge(field, n)) to keep
// the field from going negative.
func (c Changes) Decrement(field string, n any) Changes { return c.with(changeDecrement, field, n) }

// Set starts Changes with Changes.Set.
func Set(field string, v any) Changes { return Changes{}.Set(field, v) }

// Remove starts Changes with Changes.Remove.
func Remove(field string) Changes { return Changes{}.Remove(field) }

// Add starts Changes with Changes.Add.
func Add(field string, v any) Changes { return Changes{}.Add(field, v) }

// DeleteFromSet starts Changes with Changes.DeleteFromSet.
func DeleteFromSet(field string, v any) Changes { return Changes{}.DeleteFromSet(field, v) }

// Append starts Changes with Changes.Append.
func Append(field string, v any) Changes { return Changes{}.Append(field, v) }

// Prepend starts Changes with Changes.Prepend.
func Prepend(field string, v any) Changes { return Changes{}.Prepend(field, v) }

// SetIfNotExists starts Changes with Changes.SetIfNotExists.
func SetIfNotExists(field string, v any) Changes { return Changes{}.SetIfNotExists(field, v) }

// Increment starts Changes with Changes.Increment.
func Increment(field string, n any) Changes { return Changes{}.Increment(field, n) }

// Decrement starts Changes with Changes.Decrement.
func Decrement(field string, n any) Changes { return Changes{}.Decrement(field, n) }

// topField is the top-level Go field a change's path starts with (see
// writes.TopField).
func topField(path string) string { return writes.TopField(path) }

// touches reports whether one of changes is to top-level field goName.
func touches(changes []change, goName string) bool { return writes.Touches(changes, goName) }
