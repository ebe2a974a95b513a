package write

// Reading first, phase 3's decisions: what an update must read before it
// can be bound (ReadNeeded, the answer binding gives when index keys need
// fields the update neither gives nor has read), what the read projects,
// what was read (Stored) or given instead (GivenRead, from Current), and
// whether a read is stale. Sending the read, and the retry, are the
// root's (update_read.go).

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/codec"
	"github.com/singletable/singletable/internal/expr"
	"github.com/singletable/singletable/internal/model"
	"github.com/singletable/singletable/internal/read"
)

// Stored is what Update read of the stored item, strongly consistent,
// before planning: the fields the update needs and does not give. An
// update given Current takes them from the caller's copy instead (see
// GivenRead): the copy stands in for the read, so the plan, and the
// condition that the fields are still as read, are the read path's own.
type Stored struct {
	Found bool
	// Given: the caller gave the fields (Current), nothing was read; a
	// failed condition is then the root's *StaleError (see StaleField).
	Given bool
	// Fields are the Go fields read, sorted; Attrs their attributes as
	// stored (absent ones missing).
	Fields []string
	Attrs  map[string]types.AttributeValue
	// Check holds the attributes whose change makes another attempt
	// worth it: Attrs, and the unique fields when the update moves a guard.
	Check map[string]types.AttributeValue
	// Value holds the key fields and the fields read; for an item not
	// found, the key fields and the created timestamp a new one gets.
	Value reflect.Value
}

// NewStored is a Stored of fields, found or not, its value a zero struct
// value of m's type and its maps empty.
func NewStored(m *model.Entity, found bool, fields []string) *Stored {
	return &Stored{Found: found, Fields: fields, Value: reflect.New(m.Type).Elem(),
		Attrs: map[string]types.AttributeValue{}, Check: map[string]types.AttributeValue{}}
}

// Has reports whether the read tells field goName's value: every field
// of an item that does not exist (an upsert creates it from zero values).
func (r *Stored) Has(goName string) bool {
	return r != nil && (!r.Found || slices.Contains(r.Fields, goName))
}

// Same reports whether two reads of the item saw the same thing: both
// found it or neither, with the same attributes to check.
func (r *Stored) Same(o *Stored) bool {
	if r.Found != o.Found || len(r.Check) != len(o.Check) {
		return false
	}
	for a, v := range r.Check {
		if !reflect.DeepEqual(v, o.Check[a]) {
			return false
		}
	}
	return true
}

// ReadProjection is the projection of a read of fields that is not of the
// whole item: the partition key (which tells whether the item exists), the
// type (whether it is this entity's), then the fields' attributes.
func ReadProjection(m *model.Entity, fields []string) (*string, map[string]string) {
	var b expr.Builder
	var proj strings.Builder
	head := []string{m.Schema.PK, m.Schema.TypeAttr}
	if m.Schema.TypeByKeys && m.Schema.SK != "" {
		// An item without the type is told apart by its keys: both.
		head = append(head, m.Schema.SK)
	}
	for i, a := range append(head, AttrsOf(m, fields)...) {
		if i > 0 {
			proj.WriteString(", ")
		}
		proj.WriteString(b.Name(a))
	}
	s := proj.String()
	return &s, b.Names
}

// Record records what the read of item (found, decoded into r.Value
// already) holds of r's fields; with full (a read of the whole item, for
// an update that moves a unique guard), also the guarded fields' values
// and the expiry expires (nil: none), which the guards carry.
func (r *Stored) Record(m *model.Entity, item map[string]types.AttributeValue, full bool, guarded []*codec.Field, expires *codec.Field) {
	// Attrs go into the requests that follow, which a Client may
	// modify down to the values; Check is the library's own record of
	// what was read, so it holds copies.
	for _, a := range AttrsOf(m, r.Fields) {
		if v, ok := item[a]; ok {
			r.Attrs[a], r.Check[a] = v, read.CopyValue(v)
		}
	}
	for _, f := range guarded {
		if v, ok := item[f.Attr]; ok && full {
			r.Check[f.Attr] = read.CopyValue(v)
		}
	}
	if exp := expires; exp != nil && full {
		// The guards carry the expiry read (the root's guardExpiry).
		if v, ok := item[exp.Attr]; ok {
			r.Attrs[exp.Attr], r.Check[exp.Attr] = v, read.CopyValue(v)
		}
	}
}

// AttrsOf maps Go field names to their attribute names.
func AttrsOf(m *model.Entity, fields []string) []string {
	out := make([]string, 0, len(fields))
	for _, name := range fields {
		if f, ok := m.Fields.ByGoName(name); ok {
			out = append(out, f.Attr)
		}
	}
	return out
}

// GivenRead is what a read of fields would have found, taken from cur: an
// item that exists, holding each field's attribute as Put stores it.
func GivenRead(m *model.Entity, cur, key reflect.Value, fields []string) (*Stored, error) {
	item := make(map[string]types.AttributeValue, len(m.Fields.List))
	if _, err := m.Plan.Encode(cur, item); err != nil {
		return nil, err
	}
	r := NewStored(m, true, fields)
	r.Given = true
	for _, name := range fields {
		f, ok := m.Fields.ByGoName(name)
		if !ok {
			continue
		}
		if fv, ok := SettableField(r.Value, f.Index); ok {
			fv.Set(FieldValue(f, cur))
		}
		if v, ok := item[f.Attr]; ok {
			// Attrs go into the request, which a Client may modify;
			// Check is the library's own record (StaleField compares it).
			r.Attrs[f.Attr], r.Check[f.Attr] = v, read.CopyValue(v)
		}
	}
	BaseValue(m, nil, r.Value, key, time.Time{})
	return r, nil
}

// StaleField names the first field taken from Current's value that item
// holds otherwise, with the two values; "" when they all agree.
func (r *Stored) StaleField(m *model.Entity, item map[string]types.AttributeValue) (name string, given, stored types.AttributeValue) {
	for _, name := range r.Fields {
		f, ok := m.Fields.ByGoName(name)
		if !ok {
			continue
		}
		// Check, not Attrs: the request carried Attrs, and the Client may
		// have modified them since.
		given, stored = r.Check[f.Attr], item[f.Attr]
		if (given == nil) != (stored == nil) || (given != nil && !codec.Equal(given, stored)) {
			return name, given, stored
		}
	}
	return "", nil, nil
}

// ReadNeeded is binding's answer when index keys need fields the update
// neither gives nor has read: Update reads them and plans again; the
// callers that cannot read turn it into a *ReadNeededError (Explain).
type ReadNeeded struct {
	Op      string
	first   *model.EntityIndex // the first index that needs a read
	missing []string           // what first needs, sorted
	// Fields are what every such index needs, sorted.
	Fields []string
	// expiry is the expiry field of an upsert that needs to know whether
	// the item exists (ExpiresAfter gives only a new item its expiry),
	// when no index needs a read.
	expiry *codec.Field
}

func (r *ReadNeeded) Error() string {
	return r.Explain("Set them too (to their current values if they do not change)").Error()
}

// NeedExists records that the upsert needs to know whether the item
// exists, to give a new one the expiry of field f (see the root's
// expiryField.onUpdate in managed_expiry.go).
func (r *ReadNeeded) NeedExists(f *codec.Field) *ReadNeeded {
	if r == nil {
		r = &ReadNeeded{}
	}
	r.expiry = f
	return r
}

// add records that index ei needs fields missing (sorted, not modified).
func (r *ReadNeeded) add(ei *model.EntityIndex, missing []string) *ReadNeeded {
	if r == nil {
		r = &ReadNeeded{first: ei, missing: missing}
	}
	for _, f := range missing {
		if !slices.Contains(r.Fields, f) {
			r.Fields = append(r.Fields, f)
		}
	}
	slices.Sort(r.Fields)
	return r
}

// Explain is the *ReadNeededError for a caller that cannot read, advice
// saying what to do instead.
func (r *ReadNeeded) Explain(advice string) *ReadNeededError {
	if r.first == nil {
		f := r.expiry.GoName
		return &ReadNeededError{Op: r.Op,
			Reason: fmt.Sprintf("the upsert gives a new item ExpiresAfter's expiry, and an existing one keeps its own (or none): whether the item exists needs a read (Update reads first); Set %s, or SetIfNotExists(%q, ...) for the expiry of an item that has none, to send it as one request", f, f)}
	}
	return &ReadNeededError{Op: r.Op, Index: r.first.Index.Name, Fields: r.Fields,
		Reason: fmt.Sprintf("the change to index %s's key (%s) also needs %s: %s",
			r.first.Index.Name, r.first.Describe(), strings.Join(r.missing, ", "), advice)}
}
