package singletable

import (
	"fmt"
	"regexp"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/keys"
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
	name     string
	pk, sk   string
	typeAttr string
	ttlAttr  string
	stream   types.StreamViewType // "" for no stream (stream.go)
	delim    byte
	gsis     []*GSI
	billing  types.BillingMode
	rcu, wcu int64

	// exists and notExists test the partition key attribute: the
	// library's own conditions on whether an item exists, built once (a
	// Cond is immutable).
	exists, notExists Cond
	// pkLimit is the most bytes a partition key may have: 2048, or 1024
	// when an index's sort key is the table's partition key (an inverted
	// index), as DynamoDB limits a value by every key it is.
	pkLimit int

	mu          sync.RWMutex
	entities    map[string]*entityModel
	entityOrder []*entityModel
	attrTypes   map[string]attrType // index key attributes' types, from the entities
	reads       readRegistry        // named patterns and collections (pattern.go)
}

// TableOption configures a Table: WithKeys, WithGSI, WithTTL,
// WithTypeAttribute, WithDelimiter, WithProvisioned, WithStream. A nil one
// is a *ModelError from NewTable.
type TableOption func(*Table) error

// WithKeys names the table's partition and sort key attributes (default PK
// and SK). An empty sk declares a table with a partition key only.
func WithKeys(pk, sk string) TableOption {
	return func(t *Table) error { t.pk, t.sk = pk, sk; return nil }
}

// WithGSI declares a global secondary index. Its key attributes default to
// <name>PK and <name>SK and its projection to ALL. An index key attribute
// may be the table's own (IndexKeys("SK", "PK"): the inverted index of an
// adjacency list, holding every entity under its table keys) or a field's
// own attribute (IndexKeys("email", ""): the field's value, not a copy;
// an empty value is absent, so the item leaves the index).
func WithGSI(name string, opts ...IndexOption) TableOption {
	return func(t *Table) error {
		ix := &GSI{name: name, pk: name + "PK", sk: name + "SK", projection: types.ProjectionTypeAll}
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
	return func(t *Table) error { t.ttlAttr = attr; return nil }
}

// WithTypeAttribute names the attribute that stores each item's entity
// name (default "_type"). Reads check it, so that an item of one entity is
// never decoded as another.
func WithTypeAttribute(attr string) TableOption {
	return func(t *Table) error { t.typeAttr = attr; return nil }
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
		t.delim = d
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
		name: name, pk: DefaultPartitionKey, sk: DefaultSortKey,
		typeAttr: DefaultTypeAttribute, delim: DefaultDelimiter,
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
	if t.pk == "" {
		return fail("the partition key attribute name is empty")
	}
	if t.typeAttr == "" {
		return fail("the entity type attribute name is empty")
	}
	if len(t.gsis) > maxGSIs {
		return fail("%d global secondary indexes declared; DynamoDB allows %d", len(t.gsis), maxGSIs)
	}
	reserved := map[string]string{t.pk: "the partition key", t.typeAttr: "the entity type attribute"}
	claim := func(attr, what string) error {
		if prev, ok := reserved[attr]; ok {
			return fmt.Errorf("attribute %q is used both as %s and as %s", attr, prev, what)
		}
		reserved[attr] = what
		return nil
	}
	if t.sk != "" {
		if err := claim(t.sk, "the sort key"); err != nil {
			return fail("%v", err)
		}
	}
	if t.ttlAttr != "" {
		if err := claim(t.ttlAttr, "the TTL attribute"); err != nil {
			return fail("%v", err)
		}
	}
	seen := map[string]bool{}
	for _, ix := range t.gsis {
		if !tableNameRE.MatchString(ix.name) {
			return fail("index name %q must be 3 to 255 characters of a-z, A-Z, 0-9, '_', '-' and '.'", ix.name)
		}
		if seen[ix.name] {
			return fail("index %s is declared twice", ix.name)
		}
		seen[ix.name] = true
		if ix.pk == "" {
			return fail("index %s has no partition key attribute", ix.name)
		}
		if ix.pk == ix.sk {
			return fail("index %s uses attribute %q as both its partition and its sort key", ix.name, ix.pk)
		}
		if ix.pk == t.pk && ix.sk == t.sk {
			return fail("index %s has the table's own key attributes (%s, %s): it would be a copy of the table", ix.name, t.pk, t.sk)
		}
		// An index may reuse the table's key attributes (the inverted index
		// of an adjacency list: IndexKeys("SK", "PK")): every entity's index
		// keys are then its own table keys, nothing is written twice.
		if !t.isTableKey(ix.pk) {
			if err := claim(ix.pk, "the partition key of "+ix.name); err != nil {
				return fail("%v", err)
			}
		}
		if ix.sk != "" && !t.isTableKey(ix.sk) {
			if err := claim(ix.sk, "the sort key of "+ix.name); err != nil {
				return fail("%v", err)
			}
		}
	}
	t.exists, t.notExists = attrExists(t.pk), attrNotExists(t.pk)
	t.pkLimit = maxPartitionKeyBytes
	for _, ix := range t.gsis {
		if ix.sk == t.pk {
			t.pkLimit = maxSortKeyBytes
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
func (t *Table) Name() string { return t.name }

// PartitionKey is the name of the table's partition key attribute.
func (t *Table) PartitionKey() string { return t.pk }

// SortKey is the name of the table's sort key attribute; empty if it has none.
func (t *Table) SortKey() string { return t.sk }

// TypeAttribute is the name of the attribute that holds each item's entity name.
func (t *Table) TypeAttribute() string { return t.typeAttr }

// TTLAttribute is the name of the TTL attribute; empty if none is declared.
func (t *Table) TTLAttribute() string { return t.ttlAttr }

// GSIs lists the table's global secondary indexes in declaration order.
func (t *Table) GSIs() []*GSI { return append([]*GSI(nil), t.gsis...) }

// GSI finds a global secondary index by name.
func (t *Table) GSI(name string) (*GSI, bool) {
	for _, ix := range t.gsis {
		if ix.name == name {
			return ix, true
		}
	}
	return nil, false
}

// Entities lists the names of the registered entities in registration order.
func (t *Table) Entities() []string {
	t.mu.RLock()
	defer t.mu.RUnlock()
	out := make([]string, len(t.entityOrder))
	for i, m := range t.entityOrder {
		out[i] = m.name
	}
	return out
}

func (t *Table) register(m *entityModel) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, dup := t.entities[m.name]; dup {
		return &ModelError{Table: t.name, Entity: m.name, Reason: "an entity of this name is already defined on the table"}
	}
	if err := t.claimAttrTypes(m); err != nil {
		return err
	}
	t.entities[m.name] = m
	t.entityOrder = append(t.entityOrder, m)
	return nil
}

// keyAttributes lists the attributes the table reserves for its keys and
// metadata, with what they are for. Index key attributes are not among
// them: a field stored under one is the index's key (see Define).
func (t *Table) keyAttributes() map[string]string {
	out := map[string]string{t.pk: "the table's partition key", t.typeAttr: "the entity type attribute"}
	if t.sk != "" {
		out[t.sk] = "the table's sort key"
	}
	return out
}

// isTableKey reports whether attr is the table's partition or sort key.
func (t *Table) isTableKey(attr string) bool {
	return attr != "" && (attr == t.pk || attr == t.sk)
}

// claimAttrTypes records the scalar type each index key attribute holds for
// entity m (S for rendered keys, the field's type for a field's own
// attribute), refusing one that another entity stores as another type:
// DynamoDB declares one type per key attribute. Called with t.mu held.
func (t *Table) claimAttrTypes(m *entityModel) error {
	want := map[string]types.ScalarAttributeType{}
	for _, ei := range m.indexes {
		for _, p := range []struct {
			attr string
			from keySource
			tpl  *keys.Template
		}{{ei.index.pk, ei.pkFrom, ei.pk}, {ei.index.sk, ei.skFrom, ei.sk}} {
			switch {
			case p.tpl == nil || p.from == keyTable:
			case p.from == keyField:
				want[p.attr] = fieldAttrType(p.tpl.Lead().Field)
			default:
				want[p.attr] = types.ScalarAttributeTypeS
			}
		}
	}
	for attr, typ := range want {
		if prev, ok := t.attrTypes[attr]; ok && prev.typ != typ {
			return &ModelError{Table: t.name, Entity: m.name, Reason: fmt.Sprintf(
				"index key attribute %s holds %s for entity %s but %s for entity %s: DynamoDB declares one type per key attribute", attr, typ, m.name, prev.typ, prev.entity)}
		}
	}
	if t.attrTypes == nil {
		t.attrTypes = map[string]attrType{}
	}
	for attr, typ := range want {
		if _, ok := t.attrTypes[attr]; !ok {
			t.attrTypes[attr] = attrType{typ: typ, entity: m.name}
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
	defs := []types.AttributeDefinition{{AttributeName: aws.String(t.pk), AttributeType: types.ScalarAttributeTypeS}}
	defined := map[string]bool{t.pk: true}
	define := func(attr string) {
		if attr != "" && !defined[attr] {
			defined[attr] = true
			defs = append(defs, types.AttributeDefinition{AttributeName: aws.String(attr), AttributeType: t.attrTypeOf(attr)})
		}
	}
	define(t.sk)
	in := &dynamodb.CreateTableInput{
		TableName:   aws.String(name),
		KeySchema:   keySchema(t.pk, t.sk),
		BillingMode: t.billing,
	}
	if t.billing == types.BillingModeProvisioned {
		in.ProvisionedThroughput = &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(t.rcu), WriteCapacityUnits: aws.Int64(t.wcu)}
	}
	for _, ix := range t.gsis {
		define(ix.pk)
		define(ix.sk)
		g := types.GlobalSecondaryIndex{
			IndexName:  aws.String(ix.name),
			KeySchema:  keySchema(ix.pk, ix.sk),
			Projection: &types.Projection{ProjectionType: ix.projection},
		}
		if ix.projection == types.ProjectionTypeInclude {
			g.Projection.NonKeyAttributes = append([]string(nil), ix.nonKeyAttrs...)
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
	in.AttributeDefinitions = defs
	in.StreamSpecification = t.streamSpec()
	return in
}

func keySchema(pk, sk string) []types.KeySchemaElement {
	ks := []types.KeySchemaElement{{AttributeName: aws.String(pk), KeyType: types.KeyTypeHash}}
	if sk != "" {
		ks = append(ks, types.KeySchemaElement{AttributeName: aws.String(sk), KeyType: types.KeyTypeRange})
	}
	return ks
}
