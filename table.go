package singletable

import (
	"fmt"
	"regexp"
	"slices"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/keys"
	"github.com/singletable/singletable/internal/model"
)

// Defaults for a table declared without options.
const (
	DefaultPartitionKey  = "PK"
	DefaultSortKey       = "SK"
	DefaultTypeAttribute = "_type"
	DefaultDelimiter     = '#'
)

// Service limits the model is checked against.
const (
	maxGSIs            = 20
	recommendedMaxGSIs = 5
)

// Table is the model of one physical DynamoDB table: its key attributes, its
// overloaded global secondary indexes, its TTL and entity-type attributes,
// and the registry of entities stored in it. Declare it once, at package
// level, with NewTable or MustTable; it is safe for concurrent use.
type Table struct {
	// schema is the table as the entity model needs it (internal/model):
	// its name, key, type and TTL attributes, delimiter and indexes.
	schema   model.Schema
	stream   types.StreamViewType // "" for no stream (stream.go)
	gsis     []*GSI
	lsis     []*GSI // local secondary indexes (lsi.go)
	billing  types.BillingMode
	rcu, wcu int64

	// exists and notExists test the partition key attribute: the
	// library's own conditions on whether an item exists, built once (a
	// Cond is immutable).
	exists, notExists Cond

	mu          sync.RWMutex
	entities    map[string]*entityModel
	entityOrder []*entityModel
	attrTypes   map[string]attrType // index key attributes' types, from the entities
	reads       readRegistry        // named patterns and collections (pattern.go)
}

// TableOption configures a Table: WithKeys, WithGSI, WithLSI, WithTTL,
// WithTypeAttribute, WithDelimiter, WithProvisioned, WithStream. A nil one
// is a *ModelError from NewTable.
type TableOption func(*Table) error

// WithKeys names the table's partition and sort key attributes (default PK
// and SK). An empty sk declares a table with a partition key only.
func WithKeys(pk, sk string) TableOption {
	return func(t *Table) error { t.schema.PK, t.schema.SK = pk, sk; return nil }
}

// WithGSI declares a global secondary index. Its key attributes default to
// <name>PK and <name>SK and its projection to ALL. An index key attribute
// may be the table's own (IndexKeys("SK", "PK"): the inverted index of an
// adjacency list, holding every entity under its table keys) or a field's
// own attribute (IndexKeys("email", ""): the field's value, not a copy;
// an empty value is absent, so the item leaves the index).
func WithGSI(name string, opts ...IndexOption) TableOption {
	return func(t *Table) error {
		ix := &GSI{index: model.Index{Name: name, PK: name + "PK", SK: name + "SK", Projection: types.ProjectionTypeAll}}
		for i, o := range opts {
			if o == nil {
				return fmt.Errorf("index %s: IndexOption %d of %d is nil", name, i+1, len(opts))
			}
			o(ix)
		}
		t.gsis = append(t.gsis, ix)
		return nil
	}
}

// WithTTL names the attribute DynamoDB's time to live reads: a number of
// seconds since the Unix epoch. EnsureTable enables TTL on it. A struct field
// stored under this name must be an integer or a time.Time tagged
// `dynamodbav:",unixtime"`; it is its entity's expiry (see Expires), and
// reads leave out the items whose expiry has passed.
func WithTTL(attr string) TableOption {
	return func(t *Table) error { t.schema.TTLAttr = attr; return nil }
}

// WithTypeAttribute names the attribute that stores each item's entity
// name (default "_type"). Reads check it, so that an item of one entity is
// never decoded as another.
//
// Options follow the name after commas, as in a struct tag, for a table
// the library adopts (docs/adoption.md): "_type,keys" reads items that
// have no type attribute too, each as the one entity whose key templates
// parse its keys (several: an *UnknownEntityError naming them; reads
// filter on no type), and still writes it; "_type,omit" also writes
// entity items without it.
func WithTypeAttribute(attr string) TableOption {
	return func(t *Table) error { return parseTypeAttribute(&t.schema, attr) }
}

// WithDelimiter sets the byte that separates key segments (default '#').
// Field values never contain it: see the key template rules in the package
// documentation (Keys).
func WithDelimiter(d byte) TableOption {
	return func(t *Table) error {
		if d < '!' || d > '~' || d == keys.EscapeByte || d == '{' || d == '}' ||
			(d >= '0' && d <= '9') || (d >= 'A' && d <= 'Z') || (d >= 'a' && d <= 'z') {
			return fmt.Errorf("delimiter %q must be ASCII punctuation other than %%, { and }", string(d))
		}
		t.schema.Delim = d
		return nil
	}
}

// WithProvisioned switches the table from on-demand billing (the default)
// to provisioned capacity.
func WithProvisioned(readUnits, writeUnits int64) TableOption {
	return func(t *Table) error {
		t.billing, t.rcu, t.wcu = types.BillingModeProvisioned, readUnits, writeUnits
		return nil
	}
}

var tableNameRE = regexp.MustCompile(`^[a-zA-Z0-9_.-]{3,255}$`)

// NewTable declares a table. The name is the default physical table name; a
// DB can bind the model to another (see WithTableName).
func NewTable(name string, opts ...TableOption) (*Table, error) {
	t := &Table{
		schema: model.Schema{
			Name: name, PK: DefaultPartitionKey, SK: DefaultSortKey,
			TypeAttr: DefaultTypeAttribute, Delim: DefaultDelimiter,
		},
		billing:  types.BillingModePayPerRequest,
		entities: map[string]*entityModel{},
	}
	fail := func(reason string, args ...any) (*Table, error) {
		return nil, &ModelError{Table: name, Reason: fmt.Sprintf(reason, args...)}
	}
	if !tableNameRE.MatchString(name) {
		return fail("table name must be 3 to 255 characters of a-z, A-Z, 0-9, '_', '-' and '.'")
	}
	for i, o := range opts {
		if o == nil {
			return fail("TableOption %d of %d is nil", i+1, len(opts))
		}
		if err := o(t); err != nil {
			return fail("%v", err)
		}
	}
	if t.schema.PK == "" {
		return fail("the partition key attribute name is empty")
	}
	if t.schema.TypeAttr == "" {
		return fail("the entity type attribute name is empty")
	}
	if len(t.gsis) > maxGSIs {
		return fail("%d global secondary indexes declared; DynamoDB allows %d", len(t.gsis), maxGSIs)
	}
	reserved := map[string]string{t.schema.PK: "the partition key", t.schema.TypeAttr: "the entity type attribute"}
	claim := func(attr, what string) error {
		if prev, ok := reserved[attr]; ok {
			return fmt.Errorf("attribute %q is used both as %s and as %s", attr, prev, what)
		}
		reserved[attr] = what
		return nil
	}
	if t.schema.SK != "" {
		if err := claim(t.schema.SK, "the sort key"); err != nil {
			return fail("%v", err)
		}
	}
	if t.schema.TTLAttr != "" {
		if err := claim(t.schema.TTLAttr, "the TTL attribute"); err != nil {
			return fail("%v", err)
		}
	}
	seen, nativeAttrs := map[string]bool{}, map[string]bool{}
	for _, ix := range t.indexes() {
		if err := ix.splitKeys(); err != nil {
			return fail("%v", err)
		}
	}
	for _, ix := range t.gsis {
		if !tableNameRE.MatchString(ix.index.Name) {
			return fail("index name %q must be 3 to 255 characters of a-z, A-Z, 0-9, '_', '-' and '.'", ix.index.Name)
		}
		if seen[ix.index.Name] {
			return fail("index %s is declared twice", ix.index.Name)
		}
		seen[ix.index.Name] = true
		if ix.index.Native() {
			// Every attribute a field's own: the table's keys are written
			// from templates, which a multi-attribute key does not read.
			for _, a := range ix.index.KeyAttrs() {
				if t.schema.IsTableKey(a) || a == t.schema.TypeAttr || a == t.schema.TTLAttr {
					return fail("index %s: its multi-attribute key names %q, an attribute the table reserves; its attributes are the entities' own fields", ix.index.Name, a)
				}
				if nativeAttrs[a] { // several multi-attribute keys may share a field
					continue
				}
				nativeAttrs[a] = true
				if err := claim(a, "a key attribute of "+ix.index.Name); err != nil {
					return fail("%v", err)
				}
			}
			continue
		}
		if ix.index.PK == "" {
			return fail("index %s has no partition key attribute", ix.index.Name)
		}
		if ix.index.PK == ix.index.SK {
			return fail("index %s uses attribute %q as both its partition and its sort key", ix.index.Name, ix.index.PK)
		}
		if ix.index.PK == t.schema.PK && ix.index.SK == t.schema.SK {
			return fail("index %s has the table's own key attributes (%s, %s): it would be a copy of the table", ix.index.Name, t.schema.PK, t.schema.SK)
		}
		// An index may reuse the table's key attributes (the inverted index
		// of an adjacency list: IndexKeys("SK", "PK")): every entity's index
		// keys are then its own table keys, nothing is written twice.
		if !t.schema.IsTableKey(ix.index.PK) {
			if err := claim(ix.index.PK, "the partition key of "+ix.index.Name); err != nil {
				return fail("%v", err)
			}
		}
		if ix.index.SK != "" && !t.schema.IsTableKey(ix.index.SK) {
			if err := claim(ix.index.SK, "the sort key of "+ix.index.Name); err != nil {
				return fail("%v", err)
			}
		}
	}
	for _, ix := range t.lsis {
		if !tableNameRE.MatchString(ix.index.Name) {
			return fail("index name %q must be 3 to 255 characters of a-z, A-Z, 0-9, '_', '-' and '.'", ix.index.Name)
		}
		if seen[ix.index.Name] {
			return fail("index %s is declared twice", ix.index.Name)
		}
		seen[ix.index.Name] = true
	}
	if err := t.checkLSIs(claim); err != nil {
		return fail("%v", err)
	}
	for _, ix := range t.indexes() {
		t.schema.Indexes = append(t.schema.Indexes, &ix.index)
	}
	t.exists, t.notExists = attrExists(t.schema.PK), attrNotExists(t.schema.PK)
	t.schema.PKLimit = maxPartitionKeyBytes
	for _, ix := range t.gsis {
		if ix.index.SK == t.schema.PK {
			t.schema.PKLimit = maxSortKeyBytes
		}
	}
	return t, nil
}

// MustTable is NewTable that panics on error, for package-level declarations.
func MustTable(name string, opts ...TableOption) *Table {
	t, err := NewTable(name, opts...)
	if err != nil {
		panic(err)
	}
	return t
}

// Name is the table's default physical name.
func (t *Table) Name() string { return t.schema.Name }

// PartitionKey is the name of the table's partition key attribute.
func (t *Table) PartitionKey() string { return t.schema.PK }

// SortKey is the name of the table's sort key attribute; empty if it has none.
func (t *Table) SortKey() string { return t.schema.SK }

// TypeAttribute is the name of the attribute that holds each item's entity name.
func (t *Table) TypeAttribute() string { return t.schema.TypeAttr }

// TTLAttribute is the name of the TTL attribute; empty if none is declared.
func (t *Table) TTLAttribute() string { return t.schema.TTLAttr }

// GSIs lists the table's global secondary indexes in declaration order.
func (t *Table) GSIs() []*GSI { return append([]*GSI(nil), t.gsis...) }

// GSI finds a global secondary index by name.
func (t *Table) GSI(name string) (*GSI, bool) {
	for _, ix := range t.gsis {
		if ix.index.Name == name {
			return ix, true
		}
	}
	return nil, false
}

// gsiOf is the index (GSI or LSI) whose model ix is.
func (t *Table) gsiOf(ix *model.Index) *GSI {
	for _, g := range t.indexes() {
		if &g.index == ix {
			return g
		}
	}
	return nil
}

// Entities lists the names of the registered entities in registration order.
func (t *Table) Entities() []string {
	t.mu.RLock()
	defer t.mu.RUnlock()
	out := make([]string, len(t.entityOrder))
	for i, m := range t.entityOrder {
		out[i] = m.Name
	}
	return out
}

func (t *Table) register(m *entityModel) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, dup := t.entities[m.Name]; dup {
		return &ModelError{Table: t.schema.Name, Entity: m.Name, Reason: "an entity of this name is already defined on the table"}
	}
	if err := t.claimAttrTypes(m); err != nil {
		return err
	}
	t.entities[m.Name] = m
	t.entityOrder = append(t.entityOrder, m)
	return nil
}

// claimAttrTypes records the scalar type each index key attribute holds for
// entity m (S for rendered keys, the field's type for a field's own
// attribute), refusing one that another entity stores as another type:
// DynamoDB declares one type per key attribute. Called with t.mu held.
func (t *Table) claimAttrTypes(m *entityModel) error {
	want := map[string]types.ScalarAttributeType{}
	for _, ei := range slices.Concat(m.Indexes, m.PartialIndexes) {
		if ei.Native != nil {
			for _, f := range ei.Native.Fields() {
				want[f.Attr] = model.FieldAttrType(f)
			}
			continue
		}
		for _, p := range []struct {
			attr string
			from model.KeySource
			tpl  *keys.Template
		}{{ei.Index.PK, ei.PKFrom, ei.PK}, {ei.Index.SK, ei.SKFrom, ei.SK}} {
			switch {
			case p.tpl == nil || p.from == model.KeyTable:
			case p.from == model.KeyField:
				want[p.attr] = model.FieldAttrType(p.tpl.Lead().Field)
			default:
				want[p.attr] = types.ScalarAttributeTypeS
			}
		}
	}
	for attr, typ := range want {
		if prev, ok := t.attrTypes[attr]; ok && prev.typ != typ {
			return &ModelError{Table: t.schema.Name, Entity: m.Name, Reason: fmt.Sprintf(
				"index key attribute %s holds %s for entity %s but %s for entity %s: DynamoDB declares one type per key attribute", attr, typ, m.Name, prev.typ, prev.entity)}
		}
	}
	if t.attrTypes == nil {
		t.attrTypes = map[string]attrType{}
	}
	for attr, typ := range want {
		if _, ok := t.attrTypes[attr]; !ok {
			t.attrTypes[attr] = attrType{typ: typ, entity: m.Name}
		}
	}
	return nil
}

// attrType is the scalar type of an index key attribute, with the first
// entity that stores it, for errors.
type attrType struct {
	typ    types.ScalarAttributeType
	entity string
}

// attrTypeOf is the declared type of a key attribute: S unless an entity
// stores a number or binary field under it.
func (t *Table) attrTypeOf(attr string) types.ScalarAttributeType {
	t.mu.RLock()
	defer t.mu.RUnlock()
	if at, ok := t.attrTypes[attr]; ok {
		return at.typ
	}
	return types.ScalarAttributeTypeS
}

// CreateTableInput is the request that creates the table under the given
// physical name: key schema, attribute definitions (each attribute once;
// a string, as templates render strings, except an index key over a number
// or binary field's own attribute), indexes and billing. Index key types
// come from the entities defined so far.
func (t *Table) CreateTableInput(name string) *dynamodb.CreateTableInput {
	defs := []types.AttributeDefinition{{AttributeName: aws.String(t.schema.PK), AttributeType: types.ScalarAttributeTypeS}}
	defined := map[string]bool{t.schema.PK: true}
	define := func(attr string) {
		if attr != "" && !defined[attr] {
			defined[attr] = true
			defs = append(defs, types.AttributeDefinition{AttributeName: aws.String(attr), AttributeType: t.attrTypeOf(attr)})
		}
	}
	define(t.schema.SK)
	in := &dynamodb.CreateTableInput{
		TableName:   aws.String(name),
		KeySchema:   keySchema(t.schema.PK, t.schema.SK),
		BillingMode: t.billing,
	}
	if t.billing == types.BillingModeProvisioned {
		in.ProvisionedThroughput = &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(t.rcu), WriteCapacityUnits: aws.Int64(t.wcu)}
	}
	for _, ix := range t.gsis {
		for _, a := range ix.index.KeyAttrs() {
			define(a)
		}
		g := types.GlobalSecondaryIndex{
			IndexName:  aws.String(ix.index.Name),
			KeySchema:  indexKeySchema(&ix.index),
			Projection: &types.Projection{ProjectionType: ix.index.Projection},
		}
		if ix.index.Projection == types.ProjectionTypeInclude {
			g.Projection.NonKeyAttributes = append([]string(nil), ix.index.NonKeyAttrs...)
		}
		if t.billing == types.BillingModeProvisioned {
			r, w := ix.rcu, ix.wcu
			if r == 0 {
				r = t.rcu
			}
			if w == 0 {
				w = t.wcu
			}
			g.ProvisionedThroughput = &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(r), WriteCapacityUnits: aws.Int64(w)}
		}
		in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, g)
	}
	in.LocalSecondaryIndexes = t.localIndexes(define)
	in.AttributeDefinitions = defs
	in.StreamSpecification = t.streamSpec()
	return in
}

// indexKeySchema is a GSI's key schema: its partition key attributes
// (HASH), then its sort key attributes (RANGE), in order.
func indexKeySchema(ix *model.Index) []types.KeySchemaElement {
	if !ix.Native() {
		return keySchema(ix.PK, ix.SK)
	}
	var ks []types.KeySchemaElement
	for _, a := range ix.PKAttrs {
		ks = append(ks, types.KeySchemaElement{AttributeName: aws.String(a), KeyType: types.KeyTypeHash})
	}
	for _, a := range ix.SKAttrs {
		ks = append(ks, types.KeySchemaElement{AttributeName: aws.String(a), KeyType: types.KeyTypeRange})
	}
	return ks
}

func keySchema(pk, sk string) []types.KeySchemaElement {
	ks := []types.KeySchemaElement{{AttributeName: aws.String(pk), KeyType: types.KeyTypeHash}}
	if sk != "" {
		ks = append(ks, types.KeySchemaElement{AttributeName: aws.String(sk), KeyType: types.KeyTypeRange})
	}
	return ks
}
