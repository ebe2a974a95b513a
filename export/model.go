package export

import (
	"fmt"
	"hash/fnv"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/bridge"
)

// Options are what an export needs beyond the model: the production
// settings of the infrastructure exports, sample items, relations. The
// zero Options export the model as it is, under its own table name.
type Options struct {
	// TableName is the physical table name; "" for the model's. It must be
	// a DynamoDB table name (3 to 255 characters of a-z, A-Z, 0-9, '_', '-'
	// and '.').
	TableName string
	// PointInTimeRecovery and DeletionProtection enable the table's
	// continuous backups and its protection from deletion.
	PointInTimeRecovery bool
	DeletionProtection  bool
	// AutoScaling scales a provisioned table's and its indexes' capacity
	// (target tracking); only for a table declared WithProvisioned.
	AutoScaling *AutoScaling
	// Replicas are the regions a global table is replicated to, besides
	// the region it is deployed in (CloudFormation's AWS::Region,
	// Terraform's provider region). A global table's stream carries new
	// and old images: the model must declare
	// WithStream(StreamNewAndOldImages). A provisioned table (WithProvisioned)
	// also needs AutoScaling: a global table's provisioned capacity is auto
	// scaled in every replica.
	Replicas []string
	// Samples are the sample items: values (or pointers to values) of the
	// entities' Go types, or Sample values naming the entity where several
	// entities store one type.
	Samples []any
	// Relations are drawn in the document's diagram.
	Relations []Relation
}

// AutoScaling is target-tracking auto scaling of provisioned capacity,
// applied to the table's and each index's read and write capacity.
type AutoScaling struct {
	MinRead, MaxRead   int64
	MinWrite, MaxWrite int64
	// TargetUtilization is the percentage of consumed to provisioned
	// capacity to keep: 20 to 90 (Application Auto Scaling's range for
	// DynamoDB); NaN and infinities are refused.
	TargetUtilization float64
}

// Sample is a sample item of a named entity, for a Go type that several
// entities store (a graph edge and its mirror).
type Sample struct {
	Entity string
	Value  any
}

// Relation is a relationship between two entities through an edge entity,
// as package graph declares one: graph.Relate(name, from, edge, to).
type Relation struct {
	Name, From, Edge, To string
}

// Item is a sample item as stored: its entity and its attributes.
type Item struct {
	Entity string
	Attrs  map[string]types.AttributeValue
}

// model is everything an export reads, gathered once.
type model struct {
	t      *st.Table
	name   string
	create *dynamodb.CreateTableInput
	m      *bridge.ExportModel
	items  []Item
	o      Options
}

// load checks the options and reads the model.
func load(op string, t *st.Table, o Options) (*model, error) {
	fail := func(format string, args ...any) (*model, error) {
		return nil, &st.InputError{Op: op, Reason: fmt.Sprintf(format, args...)}
	}
	if t == nil {
		return fail("the table is nil")
	}
	name := o.TableName
	if name == "" {
		name = t.Name()
	} else if _, err := st.NewTable(name); err != nil {
		// The core's own rule for table names (NewTable), not a copy of it.
		return fail("Options.TableName: %q is not a DynamoDB table name (3 to 255 characters of a-z, A-Z, 0-9, '_', '-' and '.')", name)
	}
	create := t.CreateTableInput(name)
	if a := o.AutoScaling; a != nil {
		switch {
		case create.BillingMode != types.BillingModeProvisioned:
			return fail("Options.AutoScaling: table %s is billed on demand (PAY_PER_REQUEST); auto scaling applies to provisioned capacity (WithProvisioned)", t.Name())
		case a.MinRead < 1 || a.MinWrite < 1:
			return fail("Options.AutoScaling: MinRead and MinWrite must be at least 1, not %d and %d", a.MinRead, a.MinWrite)
		case a.MaxRead < a.MinRead || a.MaxWrite < a.MinWrite:
			return fail("Options.AutoScaling: MaxRead (%d) and MaxWrite (%d) must be at least MinRead (%d) and MinWrite (%d)", a.MaxRead, a.MaxWrite, a.MinRead, a.MinWrite)
		case !(a.TargetUtilization >= 20 && a.TargetUtilization <= 90): // NaN too
			return fail("Options.AutoScaling.TargetUtilization: %v is outside 20 to 90 (percent)", a.TargetUtilization)
		}
	}
	if len(o.Replicas) > 0 {
		if t.Stream() != st.StreamNewAndOldImages {
			return fail("Options.Replicas: a global table replicates through its stream of new and old images; declare the table WithStream(StreamNewAndOldImages) (it has %q)", string(t.Stream()))
		}
		if create.BillingMode == types.BillingModeProvisioned && o.AutoScaling == nil {
			return fail("Options.Replicas: a provisioned global table's write capacity is auto scaled in every replica; set Options.AutoScaling")
		}
		for i, r := range o.Replicas {
			if r == "" || strings.ContainsAny(r, " /\"") {
				return fail("Options.Replicas[%d]: %q is not a region name", i, r)
			}
			if slices.Contains(o.Replicas[:i], r) {
				return fail("Options.Replicas[%d]: region %s is given twice", i, r)
			}
		}
	}
	for i, r := range o.Relations {
		if r.Name == "" || r.From == "" || r.Edge == "" || r.To == "" {
			return fail("Options.Relations[%d]: Name, From, Edge and To are all needed", i)
		}
	}
	md := &model{t: t, name: name, create: create, m: bridge.Export(t), o: o}
	for _, r := range o.Relations {
		for _, e := range []string{r.From, r.Edge, r.To} {
			if md.entity(e) == nil {
				return fail("Options.Relations: relation %s names entity %s, which table %s does not define", r.Name, e, t.Name())
			}
		}
	}
	items, err := itemsOf(op, t, o.Samples)
	if err != nil {
		return nil, err
	}
	md.items = items
	return md, nil
}

// Items renders the sample values as the items their entities store:
// keys, index keys, entity type and fields.
func Items(t *st.Table, samples ...any) ([]Item, error) {
	if t == nil {
		return nil, &st.InputError{Op: "export.Items", Reason: "the table is nil"}
	}
	return itemsOf("export.Items", t, samples)
}

func itemsOf(op string, t *st.Table, samples []any) ([]Item, error) {
	var out []Item
	for i, s := range samples {
		entity, v := "", s
		if sm, ok := s.(Sample); ok {
			entity, v = sm.Entity, sm.Value
		}
		name, item, err := bridge.ExportItem(t, entity, v)
		if err != nil {
			return nil, &st.InputError{Op: op, Reason: fmt.Sprintf("Options.Samples[%d]: %v", i, err)}
		}
		out = append(out, Item{Entity: name, Attrs: item})
	}
	return out, nil
}

func (md *model) entity(name string) *bridge.ExportEntity {
	for i := range md.m.Entities {
		if md.m.Entities[i].Name == name {
			return &md.m.Entities[i]
		}
	}
	return nil
}

// keyAttr is the name and type of a key attribute.
type keyAttr struct{ name, typ string }

// keyAttrs is an index's (or, for "", the table's) key attributes; of a
// multi-attribute key, the first of each (see keyLists).
func (md *model) keyAttrs(index string) (pk, sk keyAttr) {
	pks, sks := md.keyLists(index)
	if len(pks) > 0 {
		pk = pks[0]
	}
	if len(sks) > 0 {
		sk = sks[0]
	}
	return pk, sk
}

// keyLists is an index's (or, for "", the table's) partition and sort key
// attributes in order: several each on a multi-attribute key.
func (md *model) keyLists(index string) (pks, sks []keyAttr) {
	ks := md.create.KeySchema
	for _, g := range md.create.GlobalSecondaryIndexes {
		if aws.ToString(g.IndexName) == index {
			ks = g.KeySchema
		}
	}
	for _, l := range md.create.LocalSecondaryIndexes {
		if aws.ToString(l.IndexName) == index {
			ks = l.KeySchema
		}
	}
	for _, k := range ks {
		a := keyAttr{name: aws.ToString(k.AttributeName), typ: md.attrType(aws.ToString(k.AttributeName))}
		if k.KeyType == types.KeyTypeHash {
			pks = append(pks, a)
		} else {
			sks = append(sks, a)
		}
	}
	return pks, sks
}

// multiAttribute reports whether a key schema has a multi-attribute key:
// several partition or several sort attributes.
func multiAttribute(ks []types.KeySchemaElement) bool {
	n := map[types.KeyType]int{}
	for _, k := range ks {
		n[k.KeyType]++
	}
	return n[types.KeyTypeHash] > 1 || n[types.KeyTypeRange] > 1
}

// indexes is every secondary index: the GSIs, then the LSIs.
func (md *model) indexes() []*st.GSI { return append(md.t.GSIs(), md.t.LSIs()...) }

func (md *model) attrType(attr string) string {
	for _, d := range md.create.AttributeDefinitions {
		if aws.ToString(d.AttributeName) == attr {
			return string(d.AttributeType)
		}
	}
	return ""
}

// camel is s's runs of ASCII letters and digits, each run after the first
// (and the first too, with upper) starting with a capital: "game-scores"
// becomes "gameScores", "by-tag.v1" with upper "ByTagV1". CloudFormation's
// logical IDs are alphanumeric.
func camel(s string, upper bool) string {
	var b strings.Builder
	start := upper
	for _, c := range []byte(s) {
		switch {
		case c >= 'a' && c <= 'z' && start:
			b.WriteByte(c - 'a' + 'A')
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9':
			b.WriteByte(c)
		default:
			start = b.Len() > 0 || upper
			continue
		}
		start = false
	}
	return b.String()
}

// tfName is s as a Terraform name, lower case: see ident.
func tfName(s string) string { return ident(strings.ToLower(s)) }

// ident is s as an identifier of letters, digits, '_' and '-', starting
// with a letter or '_' (Terraform's names, Mermaid's): other characters
// become '_'.
func ident(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	if len(b) == 0 || b[0] >= '0' && b[0] <= '9' || b[0] == '-' {
		return "_" + string(b)
	}
	return string(b)
}

// unique maps each of names to its identifier made by ident; where
// different names make one identifier (or one of taken), each of them gets
// a short hash of its own name appended, so that no resource is dropped
// or merged and the result does not depend on the order of names.
func unique(names []string, ident func(string) string, taken ...string) map[string]string {
	count := map[string]int{}
	for _, t := range taken {
		count[t] = 2
	}
	for _, n := range slices.Compact(slices.Sorted(slices.Values(names))) {
		count[ident(n)]++
	}
	out := make(map[string]string, len(names))
	for _, n := range names {
		id := ident(n)
		if count[id] > 1 {
			h := fnv.New32a()
			h.Write([]byte(n))
			id += fmt.Sprintf("%08x", h.Sum32())[:6]
		}
		out[n] = id
	}
	return out
}
