package singletable

import (
	"reflect"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/codec"
	"github.com/singletable/singletable/internal/expr"
	writes "github.com/singletable/singletable/internal/write"
)

// Timestamps declares the fields that hold when an item was created and
// last updated (either may be ""), as the tags `singletable:"created"` and
// `singletable:"updated"` do. They are time.Time (stored by their dynamodbav
// rules) or integers (Unix seconds), set from the DB's clock (WithClock):
// Create, and Put of an item whose created field is zero, set created;
// Update sets it only when the stored item has none (if_not_exists), so it
// is never overwritten; every write sets updated.
func Timestamps(created, updated string) EntityOption {
	return writeOption(func(s *writeSpec) {
		s.set("created", created)
		s.set("updated", updated)
	})
}

// timestampsField is the timestamps feature: the created and updated
// fields (either may be nil), whose hooks apply updated first.
type timestampsField struct {
	noHooks
	created, updated *codec.Field
	// indexed is set when an index key or When condition reads the
	// updated field, which every Update changes.
	indexed bool
}

// resolveTimestamps resolves the created and updated fields: time.Time or
// integers.
func resolveTimestamps(r *managedResolver) (managedField, *ModelError) {
	h := &timestampsField{}
	for _, role := range [...]string{"created", "updated"} {
		f, err := r.one(role)
		if err != nil {
			return nil, err
		}
		if f == nil {
			continue
		}
		if f.Type != timeType && (!isIntegerType(f.Type) || f.Tag.AsString) {
			return nil, r.fail(f.GoName, "the %s timestamp must be a time.Time or an integer (Unix seconds), not %s", role, f.Type)
		}
		if role == "created" {
			h.created = f
		} else {
			h.updated = f
		}
	}
	if h.created == nil && h.updated == nil {
		return nil, nil
	}
	if h.updated != nil {
		for _, ei := range r.m.Indexes {
			h.indexed = h.indexed || ei.DependsOn(h.updated.GoName)
		}
	}
	r.m.managed.created, r.m.managed.updated = h.created, h.updated
	return h, nil
}

// onPut sets updated, and created when v has none.
func (h *timestampsField) onPut(w *write, v reflect.Value) error {
	if f := h.updated; f != nil {
		setTimestamp(f, v, w.now)
	}
	if f := h.created; f != nil && fieldValue(f, v).IsZero() {
		setTimestamp(f, v, w.now)
	}
	return nil
}

// beforeUpdate adds what the update's changes and index keys must see: an
// updated timestamp that an index key reads is planned as a Set (so that
// the key follows it), and an upsert's created timestamp is what the index
// keys of a new item read.
func (h *timestampsField) beforeUpdate(w *write, s *settings, plan *writes.Plan) (add change, ok bool) {
	if f := h.updated; f != nil && h.indexed && !touches(s.changes, f.GoName) {
		add, ok = change{Op: changeSet, Field: f.GoName, Value: w.a.m.timestampGo(f, w.now)}, true
	}
	if f := h.created; f != nil && s.upsert && !touches(s.changes, f.GoName) {
		plan.Created = w.now
		if r := plan.Read; r != nil && !r.Found {
			setTimestamp(f, r.Value, w.now)
		}
	}
	return add, ok
}

// onUpdate sets the updated timestamp, and the created one if the item has
// none, unless a change sets them.
func (h *timestampsField) onUpdate(w *write, plan *writes.Plan) error {
	for _, f := range [...]*codec.Field{h.updated, h.created} {
		if f == nil || plan.Touches(f.GoName) {
			continue
		}
		av, err := w.a.m.timestampValue(f, w.now)
		if err != nil {
			return &InputError{Op: w.a.op, Reason: err.Error()}
		}
		b := w.b
		n := b.Name(f.Attr)
		if f == h.updated {
			plan.Update.Act(expr.ClauseSet, n, " = ", b.Value(av))
		} else {
			plan.Update.Act(expr.ClauseSet, n, " = if_not_exists(", n, ", ", b.Value(av), ")")
		}
	}
	return nil
}

// fills reports whether every write fills field goName: the created and
// updated timestamps, which are never the zero time once written.
func (mf *managed) fills(goName string) bool {
	for _, f := range [...]*codec.Field{mf.created, mf.updated} {
		if f != nil && f.GoName == goName {
			return true
		}
	}
	return false
}

// setTimestamp stores now into a timestamp field of struct value v (see
// writes.SetTimestamp).
func setTimestamp(f *codec.Field, v reflect.Value, now time.Time) { writes.SetTimestamp(f, v, now) }

// timestampGo is now as the Go value of a timestamp field.
func (m *entityModel) timestampGo(f *codec.Field, now time.Time) any {
	holder := reflect.New(m.Type).Elem()
	setTimestamp(f, holder, now)
	return fieldValue(f, holder).Interface()
}

// timestampValue is now as a timestamp field stores it.
func (m *entityModel) timestampValue(f *codec.Field, now time.Time) (types.AttributeValue, error) {
	holder := reflect.New(m.Type).Elem()
	setTimestamp(f, holder, now)
	return m.encodeValue(f.GoName, fieldValue(f, holder).Interface(), false)
}
