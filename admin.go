package singletable

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// ensureAttempts bounds how often EnsureTable describes a table that is
// created or deleted concurrently.
const ensureAttempts = 5

// tableWaitTimeout bounds how long EnsureTable waits for ACTIVE.
const tableWaitTimeout = 5 * time.Minute

func (db *DB) adminClient(op string) (AdminClient, error) {
	if db.admin == nil {
		return nil, &InputError{Op: op, Reason: "the DB's client does not implement AdminClient; pass WithAdminClient"}
	}
	return db.admin, nil
}

// CreateTable creates the table from the model, waits until it is ACTIVE,
// and enables TTL if the model declares it.
func (db *DB) CreateTable(ctx context.Context) error {
	admin, err := db.adminClient("CreateTable")
	if err != nil {
		return err
	}
	if _, err := admin.CreateTable(ctx, db.table.CreateTableInput(db.name)); err != nil {
		return opError("CreateTable "+db.name, err)
	}
	return db.finishTable(ctx, admin)
}

// EnsureTable makes sure the table exists as the model describes it: it
// creates a missing table (then waits until it is ACTIVE and enables TTL),
// and checks an existing one. An existing table whose key schema or indexes
// differ, or whose TTL is enabled on another attribute, is a
// *SchemaMismatchError that says how; EnsureTable never changes an existing
// table's schema, except to add the global secondary indexes it lacks when
// given AddMissingIndexes. A local secondary index (WithLSI) the table lacks
// cannot be added (DynamoDB creates one only with its table): that is a
// *SchemaMismatchError too, saying to create a new table and migrate. It is
// idempotent.
func (db *DB) EnsureTable(ctx context.Context, opts ...EnsureOption) error {
	admin, err := db.adminClient("EnsureTable")
	if err != nil {
		return err
	}
	s, err := collect("EnsureTable", opts)
	if err != nil {
		return err
	}
	for attempt := 1; ; attempt++ {
		out, err := admin.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(db.name)})
		var notFound *types.ResourceNotFoundException
		switch {
		case errors.As(err, &notFound):
			_, err := admin.CreateTable(ctx, db.table.CreateTableInput(db.name))
			var inUse *types.ResourceInUseException
			if errors.As(err, &inUse) && attempt < ensureAttempts {
				// Created (or being deleted) concurrently: check it as
				// an existing table.
				continue
			}
			if err != nil {
				return opError("EnsureTable "+db.name, err)
			}
			return db.finishTable(ctx, admin)
		case err != nil:
			return opError("EnsureTable "+db.name, err)
		case out.Table.TableStatus == types.TableStatusDeleting:
			// It will not become ACTIVE: wait until it is gone, then create it.
			if err := db.waitGone(ctx, admin); err != nil {
				return opError("waiting for deletion of table "+db.name, err)
			}
			continue
		}
		// Everything is checked before anything is changed: on any
		// difference EnsureTable changes nothing.
		add, err := db.checkExisting(ctx, admin, out.Table, s.addIndexes)
		if err != nil {
			return err
		}
		if len(add) > 0 {
			if err := db.addIndexes(ctx, admin, add); err != nil {
				return err
			}
			continue
		}
		if err := db.ensureStream(ctx, admin, out.Table); err != nil {
			return err
		}
		return db.finishTable(ctx, admin)
	}
}

// checkExisting compares an existing table with the model: its key schema
// and indexes, its stream's view and, when EnsureTable is to change the
// table (add an index, enable the stream) or reports a difference, the
// attribute its TTL is enabled on. Every difference is in the one
// *SchemaMismatchError; else it returns the indexes to add (with
// addIndexes, the missing ones).
func (db *DB) checkExisting(ctx context.Context, admin AdminClient, d *types.TableDescription, addIndexes bool) ([]string, error) {
	diffs := db.table.schemaDifferences(d)
	var add []string
	if missing := db.table.missingIndexes(d); addIndexes && len(missing) > 0 && len(diffs) == len(missing) {
		add, diffs = missing, nil
	}
	streamDiff, enableStream := db.streamDifference(d)
	if streamDiff != "" {
		diffs = append(diffs, streamDiff)
	}
	if db.table.schema.TTLAttr != "" && (len(diffs) > 0 || len(add) > 0 || enableStream) {
		var mismatch *SchemaMismatchError
		if _, err := db.ttlEnabled(ctx, admin); errors.As(err, &mismatch) {
			diffs = append(diffs, mismatch.Differences...)
		} else if err != nil {
			return nil, err
		}
	}
	if len(diffs) > 0 {
		return nil, &SchemaMismatchError{Table: db.name, Differences: diffs}
	}
	return add, nil
}

// finishTable waits for ACTIVE and enables TTL when declared.
func (db *DB) finishTable(ctx context.Context, admin AdminClient) error {
	if err := db.waitActive(ctx, admin); err != nil {
		return opError("waiting for table "+db.name, err)
	}
	if db.table.schema.TTLAttr == "" {
		return nil
	}
	if enabled, err := db.ttlEnabled(ctx, admin); err != nil || enabled {
		return err
	}
	_, err := admin.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
		TableName:               aws.String(db.name),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String(db.table.schema.TTLAttr), Enabled: aws.Bool(true)},
	})
	if err != nil {
		// A concurrent EnsureTable may have enabled it meanwhile, which
		// DynamoDB refuses to do twice.
		switch enabled, derr := db.ttlEnabled(ctx, admin); {
		case derr == nil && enabled:
			return nil
		case errors.Is(derr, ErrSchemaMismatch):
			return derr
		}
		return opError("UpdateTimeToLive "+db.name, err)
	}
	return nil
}

// ttlEnabled reports whether TTL is enabled (or being enabled) on the
// model's attribute; TTL enabled on another one is a *SchemaMismatchError.
func (db *DB) ttlEnabled(ctx context.Context, admin AdminClient) (bool, error) {
	ttl, err := admin.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(db.name)})
	if err != nil {
		return false, opError("DescribeTimeToLive "+db.name, err)
	}
	d := ttl.TimeToLiveDescription
	if d == nil || (d.TimeToLiveStatus != types.TimeToLiveStatusEnabled && d.TimeToLiveStatus != types.TimeToLiveStatusEnabling) {
		return false, nil
	}
	if got := aws.ToString(d.AttributeName); got != db.table.schema.TTLAttr {
		// DynamoDB allows one TTL attribute and refuses to enable another.
		return false, &SchemaMismatchError{Table: db.name, Differences: []string{fmt.Sprintf(
			"time to live is enabled on attribute %s, the model wants %s: disable it (UpdateTimeToLive) and run EnsureTable again", got, db.table.schema.TTLAttr)}}
	}
	return true, nil
}

// waitActive waits until the table is ACTIVE and none of its indexes is
// still being created: an index is not queryable while it is CREATING
// (backfilling), though the table is ACTIVE meanwhile. A table not found
// yet (just created) is waited for.
func (db *DB) waitActive(ctx context.Context, admin AdminClient) error {
	ctx, cancel := context.WithTimeout(ctx, tableWaitTimeout)
	defer cancel()
	for delay := 100 * time.Millisecond; ; delay = min(2*delay, 5*time.Second) {
		out, err := admin.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(db.name)})
		var notFound *types.ResourceNotFoundException
		switch {
		case errors.As(err, &notFound):
		case err != nil:
			return err
		case tableReady(out.Table):
			return nil
		}
		timer := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			timer.Stop()
			return ctx.Err()
		case <-timer.C:
		}
	}
}

func tableReady(d *types.TableDescription) bool {
	if d == nil || d.TableStatus != types.TableStatusActive {
		return false
	}
	for _, g := range d.GlobalSecondaryIndexes {
		if g.IndexStatus == types.IndexStatusCreating {
			return false
		}
	}
	return true
}

// DeleteTable deletes the table and waits until it is gone.
func (db *DB) DeleteTable(ctx context.Context) error {
	admin, err := db.adminClient("DeleteTable")
	if err != nil {
		return err
	}
	if _, err := admin.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(db.name)}); err != nil {
		return opError("DeleteTable "+db.name, err)
	}
	if err := db.waitGone(ctx, admin); err != nil {
		return opError("waiting for deletion of table "+db.name, err)
	}
	return nil
}

// waitGone waits until the table does not exist.
func (db *DB) waitGone(ctx context.Context, admin AdminClient) error {
	waiter := dynamodb.NewTableNotExistsWaiter(admin)
	return waiter.Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(db.name)}, tableWaitTimeout,
		func(o *dynamodb.TableNotExistsWaiterOptions) {
			o.MinDelay, o.MaxDelay = 100*time.Millisecond, 5*time.Second
		})
}

// schemaDifferences compares a described table with the model.
func (t *Table) schemaDifferences(d *types.TableDescription) []string {
	var diffs []string
	want := t.CreateTableInput(aws.ToString(d.TableName))
	if got, exp := describeKeys(d.KeySchema), describeKeys(want.KeySchema); got != exp {
		diffs = append(diffs, fmt.Sprintf("key schema is %s, the model wants %s: a table's keys cannot change; create a new table and migrate", got, exp))
	}
	attrTypes := map[string]types.ScalarAttributeType{}
	for _, a := range d.AttributeDefinitions {
		attrTypes[aws.ToString(a.AttributeName)] = a.AttributeType
	}
	for _, a := range want.AttributeDefinitions {
		name := aws.ToString(a.AttributeName)
		if got, ok := attrTypes[name]; ok && got != a.AttributeType {
			diffs = append(diffs, fmt.Sprintf("attribute %s is of type %s, the model wants %s", name, got, a.AttributeType))
		}
	}
	existing := map[string]types.GlobalSecondaryIndexDescription{}
	for _, g := range d.GlobalSecondaryIndexes {
		existing[aws.ToString(g.IndexName)] = g
	}
	for _, g := range want.GlobalSecondaryIndexes {
		name := aws.ToString(g.IndexName)
		have, ok := existing[name]
		if !ok {
			diffs = append(diffs, fmt.Sprintf("index %s is missing: add it with UpdateTable (GlobalSecondaryIndexUpdates Create, keys %s)", name, describeKeys(g.KeySchema)))
			continue
		}
		if have.IndexStatus == types.IndexStatusDeleting {
			diffs = append(diffs, fmt.Sprintf("index %s is being deleted: once it is gone, add it again with UpdateTable (GlobalSecondaryIndexUpdates Create, keys %s)", name, describeKeys(g.KeySchema)))
			continue
		}
		if got, exp := describeKeys(have.KeySchema), describeKeys(g.KeySchema); got != exp {
			diffs = append(diffs, fmt.Sprintf("index %s has keys %s, the model wants %s: delete and recreate the index", name, got, exp))
		}
		if have.Projection != nil && have.Projection.ProjectionType != g.Projection.ProjectionType {
			diffs = append(diffs, fmt.Sprintf("index %s projects %s, the model wants %s: delete and recreate the index", name, have.Projection.ProjectionType, g.Projection.ProjectionType))
		} else if have.Projection != nil && g.Projection.ProjectionType == types.ProjectionTypeInclude {
			got, exp := sortedSet(have.Projection.NonKeyAttributes), sortedSet(g.Projection.NonKeyAttributes)
			if !slices.Equal(got, exp) {
				diffs = append(diffs, fmt.Sprintf("index %s includes attributes %v, the model wants %v: delete and recreate the index", name, got, exp))
			}
		}
	}
	return append(diffs, t.lsiDifferences(d, want.LocalSecondaryIndexes)...)
}

// sortedSet is the distinct elements of s in order, for comparing attribute
// lists whose order does not matter.
func sortedSet(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return slices.Compact(out)
}

func describeKeys(ks []types.KeySchemaElement) string {
	parts := make([]string, len(ks))
	for i, k := range ks {
		parts[i] = aws.ToString(k.AttributeName) + " " + string(k.KeyType)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}
