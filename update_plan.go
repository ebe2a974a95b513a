package singletable

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/codec"
	"github.com/singletable/singletable/internal/expr"
)

// updatePlan is an Update resolved against the entity: the expression parts
// and what the item becomes, as far as the request knows it.
//
// What the item becomes is worked out from the changes only when something
// needs it (an index key or a unique guard that depends on a changed
// field), so that an update of plain fields builds no struct value and no
// lookup tables.
type updatePlan struct {
	// update is the update expression's SET, REMOVE, ADD and DELETE
	// clauses.
	update expr.Update

	m       *entityModel
	key     reflect.Value // the key value the update was given
	changes []change
	shape   *changeShape  // what the changes' shape decides (see changeShape)
	next    reflect.Value // see nextValue; invalid until then
	nextPtr any           // what releaseNext recycles (see entityModel.newValue)
	// read is what Update read of the stored item before planning; nil
	// when it read nothing.
	read *storedRead
	// need is set when index keys need fields the update neither gives nor
	// has read.
	need *readNeeded
	// created is the created timestamp a new item gets (zero without one):
	// what the index keys of an upsert-created item read.
	created time.Time
	// room hands out the values the update gives (its changes' values,
	// its index keys'), from room allocated with its action (see
	// updateAction) rather than one by one; the zero Room allocates each.
	room codec.Room
	// ranges are the room the changes to integer fields need.
	ranges []rangeCheck
	// storedBytes is what the values the item holds after the update add
	// up to (names of top-level attributes included): with the key, a
	// lower bound of the item's size.
	storedBytes int
}

// keyValue is the string attribute value s, from the plan's room.
func (p *updatePlan) keyValue(s string) types.AttributeValue { return p.room.S(s) }

// storedRead is what Update read of the stored item, strongly consistent,
// before planning: the fields the update needs and does not give.
type storedRead struct {
	found bool
	// given: the caller gave the fields (Current), nothing was read; a
	// failed condition is then a *StaleError (see staleField).
	given bool
	// fields are the Go fields read, sorted; attrs their attributes as
	// stored (absent ones missing).
	fields []string
	attrs  map[string]types.AttributeValue
	// check holds the attributes whose change makes another attempt
	// worth it: attrs, and the unique fields when the update moves a guard.
	check map[string]types.AttributeValue
	// value holds the key fields and the fields read; for an item not
	// found, the key fields and the created timestamp a new one gets.
	value reflect.Value
}

// has reports whether the read tells field goName's value: every field
// of an item that does not exist (an upsert creates it from zero values).
func (r *storedRead) has(goName string) bool {
	return r != nil && (!r.found || slices.Contains(r.fields, goName))
}

// same reports whether two reads of the item saw the same thing: both
// found it or neither, with the same attributes to check.
func (r *storedRead) same(o *storedRead) bool {
	if r.found != o.found || len(r.check) != len(o.check) {
		return false
	}
	for a, v := range r.check {
		if !reflect.DeepEqual(v, o.check[a]) {
			return false
		}
	}
	return true
}

// operator is how an update operator is planned. Adding an operator is
// one entry in operators (and its Changes method).
type operator struct {
	name string
	// computed: DynamoDB computes the new value from the stored one, so
	// the request cannot know it (nor derive index keys or guards from it).
	computed bool
	// topLevel: DynamoDB applies the action to top-level attributes only.
	topLevel bool
	// skipOmittedZero: the zero value of an omitempty field (which Put
	// never stores) makes the change do nothing.
	skipOmittedZero bool
	// settable: the top-level field must be settable in the Go value (not
	// promoted through an unexported embedded pointer), since the change
	// gives its new value.
	settable bool
	// stored: the item holds the change's value afterwards, so its size
	// counts toward the item's (see updatePlan.storedBytes).
	stored bool
	// sign: the change adds (1) or subtracts (-1) its number value, which
	// must leave an integer field within its type's range (rangeCheck).
	sign  int
	value valueKind
	// check checks (and adapts) the encoded value; a nil value and no
	// error removes the attribute instead, as Put would leave it out.
	check func(m *entityModel, c change, f *codec.Field, av types.AttributeValue) (types.AttributeValue, error)
	// konst makes a constant the action reads ("$k"), added to the
	// request's values before the change's own; from r when it can.
	konst func(r codec.Room) types.AttributeValue
	// clause and action are what the change writes: action's parts
	// concatenated, "$p" standing for the path, "$v" for the value (see
	// expr.Update.Template).
	clause expr.Clause
	action []string
}

// valueKind is how an operator's value is encoded.
type valueKind int

const (
	noValue      valueKind = iota
	wholeValue             // as the field's value
	elementValue           // as a value or an element of the field's set or list
)

var operators = [...]operator{
	changeSet: {name: "Set", settable: true, stored: true, value: wholeValue, check: checkSet,
		clause: expr.ClauseSet, action: []string{"$p", " = ", "$v"}},
	changeRemove: {name: "Remove", settable: true,
		clause: expr.ClauseRemove, action: []string{"$p"}},
	changeAdd: {name: "Add", computed: true, topLevel: true, sign: 1, value: elementValue, check: checkAdd,
		clause: expr.ClauseAdd, action: []string{"$p", " ", "$v"}},
	changeDeleteFromSet: {name: "DeleteFromSet", computed: true, topLevel: true, value: elementValue, check: checkDeleteFromSet,
		clause: expr.ClauseDelete, action: []string{"$p", " ", "$v"}},
	changeAppend: {name: "Append", computed: true, stored: true, value: elementValue, check: checkList, konst: emptyList,
		clause: expr.ClauseSet, action: []string{"$p", " = list_append(if_not_exists(", "$p", ", ", "$k", "), ", "$v", ")"}},
	changePrepend: {name: "Prepend", computed: true, stored: true, value: elementValue, check: checkList, konst: emptyList,
		clause: expr.ClauseSet, action: []string{"$p", " = list_append(", "$v", ", if_not_exists(", "$p", ", ", "$k", "))"}},
	changeSetIfNotExists: {name: "SetIfNotExists", computed: true, skipOmittedZero: true, value: wholeValue, check: checkSetIfNotExists,
		clause: expr.ClauseSet, action: []string{"$p", " = if_not_exists(", "$p", ", ", "$v", ")"}},
	changeIncrement: {name: "Increment", computed: true, sign: 1, value: wholeValue, check: checkNumber, konst: zeroNumber,
		clause: expr.ClauseSet, action: []string{"$p", " = if_not_exists(", "$p", ", ", "$k", ") + ", "$v"}},
	changeDecrement: {name: "Decrement", computed: true, sign: -1, value: wholeValue, check: checkNumber, konst: zeroNumber,
		clause: expr.ClauseSet, action: []string{"$p", " = if_not_exists(", "$p", ", ", "$k", ") - ", "$v"}},
}

// listOverhead is what a list adds to an item's size besides its elements
// (see codec.Size).
const listOverhead = 3

func emptyList(codec.Room) types.AttributeValue {
	return &types.AttributeValueMemberL{Value: []types.AttributeValue{}}
}

func zeroNumber(r codec.Room) types.AttributeValue { return r.N("0") }

// checkSet removes, rather than sets, what Put leaves out: an omitempty
// field's zero value (at any depth through structs), and an index key's
// empty value, which is absent.
func checkSet(m *entityModel, c change, f *codec.Field, av types.AttributeValue) (types.AttributeValue, error) {
	if top := topField(c.field); top != c.field {
		if m.omitsZero(c.field, c.value) {
			return nil, nil
		}
	} else if _, raw := c.value.(types.AttributeValue); !raw && f.Tag.OmitEmpty && setValue(c.value, f).IsZero() {
		return nil, nil
	} else if ei, sort, ok := m.indexOfField(top); ok {
		if absentKeyValue(av) {
			return nil, nil
		}
		attr, tpl, limit := ei.fieldKey(sort)
		if err := m.checkFieldKey(ei.index, top, attr, tpl.Raw, av, limit); err != nil {
			return nil, err
		}
	}
	return av, nil
}

// checkAdd takes a number or a set (a single element of a set field is a
// one-element set).
func checkAdd(m *entityModel, c change, f *codec.Field, av types.AttributeValue) (types.AttributeValue, error) {
	return m.setOperand(c, f, av, true)
}

// checkDeleteFromSet takes a set (or a single element of a set field).
func checkDeleteFromSet(m *entityModel, c change, f *codec.Field, av types.AttributeValue) (types.AttributeValue, error) {
	return m.setOperand(c, f, av, false)
}

// checkList takes a list, or a single element as a one-element list, for
// a field stored as a list: a set has no order to add to (Put stores a
// set-tagged field, or a [][]byte, as one).
func checkList(_ *entityModel, c change, f *codec.Field, av types.AttributeValue) (types.AttributeValue, error) {
	if topField(c.field) == c.field && storedAsSet(f.Type, f.Tag) {
		return nil, errors.New("the field is stored as a set, which has no order: use Add (and DeleteFromSet)")
	}
	if _, isList := av.(*types.AttributeValueMemberL); !isList {
		av = &types.AttributeValueMemberL{Value: []types.AttributeValue{av}}
	}
	return av, nil
}

// checkSetIfNotExists refuses an index key's empty value: stored, it would
// be absent, so the change could only ever do nothing.
func checkSetIfNotExists(m *entityModel, c change, _ *codec.Field, av types.AttributeValue) (types.AttributeValue, error) {
	if top := topField(c.field); top == c.field && m.indexedField(top) && absentKeyValue(av) {
		return nil, errors.New("the field is an index key, whose empty value is absent (DynamoDB refuses it in a key), so this sets nothing: give a value")
	}
	return av, nil
}

// checkNumber takes a number.
func checkNumber(_ *entityModel, c change, _ *codec.Field, av types.AttributeValue) (types.AttributeValue, error) {
	if _, ok := av.(*types.AttributeValueMemberN); ok {
		return av, nil
	}
	if _, str := av.(*types.AttributeValueMemberS); str && isNumberKind(reflect.ValueOf(c.value).Kind()) {
		return nil, fmt.Errorf("the field stores its number as a string (a `,string` tag), and DynamoDB adds to numbers only: Set the new value instead")
	}
	return nil, fmt.Errorf("takes a number, got %T", c.value)
}

func isNumberKind(k reflect.Kind) bool {
	return k >= reflect.Int && k <= reflect.Float64
}

// render adds operator o's action on path p with value av.
// It returns av's size (codec.Size).
func (p *updatePlan) render(o *operator, b *expr.Builder, path string, av types.AttributeValue) (size int) {
	var k, v string
	if o.konst != nil {
		k = b.Value(o.konst(p.room))
	}
	if av != nil {
		v, size = b.SizedValue(av)
	}
	p.update.Template(o.clause, o.action, path, v, k)
	return size
}

// topField is the top-level Go field a change's path starts with:
// "Address" for "Address.City" and "Tags" for "Tags[0]".
func topField(path string) string {
	// A byte loop: strings.IndexAny costs more than the whole scan here,
	// and planning calls this for every change in several loops.
	for i := 0; i < len(path); i++ {
		if path[i] == '.' || path[i] == '[' {
			return path[:i]
		}
	}
	return path
}

// unknown reports whether the change leaves the field's new value unknown
// to the request: it is below the field ("Address.City"), or DynamoDB
// computes it from the stored value (Add, Increment ...).
func (c change) unknown() bool { return c.field != topField(c.field) || operators[c.op].computed }

// touches reports whether the update changes top-level field goName.
func (p *updatePlan) touches(goName string) bool { return touches(p.changes, goName) }

// touches reports whether one of changes is to top-level field goName.
func touches(changes []change, goName string) bool {
	for _, c := range changes {
		if topField(c.field) == goName {
			return true
		}
	}
	return false
}

// known reports whether the update knows field goName's value after it: a
// key field, or a field that the update sets (other than to a raw
// AttributeValue, which tells nothing) or removes as a whole, with no change
// that leaves its value unknown.
func (p *updatePlan) known(goName string) bool {
	known := p.m.keyFields[goName] || p.read.has(goName) || p.m.shardDerived(goName)
	for _, c := range p.changes {
		if topField(c.field) != goName {
			continue
		}
		switch {
		case c.unknown():
			return false
		case c.op == changeSet:
			_, raw := c.value.(types.AttributeValue)
			known = !raw
		case c.op == changeRemove:
			known = true
		}
	}
	return known
}

// nextValue is the item as far as the update knows it: the key fields
// and the fields read (or, with nothing read, the created timestamp a new
// item gets), with every field a top-level Set or Remove gives a value; the
// other fields are zero, as in an item the update creates. Which of its
// fields are known is for known to say. Built on first use.
func (p *updatePlan) nextValue() reflect.Value {
	if p.next.IsValid() {
		return p.next
	}
	next, ptr := p.m.newValue()
	p.nextPtr = ptr
	if p.read != nil {
		next.Set(p.read.value)
	} else {
		p.m.baseValue(next, p.key, p.created)
	}
	for i, c := range p.changes {
		if p.shape.nested[i] || (c.op != changeSet && c.op != changeRemove) {
			continue
		}
		f := p.shape.fields[i]
		// Reached as for any Set, allocating embedded pointers on the way;
		// planChanges refused the fields that cannot be set.
		fv, ok := settableField(next, f.Index)
		if !ok {
			continue
		}
		if _, raw := c.value.(types.AttributeValue); raw {
			continue
		}
		if c.op == changeSet {
			fv.Set(setValue(c.value, f))
		} else {
			fv.SetZero()
		}
	}
	p.next = next
	return next
}

// indexKey is the key of index is.ei that the item has after the update
// (see entityModel.indexKey): rendered from the values the update gives
// when their sources are known, else from nextValue.
func (p *updatePlan) indexKey(is *indexShape) (pk, sk string, ok bool, err error) {
	if is.sources == nil || p.read != nil || !p.created.IsZero() || len(is.sources) > 8 {
		return p.m.indexKey(is.ei, p.nextValue())
	}
	var room [8]reflect.Value
	vals := room[:len(is.sources)]
	for i, src := range is.sources {
		f := src.field
		switch {
		case src.from == fromKey:
			vals[i] = fieldValue(f, p.key)
		case src.from == fromZero || p.changes[src.from].op == changeRemove:
			vals[i] = reflect.Zero(f.Type)
		default:
			vals[i] = setValue(p.changes[src.from].value, f)
		}
	}
	return p.m.indexKeyFrom(is.ei, vals[:is.npk], vals[is.npk:])
}

// releaseNext recycles the value nextValue built, once the plan is done
// with it (planUpdate's last step).
func (p *updatePlan) releaseNext() {
	if p.next.IsValid() {
		p.m.releaseValue(p.next, p.nextPtr)
		p.next, p.nextPtr = reflect.Value{}, nil
	}
}

// baseValue sets into v, a zero struct value, the key fields of key and
// the created timestamp a new item gets (when created is not zero).
func (m *entityModel) baseValue(v, key reflect.Value, created time.Time) {
	for _, f := range m.keyFieldList {
		if fv, ok := settableField(v, f.Index); ok {
			fv.Set(fieldValue(f, key))
		}
	}
	if f := m.managed.created; f != nil && !created.IsZero() {
		setTimestamp(f, v, created)
	}
}

// omitsZero reports whether Put leaves out field path's zero value: the
// field (at any depth through structs) is tagged omitempty and v is its
// zero value. A path through a list or a map, or into an unknown type, is
// not known to omit anything.
func (m *entityModel) omitsZero(path string, v any) bool {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() || !rv.IsZero() {
		return false
	}
	f, ok := m.fields.ByGoName(topField(path))
	if !ok {
		return false
	}
	for rest := path[len(f.GoName):]; rest != ""; {
		if rest[0] != '.' {
			return false
		}
		name := rest[1:]
		rest = ""
		if i := strings.IndexAny(name, ".["); i >= 0 {
			name, rest = name[:i], name[i:]
		}
		t := f.Type
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || t == timeType {
			return false
		}
		fs, err := codec.FieldsOf(t)
		if err != nil {
			return false
		}
		if f, ok = fs.ByGoName(name); !ok {
			return false
		}
	}
	return f.Tag.OmitEmpty && (rv.Type() == f.Type || convertible(rv, f.Type))
}

// setValue is v as Set stores it in field f: converted to the field's type
// (planChanges checked that it converts without loss), the zero value for
// nil.
func setValue(v any, f *codec.Field) reflect.Value {
	rv := reflect.ValueOf(v)
	switch {
	case !rv.IsValid():
		return reflect.Zero(f.Type)
	case rv.Type() == f.Type:
		return rv
	case rv.Type().AssignableTo(f.Type):
		fv := reflect.New(f.Type).Elem() // an interface field, or another named type
		fv.Set(rv)
		return fv
	case pointsTo(rv, f.Type):
		return pointerTo(rv, f.Type)
	}
	return rv.Convert(f.Type)
}

// planChanges resolves the field changes and recomputes every index key
// that depends on a changed field, so that index keys are never stale.
// What the shape of the changes decides is checked once per shape (see
// changeShape); what their values decide, on every call.
func (m *entityModel) planChanges(op string, keyValue reflect.Value, s *settings, b *expr.Builder, plan *updatePlan) error {
	plan.m, plan.key, plan.changes = m, keyValue, s.changes
	sh, err := m.shapeOf(op, s, plan)
	if err != nil {
		return err
	}
	plan.shape = sh
	r := resolver{m: m, b: b}
	for i, c := range s.changes {
		o := &operators[c.op]
		f, nested := sh.fields[i], sh.nested[i]
		if o.skipOmittedZero && m.omitsZero(c.field, c.value) {
			// Put never stores this zero value: setting it where there is
			// none would store what Put leaves out, and keep a later
			// SetIfNotExists from storing a real value.
			continue
		}
		p, err := changePath(r, f, nested, c.field)
		if err != nil {
			return inputError(op, "%s(%q): %v", o.name, c.field, err)
		}
		var av types.AttributeValue
		if o.value != noValue {
			if c.value == nil && !nested && !nillable(f.Type) {
				// A NULL in place of a string or a number would read back as
				// its zero value, and match no condition on it (nor a guard).
				return inputError(op, "%s(%q): the field is a %s, which nil is not a value of: Remove the field, or give its zero value", o.name, c.field, f.Type)
			}
			// By the field's own rules, at any depth.
			if av, err = m.encodeChange(plan.room, f, nested, c, o.value == elementValue); err != nil {
				if ke := m.keyFieldError(f.GoName, err); ke != nil && !nested {
					return ke // a key field's value, as Put and Get say
				}
				return inputError(op, "%s(%q): %v", o.name, c.field, err)
			}
		}
		// A raw AttributeValue tells nothing the model could check.
		if _, raw := c.value.(types.AttributeValue); o.settable && !nested && !raw && !m.settable(f) {
			return inputError(op, "%s(%q): the field is promoted through an unexported embedded pointer", o.name, c.field)
		}
		if o.check != nil {
			if av, err = o.check(m, c, f, av); err != nil {
				if ke := (*KeyError)(nil); errors.As(err, &ke) {
					return err // an index key the value would break, as Put says
				}
				return inputError(op, "%s(%q): %v", o.name, c.field, err)
			}
			if av == nil {
				plan.update.Act(expr.ClauseRemove, p) // what Put leaves out
				continue
			}
		}
		size := plan.render(o, b, p, av)
		if o.stored {
			n := size
			if o.value == elementValue {
				n -= listOverhead // elements joining a list, which has its own
			}
			if !nested {
				n += len(f.Attr)
			}
			plan.storedBytes += n
		}
		if o.sign != 0 {
			if rc, ok := m.rangeCheckOf(o, c, f, nested, av); ok {
				plan.ranges = append(plan.ranges, rc)
			}
		}
	}

	var need *readNeeded
	for _, is := range sh.indexes {
		ei := is.ei
		if len(is.missing) > 0 {
			switch {
			case is.affected && plan.leaves(ei):
				// The item leaves the index whatever the other fields hold.
				plan.update.Act(expr.ClauseRemove, b.Name(ei.index.pk))
				if ei.index.sk != "" {
					plan.update.Act(expr.ClauseRemove, b.Name(ei.index.sk))
				}
				continue
			case !is.affected:
				// An upsert: an existing item keeps its keys, and a new one
				// gets the keys its zero values give, if any.
				if _, _, ok, err := m.indexKey(ei, plan.nextValue()); err != nil || !ok {
					if err != nil {
						return err
					}
					continue
				}
			}
			need = need.add(ei, is.missing)
			continue
		}
		pk, sk, ok, err := plan.indexKey(&is)
		if err != nil {
			return err
		}
		if !ok {
			if ei.pkFrom == keyOwn {
				plan.update.Act(expr.ClauseRemove, b.Name(ei.index.pk))
			}
			if ei.index.sk != "" && ei.skFrom == keyOwn {
				plan.update.Act(expr.ClauseRemove, b.Name(ei.index.sk))
			}
			continue
		}
		if ei.pkFrom == keyOwn {
			plan.update.Act(expr.ClauseSet, b.Name(ei.index.pk), " = ", b.Value(plan.keyValue(pk)))
		}
		if ei.index.sk != "" && ei.skFrom == keyOwn {
			plan.update.Act(expr.ClauseSet, b.Name(ei.index.sk), " = ", b.Value(plan.keyValue(sk)))
		}
	}
	if need != nil {
		// Returned by planUpdate once everything else is checked, so that
		// no read is sent for an update that would fail anyway (which
		// names the operation).
		plan.need = need
	}
	return nil
}

// changePath is the placeholder path of a change to path, below
// top-level field f when nested.
func changePath(r resolver, f *codec.Field, nested bool, path string) (string, error) {
	if !nested {
		return r.b.Name(f.Attr), nil
	}
	p, _, err := r.path(path)
	return p, err
}

// encodeChange encodes the value of change c to a path below top-level
// field f when nested, else to f itself, its values from room r.
func (m *entityModel) encodeChange(r codec.Room, f *codec.Field, nested bool, c change, element bool) (types.AttributeValue, error) {
	if nested {
		return m.encodeAt(r, nil, c.field, c.value, element)
	}
	return m.encodeAt(r, f, f.GoName, c.value, element)
}

// inputError is an *InputError of op, its reason formatted.
func inputError(op, format string, args ...any) error {
	return &InputError{Op: op, Reason: fmt.Sprintf(format, args...)}
}

// leaves reports whether the update takes the item out of sparse index ei
// by the fields it gives: every field the index's When condition reads is
// known, and the condition is false.
func (p *updatePlan) leaves(ei *entityIndex) bool {
	if ei.when == nil {
		return false
	}
	for _, f := range ei.whenFields {
		if !p.known(f) {
			return false
		}
	}
	return !ei.when(p.nextValue())
}

// readNeeded is planChanges' answer when index keys need fields the update
// neither gives nor has read: Update reads them and plans again; the
// callers that cannot read turn it into a *ReadNeededError.
type readNeeded struct {
	op      string
	first   *entityIndex // the first index that needs a read
	missing []string     // what first needs, sorted
	fields  []string     // what every such index needs, sorted
	// expiry is the expiry field of an upsert that needs to know whether
	// the item exists (ExpiresAfter gives only a new item its expiry),
	// when no index needs a read.
	expiry *codec.Field
}

func (r *readNeeded) Error() string {
	return r.explain("Set them too (to their current values if they do not change)").Error()
}

// needExists records that the upsert needs to know whether the item
// exists, to give a new one the expiry of field f (see onUpdateExpiry).
func (r *readNeeded) needExists(f *codec.Field) *readNeeded {
	if r == nil {
		r = &readNeeded{}
	}
	r.expiry = f
	return r
}

// add records that index ei needs fields missing (sorted, not modified).
func (r *readNeeded) add(ei *entityIndex, missing []string) *readNeeded {
	if r == nil {
		r = &readNeeded{first: ei, missing: missing}
	}
	for _, f := range missing {
		if !slices.Contains(r.fields, f) {
			r.fields = append(r.fields, f)
		}
	}
	slices.Sort(r.fields)
	return r
}

// explain is the *ReadNeededError for a caller that cannot read, advice
// saying what to do instead.
func (r *readNeeded) explain(advice string) *ReadNeededError {
	if r.first == nil {
		f := r.expiry.GoName
		return &ReadNeededError{Op: r.op,
			Reason: fmt.Sprintf("the upsert gives a new item ExpiresAfter's expiry, and an existing one keeps its own (or none): whether the item exists needs a read (Update reads first); Set %s, or SetIfNotExists(%q, ...) for the expiry of an item that has none, to send it as one request", f, f)}
	}
	return &ReadNeededError{Op: r.op, Index: r.first.index.name, Fields: r.fields,
		Reason: fmt.Sprintf("the change to index %s's key (%s) also needs %s: %s",
			r.first.index.name, r.first.describe(), strings.Join(r.missing, ", "), advice)}
}

// overlaps reports whether two document paths overlap: equal, or one
// inside the other.
func overlaps(a, b string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	return a == b || (strings.HasPrefix(b, a) && (b[len(a)] == '.' || b[len(a)] == '['))
}

// asSet turns a single element into a one-element set when the field is a
// set (a slice or a map other than []byte), for Add and DeleteFromSet.
func asSet(av types.AttributeValue, field reflect.Type) types.AttributeValue {
	k := field.Kind()
	if (k != reflect.Slice && k != reflect.Map && k != reflect.Array) || field.Elem().Kind() == reflect.Uint8 && k == reflect.Slice {
		return nil
	}
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		return &types.AttributeValueMemberSS{Value: []string{v.Value}}
	case *types.AttributeValueMemberN:
		return &types.AttributeValueMemberNS{Value: []string{v.Value}}
	case *types.AttributeValueMemberB:
		return &types.AttributeValueMemberBS{Value: [][]byte{v.Value}}
	}
	return nil
}

// changedUnique names a unique field the update changes, or the expiry
// field of an entity with unique fields (whose guards carry the expiry);
// "" if none.
func (m *entityModel) changedUnique(s *settings) string {
	exp := m.managed.expires
	for _, c := range s.changes {
		top := topField(c.field)
		if m.managed.isUnique(top) || (exp != nil && top == exp.GoName && len(m.managed.unique) > 0) {
			return top
		}
	}
	return ""
}

// describeGuarded names what changedUnique returned, for messages.
func (m *entityModel) describeGuarded(field string) string {
	if m.managed.isUnique(field) {
		return "unique field " + field
	}
	return "the expiry " + field + " of an entity with unique fields"
}

// primaryTemplates describes the primary key templates for messages.
func (m *entityModel) primaryTemplates() string {
	if m.sk == nil {
		return fmt.Sprintf("%s %q", m.table.pk, m.pk.Raw)
	}
	return fmt.Sprintf("%s %q, %s %q", m.table.pk, m.pk.Raw, m.table.sk, m.sk.Raw)
}

// describe names an index key's templates for messages.
func (ei *entityIndex) describe() string {
	s := fmt.Sprintf("%s %q", ei.index.pk, ei.pk.Raw)
	if ei.sk != nil {
		s += fmt.Sprintf(", %s %q", ei.index.sk, ei.sk.Raw)
	}
	if ei.when != nil {
		s += fmt.Sprintf(", when %s", strings.Join(ei.whenFields, ", "))
	}
	return s
}

// nillable reports whether nil is a value of type t (stored as NULL).
func nillable(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Map, reflect.Slice:
		return true
	}
	return false
}
