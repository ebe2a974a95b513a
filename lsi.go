package singletable

import (
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/model"
)

// Local secondary indexes
//
// A local secondary index keeps the table's partition key and sorts each
// partition by another attribute. Entities write its sort key like any
// index key (Index(name, pk, sk), pk being the entity's own partition
// template), sparse rules included; patterns read it with On, and may ask
// for ConsistentRead there, which a GSI cannot serve. It costs two things
// a GSI does not: it exists only if the table is created with it (an
// existing table cannot gain one: EnsureTable says so), and every item
// collection of the table (the items of one partition key, with their LSI
// copies) is then limited to 10 GB (Lint notes it).

// maxLSIs is DynamoDB's limit on local secondary indexes per table.
const maxLSIs = 5

// WithLSI declares a local secondary index: the table's partition key and
// the sort key attribute <name>SK (IndexKeys("", sk) names another; its
// partition key, if given, must be the table's), projecting ALL unless
// KeysOnly or Include says otherwise. IndexThroughput does not apply (an
// LSI uses the table's capacity). The table must have a sort key.
// CreateTable and EnsureTable create it with the table; an existing table
// without it is a *SchemaMismatchError (see EnsureTable).
func WithLSI(name string, opts ...IndexOption) TableOption {
	return func(t *Table) error {
		ix := &GSI{index: model.Index{Name: name, Kind: model.Local, SK: name + "SK", Projection: types.ProjectionTypeAll}}
		for i, o := range opts {
			if o == nil {
				return fmt.Errorf("index %s: IndexOption %d of %d is nil", name, i+1, len(opts))
			}
			o(ix)
		}
		t.lsis = append(t.lsis, ix)
		return nil
	}
}

// Local reports whether the index is a local secondary index (WithLSI).
func (ix *GSI) Local() bool { return ix.index.IsLocal() }

// LSIs lists the table's local secondary indexes in declaration order.
func (t *Table) LSIs() []*GSI { return slices.Clone(t.lsis) }

// LSI finds a local secondary index by name.
func (t *Table) LSI(name string) (*GSI, bool) {
	for _, ix := range t.lsis {
		if ix.index.Name == name {
			return ix, true
		}
	}
	return nil, false
}

// index finds a secondary index of either kind by name.
func (t *Table) index(name string) (*GSI, bool) {
	if ix, ok := t.GSI(name); ok {
		return ix, true
	}
	return t.LSI(name)
}

// indexes lists every secondary index: the GSIs, then the LSIs.
func (t *Table) indexes() []*GSI {
	return append(slices.Clone(t.gsis), t.lsis...)
}

// checkLSIs checks the declared LSIs once the table's keys are known,
// giving each the table's partition key; claim reserves an attribute as
// NewTable's other keys do.
func (t *Table) checkLSIs(claim func(attr, what string) error) error {
	if len(t.lsis) == 0 {
		return nil
	}
	if len(t.lsis) > maxLSIs {
		return fmt.Errorf("%d local secondary indexes declared; DynamoDB allows %d", len(t.lsis), maxLSIs)
	}
	if t.schema.SK == "" {
		return fmt.Errorf("local secondary index %s needs a table with a sort key (WithKeys(pk, sk)): DynamoDB sorts each partition by the index's key", t.lsis[0].index.Name)
	}
	for _, ix := range t.lsis {
		name := ix.index.Name
		switch {
		case ix.index.PK != "" && ix.index.PK != t.schema.PK:
			return fmt.Errorf("local secondary index %s: its partition key is the table's (%s), not %s: IndexKeys(\"\", sk) names its sort key; declare a GSI (WithGSI) for another partition key", name, t.schema.PK, ix.index.PK)
		case ix.index.SK == "":
			return fmt.Errorf("local secondary index %s has no sort key attribute", name)
		case t.schema.IsTableKey(ix.index.SK):
			return fmt.Errorf("local secondary index %s: its sort key %s is a key of the table: it would be a copy of the table", name, ix.index.SK)
		case ix.rcu != 0 || ix.wcu != 0:
			return fmt.Errorf("local secondary index %s: IndexThroughput does not apply, an LSI uses the table's capacity", name)
		}
		ix.index.PK = t.schema.PK
		if err := claim(ix.index.SK, "the sort key of "+name); err != nil {
			return err
		}
	}
	return nil
}

// localIndexes adds the LSIs to the CreateTable request; define declares
// each key attribute's type once.
func (t *Table) localIndexes(define func(string)) []types.LocalSecondaryIndex {
	var out []types.LocalSecondaryIndex
	for _, ix := range t.lsis {
		define(ix.index.SK)
		out = append(out, types.LocalSecondaryIndex{
			IndexName:  aws.String(ix.index.Name),
			KeySchema:  keySchema(ix.index.PK, ix.index.SK),
			Projection: projectionOf(&ix.index),
		})
	}
	return out
}

// projectionOf is the index's projection as CreateTable declares it.
func projectionOf(ix *model.Index) *types.Projection {
	p := &types.Projection{ProjectionType: ix.Projection}
	if ix.Projection == types.ProjectionTypeInclude {
		p.NonKeyAttributes = slices.Clone(ix.NonKeyAttrs)
	}
	return p
}

// lsiDifferences compares a described table's LSIs with the model's: a
// missing one cannot be added to the table, and one of other keys or
// projection cannot be changed. Each difference says what to do instead.
func (t *Table) lsiDifferences(d *types.TableDescription, want []types.LocalSecondaryIndex) []string {
	existing := map[string]types.LocalSecondaryIndexDescription{}
	for _, l := range d.LocalSecondaryIndexes {
		existing[aws.ToString(l.IndexName)] = l
	}
	const instead = "create a new table with it (CreateTable under another name, WithTableName) and copy the items into it (package migrate)"
	var diffs []string
	for _, l := range want {
		name := aws.ToString(l.IndexName)
		have, ok := existing[name]
		if !ok {
			diffs = append(diffs, fmt.Sprintf("local secondary index %s is missing, and DynamoDB creates an LSI only with its table: %s", name, instead))
			continue
		}
		if got, exp := describeKeys(have.KeySchema), describeKeys(l.KeySchema); got != exp {
			diffs = append(diffs, fmt.Sprintf("local secondary index %s has keys %s, the model wants %s: an LSI cannot change; %s", name, got, exp, instead))
		}
		if have.Projection != nil && !sameProjection(have.Projection, l.Projection) {
			diffs = append(diffs, fmt.Sprintf("local secondary index %s projects %s %v, the model wants %s %v: an LSI cannot change; %s",
				name, have.Projection.ProjectionType, sortedSet(have.Projection.NonKeyAttributes), l.Projection.ProjectionType, sortedSet(l.Projection.NonKeyAttributes), instead))
		}
	}
	return diffs
}

// sameProjection compares two projections, the INCLUDE attributes as sets.
func sameProjection(a, b *types.Projection) bool {
	if a.ProjectionType != b.ProjectionType {
		return false
	}
	return a.ProjectionType != types.ProjectionTypeInclude || slices.Equal(sortedSet(a.NonKeyAttributes), sortedSet(b.NonKeyAttributes))
}
