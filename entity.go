package singletable

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/singletable/singletable/internal/codec"
	"github.com/singletable/singletable/internal/keys"
)

// Entity is one Go struct type T registered on a table under an entity name,
// with its key templates. Its methods read and write items of that type:
// Get, Put, Create, Update, Delete, Query, and for each the request it would
// send (GetInput, PutInput ...). Declare it once, at package level, with
// Define or MustDefine.
type Entity[T any] struct {
	m *entityModel
	// query is the pattern Entity.Query runs (query.go).
	query Pattern[T]
}

// entityModel is the type-independent part of an entity, shared with
// collections, transactions and batches that handle several entity types.
type entityModel struct {
	table   *Table
	name    string
	typ     reflect.Type
	fields  *codec.Fields
	plan    *codec.Plan // encodes and decodes T, built once
	pk, sk  *keys.Template
	indexes []*entityIndex
	// keyFields are the Go fields the primary key reads; keyFieldList
	// the same fields in field order, for the loops that visit them all.
	keyFields    map[string]bool
	keyFieldList []*codec.Field
	// pkMayBeReserved is set when the partition template could render a
	// key in the namespace of unique-value guard items (see resolveWrite).
	pkMayBeReserved bool
	// managed are the managed fields: version, timestamps, unique values
	// (managed.go).
	managed managed
	// shard is the shard field, nil when the entity is not sharded (shard.go).
	shard *shardModel
	// ops are the names of the entity's operations, for errors.
	ops opNames
	// updates is what its updates share between calls (update_cache.go).
	updates updateCache
	// values recycles struct values of the entity's type: the copies
	// writes plan with and the values updates build (copies.go).
	values values
}

// opNames are an entity's operation names as errors give them
// ("User.Put"), made once: building one per call costs an allocation.
type opNames struct {
	get, put, create, update, delete, check, query, batchGet, txGet string
}

func newOpNames(entity string) opNames {
	return opNames{
		get: entity + ".Get", put: entity + ".Put", create: entity + ".Create",
		update: entity + ".Update", delete: entity + ".Delete", check: entity + ".Check",
		query: entity + ".Query", batchGet: entity + ".BatchGet", txGet: entity + ".TxGet",
	}
}

// EntityOption declares part of an entity: its primary key (Key) or a GSI
// key (Index).
type EntityOption interface {
	applyEntity(*entitySpec)
}

type entitySpec struct {
	pk, sk   string
	hasKey   bool
	indexes  []IndexKey
	keyCalls int
	write    writeSpec // managed-field options: managed.go
	// shard is the Shards declaration (shard.go).
	shard      *ShardSpec
	shardCalls int
}

type keyOption struct{ pk, sk string }

func (k keyOption) applyEntity(s *entitySpec) {
	s.pk, s.sk, s.hasKey = k.pk, k.sk, true
	s.keyCalls++
}

func (k IndexKey) applyEntity(s *entitySpec) { s.indexes = append(s.indexes, k) }

// Key declares the entity's primary key templates: partition template pk and
// sort template sk ("" for a table without a sort key). The template rules
// are in the package documentation (Keys).
func Key(pk, sk string) EntityOption { return keyOption{pk: pk, sk: sk} }

// Define registers struct type T on table t as the entity name, with its key
// templates. Everything is checked now, and errors (a *ModelError, matching
// ErrInvalidModel) name the entity, the field and the template: an unknown
// field, a field kind keys cannot hold, a duplicate entity name, a struct
// field stored under a key or type attribute, an index the table does not
// declare, a sort template on a table without a sort key. A nil table is a
// *ModelError too. An index keyed on attributes the item has anyway (the
// table's own keys, or a field stored under the index key attribute) holds
// the entity without an Index declaration; see WithGSI.
func Define[T any](t *Table, name string, opts ...EntityOption) (*Entity[T], error) {
	typ := reflect.TypeFor[T]()
	if t == nil {
		return nil, &ModelError{Entity: name, Reason: "the table is nil: declare it with NewTable or MustTable first"}
	}
	fail := func(field, tpl, reason string, args ...any) (*Entity[T], error) {
		return nil, &ModelError{Table: t.name, Entity: name, Field: field, Template: tpl, Reason: fmt.Sprintf(reason, args...)}
	}
	if name == "" {
		return fail("", "", "the entity name is empty")
	}
	if strings.ContainsAny(name, "\x00") {
		return fail("", "", "the entity name contains a NUL byte")
	}
	if typ.Kind() != reflect.Struct {
		return fail("", "", "%s is not a struct type", typ)
	}
	plan, err := codec.PlanOf(typ)
	if err != nil {
		return fail("", "", "%v", err)
	}
	fields := plan.Fields()
	if len(fields.Hidden) > 0 {
		return fail("", "", "%s, so neither is stored: rename one with a dynamodbav tag, or tag one `dynamodbav:\"-\"`", fields.Hidden[0])
	}
	var spec entitySpec
	for _, o := range opts {
		if o == nil {
			return fail("", "", "nil option")
		}
		o.applyEntity(&spec)
	}
	if !spec.hasKey {
		return fail("", "", "no primary key: pass Key(pkTemplate, skTemplate)")
	}
	if spec.keyCalls > 1 {
		return fail("", "", "Key is given %d times", spec.keyCalls)
	}

	reserved := t.keyAttributes()
	for _, f := range fields.List {
		if what, clash := reserved[f.Attr]; clash {
			return fail(f.GoName, "", "stored as attribute %q, which is %s; rename it with a dynamodbav tag", f.Attr, what)
		}
		if f.Attr == t.ttlAttr && !isTTLField(f) {
			return fail(f.GoName, "", "stored as the TTL attribute %q, so it must be an integer or a time.Time tagged `dynamodbav:\",unixtime\"` (or a pointer to either)", f.Attr)
		}
	}

	m := &entityModel{table: t, name: name, typ: typ, fields: fields, plan: plan, keyFields: map[string]bool{}, ops: newOpNames(name)}
	parse := func(tpl string) (*keys.Template, error) {
		pt, err := keys.Parse(tpl, fields, t.delim)
		if err != nil {
			var fe *keys.FieldError
			if errors.As(err, &fe) {
				reason := fe.Reason
				if sf, ok := typ.FieldByName(fe.Field); ok && sf.Tag.Get("dynamodbav") == "-" {
					reason = "the field is not stored (tagged `dynamodbav:\"-\"`), so a key cannot read it back; store it, or key on another field"
				}
				return nil, &ModelError{Table: t.name, Entity: name, Field: fe.Field, Template: tpl, Reason: reason}
			}
			return nil, &ModelError{Table: t.name, Entity: name, Template: tpl, Reason: err.Error()}
		}
		return pt, nil
	}
	if m.pk, err = parse(spec.pk); err != nil {
		return nil, err
	}
	switch {
	case t.sk == "" && spec.sk != "":
		return fail("", spec.sk, "table %s has no sort key, so the entity cannot declare a sort template", t.name)
	case t.sk != "" && spec.sk == "":
		return fail("", "", "table %s has sort key %s: Key needs a sort template (a constant such as \"PROFILE\" is fine)", t.name, t.sk)
	case t.sk != "":
		if m.sk, err = parse(spec.sk); err != nil {
			return nil, err
		}
	}
	for _, f := range m.pk.Fields() {
		m.keyFields[f] = true
	}
	if m.sk != nil {
		for _, f := range m.sk.Fields() {
			m.keyFields[f] = true
		}
	}
	for i := range fields.List {
		if m.keyFields[fields.List[i].GoName] {
			m.keyFieldList = append(m.keyFieldList, &fields.List[i])
		}
	}

	// Where each index key attribute's value comes from, for this entity:
	// the table's own key, a field stored under it, or else the template
	// the entity declares for it.
	source := func(attr string) (keySource, *keys.Template, error) {
		switch {
		case attr == "":
			return keyOwn, nil, nil
		case attr == t.pk:
			return keyTable, m.pk, nil
		case attr == t.sk:
			return keyTable, m.sk, nil
		}
		f, ok := fields.ByAttr(attr)
		if !ok {
			return keyOwn, nil, nil
		}
		if fieldAttrType(f) == "" {
			return keyOwn, nil, &ModelError{Table: t.name, Entity: name, Field: f.GoName, Reason: fmt.Sprintf(
				"stored as attribute %q, an index key attribute, which holds a string, a number or binary; the field is a %s: rename it with a dynamodbav tag", attr, f.Type)}
		}
		return keyField, keys.FieldTemplate(f, t.delim), nil
	}
	declared := map[*GSI]bool{}
	for _, ik := range spec.indexes {
		ix, ok := t.GSI(ik.index)
		if !ok {
			return fail("", ik.pk, "index %s is not declared on table %s (declare it with WithGSI)", ik.index, t.name)
		}
		if declared[ix] {
			return fail("", ik.pk, "index %s is given twice: an item has one value per index key", ix.name)
		}
		declared[ix] = true
		ei := &entityIndex{index: ix}
		// part resolves one index key attribute: a derived one must be
		// declared as what it is, or left out with the whole Index.
		part := func(attr, raw, what string) (keySource, *keys.Template, error) {
			from, derived, err := source(attr)
			switch {
			case err != nil:
				return from, nil, err
			case from == keyOwn:
				tpl, err := parse(raw)
				return from, tpl, err
			case raw != derived.Raw:
				where := "the table's partition key, so it is the entity's own partition template"
				if attr == t.sk {
					where = "the table's sort key, so it is the entity's own sort template"
				} else if from == keyField {
					where = "the attribute field " + derived.Lead().Field.GoName + " is stored as, so it is the field's value itself (no literal text, no format)"
				}
				return from, nil, &ModelError{Table: t.name, Entity: name, Template: raw, Reason: fmt.Sprintf(
					"index %s's %s %s is %s: declare it as %q, or leave Index(%q, ...) out (it is derived)", ix.name, what, attr, where, derived.Raw, ix.name)}
			}
			return from, derived, nil
		}
		if ei.pkFrom, ei.pk, err = part(ix.pk, ik.pk, "partition key"); err != nil {
			return nil, err
		}
		switch {
		case ix.sk == "" && ik.sk != "":
			return fail("", ik.sk, "index %s has no sort key", ix.name)
		case ix.sk != "" && ik.sk == "":
			return fail("", ik.pk, "index %s has sort key %s: give a sort template", ix.name, ix.sk)
		case ix.sk != "":
			if ei.skFrom, ei.sk, err = part(ix.sk, ik.sk, "sort key"); err != nil {
				return nil, err
			}
		}
		if err := checkSources(ei); err != nil {
			return fail("", ik.pk, "%v", err)
		}
		if ei.when, ei.whenFields, err = m.compileWhen(ik.when); err != nil {
			return fail("", ik.pk, "index %s: %v", ix.name, err)
		}
		if ei.when != nil && !ei.writes() {
			return fail("", ik.pk, "index %s: When cannot apply, as the index writes no key of its own (its keys are attributes the item has anyway)", ix.name)
		}
		m.indexes = append(m.indexes, ei)
	}
	// An index whose keys are all attributes the item has anyway (the
	// table's keys, fields) holds the entity without a declaration.
	for _, ix := range t.gsis {
		if declared[ix] {
			continue
		}
		ei := &entityIndex{index: ix}
		if ei.pkFrom, ei.pk, err = source(ix.pk); err != nil {
			return nil, err
		}
		if ei.skFrom, ei.sk, err = source(ix.sk); err != nil {
			return nil, err
		}
		if ei.pk == nil || (ix.sk != "" && ei.sk == nil) {
			continue // a key of its own to write: the entity is in it only if it declares Index
		}
		if err := checkSources(ei); err != nil {
			return fail("", "", "%v", err)
		}
		m.indexes = append(m.indexes, ei)
	}
	for _, ei := range m.indexes {
		ei.inputs = ei.listInputs()
	}
	if err := m.resolveWrite(&spec.write); err != nil {
		return nil, err
	}
	if err := m.resolveShard(&spec); err != nil {
		return nil, err
	}
	if err := m.checkBucketSorts(); err != nil {
		return nil, err
	}
	if err := t.register(m); err != nil {
		return nil, err
	}
	m.values.built, m.values.copies = m.recycling()
	return &Entity[T]{m: m, query: entityQuery[T](m)}, nil
}

// MustDefine is Define that panics on error, for package-level declarations.
func MustDefine[T any](t *Table, name string, opts ...EntityOption) *Entity[T] {
	e, err := Define[T](t, name, opts...)
	if err != nil {
		panic(err)
	}
	return e
}

// checkSources refuses an index that would write a key of its own beside
// a field's own attribute: an update of the field would then have to keep
// the other key in step, which only a rendered key can do.
func checkSources(ei *entityIndex) error {
	if ei.sk == nil || ei.pkFrom == ei.skFrom {
		return nil
	}
	if (ei.pkFrom == keyField && ei.skFrom == keyOwn) || (ei.pkFrom == keyOwn && ei.skFrom == keyField) {
		return fmt.Errorf("index %s has one key attribute that is a field's own (%s or %s) and one written from a template: make both the attributes of fields, or both templates",
			ei.index.name, ei.index.pk, ei.index.sk)
	}
	return nil
}

func isTTLField(f codec.Field) bool {
	t := f.Type
	if t.Kind() == reflect.Pointer { // nil: no expiry
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return !f.Tag.AsString
	}
	return t == reflect.TypeFor[time.Time]() && f.Tag.AsUnixTime
}

// Name is the entity name, stored in every item's type attribute.
func (e *Entity[T]) Name() string { return e.m.name }

// Table is the table the entity is stored in.
func (e *Entity[T]) Table() *Table { return e.m.table }

// model gives collections, transactions and batches the untyped entity.
func (e *Entity[T]) model() *entityModel {
	if e == nil {
		return nil
	}
	return e.m
}

// AnyEntity is any *Entity[T], whatever T: collections, transactions and
// batches take entities of several types.
type AnyEntity interface {
	Name() string
	model() *entityModel
}

var _ AnyEntity = (*Entity[struct{}])(nil)
