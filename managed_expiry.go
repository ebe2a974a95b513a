package singletable

import (
	"fmt"
	"reflect"
	"time"

	"github.com/singletable/singletable/internal/codec"
	"github.com/singletable/singletable/internal/expr"
	writes "github.com/singletable/singletable/internal/write"
)

// The expiry feature: the field stored under the table's TTL attribute,
// which ExpiresAfter may set. What reads do with it is in ttl.go.

// Expires declares the entity's expiry field, as the tag
// `singletable:"expires"` does. The field must be stored under the table's
// TTL attribute (see WithTTL) as epoch seconds: an integer, or a time.Time
// tagged `dynamodbav:"<ttl>,unixtime"`, or a pointer to either (nil: no
// expiry). A table with no TTL attribute, a
// field stored under another attribute, or one that is also a key, version
// or timestamp field is a *ModelError. Reads leave out expired items (see
// IncludeExpired).
func Expires(field string) EntityOption {
	return writeOption(func(s *writeSpec) { s.set("expires", field) })
}

// ExpiresAfter gives every new item of the entity an expiry d after it is
// written, by the DB's clock: Put, Create, TxPut, TxCreate and BatchWrite
// set the expiry field when it is zero (a value given is kept), and an
// Update with Upsert sets it when it creates the item: an existing item
// keeps its expiry, none included (an item made live for good stays so),
// so such an upsert reads first whether the item exists (TxUpdate and
// UpdateInput, which cannot read, are a *ReadNeededError unless the update
// Sets the expiry, or SetIfNotExists it). Update does not refresh it
// otherwise: an expiry that slides with use (a session extended on each
// request) is an explicit change, Set("ExpiresAt", now.Add(d)), so that a
// write never moves it by surprise.
// The entity needs an expiry field (Expires, or a field stored under the
// table's TTL attribute) that no index key reads; d must be positive.
func ExpiresAfter(d time.Duration) EntityOption {
	return writeOption(func(s *writeSpec) { s.expiresAfter, s.hasExpiresAfter = d, true })
}

// expiryField is the expiry feature's hooks, which only ExpiresAfter
// needs: the expiry of a new item.
type expiryField struct {
	noHooks
	field *codec.Field
	after time.Duration
}

// resolveExpiry resolves the entity's expiry field: declared (the names
// Expires and the tags give) or the field stored under the TTL attribute.
// It runs after the other managed fields are resolved.
func resolveExpiry(r *managedResolver) (managedField, *ModelError) {
	m, spec := r.m, r.spec
	t := m.table
	declared := r.names["expires"]
	var f *codec.Field
	switch len(declared) {
	case 0:
		if t.schema.TTLAttr != "" {
			f, _ = m.Fields.ByAttr(t.schema.TTLAttr)
		}
	case 1:
		name := declared[0]
		if t.schema.TTLAttr == "" {
			return nil, r.fail(name, "declared as the expiry field, but table %s declares no TTL attribute: add WithTTL(\"ttl\") to the table", t.schema.Name)
		}
		var ok bool
		if f, ok = m.Fields.ByGoName(name); !ok {
			return nil, r.fail(name, "%s", m.noSuchField(name, "the expiry field"))
		}
		if f.Attr != t.schema.TTLAttr {
			return nil, r.fail(name, "the expiry field is stored as attribute %q, but DynamoDB's time to live reads %q: tag it `dynamodbav:\"%s,unixtime\"` (a time.Time) or `dynamodbav:\"%s\"` (epoch seconds)", f.Attr, t.schema.TTLAttr, t.schema.TTLAttr, t.schema.TTLAttr)
		}
	default:
		return nil, r.fail("", "%d fields are declared as the expiry field; an entity has one", len(declared))
	}
	if spec.hasExpiresAfter {
		switch {
		case f == nil:
			return nil, r.fail("", "ExpiresAfter needs an expiry field: declare one with Expires, stored under the table's TTL attribute")
		case spec.expiresAfter <= 0:
			return nil, r.fail(f.GoName, "ExpiresAfter(%s): the duration must be positive", spec.expiresAfter)
		}
		for _, ei := range m.Indexes {
			if ei.DependsOn(f.GoName) {
				// An upsert sets it on the server (if_not_exists), where no
				// index key could follow it.
				return nil, r.fail(f.GoName, "index %s's key or When condition reads the expiry field, which ExpiresAfter sets; key the index on other fields", ei.Index.Name)
			}
		}
	}
	if f == nil {
		return nil, nil
	}
	// The type rule of the TTL attribute is Define's (model.IsTTLField).
	switch {
	case m.KeyFields[f.GoName]:
		return nil, r.fail(f.GoName, "the expiry field cannot be part of the primary key")
	case m.managed.manages(f):
		return nil, r.fail(f.GoName, "the field is declared both as the expiry field and as a version or timestamp field")
	case !m.settable(f):
		return nil, r.fail(f.GoName, "the expiry field is promoted through an unexported embedded pointer, which a write cannot set")
	}
	m.managed.expires, m.managed.expiresAfter = f, spec.expiresAfter
	if spec.expiresAfter <= 0 {
		return nil, nil // an expiry that writes leave as given
	}
	return &expiryField{field: f, after: spec.expiresAfter}, nil
}

// setExpiry stores expiry at into field f of struct value v in whole
// seconds, as the attribute holds it, so that the value a write returns is
// the value a read gets.
func setExpiry(f *codec.Field, v reflect.Value, at time.Time) {
	setTimestamp(f, v, time.Unix(at.Unix(), 0))
}

// onPut sets a new item's expiry (ExpiresAfter) when it has none.
func (h *expiryField) onPut(w *write, v reflect.Value) error {
	if f := h.field; fieldValue(f, v).IsZero() {
		setExpiry(f, v, w.now.Add(h.after))
	}
	return nil
}

// onUpdate gives the item an upsert creates ExpiresAfter's expiry, and
// leaves an existing item's expiry alone, none included (an item made live
// for good stays so): whether the item exists takes a read, which the
// update asks for (see writes.ReadNeeded) unless it has read already, or it sets
// the expiry itself.
func (h *expiryField) onUpdate(w *write, plan *writes.Plan) error {
	if !w.upsert || plan.Touches(h.field.GoName) {
		return nil
	}
	if plan.Read == nil {
		plan.Need = plan.Need.NeedExists(h.field)
		return nil
	}
	if plan.Read.Found {
		return nil
	}
	m, f, b := w.a.m, h.field, w.b
	holder := reflect.New(m.Type).Elem()
	setExpiry(f, holder, w.now.Add(h.after))
	av, err := m.encodeValue(f.GoName, fieldValue(f, holder).Interface(), false)
	if err != nil {
		return &InputError{Op: w.a.op, Reason: err.Error()}
	}
	plan.Update.Act(expr.ClauseSet, b.Name(f.Attr), " = ", b.Value(av))
	return nil
}

// guardExpiry sets the expiry the update's guard items carry (w.guardTTL):
// the item's after the update, which Update knows from the item it read
// first (see changedUnique); an expiry that may have changed since is
// held, so that the guards never outlive or predate their item. TxUpdate
// reads nothing, and refuses such an update; the plan Update makes before
// reading (to check the input) carries none. The unique feature calls it.
func guardExpiry(w *write, plan *writes.Plan) error {
	r := plan.Read
	if w.hasGuardTTL || r == nil { // once for all the unique fields
		return nil
	}
	a, m := w.a, w.a.m
	exp := m.managed.expires
	for _, c := range plan.Changes {
		if topField(c.Field) == exp.GoName && c.Op != changeSet && c.Op != changeRemove {
			return &InputError{Op: a.op, Reason: fmt.Sprintf("%s(%q): entity %s has unique fields, whose guard items carry the expiry: Set or Remove it", writes.Operators[c.Op].Name, c.Field, m.Name)}
		}
	}
	v := plan.NextValue()
	switch {
	case plan.Touches(exp.GoName):
	case !r.Found && m.managed.expiresAfter > 0:
		// An upsert creating the item: ExpiresAfter's expiry.
		v = reflect.New(m.Type).Elem()
		setExpiry(exp, v, w.now.Add(m.managed.expiresAfter))
	case r.Found:
		if stored, ok := r.Attrs[exp.Attr]; ok {
			w.hold(Eq(exp.GoName, stored))
		} else {
			w.hold(NotExists(exp.GoName))
		}
	}
	av, err := m.encodeValue(exp.GoName, fieldValue(exp, v).Interface(), false)
	if err != nil {
		return &InputError{Op: a.op, Reason: err.Error()}
	}
	w.guardTTL, w.hasGuardTTL = av, true
	return nil
}
