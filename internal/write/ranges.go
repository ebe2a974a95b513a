package write

import (
	"fmt"
	"math/big"
	"reflect"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/codec"
	"github.com/singletable/singletable/internal/expr"
	"github.com/singletable/singletable/internal/model"
)

// Increment, Decrement and Add leave the new value of a number to
// DynamoDB, which stores any number of up to 38 digits: 250 + 10 into a
// uint8 field, or 2 - 3 into a uint, would store a value the Go field
// cannot hold, and every later read of the item would fail to decode it.
// So a change to an integer field that can leave its type's range is
// conditioned on the stored value leaving room for it; a failure says so
// (RangeReason). Signed 64-bit fields (int, int64) are left alone: leaving
// their range takes 9.2e18.

// pathPart is one step of a path into an item: an attribute of a map, or
// an element of a list (attr "").
type pathPart struct {
	attr  string
	index int
}

// lookup is the value at path at in item, nil when there is none.
func lookup(item map[string]types.AttributeValue, at []pathPart) types.AttributeValue {
	var v types.AttributeValue = &types.AttributeValueMemberM{Value: item}
	for _, p := range at {
		switch cur := v.(type) {
		case *types.AttributeValueMemberM:
			v = cur.Value[p.attr]
		case *types.AttributeValueMemberL:
			if p.attr != "" || p.index >= len(cur.Value) {
				return nil
			}
			v = cur.Value[p.index]
		default:
			return nil
		}
	}
	return v
}

// RangeCheck is the room a change to an integer field needs.
type RangeCheck struct {
	op    string // the operator's name, for messages
	path  string // the field path changed
	at    []pathPart
	typ   reflect.Type
	delta *big.Int // what the change adds to the stored value
	lo    *big.Int // the range of typ
	hi    *big.Int
}

// RangeCheckOf is the range check of a change to path of operator o, with
// value av, to top-level field f of entity m or (nested) below it; ok is
// false when the change cannot leave the field's range.
func RangeCheckOf(m *model.Entity, o *Operator, path string, f *codec.Field, nested bool, av types.AttributeValue) (RangeCheck, bool) {
	t := f.Type
	var at []pathPart
	if nested {
		pt, err := WalkPath(m, path, func(attr string, index int) { at = append(at, pathPart{attr, index}) })
		if err != nil {
			return RangeCheck{}, false
		}
		t = pt.Type
	}
	if t == nil {
		return RangeCheck{}, false
	}
	rc, ok := rangeOf(o.Name, path, t, av, o.Sign)
	if ok && !nested {
		at = []pathPart{{attr: f.Attr}}
	}
	rc.at = at
	return rc, ok
}

// rangeOf is the range check of a change op that adds delta (a number
// attribute value) times sign to the integer field of type t at path; ok
// is false when t cannot leave its range by it.
func rangeOf(op, path string, t reflect.Type, delta types.AttributeValue, sign int) (RangeCheck, bool) {
	t = DerefType(t)
	n, isN := delta.(*types.AttributeValueMemberN)
	if !isN {
		return RangeCheck{}, false
	}
	lo, hi, bounded := intRange(t.Kind())
	if !bounded {
		return RangeCheck{}, false
	}
	d, ok := new(big.Int).SetString(n.Value, 10)
	if !ok || d.Sign() == 0 {
		return RangeCheck{}, false
	}
	if sign < 0 {
		d.Neg(d)
	}
	return RangeCheck{op: op, path: path, typ: t, delta: d, lo: lo, hi: hi}, true
}

// intRange is the range of an integer kind that a change can leave: every
// unsigned kind (below 0 takes one Decrement) and the signed ones narrower
// than 64 bits.
func intRange(k reflect.Kind) (lo, hi *big.Int, ok bool) {
	var bits uint
	switch k {
	case reflect.Int8, reflect.Uint8:
		bits = 8
	case reflect.Int16, reflect.Uint16:
		bits = 16
	case reflect.Int32, reflect.Uint32:
		bits = 32
	case reflect.Uint, reflect.Uint64, reflect.Uintptr:
		bits = 64
	default:
		return nil, nil, false
	}
	one := big.NewInt(1)
	if k >= reflect.Int8 && k <= reflect.Int32 { // signed
		hi = new(big.Int).Sub(new(big.Int).Lsh(one, bits-1), one)
		lo = new(big.Int).Neg(new(big.Int).Lsh(one, bits-1))
	} else {
		hi = new(big.Int).Sub(new(big.Int).Lsh(one, bits), one)
		lo = new(big.Int)
	}
	return lo, hi, true
}

// Cond is the condition that the stored value leaves room for the
// change: at most hi - delta (or at least lo - delta). A missing
// attribute counts as 0, as the update's if_not_exists makes it.
func (r RangeCheck) Cond() expr.Node {
	var c expr.Node
	if r.delta.Sign() > 0 {
		c = expr.Compare(r.path, "<=", bound(new(big.Int).Sub(r.hi, r.delta)))
	} else {
		c = expr.Compare(r.path, ">=", bound(new(big.Int).Sub(r.lo, r.delta)))
	}
	if r.inRange(r.delta) { // 0 + delta
		j := expr.Join("OR")
		j.Add(expr.Unary("attribute_not_exists", r.path))
		j.Add(c)
		c = j
	}
	return c
}

func bound(n *big.Int) types.AttributeValue { return &types.AttributeValueMemberN{Value: n.String()} }

func (r RangeCheck) inRange(n *big.Int) bool { return n.Cmp(r.lo) >= 0 && n.Cmp(r.hi) <= 0 }

// RangeReason explains a failed condition by a change among ranges that
// would have left its field's range, given the item as it was (nil when
// there was none); "" when none would have.
func RangeReason(ranges []RangeCheck, item map[string]types.AttributeValue) string {
	for _, r := range ranges {
		stored := new(big.Int)
		held := "there is no value, which counts as 0"
		switch v := lookup(item, r.at).(type) {
		case *types.AttributeValueMemberN:
			if _, ok := stored.SetString(v.Value, 10); !ok {
				continue
			}
			held = "the item holds " + v.Value
		case *types.AttributeValueMemberNULL:
			return fmt.Sprintf("%s(%q): the item holds NULL, %s; nothing was written", r.op, r.path, NullHint)
		}
		next := new(big.Int).Add(stored, r.delta)
		if r.inRange(next) {
			continue
		}
		limit := r.hi
		if next.Cmp(r.lo) < 0 {
			limit = r.lo
		}
		return fmt.Sprintf("%s(%q): %s, and %s would store %s, beyond what a %s holds (%s); nothing was written",
			r.op, r.path, held, r.op, next, r.typ, limit)
	}
	return ""
}

// NullHint explains a change computed from a stored NULL, which DynamoDB
// cannot compute from.
const NullHint = "as Put stores a nil pointer, slice or map without omitempty (as attributevalue does), and DynamoDB cannot add to, subtract from or append to a NULL: Set the whole value, or tag the field omitempty so that Put leaves a nil value out"
