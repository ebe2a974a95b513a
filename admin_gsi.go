package singletable

import (
	"context"
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Adding an index to a live table
//
// An index added to the model is missing from the table: EnsureTable
// reports it (a *SchemaMismatchError) unless given AddMissingIndexes, which
// creates it with UpdateTable and waits until it is ACTIVE. DynamoDB then
// fills it from the attributes the items already have; items that lack
// the index's key attributes (a new template's keys were never written)
// need a backfill: migrate.BackfillIndex.

// ensureOpt is an option of EnsureTable.
type ensureOpt struct{ set func(*settings) }

func (o ensureOpt) apply(s *settings) { apply(o.set, s) }
func (ensureOpt) ensureOption()       {}

// AddMissingIndexes lets EnsureTable add the global secondary indexes the
// model declares and an existing table lacks: one UpdateTable each, in
// turn, each waited for until ACTIVE (DynamoDB backfills it from the
// items' existing attributes meanwhile, which can take long on a large
// table). It needs an admin client with UpdateTable, as *dynamodb.Client
// has. Any other difference from the model is still a
// *SchemaMismatchError, and then nothing is changed.
func AddMissingIndexes() EnsureOption { return ensureOpt{setAddIndexes} }

func setAddIndexes(s *settings) { s.addIndexes = true }

// missingIndexes lists the model's indexes a described table lacks.
func (t *Table) missingIndexes(d *types.TableDescription) []string {
	var missing []string
	for _, ix := range t.gsis {
		if !slices.ContainsFunc(d.GlobalSecondaryIndexes, func(g types.GlobalSecondaryIndexDescription) bool {
			return aws.ToString(g.IndexName) == ix.index.Name
		}) {
			missing = append(missing, ix.index.Name)
		}
	}
	return missing
}

// AddIndexInput is the UpdateTable request that adds the model's index to
// the table of the given physical name: the index as CreateTableInput
// declares it, with its key attributes' definitions.
func (t *Table) AddIndexInput(name, index string) (*dynamodb.UpdateTableInput, error) {
	create := t.CreateTableInput(name)
	i := slices.IndexFunc(create.GlobalSecondaryIndexes, func(g types.GlobalSecondaryIndex) bool {
		return aws.ToString(g.IndexName) == index
	})
	if i < 0 {
		return nil, &InputError{Op: "AddIndex", Reason: fmt.Sprintf("index %s is not declared on table %s", index, t.schema.Name)}
	}
	g := create.GlobalSecondaryIndexes[i]
	in := &dynamodb.UpdateTableInput{
		TableName: aws.String(name),
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
			IndexName: g.IndexName, KeySchema: g.KeySchema, Projection: g.Projection, ProvisionedThroughput: g.ProvisionedThroughput,
		}}},
	}
	for _, def := range create.AttributeDefinitions {
		if slices.ContainsFunc(g.KeySchema, func(k types.KeySchemaElement) bool {
			return aws.ToString(k.AttributeName) == aws.ToString(def.AttributeName)
		}) {
			in.AttributeDefinitions = append(in.AttributeDefinitions, def)
		}
	}
	return in, nil
}

// addIndexes adds the named indexes to the table, one at a time, waiting
// for each to be ACTIVE.
func (db *DB) addIndexes(ctx context.Context, admin AdminClient, names []string) error {
	for _, name := range names {
		in, err := db.table.AddIndexInput(db.name, name)
		if err != nil {
			return err
		}
		if _, err := admin.UpdateTable(ctx, in); err != nil {
			return opError("EnsureTable "+db.name+": adding index "+name, err)
		}
		if err := db.waitActive(ctx, admin); err != nil {
			return opError("waiting for index "+name+" of table "+db.name, err)
		}
	}
	return nil
}
