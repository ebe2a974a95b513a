package write

// An update's request skeleton: for an update of a shape seen before whose
// values took the same decisions (see FastValues), everything but the
// values is what the last such request held, so the request is its values
// filled into fresh maps rather than planned again (the root's
// update_skeleton.go).

import (
	"encoding/binary"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/codec"
	"github.com/singletable/singletable/internal/expr"
	"github.com/singletable/singletable/internal/model"
)

// Skeleton is what an update's request holds besides its values, for the
// updates of one shape (ShapeKey) whose values decide alike (FastValues'
// decisions): taken from a request the general planner built, and kept
// only once a request filled from it matched that request byte for byte.
// Shared and never modified: a request gets its own maps, filled from it.
type Skeleton struct {
	// Update is the update expression.
	Update string
	// Names are the attribute names the update expression's placeholders
	// stand for (#n0, #n1 ... in order), and NameBytes what they count
	// toward the request's size (see expr.Builder.Bytes).
	Names     []string
	NameBytes int
	// Cond, when CondFixed, is the whole condition expression (the
	// update's own and the caller's, whose shape is part of the key and
	// whose values are bound after the update's; no range check) and
	// Names include its names; else the condition is rendered on every
	// call.
	Cond      string
	CondFixed bool
}

// SkeletonKey appends to buf the key of a skeleton: shapeKey (ShapeKey),
// length first so that the decisions after it cannot be read as part of
// it, then the decisions (FastValues' sig).
func SkeletonKey(buf, shapeKey, sig []byte) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(shapeKey)))
	buf = append(buf, shapeKey...)
	return append(buf, sig...)
}

// The decisions FastValues records, one byte per change and per index.
const (
	sigSkipped = 's' // an omitempty zero: the change does nothing
	sigRemoved = 'r' // the value is one Put leaves out: REMOVE
	sigValue   = 'v' // the change's action, with its value(s)
	sigRange   = 'g' // sigValue, and a range check in the condition
	sigKeys    = 'k' // the index's keys are set
	sigNoKeys  = 'x' // the index's keys are removed
)

// FastValues is Bind without the expression: for an update whose changes
// are all to top-level fields with Go values and whose indexes need no
// read, it appends to vals the values Bind would bind, in Bind's order
// (an operator's constant, then the change's value; then each index's
// keys), and to sig one decision per change and index (what the values
// decide of the request's shape: a change skipped, a REMOVE, a range
// check, an index's keys set or removed). It sets StoredBytes and Ranges
// as Bind does, and returns the values' share of the request's size
// (placeholders and values, see expr.Builder.Bytes). ok is false for
// anything else, an error included: Bind then plans the update, and says
// what is wrong.
func (plan *Plan) FastValues(sh *Shape, vals []types.AttributeValue, sig []byte) (_ []types.AttributeValue, _ []byte, bytes int, ok bool) {
	m := plan.M
	plan.Shape = sh
	add := func(av types.AttributeValue) int {
		size := codec.Size(av)
		bytes += len(expr.ValuePlaceholder(len(vals))) + size
		vals = append(vals, av)
		return size
	}
	for i, c := range plan.Changes {
		o := &Operators[c.Op]
		f := sh.Fields[i]
		if _, raw := c.Value.(types.AttributeValue); sh.Nested[i] || raw {
			return nil, nil, 0, false
		}
		if o.SkipOmittedZero && OmitsZero(m, c.Field, c.Value) {
			sig = append(sig, sigSkipped)
			continue
		}
		var av types.AttributeValue
		if o.Value != NoValue {
			if c.Value == nil {
				return nil, nil, 0, false
			}
			var err error
			if av, err = encodeChange(m, plan.Room, f, false, c, o.Value == ElementValue); err != nil {
				return nil, nil, 0, false
			}
		}
		if o.Settable && !Settable(m, f) {
			return nil, nil, 0, false
		}
		if o.Check != nil {
			var err error
			if av, err = o.Check(m, c.Field, c.Value, f, av); err != nil {
				return nil, nil, 0, false
			}
			if av == nil {
				sig = append(sig, sigRemoved)
				continue
			}
		}
		if o.Konst != nil {
			add(o.Konst(plan.Room))
		}
		size := 0
		if av != nil {
			size = add(av)
		}
		if o.Stored {
			n := size
			if o.Value == ElementValue {
				n -= ListOverhead
			}
			plan.StoredBytes += n + len(f.Attr)
		}
		d := byte(sigValue)
		if o.Sign != 0 {
			if rc, ok := RangeCheckOf(m, o, c.Field, f, false, av); ok {
				plan.Ranges = append(plan.Ranges, rc)
				d = sigRange
			}
		}
		sig = append(sig, d)
	}
	for i := range sh.Indexes {
		is := &sh.Indexes[i]
		if len(is.Missing) > 0 {
			return nil, nil, 0, false
		}
		pk, sk, ok, err := plan.IndexKey(is)
		if err != nil {
			return nil, nil, 0, false
		}
		if !ok {
			sig = append(sig, sigNoKeys)
			continue
		}
		sig = append(sig, sigKeys)
		ei := is.EI
		if ei.PKFrom == model.KeyOwn {
			add(plan.keyValue(pk))
		}
		if ei.Index.SK != "" && ei.SKFrom == model.KeyOwn {
			add(plan.keyValue(sk))
		}
	}
	return vals, sig, bytes, true
}
