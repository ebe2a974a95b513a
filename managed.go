package singletable

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/singletable/singletable/internal/codec"
	"github.com/singletable/singletable/internal/noescape"
	writes "github.com/singletable/singletable/internal/write"
)

// Managed fields
//
// Some fields are managed by the library on every write. Declare them with a
// `singletable` struct tag or with an entity option:
//
//	Version int64     `singletable:"version"` // or Version("Version")
//	Created time.Time `singletable:"created"` // or Timestamps("Created", "Updated")
//	Updated time.Time `singletable:"updated"`
//	Email   string    `singletable:"unique"`  // or Unique("Email")
//
// A version field (an integer) is optimistic locking: every write checks it
// and stores it plus one; see Entity.Put, Entity.Update and Entity.Delete.
// Timestamps (time.Time, stored by its dynamodbav rules, or an integer of
// Unix seconds) are set from the DB's clock (WithClock): created once, when
// the item is created, and updated on every write. A unique field (a string
// or an integer) holds a value no other item of the entity may hold; see
// Unique.
//
// Each kind of managed field is a feature in a file of its own
// (managed_version.go, managed_timestamps.go, managed_unique.go,
// managed_expiry.go, managed_compress.go, managed_revision.go), registered in managedFeatures:
// Define resolves each in turn (resolveManaged), and each that the entity
// uses gives a managedField, whose hooks every write applies from one call
// per step:
// onPut (Put, Create, TxPut, TxCreate, BatchWrite puts), beforeUpdate and
// onUpdate (Update, TxUpdate), onDelete (Delete, TxDelete, BatchWrite
// deletes). What a batch may do with a field is the hook's to say too.
// A feature is one file and one line in managedFeatures; one that changes
// how its field is stored does so through the codec plan (compression:
// codec.Plan.Transformed), and one with options beyond naming its fields
// keeps them in writeSpec.settings.

// managedField is the hooks of one managed feature of an entity. Each
// appends what its write needs to w: values set in the item, clauses of an
// update, conditions (w.check before the caller's condition, w.hold after
// it), and guard items (w.guard). A hook must not keep w, s or plan past
// its call: they are on the planner's stack (see managed.onPut).
type managedField interface {
	// onPut sets the fields in v, the item a put stores (see planPut), and
	// adds what the put needs.
	onPut(w *write, v reflect.Value) error
	// beforeUpdate adds what an update's changes and index keys must see,
	// before the changes are planned (see planUpdate): a change to add to
	// s's (ok), or what it sets in plan.
	beforeUpdate(w *write, s *settings, plan *writes.Plan) (add change, ok bool)
	// onUpdate adds the clauses, conditions and guard items of an update
	// whose changes are planned.
	onUpdate(w *write, plan *writes.Plan) error
	// onDelete adds the conditions and guard deletions of a delete.
	onDelete(w *write) error
}

// managedFeature is one kind of managed field, as Define resolves it.
type managedFeature struct {
	// roles are the roles its fields are declared in: the options of the
	// `singletable` tag, and the keys of writeSpec.fields.
	roles []string
	// resolve checks the fields declared in its roles and records them in
	// the model's managed; it returns the feature's hooks, nil when the
	// entity has none.
	resolve func(r *managedResolver) (managedField, *ModelError)
}

// managedFeatures are the managed features, in the order Define resolves
// them and every write applies their hooks, which is the order their
// clauses and conditions appear in a request.
var managedFeatures = [...]managedFeature{
	{[]string{"version"}, resolveVersion},
	{[]string{"created", "updated"}, resolveTimestamps},
	{[]string{"unique"}, resolveUnique},
	{[]string{"expires"}, resolveExpiry},
	{[]string{"compress"}, resolveCompress},
	{nil, resolveRevision},
}

// writeSpec collects the managed-field entity options.
type writeSpec struct {
	// fields are the Go fields the options declare, by role.
	fields map[string][]string
	// expiresAfter is ExpiresAfter's duration, once hasExpiresAfter
	// (managed_expiry.go).
	expiresAfter    time.Duration
	hasExpiresAfter bool
	// settings are a feature's own settings, by its role, for options
	// beyond naming fields (managed_compress.go: its codec and threshold).
	settings map[string]any
}

// set declares fields as role's, replacing what an earlier option declared.
func (s *writeSpec) set(role string, fields ...string) {
	if s.fields == nil {
		s.fields = map[string][]string{}
	}
	s.fields[role] = fields
}

// add declares fields as role's too.
func (s *writeSpec) add(role string, fields ...string) {
	s.set(role, append(s.fields[role], fields...)...)
}

// managed is an entity's managed fields: the hooks every write applies,
// and the fields by kind, for what is not a write of its own (the checks
// of an Update's changes, the reads before a write, messages).
type managed struct {
	fields           []managedField
	version          *codec.Field
	created, updated *codec.Field
	unique           []*codec.Field
	// scopes are the unique fields' scopes, in the same order: nil for a
	// field unique table-wide (managed_unique.go).
	scopes []*codec.Field
	// expires is the expiry field, stored under the TTL attribute, and
	// expiresAfter what ExpiresAfter gives a new item (managed_expiry.go).
	expires      *codec.Field
	expiresAfter time.Duration
	// revision is the shape revision, stored in its own attribute
	// (managed_revision.go).
	revision *revisionField
}

type writeOption func(*writeSpec)

func (o writeOption) applyEntity(s *entitySpec) { o(&s.write) }

// managedResolver is what the features resolve their fields from: the
// Go fields declared in each role, by the options and the tags.
type managedResolver struct {
	m    *entityModel
	spec *writeSpec
	// names are the Go fields declared in each role, options first.
	names map[string][]string
	// used is the role each field resolved is declared in.
	used map[string]string
}

// resolveManaged resolves the managed fields of an entity being defined,
// from the options and the `singletable` tags: each feature of
// managedFeatures in turn.
func resolveManaged(spec *entitySpec, m *entityModel) *ModelError {
	r := &managedResolver{m: m, spec: &spec.write, names: map[string][]string{}, used: map[string]string{}}
	var roles []string
	for _, mf := range managedFeatures {
		roles = append(roles, mf.roles...)
	}
	for _, role := range roles {
		for _, f := range spec.write.fields[role] {
			r.declare(role, f)
		}
	}
	for _, f := range m.Fields.List {
		tag := f.Extra.Get("singletable")
		if tag == "" {
			continue
		}
		for _, role := range strings.Split(tag, ",") {
			switch role = strings.TrimSpace(role); {
			case slices.Contains(roles, role):
				r.declare(role, f.GoName)
			case strings.HasPrefix(role, "unique "):
				// "unique within TenantID" (managed_unique.go).
				r.declare("unique", f.GoName+strings.TrimPrefix(role, "unique"))
			case role == "":
			default:
				want := strings.Join(roles[:len(roles)-1], ", ") + " or " + roles[len(roles)-1]
				return r.fail(f.GoName, "unknown singletable tag option %q (want %s)", role, want)
			}
		}
	}
	for _, mf := range managedFeatures {
		f, err := mf.resolve(r)
		if err != nil {
			return err
		}
		if f != nil {
			m.managed.fields = append(m.managed.fields, f)
		}
	}
	return nil
}

// declare records Go field name as declared in role, once.
func (r *managedResolver) declare(role, name string) {
	if name != "" && !slices.Contains(r.names[role], name) {
		r.names[role] = append(r.names[role], name)
	}
}

func (r *managedResolver) fail(field, reason string, args ...any) *ModelError {
	return &ModelError{Table: r.m.table.schema.Name, Entity: r.m.Name, Field: field, Reason: fmt.Sprintf(reason, args...)}
}

// lookup finds the field declared as name in role; a key field only if
// keyOK.
func (r *managedResolver) lookup(role, name string, keyOK bool) (*codec.Field, *ModelError) {
	f, ok := r.m.Fields.ByGoName(name)
	if !ok {
		return nil, r.fail(name, "%s", r.m.noSuchField(name, "the "+role+" field"))
	}
	if r.m.KeyFields[name] && !keyOK {
		return nil, r.fail(name, "the %s field cannot be part of the primary key", role)
	}
	return f, nil
}

// claim records f as role's, refusing a field declared in two roles.
func (r *managedResolver) claim(role string, f *codec.Field) *ModelError {
	if prev, ok := r.used[f.GoName]; ok {
		return r.fail(f.GoName, "the field is declared both as the %s field and as the %s field", prev, role)
	}
	r.used[f.GoName] = role
	return nil
}

// one resolves the single field of role, which a write sets (nil when
// none is declared).
func (r *managedResolver) one(role string) (*codec.Field, *ModelError) {
	names := r.names[role]
	switch len(names) {
	case 0:
		return nil, nil
	case 1:
	default:
		return nil, r.fail("", "%d fields are declared as the %s field (%s); an entity has one", len(names), role, strings.Join(names, ", "))
	}
	f, err := r.lookup(role, names[0], false)
	if err != nil {
		return nil, err
	}
	if err := r.claim(role, f); err != nil {
		return nil, err
	}
	if !r.m.settable(f) {
		return nil, r.fail(f.GoName, "the %s field is promoted through an unexported embedded pointer, which a write cannot set", role)
	}
	return f, nil
}

func isIntegerType(t reflect.Type) bool {
	k := t.Kind()
	return (k >= reflect.Int && k <= reflect.Int64) || (k >= reflect.Uint && k <= reflect.Uint64)
}

// manages reports whether f is the version or a timestamp field, which
// every write sets itself, or an expiry that ExpiresAfter sets.
func (mf *managed) manages(f *codec.Field) bool {
	return is(mf.version, f) || is(mf.created, f) || is(mf.updated, f) || (mf.expiresAfter > 0 && is(mf.expires, f))
}

func is(a, b *codec.Field) bool { return a != nil && a.GoName == b.GoName }

// timestamped reports whether a write sets a field from the clock: a
// created or updated timestamp, or an expiry (ExpiresAfter).
func (mf *managed) timestamped() bool {
	return mf.created != nil || mf.updated != nil || mf.expiresAfter > 0
}

// stamps reports whether a put sets fields of the value it stores (the
// version, a timestamp): a batch then stamps a copy, and keeps the value
// given to return it unprocessed.
func (mf *managed) stamps() bool { return mf.version != nil || mf.timestamped() }

// clock is the time a write of the entity stamps: the DB's clock, read only
// for an entity with timestamps or an expiry (a Create's condition reads
// it: see absent).
func (mf *managed) clock(db *DB) time.Time {
	if mf.timestamped() || mf.expires != nil {
		return db.now()
	}
	return time.Time{}
}

// fieldValue reads field f of struct value v: the zero value when f is
// promoted through a nil embedded pointer.
func fieldValue(f *codec.Field, v reflect.Value) reflect.Value { return writes.FieldValue(f, v) }

// The steps of the hooks, each applying every feature's in turn. The
// write's state is on the planner's stack: a call through an interface
// would move it to the heap, an allocation per write, so it is passed
// hidden from escape analysis (noescape.Ptr; the hooks keep none of it).

// onPut applies the hooks to v, the item a put stores (see planPut).
func (mf *managed) onPut(w *write, v reflect.Value) error {
	hw := noescape.Ptr(w)
	for _, f := range mf.fields {
		if err := f.onPut(hw, v); err != nil {
			return err
		}
	}
	return nil
}

// beforeUpdate applies the hooks to an update before its changes are
// planned: what the changes and index keys must see (see planUpdate). It
// returns the settings to plan with: s, or a copy with changes added.
func (mf *managed) beforeUpdate(w *write, s *settings, plan *writes.Plan) *settings {
	hw, hp := noescape.Ptr(w), noescape.Ptr(plan)
	for _, f := range mf.fields {
		if c, ok := f.beforeUpdate(hw, noescape.Ptr(s), hp); ok {
			with := *s
			with.changes = append(s.changes[:len(s.changes):len(s.changes)], c)
			s = &with
		}
	}
	return s
}

// onUpdate applies the hooks to an update once its changes are planned.
func (mf *managed) onUpdate(w *write, plan *writes.Plan) error {
	hw, hp := noescape.Ptr(w), noescape.Ptr(plan)
	for _, f := range mf.fields {
		if err := f.onUpdate(hw, hp); err != nil {
			return err
		}
	}
	return nil
}

// onDelete applies the hooks to a delete.
func (mf *managed) onDelete(w *write) error {
	hw := noescape.Ptr(w)
	for _, f := range mf.fields {
		if err := f.onDelete(hw); err != nil {
			return err
		}
	}
	return nil
}

// noHooks is the hooks a feature does not need: embedded, it leaves a
// feature only the steps it takes part in.
type noHooks struct{}

func (noHooks) onPut(*write, reflect.Value) error { return nil }
func (noHooks) beforeUpdate(*write, *settings, *writes.Plan) (change, bool) {
	return change{}, false
}
func (noHooks) onUpdate(*write, *writes.Plan) error { return nil }
func (noHooks) onDelete(*write) error               { return nil }
