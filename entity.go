package singletable

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync/atomic"
	"time"

	"github.com/singletable/singletable/internal/codec"
	"github.com/singletable/singletable/internal/keys"
	"github.com/singletable/singletable/internal/recycle"
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
	// key in the namespace of unique-value guard items (see
	// checkGuardNamespace).
	pkMayBeReserved bool
	// managed are the managed fields: version, timestamps, unique values,
	// expiry (managed.go, a file per feature).
	managed managed
	// shard is the shard field, nil when the entity is not sharded (shard.go).
	shard *shardModel
	// ops are the names of the entity's operations, for errors.
	ops opNames
	// updates is what its updates share between calls (update_compile.go).
	updates updateCache
	// values recycles struct values of the entity's type: the copies
	// writes plan with and the values updates build (copies.go).
	values recycle.Pool
	// typedMember decodes the entity's typed raw items (decode.go).
	typedMember atomic.Pointer[readMember]
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
	// opts are the options given to Define, which applyOptions applies.
	opts     []EntityOption
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
	if t == nil {
		return nil, &ModelError{Entity: name, Reason: "the table is nil: declare it with NewTable or MustTable first"}
	}
	m := &entityModel{table: t, name: name, typ: reflect.TypeFor[T](), keyFields: map[string]bool{}, ops: newOpNames(name)}
	spec := entitySpec{opts: opts}
	for _, step := range defineSteps {
		if err := step(&spec, m); err != nil {
			return nil, err
		}
	}
	return &Entity[T]{m: m, query: entityQuery[T](m)}, nil
}

// defineSteps are the steps of Define, in the order they run: each checks
// part of the declaration (spec) and fills in its part of the model, which
// has the table, the name and the Go type to begin with.
var defineSteps = [...]func(*entitySpec, *entityModel) *ModelError{
	checkEntityName,
	resolveFields,       // the struct's fields and codec plan
	applyOptions,        // the options, into spec
	checkAttributes,     // no field under a key, type or (mistyped) TTL attribute
	parseKeys,           // the primary key templates
	declaredIndexes,     // the Index declarations
	derivedIndexes,      // the indexes keyed on attributes the item has anyway
	checkGuardNamespace, // managed_unique.go
	resolveManaged,      // managed.go: version, timestamps, unique values, expiry
	resolveShardStep,    // shard.go
	checkBucketSortsStep,
	registerEntity, // on the table, last: then the entity is defined
}

// modelFail is the *ModelError of entity m.
func (m *entityModel) modelFail(field, tpl, reason string, args ...any) *ModelError {
	return &ModelError{Table: m.table.name, Entity: m.name, Field: field, Template: tpl, Reason: fmt.Sprintf(reason, args...)}
}

// asModelError is err (a *ModelError, or nil) as one.
func asModelError(err error) *ModelError {
	if err == nil {
		return nil
	}
	return err.(*ModelError)
}

func checkEntityName(_ *entitySpec, m *entityModel) *ModelError {
	if m.name == "" {
		return m.modelFail("", "", "the entity name is empty")
	}
	if strings.ContainsAny(m.name, "\x00") {
		return m.modelFail("", "", "the entity name contains a NUL byte")
	}
	return nil
}

// resolveFields plans the codec of the struct type: its stored fields.
func resolveFields(_ *entitySpec, m *entityModel) *ModelError {
	if m.typ.Kind() != reflect.Struct {
		return m.modelFail("", "", "%s is not a struct type", m.typ)
	}
	plan, err := codec.PlanOf(m.typ)
	if err != nil {
		return m.modelFail("", "", "%v", err)
	}
	m.plan, m.fields = plan, plan.Fields()
	if len(m.fields.Hidden) > 0 {
		return m.modelFail("", "", "%s, so neither is stored: rename one with a dynamodbav tag, or tag one `dynamodbav:\"-\"`", m.fields.Hidden[0])
	}
	return nil
}

// applyOptions applies the options to spec: one Key is needed.
func applyOptions(spec *entitySpec, m *entityModel) *ModelError {
	for _, o := range spec.opts {
		if o == nil {
			return m.modelFail("", "", "nil option")
		}
		o.applyEntity(spec)
	}
	if !spec.hasKey {
		return m.modelFail("", "", "no primary key: pass Key(pkTemplate, skTemplate)")
	}
	if spec.keyCalls > 1 {
		return m.modelFail("", "", "Key is given %d times", spec.keyCalls)
	}
	return nil
}

// checkAttributes refuses a field stored under an attribute the table
// reserves, or under the TTL attribute with a type it cannot hold.
func checkAttributes(_ *entitySpec, m *entityModel) *ModelError {
	t := m.table
	reserved := t.keyAttributes()
	for _, f := range m.fields.List {
		if what, clash := reserved[f.Attr]; clash {
			return m.modelFail(f.GoName, "", "stored as attribute %q, which is %s; rename it with a dynamodbav tag", f.Attr, what)
		}
		if f.Attr == t.ttlAttr && !isTTLField(f) {
			return m.modelFail(f.GoName, "", "stored as the TTL attribute %q, so it must be an integer or a time.Time tagged `dynamodbav:\",unixtime\"` (or a pointer to either)", f.Attr)
		}
	}
	return nil
}

// parseTemplate parses key template tpl over the entity's fields.
func (m *entityModel) parseTemplate(tpl string) (*keys.Template, *ModelError) {
	pt, err := keys.Parse(tpl, m.fields, m.table.delim)
	if err != nil {
		var fe *keys.FieldError
		if errors.As(err, &fe) {
			reason := fe.Reason
			if sf, ok := m.typ.FieldByName(fe.Field); ok && sf.Tag.Get("dynamodbav") == "-" {
				reason = "the field is not stored (tagged `dynamodbav:\"-\"`), so a key cannot read it back; store it, or key on another field"
			}
			return nil, &ModelError{Table: m.table.name, Entity: m.name, Field: fe.Field, Template: tpl, Reason: reason}
		}
		return nil, &ModelError{Table: m.table.name, Entity: m.name, Template: tpl, Reason: err.Error()}
	}
	return pt, nil
}

// parseKeys parses the primary key templates, and lists the fields they
// read.
func parseKeys(spec *entitySpec, m *entityModel) *ModelError {
	t := m.table
	var err *ModelError
	if m.pk, err = m.parseTemplate(spec.pk); err != nil {
		return err
	}
	switch {
	case t.sk == "" && spec.sk != "":
		return m.modelFail("", spec.sk, "table %s has no sort key, so the entity cannot declare a sort template", t.name)
	case t.sk != "" && spec.sk == "":
		return m.modelFail("", "", "table %s has sort key %s: Key needs a sort template (a constant such as \"PROFILE\" is fine)", t.name, t.sk)
	case t.sk != "":
		if m.sk, err = m.parseTemplate(spec.sk); err != nil {
			return err
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
	for i := range m.fields.List {
		if m.keyFields[m.fields.List[i].GoName] {
			m.keyFieldList = append(m.keyFieldList, &m.fields.List[i])
		}
	}
	return nil
}

// keySource is where an index key attribute's value comes from, for this
// entity: the table's own key, a field stored under it, or else the
// template the entity declares for it (keyOwn, with no template).
func (m *entityModel) keySource(attr string) (keySource, *keys.Template, *ModelError) {
	t := m.table
	switch {
	case attr == "":
		return keyOwn, nil, nil
	case attr == t.pk:
		return keyTable, m.pk, nil
	case attr == t.sk:
		return keyTable, m.sk, nil
	}
	f, ok := m.fields.ByAttr(attr)
	if !ok {
		return keyOwn, nil, nil
	}
	if fieldAttrType(f) == "" {
		return keyOwn, nil, m.modelFail(f.GoName, "", "stored as attribute %q, an index key attribute, which holds a string, a number or binary; the field is a %s: rename it with a dynamodbav tag", attr, f.Type)
	}
	return keyField, keys.FieldTemplate(f, t.delim), nil
}

// indexPart resolves one key attribute of index ix declared with template
// raw: a derived one must be declared as what it is, or left out with the
// whole Index.
func (m *entityModel) indexPart(ix *GSI, attr, raw, what string) (keySource, *keys.Template, *ModelError) {
	t := m.table
	from, derived, err := m.keySource(attr)
	switch {
	case err != nil:
		return from, nil, err
	case from == keyOwn:
		tpl, err := m.parseTemplate(raw)
		return from, tpl, err
	case raw != derived.Raw:
		where := "the table's partition key, so it is the entity's own partition template"
		if attr == t.sk {
			where = "the table's sort key, so it is the entity's own sort template"
		} else if from == keyField {
			where = "the attribute field " + derived.Lead().Field.GoName + " is stored as, so it is the field's value itself (no literal text, no format)"
		}
		return from, nil, m.modelFail("", raw, "index %s's %s %s is %s: declare it as %q, or leave Index(%q, ...) out (it is derived)", ix.name, what, attr, where, derived.Raw, ix.name)
	}
	return from, derived, nil
}

// declaredIndexes resolves the indexes the entity declares (Index).
func declaredIndexes(spec *entitySpec, m *entityModel) *ModelError {
	t := m.table
	declared := map[*GSI]bool{}
	for _, ik := range spec.indexes {
		ix, ok := t.GSI(ik.index)
		if !ok {
			return m.modelFail("", ik.pk, "index %s is not declared on table %s (declare it with WithGSI)", ik.index, t.name)
		}
		if declared[ix] {
			return m.modelFail("", ik.pk, "index %s is given twice: an item has one value per index key", ix.name)
		}
		declared[ix] = true
		ei := &entityIndex{index: ix}
		var err *ModelError
		if ei.pkFrom, ei.pk, err = m.indexPart(ix, ix.pk, ik.pk, "partition key"); err != nil {
			return err
		}
		switch {
		case ix.sk == "" && ik.sk != "":
			return m.modelFail("", ik.sk, "index %s has no sort key", ix.name)
		case ix.sk != "" && ik.sk == "":
			return m.modelFail("", ik.pk, "index %s has sort key %s: give a sort template", ix.name, ix.sk)
		case ix.sk != "":
			if ei.skFrom, ei.sk, err = m.indexPart(ix, ix.sk, ik.sk, "sort key"); err != nil {
				return err
			}
		}
		if err := checkSources(ei); err != nil {
			return m.modelFail("", ik.pk, "%v", err)
		}
		var werr error
		if ei.when, ei.whenFields, werr = m.compileWhen(ik.when); werr != nil {
			return m.modelFail("", ik.pk, "index %s: %v", ix.name, werr)
		}
		if ei.when != nil && !ei.writes() {
			return m.modelFail("", ik.pk, "index %s: When cannot apply, as the index writes no key of its own (its keys are attributes the item has anyway)", ix.name)
		}
		m.indexes = append(m.indexes, ei)
	}
	return nil
}

// derivedIndexes adds the indexes whose keys are all attributes the item
// has anyway (the table's keys, fields), which hold the entity without a
// declaration; then lists every index's inputs.
func derivedIndexes(_ *entitySpec, m *entityModel) *ModelError {
	declared := map[*GSI]bool{}
	for _, ei := range m.indexes {
		declared[ei.index] = true
	}
	for _, ix := range m.table.gsis {
		if declared[ix] {
			continue
		}
		ei := &entityIndex{index: ix}
		var err *ModelError
		if ei.pkFrom, ei.pk, err = m.keySource(ix.pk); err != nil {
			return err
		}
		if ei.skFrom, ei.sk, err = m.keySource(ix.sk); err != nil {
			return err
		}
		if ei.pk == nil || (ix.sk != "" && ei.sk == nil) {
			continue // a key of its own to write: the entity is in it only if it declares Index
		}
		if err := checkSources(ei); err != nil {
			return m.modelFail("", "", "%v", err)
		}
		m.indexes = append(m.indexes, ei)
	}
	for _, ei := range m.indexes {
		ei.inputs = ei.listInputs()
	}
	return nil
}

func resolveShardStep(spec *entitySpec, m *entityModel) *ModelError {
	return asModelError(m.resolveShard(spec))
}

func checkBucketSortsStep(_ *entitySpec, m *entityModel) *ModelError {
	return asModelError(m.checkBucketSorts())
}

// registerEntity registers the entity on its table, and readies what its
// writes recycle.
func registerEntity(_ *entitySpec, m *entityModel) *ModelError {
	if err := m.table.register(m); err != nil {
		return asModelError(err)
	}
	m.values.Enable(m.recycling())
	return nil
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
