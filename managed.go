package singletable

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/codec"
	"github.com/singletable/singletable/internal/expr"
	"github.com/singletable/singletable/internal/keys"
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
// Each managed field is a hook, built once at Define (resolveWrite) into
// the entity's list, and every write applies the list from one call per
// step: onPut (Put, Create, TxPut, TxCreate, BatchWrite puts), beforeUpdate
// and onUpdate (Update, TxUpdate), onDelete (Delete, TxDelete, BatchWrite
// deletes). What a batch may do with a field is the hook's to say too.
//
// A hook is a kind and a switch per step rather than an interface: a call
// through an interface makes its pointer arguments escape, which would cost
// every write an allocation of its write state. Another kind (a TTL,
// compression) is one constant and one case in each step.

// writeSpec collects the write-side entity options.
type writeSpec struct {
	version          string
	created, updated string
	unique           []string
	// expires and expiresAfter are Expires and ExpiresAfter (ttl.go).
	expires         string
	expiresAfter    time.Duration
	hasExpiresAfter bool
}

// hookKind is a kind of managed field. The constants are in the order the
// hooks apply, which is the order their clauses and conditions appear in a
// request: version, updated, created, then the unique values.
type hookKind uint8

const (
	hookVersion hookKind = iota
	hookUpdated
	hookCreated
	hookUnique
	hookExpires // ExpiresAfter (ttl.go)
)

// hook is one managed field of an entity.
type hook struct {
	kind  hookKind
	field *codec.Field
	// indexed (updated) is set when an index key or When condition reads
	// the field, which every Update changes.
	indexed bool
}

// managed is an entity's managed fields: the hooks every write applies,
// and the fields by kind, for what is not a write of its own (the checks
// of an Update's changes, the reads before a write, messages).
type managed struct {
	hooks            []hook
	version          *codec.Field
	created, updated *codec.Field
	unique           []*codec.Field
	// expires is the expiry field, stored under the TTL attribute, and
	// expiresAfter what ExpiresAfter gives a new item (ttl.go).
	expires      *codec.Field
	expiresAfter time.Duration
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

// guardType is the type attribute of unique-value guard items; no entity
// may use it, so a guard never decodes as an entity.
const guardType = "_unique"

// Attributes of a guard item naming the item that holds the value.
const (
	guardOwnerPK = "_ownerPK"
	guardOwnerSK = "_ownerSK"
)

type writeOption func(*writeSpec)

func (o writeOption) applyEntity(s *entitySpec) { o(&s.write) }

// Version declares the entity's version field (an integer) for optimistic
// locking, as the tag `singletable:"version"` does.
//
// Every write stores the version plus one and checks the stored one:
//   - Create stores 1 and needs the item not to exist.
//   - Put of a value whose version is 0 needs the item not to exist (it is
//     new); Put of version n needs the stored version to be n, and stores n+1.
//   - Update and Delete of a key whose version is n need the stored version
//     to be n; a key with version 0 skips the check (Update still stores
//     the version plus one, so that other writers see the change).
//
// A write whose check fails returns a *VersionConflictError, which matches
// ErrVersionConflict and ErrConditionFailed and carries the item as stored
// (Entity.CurrentItem decodes it).
func Version(field string) EntityOption {
	return writeOption(func(s *writeSpec) { s.version = field })
}

// Timestamps declares the fields that hold when an item was created and
// last updated (either may be ""), as the tags `singletable:"created"` and
// `singletable:"updated"` do. They are time.Time (stored by their dynamodbav
// rules) or integers (Unix seconds), set from the DB's clock (WithClock):
// Create, and Put of an item whose created field is zero, set created;
// Update sets it only when the stored item has none (if_not_exists), so it
// is never overwritten; every write sets updated.
func Timestamps(created, updated string) EntityOption {
	return writeOption(func(s *writeSpec) { s.created, s.updated = created, updated })
}

// Unique declares fields (strings or integers) whose values no two items of
// the entity may share, such as a user's email, as the tag
// `singletable:"unique"` does. Each value is held by a hidden guard item in
// the same table (partition key "_unique#<Entity>#<attribute>#<value>", type
// "_unique"), written in the same transaction as the item:
//
//   - Create and Put write the item and a guard that must not exist (or
//     already belong to the item); a clash is a *UniqueViolationError.
//   - Update that changes a unique field deletes the old guard and creates the
//     new one in one transaction, conditioned on the item still holding the
//     old value. Update reads the item first (a strongly consistent GetItem)
//     to learn the old value, and reads it again after the transaction to
//     return it, since a transaction returns no item; TxUpdate instead takes
//     the old value from the key argument, and the condition makes a wrong
//     one fail rather than orphan a guard.
//   - Delete removes the item and its guards in one transaction; like Update
//     it reads the item first to learn the values.
//
// On an entity that expires (see Expires), the guards carry the item's
// expiry, so that DynamoDB's time to live deletes them with it: Update of
// a unique value or of the expiry rewrites them with the expiry the item
// has after it, and TxUpdate of either is an ErrInvalidInput (a
// transaction cannot read the expiry). See docs/ttl.md.
//
// Zero values (an empty string, 0) are not guarded: any number of items may
// lack the value. Values are compared exactly; normalise them (for example
// lower-case emails) before writing. BatchWrite refuses entities with unique
// fields, since BatchWriteItem cannot keep guards in step.
func Unique(fields ...string) EntityOption {
	return writeOption(func(s *writeSpec) { s.unique = append(s.unique, fields...) })
}

// resolveWrite checks and resolves the write-side metadata of an entity
// being defined: the options and the `singletable` tags.
func (m *entityModel) resolveWrite(spec *writeSpec) error {
	fail := func(field, reason string, args ...any) error {
		return &ModelError{Table: m.table.name, Entity: m.name, Field: field, Reason: fmt.Sprintf(reason, args...)}
	}
	if m.name == guardType {
		return fail("", "the entity name %q is reserved for unique-value guard items", guardType)
	}
	reserved := guardType + string(m.table.delim)
	p := m.pk.LiteralPrefix()
	if strings.HasPrefix(p, reserved) {
		return fail("", "the partition template %q starts with %q, which is reserved for unique-value guard items", m.pk.Raw, reserved)
	}
	// A template that starts with a placeholder (or with part of the
	// reserved prefix) could still render it from a value: each such key
	// is checked as it is rendered (addKeys).
	m.pkMayBeReserved = strings.HasPrefix(reserved, p)
	names := map[string][]string{} // role -> Go field names
	add := func(role, field string) {
		if field != "" && !slices.Contains(names[role], field) {
			names[role] = append(names[role], field)
		}
	}
	add("version", spec.version)
	add("created", spec.created)
	add("updated", spec.updated)
	for _, f := range spec.unique {
		add("unique", f)
	}
	add("expires", spec.expires)
	for _, f := range m.fields.List {
		tag := f.Extra.Get("singletable")
		if tag == "" {
			continue
		}
		for _, role := range strings.Split(tag, ",") {
			switch role = strings.TrimSpace(role); role {
			case "version", "created", "updated", "unique", "expires":
				add(role, f.GoName)
			case "":
			default:
				return fail(f.GoName, "unknown singletable tag option %q (want version, created, updated, unique or expires)", role)
			}
		}
	}
	lookup := func(role, name string) (*codec.Field, error) {
		f, ok := m.fields.ByGoName(name)
		if !ok {
			return nil, fail(name, "declared as the %s field, but the struct has no such field", role)
		}
		if m.keyFields[name] && role != "unique" {
			return nil, fail(name, "the %s field cannot be part of the primary key", role)
		}
		return f, nil
	}
	used := map[string]string{}
	claim := func(role string, f *codec.Field) error {
		if prev, ok := used[f.GoName]; ok {
			return fail(f.GoName, "the field is declared both as the %s field and as the %s field", prev, role)
		}
		used[f.GoName] = role
		return nil
	}
	for _, role := range []string{"version", "created", "updated"} {
		switch len(names[role]) {
		case 0:
			continue
		case 1:
		default:
			return fail("", "%d fields are declared as the %s field (%s); an entity has one", len(names[role]), role, strings.Join(names[role], ", "))
		}
		f, err := lookup(role, names[role][0])
		if err != nil {
			return err
		}
		if err := claim(role, f); err != nil {
			return err
		}
		if !m.settable(f) {
			return fail(f.GoName, "the %s field is promoted through an unexported embedded pointer, which a write cannot set", role)
		}
		switch role {
		case "version":
			if !isIntegerType(f.Type) || f.Tag.AsString {
				return fail(f.GoName, "the version field must be an integer stored as a number, not %s", f.Type)
			}
			for _, ei := range m.indexes {
				if ei.dependsOn(f.GoName) {
					// DynamoDB adds to the version on every write, so a key
					// or condition reading it would go stale with each one.
					return fail(f.GoName, "index %s's key or When condition reads the version field, which every write changes; key the index on other fields", ei.index.name)
				}
			}
			m.managed.version = f
		default:
			if f.Type != timeType && (!isIntegerType(f.Type) || f.Tag.AsString) {
				return fail(f.GoName, "the %s timestamp must be a time.Time or an integer (Unix seconds), not %s", role, f.Type)
			}
			if role == "created" {
				m.managed.created = f
			} else {
				m.managed.updated = f
			}
		}
	}
	for _, name := range names["unique"] {
		f, err := lookup("unique", name)
		if err != nil {
			return err
		}
		if err := claim("unique", f); err != nil {
			return err
		}
		if f.Type.Kind() != reflect.String && !isIntegerType(f.Type) {
			return fail(f.GoName, "a unique field must be a string or an integer, not %s", f.Type)
		}
		m.managed.unique = append(m.managed.unique, f)
	}
	if err := m.resolveExpiry(names["expires"], spec); err != nil {
		return err
	}
	m.managed.build(m.indexes)
	return nil
}

// build makes the hooks of the fields resolved, in the order they apply.
func (mf *managed) build(indexes []*entityIndex) {
	if f := mf.version; f != nil {
		mf.hooks = append(mf.hooks, hook{kind: hookVersion, field: f})
	}
	if f := mf.updated; f != nil {
		h := hook{kind: hookUpdated, field: f}
		for _, ei := range indexes {
			h.indexed = h.indexed || ei.dependsOn(f.GoName)
		}
		mf.hooks = append(mf.hooks, h)
	}
	if f := mf.created; f != nil {
		mf.hooks = append(mf.hooks, hook{kind: hookCreated, field: f})
	}
	for _, f := range mf.unique {
		mf.hooks = append(mf.hooks, hook{kind: hookUnique, field: f})
	}
	if mf.expiresAfter > 0 {
		mf.hooks = append(mf.hooks, hook{kind: hookExpires, field: mf.expires})
	}
}

func isIntegerType(t reflect.Type) bool {
	k := t.Kind()
	return (k >= reflect.Int && k <= reflect.Int64) || (k >= reflect.Uint && k <= reflect.Uint64)
}

// isUnique reports whether the Go field is declared unique.
func (mf *managed) isUnique(goName string) bool {
	for _, f := range mf.unique {
		if f.GoName == goName {
			return true
		}
	}
	return false
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

// versionOf reads version field f of struct value v.
func versionOf(f *codec.Field, v reflect.Value) int64 {
	fv := fieldValue(f, v)
	if fv.CanInt() {
		return fv.Int()
	}
	return int64(fv.Uint())
}

func setVersion(f *codec.Field, v reflect.Value, n int64) {
	fv, ok := settableField(v, f.Index)
	if !ok {
		return
	}
	if fv.CanInt() {
		fv.SetInt(n)
	} else {
		fv.SetUint(uint64(n))
	}
}

// fieldValue reads field f of struct value v: the zero value when f is
// promoted through a nil embedded pointer.
func fieldValue(f *codec.Field, v reflect.Value) reflect.Value {
	fv, err := v.FieldByIndexErr(f.Index)
	if err != nil {
		return reflect.Zero(f.Type)
	}
	return fv
}

// storedVersion reads the version attribute of a stored item (0 if none).
func (mf *managed) storedVersion(item map[string]types.AttributeValue) int64 {
	n, ok := item[mf.version.Attr].(*types.AttributeValueMemberN)
	if !ok {
		return 0
	}
	v, _ := strconv.ParseInt(n.Value, 10, 64)
	return v
}

// setTimestamp stores now into a timestamp field of struct value v.
func setTimestamp(f *codec.Field, v reflect.Value, now time.Time) {
	if fv, ok := settableField(v, f.Index); ok {
		setTime(fv, now)
	}
}

// setTime stores now into fv: a time.Time, an integer of epoch seconds, or
// (an expiry field) a pointer to either, pointed at a new value.
func setTime(fv reflect.Value, now time.Time) {
	switch {
	case fv.Kind() == reflect.Pointer:
		p := reflect.New(fv.Type().Elem())
		setTime(p.Elem(), now)
		fv.Set(p)
	case fv.Type() == timeType:
		fv.Set(reflect.ValueOf(now))
	case fv.CanInt():
		fv.SetInt(now.Unix())
	default:
		fv.SetUint(uint64(now.Unix()))
	}
}

// timestampGo is now as the Go value of a timestamp field.
func (m *entityModel) timestampGo(f *codec.Field, now time.Time) any {
	holder := reflect.New(m.typ).Elem()
	setTimestamp(f, holder, now)
	return fieldValue(f, holder).Interface()
}

// timestampValue is now as a timestamp field stores it.
func (m *entityModel) timestampValue(f *codec.Field, now time.Time) (types.AttributeValue, error) {
	holder := reflect.New(m.typ).Elem()
	setTimestamp(f, holder, now)
	return m.encodeValue(f.GoName, fieldValue(f, holder).Interface(), false)
}

// uniqueValue renders a unique field's value of struct value v as the guard
// key holds it; "" for the zero value, which is not guarded.
func uniqueValue(f *codec.Field, v reflect.Value) string {
	fv := fieldValue(f, v)
	switch {
	case fv.Kind() == reflect.String:
		return fv.String()
	case fv.CanInt():
		if fv.Int() == 0 {
			return ""
		}
		return strconv.FormatInt(fv.Int(), 10)
	default:
		if fv.Uint() == 0 {
			return ""
		}
		return strconv.FormatUint(fv.Uint(), 10)
	}
}

// guardKey is the key of the guard item for a unique value. The same
// string is the partition and the sort key, so on a table with a sort key
// it must fit the sort key's limit: a value too long for it is a *KeyError,
// as for any other key.
func (m *entityModel) guardKey(f *codec.Field, value string) (map[string]types.AttributeValue, error) {
	t := m.table
	d := string(t.delim)
	k := guardType + d + keys.Escape(m.name, t.delim) + d + keys.Escape(f.Attr, t.delim) + d + keys.Escape(value, t.delim)
	attr, limit := t.pk, t.pkLimit
	if t.sk != "" {
		attr, limit = t.sk, maxSortKeyBytes
	}
	if len(k) > limit {
		// The template, made only for the error: how the guard key is built.
		return nil, m.checkKeySize(attr, guardType+d+m.name+d+f.Attr+d+"{"+f.GoName+"}", f.GoName, len(k), limit)
	}
	key := map[string]types.AttributeValue{t.pk: &types.AttributeValueMemberS{Value: k}}
	if t.sk != "" {
		key[t.sk] = &types.AttributeValueMemberS{Value: k}
	}
	return key, nil
}

// isGuardKey reports whether a rendered partition key is in the namespace
// of guard items: "_unique" and the delimiter.
func isGuardKey(key []byte, delim byte) bool {
	n := len(guardType)
	return len(key) > n && string(key[:n]) == guardType && key[n] == delim
}

// guardItem is the guard item of guard key key (see guardKey), held by the
// item with primary key owner.
func (m *entityModel) guardItem(key, owner map[string]types.AttributeValue) map[string]types.AttributeValue {
	item := make(map[string]types.AttributeValue, len(key)+3)
	for a, v := range key {
		item[a] = v
	}
	item[m.table.typeAttr] = &types.AttributeValueMemberS{Value: guardType}
	item[guardOwnerPK] = owner[m.table.pk]
	if m.table.sk != "" {
		item[guardOwnerSK] = owner[m.table.sk]
	}
	return item
}

// ownedBy is the condition that a guard item is absent or belongs to owner.
func (m *entityModel) ownedBy(owner map[string]types.AttributeValue) Cond {
	c := Eq(guardOwnerPK, owner[m.table.pk])
	if m.table.sk != "" {
		c = And(c, Eq(guardOwnerSK, owner[m.table.sk]))
	}
	return Or(m.table.notExists, c)
}

// guardOwner reads the owner key out of a guard item.
func (m *entityModel) guardOwner(item map[string]types.AttributeValue) map[string]types.AttributeValue {
	if len(item) == 0 {
		return nil
	}
	owner := map[string]types.AttributeValue{}
	if v, ok := item[guardOwnerPK]; ok {
		owner[m.table.pk] = v
	}
	if v, ok := item[guardOwnerSK]; ok && m.table.sk != "" {
		owner[m.table.sk] = v
	}
	return owner
}

// heldValue is the condition that the stored item holds value (as rendered
// by uniqueValue) in unique field f; for "" that it holds none.
func (m *entityModel) heldValue(f *codec.Field, v reflect.Value) (Cond, error) {
	if uniqueValue(f, v) == "" {
		zero, err := m.encodeValue(f.GoName, reflect.Zero(f.Type).Interface(), false)
		if err != nil {
			return Cond{}, err
		}
		return Or(NotExists(f.GoName), Eq(f.GoName, zero)), nil
	}
	return Eq(f.GoName, fieldValue(f, v).Interface()), nil
}

// The steps of the hooks. Each appends what its write needs to w: values
// set in the item, clauses of an update, conditions (w.check before the
// caller's condition, w.hold after it), and guard items (w.guard).

// onPut applies the hooks to v, the item a put stores (see planPut).
func (mf *managed) onPut(w *write, v reflect.Value) error {
	for i := range mf.hooks {
		if err := mf.hooks[i].onPut(w, v); err != nil {
			return err
		}
	}
	return nil
}

// beforeUpdate applies the hooks to an update before its changes are
// planned: what the changes and index keys must see (see planUpdate). It
// returns the settings to plan with: s, or a copy with a change added.
func (mf *managed) beforeUpdate(w *write, s *settings, plan *updatePlan) *settings {
	for i := range mf.hooks {
		s = mf.hooks[i].beforeUpdate(w, s, plan)
	}
	return s
}

// onUpdate applies the hooks to an update once its changes are planned.
func (mf *managed) onUpdate(w *write, plan *updatePlan) error {
	for i := range mf.hooks {
		if err := mf.hooks[i].onUpdate(w, plan); err != nil {
			return err
		}
	}
	return nil
}

// onDelete applies the hooks to a delete.
func (mf *managed) onDelete(w *write) error {
	for i := range mf.hooks {
		if err := mf.hooks[i].onDelete(w); err != nil {
			return err
		}
	}
	return nil
}

// onPut sets the hook's field in v and adds what the put needs. A version
// is stored as 1 by Create; by Put as the version given plus one, checked
// (0: the item must not exist); by a batch plus one, unchecked.
func (h *hook) onPut(w *write, v reflect.Value) error {
	a, f := w.a, h.field
	switch h.kind {
	case hookVersion:
		exp := versionOf(f, v)
		switch {
		case w.mode == writeCreate:
			setVersion(f, v, 1)
		case w.mode == writeBatch:
			setVersion(f, v, exp+1) // BatchWriteItem takes no condition
		case exp == 0:
			w.check(a.m.table.notExists)
			a.versioned = true
			setVersion(f, v, 1)
		default:
			w.check(Eq(f.GoName, v.FieldByIndex(f.Index).Interface()))
			a.versioned, a.expected = true, exp
			setVersion(f, v, exp+1)
		}
	case hookUpdated:
		setTimestamp(f, v, w.now)
	case hookCreated:
		if fieldValue(f, v).IsZero() {
			setTimestamp(f, v, w.now)
		}
	case hookUnique:
		if w.mode == writeBatch {
			return h.refuseBatch(w)
		}
		if w.mode != writeCreate {
			// An existing item must hold the same value: Put does not move
			// guards (Update does).
			held, err := a.m.heldValue(f, v)
			if err != nil {
				return &InputError{Op: a.op, Reason: err.Error()}
			}
			w.hold(Or(a.m.table.notExists, held))
			a.value, a.uniqueRel = v, uniqueStored
		}
		w.guard(actPut, f, uniqueValue(f, v))
	case hookExpires:
		h.onPutExpiry(w, v)
	}
	return nil
}

// refuseBatch is a unique field's answer to a batch: BatchWriteItem cannot
// keep guard items in step.
func (h *hook) refuseBatch(w *write) error {
	return &InputError{Op: w.a.op, Reason: fmt.Sprintf("entity %s has unique fields, whose guard items BatchWriteItem cannot keep in step; use Put, Delete or a transaction", w.a.m.name)}
}

// beforeUpdate adds what the update's changes and index keys must see: an
// updated timestamp that an index key reads is planned as a Set (so that
// the key follows it), and an upsert's created timestamp is what the index
// keys of a new item read.
func (h *hook) beforeUpdate(w *write, s *settings, plan *updatePlan) *settings {
	f := h.field
	switch h.kind {
	case hookUpdated:
		if h.indexed && !touches(s.changes, f.GoName) {
			withStamp := *s
			withStamp.changes = append(s.changes[:len(s.changes):len(s.changes)], change{changeSet, f.GoName, w.a.m.timestampGo(f, w.now)})
			return &withStamp
		}
	case hookCreated:
		if s.upsert && !touches(s.changes, f.GoName) {
			plan.created = w.now
			if r := plan.read; r != nil && !r.found {
				setTimestamp(f, r.value, w.now)
			}
		}
	}
	return s
}

// onUpdate adds the hook's clauses, conditions and guard items to an
// update: the version goes up by one (checked when the key gives one), the
// updated timestamp is set and the created one if the item has none,
// unless a change sets them; a changed unique value moves its guard, on
// the condition that the item holds the old value (w.old).
func (h *hook) onUpdate(w *write, plan *updatePlan) error {
	a, f, b := w.a, h.field, w.b
	switch h.kind {
	case hookVersion:
		plan.update.Act(expr.ClauseAdd, b.Name(f.Attr), " ", b.Value(&types.AttributeValueMemberN{Value: "1"}))
		if exp := versionOf(f, w.key); exp != 0 {
			w.check(Eq(f.GoName, w.key.FieldByIndex(f.Index).Interface()))
			a.versioned, a.expected = true, exp
		}
	case hookUpdated, hookCreated:
		if plan.touches(f.GoName) {
			return nil
		}
		av, err := a.m.timestampValue(f, w.now)
		if err != nil {
			return &InputError{Op: a.op, Reason: err.Error()}
		}
		n := b.Name(f.Attr)
		if h.kind == hookUpdated {
			plan.update.Act(expr.ClauseSet, n, " = ", b.Value(av))
		} else {
			plan.update.Act(expr.ClauseSet, n, " = if_not_exists(", n, ", ", b.Value(av), ")")
		}
	case hookUnique:
		exp := a.m.managed.expires
		expiryChanges := exp != nil && plan.touches(exp.GoName)
		if !plan.touches(f.GoName) && !expiryChanges {
			return nil
		}
		if exp != nil {
			// The guards carry the item's expiry (see guardExpiry).
			if err := h.guardExpiry(w, plan); err != nil {
				return err
			}
		}
		held, err := a.m.heldValue(f, w.old)
		if err != nil {
			return &InputError{Op: a.op, Reason: err.Error()}
		}
		w.hold(held)
		a.value, a.uniqueRel = w.old, uniqueHeld
		switch was, now := uniqueValue(f, w.old), uniqueValue(f, plan.nextValue()); {
		case was != now:
			w.guard(actDelete, f, was)
			w.guard(actPut, f, now)
		case expiryChanges:
			w.guard(actPut, f, now) // the same value, its guard's new expiry
		}
	case hookExpires:
		return h.onUpdateExpiry(w, plan)
	}
	return nil
}

// onDelete adds the hook's conditions and guard deletions to a delete: a
// version the key gives is checked, and the guards of the unique values
// the item holds (w.old) are deleted with it.
func (h *hook) onDelete(w *write) error {
	a, f := w.a, h.field
	switch h.kind {
	case hookVersion:
		if exp := versionOf(f, w.key); exp != 0 && w.mode != writeBatch {
			w.check(Eq(f.GoName, w.key.FieldByIndex(f.Index).Interface()))
			a.versioned, a.expected = true, exp
			a.whenMissing = failNotFound
		}
	case hookUnique:
		if w.mode == writeBatch {
			return h.refuseBatch(w)
		}
		held, err := a.m.heldValue(f, w.old)
		if err != nil {
			return &InputError{Op: a.op, Reason: err.Error()}
		}
		w.hold(held)
		a.value, a.uniqueRel = w.old, uniqueHeld
		w.guard(actDelete, f, uniqueValue(f, w.old))
	}
	return nil
}

// deleteReads reports whether Delete reads the item first: the unique
// hooks delete the guards of the values it holds.
func (mf *managed) deleteReads() bool { return len(mf.unique) > 0 }
