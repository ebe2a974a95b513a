package singletable

import (
	"reflect"
	"sync/atomic"

	"github.com/singletable/singletable/internal/model"
	"github.com/singletable/singletable/internal/recycle"
	writes "github.com/singletable/singletable/internal/write"
)

// Entity is one Go struct type T registered on a table under an entity name,
// with its key templates. Its methods read and write items of that type:
// Get, Put, Create, Update, Delete, Query, and for each the request it would
// send (GetInput, PutInput ...). Declare it once, at package level, with
// Define or MustDefine.
type Entity[T any] struct {
	m *entityModel
	// query is the pattern Entity.Query runs (query.go).
	query *readDecl
}

// entityModel is the type-independent part of an entity, shared with
// collections, transactions and batches that handle several entity types.
type entityModel struct {
	// Entity is the model Define builds in internal/model: the fields and
	// codec plan, key templates, index keys. What follows is the core's
	// own: its table, the managed features, shards and what writes share.
	*model.Entity
	table *Table
	// managed are the managed fields: version, timestamps, unique values,
	// expiry (managed.go, a file per feature).
	managed managed
	// ops are the names of the entity's operations, for errors.
	ops opNames
	// updates is what its updates share between calls (update_compile.go).
	updates writes.Cache
	// values recycles struct values of the entity's type: the copies
	// writes plan with and the values updates build (copies.go).
	values recycle.Pool
	// tableMem decodes the entity's items by its table keys: typed raw
	// items, and untyped items of the table's reads (decode.go).
	tableMem atomic.Pointer[readMember]
	// own is the conditions an update or delete writes only the entity's
	// own item under, built once (see ownConds in action.go).
	own ownConds
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
	opts []EntityOption
	// model is the declaration as internal/model takes it, which
	// applyOptions fills in from opts.
	model    model.Spec
	hasKey   bool
	indexes  []IndexKey
	keyCalls int
	write    writeSpec // managed-field options: managed.go
}

type keyOption struct{ pk, sk string }

func (k keyOption) applyEntity(s *entitySpec) {
	s.model.PK, s.model.SK, s.hasKey = k.pk, k.sk, true
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
	// reflect.TypeOf, not reflect.TypeFor: a generic function is compiled
	// again for every entity type.
	m, err := define(t, reflect.TypeOf((*T)(nil)).Elem(), name, opts)
	if err != nil {
		return nil, err
	}
	return &Entity[T]{m: m, query: entityQuery(m)}, nil
}

// define is Define for the Go type typ: the entity's model, after every
// step of defineSteps passed. It is not generic, so that the code of
// Define is compiled once, not once per entity type.
func define(t *Table, typ reflect.Type, name string, opts []EntityOption) (*entityModel, error) {
	if t == nil {
		return nil, &ModelError{Entity: name, Reason: "the table is nil: declare it with NewTable or MustTable first"}
	}
	m := &entityModel{Entity: model.New(&t.schema, name, typ), table: t, ops: newOpNames(name)}
	m.own = newOwnConds(t, name)
	spec := entitySpec{opts: opts}
	for _, step := range defineSteps {
		if err := step(&spec, m); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// defineSteps are the steps of Define, in the order they run: each checks
// part of the declaration (spec) and fills in its part of the model, which
// has the table, the name and the Go type to begin with.
var defineSteps = [...]func(*entitySpec, *entityModel) *ModelError{
	modelStep(model.CheckName),
	modelStep(model.ResolveFields),       // the struct's fields and codec plan
	applyOptions,                         // the options, into spec
	modelStep(model.CheckAttributes),     // no field under a key, type or (mistyped) TTL attribute
	modelStep(model.ParseKeys),           // the primary key templates
	modelStep(model.DeclaredIndexes),     // the Index declarations
	modelStep(model.DerivedIndexes),      // the indexes keyed on attributes the item has anyway
	modelStep(model.KeyOnlyFields),       // fields tagged "-" that live in the table key only
	modelStep(model.CheckGuardNamespace), // no key in the namespace of unique-value guard items
	resolveManaged,                       // managed.go: version, timestamps, unique values, expiry, compression, revisions
	modelStep(model.ResolveShard),        // Shards
	modelStep(model.CheckBucketSorts),    // time buckets sorted at least as finely
	registerEntity,                       // on the table, last: then the entity is defined
}

// modelStep is one of internal/model's steps, run on the entity's model.
func modelStep(step model.Step) func(*entitySpec, *entityModel) *ModelError {
	return func(spec *entitySpec, m *entityModel) *ModelError { return step(&spec.model, m.Entity) }
}

// modelFail is the *ModelError of entity m.
func (m *entityModel) modelFail(field, tpl, reason string, args ...any) *ModelError {
	return m.Fail(field, tpl, reason, args...)
}

// asModelError is err (a *ModelError, or nil) as one.
func asModelError(err error) *ModelError {
	if err == nil {
		return nil
	}
	return err.(*ModelError)
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
	for _, ik := range spec.indexes {
		spec.model.Indexes = append(spec.model.Indexes, model.IndexSpec{Index: ik.index, PK: ik.pk, SK: ik.sk, When: ik.when.n})
	}
	spec.model.CompileWhen = writes.CompileWhen
	return nil
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

// Name is the entity name, stored in every item's type attribute.
func (e *Entity[T]) Name() string { return e.m.Name }

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
