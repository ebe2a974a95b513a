package write

// Binding an update, phase 2: its values, checked and encoded, into the
// request on the compiled shape of its changes (compile.go): the update
// expression's clauses and the recomputed index keys (Plan.Bind), what an
// upsert's new item gets besides (ZeroFills). The root's update_bind.go
// runs it between its managed fields' hooks and the condition.

import (
	"errors"
	"reflect"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/codec"
	"github.com/singletable/singletable/internal/expr"
	"github.com/singletable/singletable/internal/model"
	"github.com/singletable/singletable/internal/recycle"
)

// Plan is an Update resolved against the entity: the expression parts
// and what the item becomes, as far as the request knows it.
//
// What the item becomes is worked out from the changes only when something
// needs it (an index key or a unique guard that depends on a changed
// field), so that an update of plain fields builds no struct value and no
// lookup tables.
type Plan struct {
	// Update is the update expression's SET, REMOVE, ADD and DELETE
	// clauses.
	Update expr.Update

	M       *model.Entity
	Key     reflect.Value // the key value the update was given
	Changes []Change
	Shape   *Shape        // what the changes' shape decides (see Shape)
	next    reflect.Value // see NextValue; invalid until then
	nextPtr any           // what ReleaseNext recycles (see recycle.Pool.New)
	// Values recycles the struct values NextValue builds (the entity's).
	Values *recycle.Pool
	// CreatedField is the entity's created timestamp field, nil without one.
	CreatedField *codec.Field
	// Read is what Update read of the stored item before planning; nil
	// when it read nothing.
	Read *Stored
	// Need is set when index keys need fields the update neither gives nor
	// has read.
	Need *ReadNeeded
	// Created is the created timestamp a new item gets (zero without one):
	// what the index keys of an upsert-created item read.
	Created time.Time
	// Room hands out the values the update gives (its changes' values,
	// its index keys'), from room allocated with its action (the root's
	// updateAction) rather than one by one; the zero Room allocates each.
	Room codec.Room
	// Ranges are the room the changes to integer fields need.
	Ranges []RangeCheck
	// StoredBytes is what the values the item holds after the update add
	// up to (names of top-level attributes included): with the key, a
	// lower bound of the item's size.
	StoredBytes int
}

// keyValue is the string attribute value s, from the plan's room.
func (p *Plan) keyValue(s string) types.AttributeValue { return p.Room.S(s) }

// render adds operator o's action on path p with value av.
// It returns av's size (codec.Size).
func (p *Plan) render(o *Operator, b *expr.Builder, path string, av types.AttributeValue) (size int) {
	var k, v string
	if o.Konst != nil {
		k = b.Value(o.Konst(p.Room))
	}
	if av != nil {
		v, size = b.SizedValue(av)
	}
	p.Update.Template(o.Clause, o.Action, path, v, k)
	return size
}

// Bind resolves the field changes on their compiled shape sh and
// recomputes every index key that depends on a changed field, so that
// index keys are never stale. What the shape of the changes decides was
// checked once per shape (see Shape); what their values decide is checked
// here, on every call. M, Key and Changes are set already.
func (plan *Plan) Bind(op string, sh *Shape, b *expr.Builder) error {
	m := plan.M
	plan.Shape = sh
	for i, c := range plan.Changes {
		o := &Operators[c.Op]
		f, nested := sh.Fields[i], sh.Nested[i]
		if o.SkipOmittedZero && OmitsZero(m, c.Field, c.Value) {
			// Put never stores this zero value: setting it where there is
			// none would store what Put leaves out, and keep a later
			// SetIfNotExists from storing a real value.
			continue
		}
		p, err := changePath(m, b, f, nested, c.Field)
		if err != nil {
			return Inputf(op, "%s(%q): %v", o.Name, c.Field, err)
		}
		var av types.AttributeValue
		if o.Value != NoValue {
			if c.Value == nil && !nested && !Nillable(f.Type) {
				// A NULL in place of a string or a number would read back as
				// its zero value, and match no condition on it (nor a guard).
				return Inputf(op, "%s(%q): the field is a %s, which nil is not a value of: Remove the field, or give its zero value", o.Name, c.Field, f.Type)
			}
			// By the field's own rules, at any depth.
			if av, err = encodeChange(m, plan.Room, f, nested, c, o.Value == ElementValue); err != nil {
				if ke := m.KeyFieldError(f.GoName, err); ke != nil && !nested {
					return ke // a key field's value, as Put and Get say
				}
				return Inputf(op, "%s(%q): %v", o.Name, c.Field, err)
			}
		}
		// A raw AttributeValue tells nothing the model could check.
		if _, raw := c.Value.(types.AttributeValue); o.Settable && !nested && !raw && !Settable(m, f) {
			return Inputf(op, "%s(%q): the field is promoted through an unexported embedded pointer", o.Name, c.Field)
		}
		if o.Check != nil {
			if av, err = o.Check(m, c.Field, c.Value, f, av); err != nil {
				if ke := (*model.KeyError)(nil); errors.As(err, &ke) {
					return err // an index key the value would break, as Put says
				}
				return Inputf(op, "%s(%q): %v", o.Name, c.Field, err)
			}
			if av == nil {
				plan.Update.Act(expr.ClauseRemove, p) // what Put leaves out
				continue
			}
		}
		size := plan.render(o, b, p, av)
		if o.Stored {
			n := size
			if o.Value == ElementValue {
				n -= ListOverhead // elements joining a list, which has its own
			}
			if !nested {
				n += len(f.Attr)
			}
			plan.StoredBytes += n
		}
		if o.Sign != 0 {
			if rc, ok := RangeCheckOf(m, o, c.Field, f, nested, av); ok {
				plan.Ranges = append(plan.Ranges, rc)
			}
		}
	}

	var need *ReadNeeded
	for _, is := range sh.Indexes {
		ei := is.EI
		if len(is.Missing) > 0 {
			switch {
			case is.Affected && plan.leaves(ei):
				// The item leaves the index whatever the other fields hold.
				plan.Update.Act(expr.ClauseRemove, b.Name(ei.Index.PK))
				if ei.Index.SK != "" {
					plan.Update.Act(expr.ClauseRemove, b.Name(ei.Index.SK))
				}
				continue
			case !is.Affected:
				// An upsert: an existing item keeps its keys, and a new one
				// gets the keys its zero values give, if any.
				if _, _, ok, err := m.IndexKey(ei, plan.NextValue()); err != nil || !ok {
					if err != nil {
						return err
					}
					continue
				}
			}
			need = need.add(ei, is.Missing)
			continue
		}
		pk, sk, ok, err := plan.IndexKey(&is)
		if err != nil {
			return err
		}
		if !ok {
			if ei.PKFrom == model.KeyOwn {
				plan.Update.Act(expr.ClauseRemove, b.Name(ei.Index.PK))
			}
			if ei.Index.SK != "" && ei.SKFrom == model.KeyOwn {
				plan.Update.Act(expr.ClauseRemove, b.Name(ei.Index.SK))
			}
			continue
		}
		if ei.PKFrom == model.KeyOwn {
			plan.Update.Act(expr.ClauseSet, b.Name(ei.Index.PK), " = ", b.Value(plan.keyValue(pk)))
		}
		if ei.Index.SK != "" && ei.SKFrom == model.KeyOwn {
			plan.Update.Act(expr.ClauseSet, b.Name(ei.Index.SK), " = ", b.Value(plan.keyValue(sk)))
		}
	}
	if need != nil {
		// A value the update sets is checked against the index keys that
		// render it now, not after the read (see CheckIndexValue).
		for i, c := range plan.Changes {
			if o := &Operators[c.Op]; o.Computed || o.Value != WholeValue || sh.Nested[i] {
				continue
			}
			if _, raw := c.Value.(types.AttributeValue); raw {
				continue
			}
			if err := m.CheckIndexValue(sh.Fields[i].GoName, SetValue(c.Value, sh.Fields[i])); err != nil {
				return err
			}
		}
		// Returned by the root's planUpdate once everything else is
		// checked, so that no read is sent for an update that would fail
		// anyway (which names the operation).
		plan.Need = need
	}
	return nil
}

// changePath is the placeholder path of a change to path, below
// top-level field f when nested.
func changePath(m *model.Entity, b *expr.Builder, f *codec.Field, nested bool, path string) (string, error) {
	if !nested {
		return b.Name(f.Attr), nil
	}
	p, _, err := FieldPath(m, b, path)
	return p, err
}

// encodeChange encodes the value of change c to a path below top-level
// field f when nested, else to f itself, its values from room r.
func encodeChange(m *model.Entity, r codec.Room, f *codec.Field, nested bool, c Change, element bool) (types.AttributeValue, error) {
	if nested {
		return EncodeAt(m, r, nil, c.Field, c.Value, element)
	}
	return EncodeAt(m, r, f, f.GoName, c.Value, element)
}

// ZeroFill is an attribute Put stores for a field an upsert does not
// touch: its zero value.
type ZeroFill struct {
	Attr string
	AV   types.AttributeValue
}

// ZeroFills lists, for an upsert of changes, the attributes Put stores for
// the fields the update does not touch (their zero values; Put leaves out
// the omitempty ones): what an item the upsert creates gets besides what
// the update names. Key fields and the fields manages says the managed
// fields set are not among them.
func ZeroFills(m *model.Entity, changes []Change, manages func(*codec.Field) bool) ([]ZeroFill, error) {
	zero := make(map[string]types.AttributeValue, len(m.Fields.List))
	if _, err := m.Plan.Encode(reflect.New(m.Type).Elem(), zero); err != nil {
		return nil, err
	}
	var out []ZeroFill
	for i := range m.Fields.List {
		f := &m.Fields.List[i]
		av, ok := zero[f.Attr]
		if !ok || m.KeyFields[f.GoName] || manages(f) || Touches(changes, f.GoName) {
			continue
		}
		out = append(out, ZeroFill{f.Attr, av})
	}
	return out, nil
}
