package singletable

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/codec"
	"github.com/singletable/singletable/internal/keys"
	"github.com/singletable/singletable/internal/model"
	writes "github.com/singletable/singletable/internal/write"
)

// Attributes of a guard item naming the item that holds the value.
const (
	guardOwnerPK = "_ownerPK"
	guardOwnerSK = "_ownerSK"
)

// Unique declares fields (strings or integers) whose values no two items of
// the entity may share, such as a user's email, as the tag
// `singletable:"unique"` does. Each value is held by a hidden guard item in
// the same table (partition key "_unique#<Entity>#<attribute>#<value>", type
// "_unique"), written in the same transaction as the item:
//
//   - Create and Put write the item and a guard that must not exist (or
//     already belong to the item); a clash is a *UniqueViolationError.
//     Put over an item holding another value moves the guard: its
//     transaction fails and returns the stored item, and a second one
//     deletes the old guard (no read; see Put). TxPut cannot, and refuses
//     the change (use TxUpdate).
//   - Update that changes a unique field deletes the old guard and creates the
//     new one in one transaction, conditioned on the item still holding the
//     old value. Update reads the item first (a strongly consistent GetItem)
//     to learn the old value, and reads it again after the transaction to
//     return it, since a transaction returns no item; TxUpdate instead takes
//     the old value from the key argument, and the condition makes a wrong
//     one fail rather than orphan a guard.
//   - Delete removes the item and its guards in one transaction; like Update
//     it reads the item first to learn the values (and again, to retry, if
//     they change meanwhile). An expired item it deletes alone: its guards
//     are free, maybe another item's.
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
//
// A field is unique within another field's value, such as an email unique
// per tenant, when declared as "Email within TenantID" (the tag:
// `singletable:"unique within TenantID"`). The scope field (a string or an
// integer, not compressed) keys the guard with the value
// ("_unique#<Entity>#<attribute>#<scope attribute>#<scope value>#<value>",
// each part escaped), so two tenants may hold the same email; a change of
// either field moves the guard, as above, and every condition that holds
// the value holds the scope too. Every scope value is a scope, its zero
// value included. Changing a table-wide unique field to a scoped one on a
// table that holds its guards is a migration: see migrate.ScopeUnique.
func Unique(fields ...string) EntityOption {
	return writeOption(func(s *writeSpec) { s.add("unique", fields...) })
}

// uniqueField is the unique-values feature: the unique fields, in the
// order declared, each with its guard items, and their scopes (nil for a
// table-wide field), in the same order.
type uniqueField struct {
	noHooks
	fields, scopes []*codec.Field
}

// uniqueWithin is the word of a scoped declaration: "Email within TenantID".
const uniqueWithin = "within"

// parseUnique splits a unique declaration into the field and its scope
// ("" for a table-wide one); ok is false for a malformed one.
func parseUnique(decl string) (field, scope string, ok bool) {
	parts := strings.Fields(decl)
	switch {
	case len(parts) == 1:
		return parts[0], "", true
	case len(parts) == 3 && parts[1] == uniqueWithin:
		return parts[0], parts[2], true
	}
	return "", "", false
}

// resolveUnique resolves the unique fields: strings or integers, which may
// be key fields, each table-wide or within a scope field.
func resolveUnique(r *managedResolver) (managedField, *ModelError) {
	for _, decl := range r.names["unique"] {
		name, scopeName, ok := parseUnique(decl)
		if !ok {
			return nil, r.fail("", "unique %q: want a field, or a field within another (\"Email within TenantID\")", decl)
		}
		f, err := r.lookup("unique", name, true)
		if err != nil {
			return nil, err
		}
		if i := slices.IndexFunc(r.m.managed.unique, func(u *codec.Field) bool { return u == f }); i >= 0 {
			return nil, r.fail(f.GoName, "the field is declared unique twice (%s and %s): a field is unique table-wide or within one scope", r.m.managed.describeUnique(i), decl)
		}
		if err := r.claim("unique", f); err != nil {
			return nil, err
		}
		if f.Type.Kind() != reflect.String && !isIntegerType(f.Type) {
			return nil, r.fail(f.GoName, "a unique field must be a string or an integer, not %s", f.Type)
		}
		scope, err := resolveScope(r, f, scopeName)
		if err != nil {
			return nil, err
		}
		r.m.managed.unique = append(r.m.managed.unique, f)
		r.m.managed.scopes = append(r.m.managed.scopes, scope)
	}
	if len(r.m.managed.unique) == 0 {
		return nil, nil
	}
	return &uniqueField{fields: r.m.managed.unique, scopes: r.m.managed.scopes}, nil
}

// resolveScope resolves the scope field of unique field f, named name (nil
// for none): a string or integer field of the struct other than f, not
// compressed (the guard key and the conditions hold its plain value).
func resolveScope(r *managedResolver, f *codec.Field, name string) (*codec.Field, *ModelError) {
	if name == "" {
		return nil, nil
	}
	s, ok := r.m.Fields.ByGoName(name)
	switch {
	case !ok && r.m.isKeyOnly(name):
		return nil, r.fail(f.GoName, "unique within %s: %s", name, r.m.noSuchField(name, "the scope"))
	case !ok:
		return nil, r.fail(f.GoName, "unique within %s: the struct has no field %s to be the scope", name, name)
	case s == f:
		return nil, r.fail(f.GoName, "unique within %s: a field cannot be its own scope", name)
	case s.Type.Kind() != reflect.String && !isIntegerType(s.Type):
		return nil, r.fail(f.GoName, "unique within %s: a scope must be a string or an integer field, not %s", name, s.Type)
	case slices.Contains(r.names["compress"], name):
		return nil, r.fail(f.GoName, "unique within %s: the scope is a compressed field, whose stored value is compressed bytes that a guard key and a condition cannot hold", name)
	}
	return s, nil
}

// describeUnique names the i-th unique field for messages: "Email", or
// "Email within TenantID".
func (mf *managed) describeUnique(i int) string {
	if s := mf.scopes[i]; s != nil {
		return mf.unique[i].GoName + " " + uniqueWithin + " " + s.GoName
	}
	return mf.unique[i].GoName
}

// guardOf is what a unique-value guard item guards: the unique field and
// the value, and, for a scoped field, its scope field and the scope's
// value.
type guardOf struct {
	field      *codec.Field
	value      string
	scope      *codec.Field
	scopeValue string
}

// guardFor is the guard of the i-th unique field's value in struct value
// v; its value is "" when the field holds its zero value (no guard).
func (h *uniqueField) guardFor(i int, v reflect.Value) guardOf {
	g := guardOf{field: h.fields[i], value: uniqueValue(h.fields[i], v)}
	if s := h.scopes[i]; s != nil {
		g.scope, g.scopeValue = s, scopeValue(s, v)
	}
	return g
}

// describe names the guarded value for messages: Email "x", or Email "x"
// within TenantID "t".
func (g *guardOf) describe() string {
	s := fmt.Sprintf("%s %q", g.field.GoName, g.value)
	if g.scope != nil {
		s += fmt.Sprintf(" %s %s %q", uniqueWithin, g.scope.GoName, g.scopeValue)
	}
	return s
}

// violation is the error of a claim of g's value that another item, owner
// (when known), holds.
func (g *guardOf) violation(op, entity string, owner map[string]types.AttributeValue, err error) *UniqueViolationError {
	e := &UniqueViolationError{Op: op, Entity: entity, Field: g.field.GoName, Value: g.value, Owner: owner, Err: err}
	if g.scope != nil {
		e.Scope, e.ScopeValue = g.scope.GoName, g.scopeValue
	}
	return e
}

// held is the condition that the stored item holds the values of the
// i-th unique field (and its scope) that v holds. A zero value has no
// guard in any scope, so its condition leaves the scope out, as a
// table-wide field's: an absent item (an upsert's, a TxDelete's) holds it.
func (h *uniqueField) held(m *entityModel, i int, v reflect.Value) (Cond, error) {
	c, err := m.heldValue(h.fields[i], v)
	if err != nil || h.scopes[i] == nil || uniqueValue(h.fields[i], v) == "" {
		return c, err
	}
	sc, err := m.heldValue(h.scopes[i], v)
	return And(c, sc), err
}

// touched reports whether an update changes the i-th unique field or its
// scope.
func (h *uniqueField) touched(plan *writes.Plan, i int) bool {
	return plan.Touches(h.fields[i].GoName) || (h.scopes[i] != nil && plan.Touches(h.scopes[i].GoName))
}

// onPut puts each value's guard. Without w.old, an existing item must hold
// the same values (and scopes); with it (a Put's second attempt, see
// putMovingGuards), the item must still hold w.old's, whose guards of a
// changed value or scope it deletes (unless the item expired: w.oldExpired).
func (h *uniqueField) onPut(w *write, v reflect.Value) error {
	a := w.a
	for i := range h.fields {
		if w.mode == writeBatch {
			return refuseBatch(w)
		}
		now := h.guardFor(i, v)
		switch {
		case w.mode == writeCreate:
		case w.old.IsValid():
			held, err := h.held(a.m, i, w.old)
			if err != nil {
				return &InputError{Op: a.op, Reason: err.Error()}
			}
			w.hold(held)
			a.value, a.UniqueRel = w.old, uniqueHeld
			if was := h.guardFor(i, w.old); was != now && !w.oldExpired {
				w.guard(actDelete, was)
			}
		default:
			held, err := h.held(a.m, i, v)
			if err != nil {
				return &InputError{Op: a.op, Reason: err.Error()}
			}
			w.hold(Or(a.m.table.notExists, held))
			a.value, a.UniqueRel = v, uniqueStored
		}
		w.guard(actPut, now)
	}
	return nil
}

// putMoves is how many times Put plans again over the item it found
// holding other unique values, when a concurrent write changes them
// again in between, before it returns the last failure.
const putMoves = 3

// putMovingGuards follows up a Put of v (as given) whose transaction
// failed with err: when the stored item the failure returns holds other
// unique values or scopes than v, it puts v again over that item, moving
// their guards (see onPut); when the item it moved them from is gone
// (deleted meanwhile, its guards with it), it puts v again as over no
// item; any other failure is returned as it is. It reads nothing: the
// failed condition returned the item.
func (m *entityModel) putMovingGuards(ctx context.Context, db *DB, op string, v reflect.Value, s *settings, err error) error {
	h := &uniqueField{fields: m.managed.unique, scopes: m.managed.scopes}
	var was reflect.Value
	for range putMoves {
		old, ok := h.otherValues(m, err, v, was)
		if !ok && !(was.IsValid() && m.itemGone(err, v)) {
			return err
		}
		p := reflect.New(v.Type()).Elem()
		p.Set(v)
		acts, perr := m.planPutOver(nil, nil, db, op, p, old, ok && h.storedExpired(db, m, err), writeOne, m.managed.clock(db), s)
		if perr != nil {
			return perr
		}
		if err = db.sendActions(ctx, op, acts, s); err == nil {
			return nil
		}
		was = old
	}
	return err
}

// itemGone reports whether err is the failure of the item's own write
// (not a guard's) that found no item: of a write over v's key expecting
// one.
func (m *entityModel) itemGone(err error, v reflect.Value) bool {
	var ce *ConditionError
	var vc *VersionConflictError
	if errors.As(err, &vc) || !errors.As(err, &ce) || ce.Entity != m.Name || len(ce.Item) > 0 || !errors.Is(err, ErrConditionFailed) {
		return false
	}
	k, kerr := m.Key(v)
	return kerr == nil && codec.EqualItems(k, ce.Key)
}

// storedExpired reports whether the stored item a failed Put's err
// carries has expired by the DB's clock: its guards are free, maybe
// another item's by now, so the Put leaves them to expire (as Create over
// an expired item does) instead of deleting them.
func (h *uniqueField) storedExpired(db *DB, m *entityModel, err error) bool {
	var ce *ConditionError
	return errors.As(err, &ce) && db.expiryFor(&settings{}, m).expired(ce.Item)
}

// otherValues decodes the stored item a failed Put's err carries, when
// its unique values or scopes differ from those of want (the Put's value,
// on a first attempt) or of was (the item a second attempt expected).
func (h *uniqueField) otherValues(m *entityModel, err error, want, was reflect.Value) (reflect.Value, bool) {
	var ce *ConditionError
	var vc *VersionConflictError
	if errors.As(err, &vc) || errors.Is(err, ErrUniqueViolation) || !errors.As(err, &ce) || ce.Entity != m.Name || len(ce.Item) == 0 {
		return reflect.Value{}, false
	}
	// The guards name the values as stored: an item of an older shape
	// revision is decoded as it is, not upgraded (an upgrader may change a
	// unique value, which is why the Put moves its guard).
	old := reflect.New(want.Type()).Elem()
	if m.checkType(ce.Item) != nil || m.decodeFields("", ce.Item, old) != nil {
		return reflect.Value{}, false
	}
	if was.IsValid() {
		want = was
	}
	for i := range h.fields {
		if h.guardFor(i, old) != h.guardFor(i, want) {
			return old, true
		}
	}
	return reflect.Value{}, false
}

// onUpdate moves the guard of a changed value or scope, on the condition
// that the item holds the old ones (w.old); on an entity that expires, a
// changed expiry rewrites the guards with it too (see guardExpiry).
func (h *uniqueField) onUpdate(w *write, plan *writes.Plan) error {
	a := w.a
	exp := a.m.managed.expires
	expiryChanges := exp != nil && plan.Touches(exp.GoName)
	for i := range h.fields {
		if !h.touched(plan, i) && !expiryChanges {
			continue
		}
		if exp != nil {
			if err := guardExpiry(w, plan); err != nil {
				return err
			}
		}
		held, err := h.held(a.m, i, w.old)
		if err != nil {
			return &InputError{Op: a.op, Reason: err.Error()}
		}
		w.hold(held)
		a.value, a.UniqueRel = w.old, uniqueHeld
		// What the update does not change stays as the item holds it (a
		// TxUpdate's plan knows only the key fields and the changes).
		was, now := h.guardFor(i, w.old), h.guardFor(i, w.old)
		if plan.Touches(h.fields[i].GoName) {
			now.value = uniqueValue(h.fields[i], plan.NextValue())
		}
		if s := h.scopes[i]; s != nil && plan.Touches(s.GoName) {
			now.scopeValue = scopeValue(s, plan.NextValue())
		}
		if sc := h.scopes[i]; sc != nil && was.value == "" && now.value != "" && !plan.Touches(sc.GoName) {
			// The new guard takes the scope the item holds, which held
			// left out: hold it too. An absent item (an upsert's) holds
			// a key field's, which the key gives it.
			c, err := a.m.heldValue(sc, w.old)
			if err != nil {
				return &InputError{Op: a.op, Reason: err.Error()}
			}
			if a.m.KeyFields[sc.GoName] {
				c = Or(a.m.table.notExists, c)
			}
			w.hold(c)
		}
		switch {
		case was.value != now.value || was.scopeValue != now.scopeValue:
			w.guard(actDelete, was)
			w.guard(actPut, now)
		case expiryChanges:
			w.guard(actPut, now) // the same value, its guard's new expiry
		}
	}
	return nil
}

// onDelete deletes the guards of the values the item holds (w.old) with
// it; of an item that has expired (w.oldExpired, known from a read) it
// leaves them, on the condition that the item still has expired: they are
// free, maybe another item's by now (as a Put over it leaves them), and
// expire with it.
func (h *uniqueField) onDelete(w *write) error {
	a := w.a
	for i := range h.fields {
		if w.mode == writeBatch {
			return refuseBatch(w)
		}
		held, err := h.held(a.m, i, w.old)
		if err != nil {
			return &InputError{Op: a.op, Reason: err.Error()}
		}
		w.hold(held)
		a.value, a.UniqueRel = w.old, uniqueHeld
		if !w.oldExpired {
			w.guard(actDelete, h.guardFor(i, w.old))
		}
	}
	if w.oldExpired {
		w.hold(a.m.expiredBy(w.now))
	}
	return nil
}

// refuseBatch is a unique field's answer to a batch: BatchWriteItem cannot
// keep guard items in step.
func refuseBatch(w *write) error {
	return &InputError{Op: w.a.op, Reason: fmt.Sprintf("entity %s has unique fields, whose guard items BatchWriteItem cannot keep in step; use Put, Delete or a transaction", w.a.m.Name)}
}

// isUnique reports whether the Go field is declared unique, or is a
// unique field's scope: a change to either moves a guard.
func (mf *managed) isUnique(goName string) bool {
	for i, f := range mf.unique {
		if f.GoName == goName || (mf.scopes[i] != nil && mf.scopes[i].GoName == goName) {
			return true
		}
	}
	return false
}

// guarded lists the fields a guard key is made of, each once: the unique
// fields, then the scopes.
func (mf *managed) guarded() []*codec.Field {
	out := slices.Clone(mf.unique)
	for _, s := range mf.scopes {
		if s != nil && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// guardRole says what field goName (see isUnique) is to the guards:
// "declared Unique", or "the scope of unique Email".
func (mf *managed) guardRole(goName string) string {
	for i, s := range mf.scopes {
		if s != nil && s.GoName == goName && !mf.isUniqueField(goName) {
			return "the scope of unique " + mf.unique[i].GoName
		}
	}
	return "declared Unique"
}

// heldIn reports whether a condition that an item holds v's unique values
// (see held) holds field f (of guarded): a unique field always, a scope
// only when a field it scopes holds a value in v.
func (mf *managed) heldIn(f *codec.Field, v reflect.Value) bool {
	for i, u := range mf.unique {
		if u == f || (mf.scopes[i] == f && uniqueValue(u, v) != "") {
			return true
		}
	}
	return false
}

// isUniqueField reports whether the Go field is declared unique itself.
func (mf *managed) isUniqueField(goName string) bool {
	return slices.ContainsFunc(mf.unique, func(f *codec.Field) bool { return f.GoName == goName })
}

// describeGuard names field goName (see isUnique) for messages: "unique
// Email", or "Tenant (the scope of unique Email)".
func (mf *managed) describeGuard(goName string) string {
	if role := mf.guardRole(goName); role != "declared Unique" {
		return goName + " (" + role + ")"
	}
	return "unique " + goName
}

// deleteReads reports whether Delete reads the item first: the unique
// hooks delete the guards of the values it holds.
func (mf *managed) deleteReads() bool { return len(mf.unique) > 0 }

// uniqueValue renders a unique field's value of struct value v as the guard
// key holds it; "" for the zero value, which is not guarded.
func uniqueValue(f *codec.Field, v reflect.Value) string {
	if fieldValue(f, v).IsZero() {
		return ""
	}
	return scopeValue(f, v)
}

// scopeValue renders a scope field's value of struct value v as the guard
// key holds it: every value, the zero value included, is a scope.
func scopeValue(f *codec.Field, v reflect.Value) string {
	fv := fieldValue(f, v)
	switch {
	case fv.Kind() == reflect.String:
		return fv.String()
	case fv.CanInt():
		return strconv.FormatInt(fv.Int(), 10)
	default:
		return strconv.FormatUint(fv.Uint(), 10)
	}
}

// guardKey is the key of the guard item for a unique value (and its
// scope): its parts escaped, so that a delimiter in one cannot make two
// guards' keys equal. The same string is the partition and the sort key,
// so on a table with a sort key it must fit the sort key's limit: a value
// too long for it is a *KeyError, as for any other key.
func (m *entityModel) guardKey(g guardOf) (map[string]types.AttributeValue, error) {
	t := m.table
	d := string(t.schema.Delim)
	k := m.guardPrefix(g.field, g.scope)
	if g.scope != nil {
		k += keys.Escape(g.scopeValue, t.schema.Delim) + d
	}
	k += keys.Escape(g.value, t.schema.Delim)
	attr, limit := t.schema.PK, t.schema.PKLimit
	if t.schema.SK != "" {
		attr, limit = t.schema.SK, maxSortKeyBytes
	}
	if len(k) > limit {
		// The template, made only for the error: how the guard key is built.
		return nil, m.CheckKeySize(attr, m.guardTemplate(g.field, g.scope), g.field.GoName, len(k), limit)
	}
	key := map[string]types.AttributeValue{t.schema.PK: &types.AttributeValueMemberS{Value: k}}
	if t.schema.SK != "" {
		key[t.schema.SK] = &types.AttributeValueMemberS{Value: k}
	}
	return key, nil
}

// guardPrefix is what the keys of unique field f's guards begin with,
// up to the scope's value (scope non-nil) or the value.
func (m *entityModel) guardPrefix(f, scope *codec.Field) string {
	delim := m.table.schema.Delim
	d := string(delim)
	k := model.GuardType + d + keys.Escape(m.Name, delim) + d + keys.Escape(f.Attr, delim) + d
	if scope != nil {
		k += keys.Escape(scope.Attr, delim) + d
	}
	return k
}

// guardTemplate is how unique field f's guard keys are built, for the
// sheet, lint and messages: "_unique#User#email#tenant#{TenantID}#{Email}".
func (m *entityModel) guardTemplate(f, scope *codec.Field) string {
	k := m.guardPrefix(f, scope)
	if scope != nil {
		k += "{" + scope.GoName + "}" + string(m.table.schema.Delim)
	}
	return k + "{" + f.GoName + "}"
}

// guardItem is the guard item of guard key key (see guardKey), held by the
// item with primary key owner.
func (m *entityModel) guardItem(key, owner map[string]types.AttributeValue) map[string]types.AttributeValue {
	item := make(map[string]types.AttributeValue, len(key)+3)
	for a, v := range key {
		item[a] = v
	}
	item[m.table.schema.TypeAttr] = &types.AttributeValueMemberS{Value: model.GuardType}
	item[guardOwnerPK] = owner[m.table.schema.PK]
	if m.table.schema.SK != "" {
		item[guardOwnerSK] = owner[m.table.schema.SK]
	}
	return item
}

// ownedBy is the condition that a guard item is absent or belongs to owner.
func (m *entityModel) ownedBy(owner map[string]types.AttributeValue) Cond {
	c := Eq(guardOwnerPK, owner[m.table.schema.PK])
	if m.table.schema.SK != "" {
		c = And(c, Eq(guardOwnerSK, owner[m.table.schema.SK]))
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
		owner[m.table.schema.PK] = v
	}
	if v, ok := item[guardOwnerSK]; ok && m.table.schema.SK != "" {
		owner[m.table.schema.SK] = v
	}
	return owner
}

// heldValue is the condition that the stored item holds the value v holds
// in field f (a unique field or a scope); for the zero value, that it holds
// the zero value or none.
func (m *entityModel) heldValue(f *codec.Field, v reflect.Value) (Cond, error) {
	fv := fieldValue(f, v)
	if fv.IsZero() {
		zero, err := m.encodeValue(f.GoName, reflect.Zero(f.Type).Interface(), false)
		if err != nil {
			return Cond{}, err
		}
		return Or(NotExists(f.GoName), Eq(f.GoName, zero)), nil
	}
	return Eq(f.GoName, fv.Interface()), nil
}

// writeUniqueSheet writes the sheet's section of unique values: each
// field, the scope it is unique within, and its guard items' key. None
// when no entity has unique fields.
func writeUniqueSheet(b *strings.Builder, entities []*entityModel) {
	head := false
	for _, m := range entities {
		mf := &m.managed
		for i, f := range mf.unique {
			if !head {
				b.WriteString("\n## Unique values\n\n| Entity | Field | Within | Guard key |\n|---|---|---|---|\n")
				head = true
			}
			within := "the table"
			if s := mf.scopes[i]; s != nil {
				within = s.GoName
			}
			fmt.Fprintf(b, "| %s | %s | %s | %s |\n", cell(m.Name), f.GoName, within, code(m.guardTemplate(f, mf.scopes[i])))
		}
	}
}

// lintUnique points out each unique field's scope: the guard key it
// makes, and what a change of the scope costs.
func lintUnique(m *entityModel, add func(sev LintSeverity, subject, format string, args ...any)) {
	mf := &m.managed
	for i, f := range mf.unique {
		if s := mf.scopes[i]; s != nil {
			add(LintInfo, "entity "+m.Name, "%s is unique within %s: its guard key is %s; an Update of %s or %s reads the item and moves the guard in a transaction (the item's write, the old guard's delete, the new one's put)",
				f.GoName, s.GoName, m.guardTemplate(f, s), f.GoName, s.GoName)
		}
	}
}
