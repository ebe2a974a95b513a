package singletable

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Streams
//
// A table declared WithStream has a DynamoDB stream, which EnsureTable
// enables; StreamARN names it. Its records are read, decoded into typed
// changes and dispatched by package stream
// (github.com/singletable/singletable/stream), so that only the programs
// that consume a stream compile the Lambda and Streams clients. See
// docs/streams.md.

// StreamView is what a stream record carries of the item: its keys, its
// new image, its old image, or both (types.StreamViewType).
type StreamView = types.StreamViewType

// The stream views. StreamNewAndOldImages is the one that gives a Change
// both values and its Changed fields.
const (
	StreamKeysOnly        StreamView = types.StreamViewTypeKeysOnly
	StreamNewImage        StreamView = types.StreamViewTypeNewImage
	StreamOldImage        StreamView = types.StreamViewTypeOldImage
	StreamNewAndOldImages StreamView = types.StreamViewTypeNewAndOldImages
)

// WithStream declares the table's stream and what its records carry.
// CreateTable creates the table with it; EnsureTable enables it on an
// existing table that has none, and reports a stream of another view as a
// *SchemaMismatchError (DynamoDB cannot change a stream's view: disable the
// stream, then run EnsureTable again).
func WithStream(view StreamView) TableOption {
	return func(t *Table) error {
		switch view {
		case StreamKeysOnly, StreamNewImage, StreamOldImage, StreamNewAndOldImages:
			t.stream = view
			return nil
		}
		return fmt.Errorf("stream view %q is none of KEYS_ONLY, NEW_IMAGE, OLD_IMAGE, NEW_AND_OLD_IMAGES", string(view))
	}
}

// Stream is the table's stream view; empty if it declares no stream.
func (t *Table) Stream() StreamView { return t.stream }

// streamSpec is the StreamSpecification of the model: nil without a stream.
func (t *Table) streamSpec() *types.StreamSpecification {
	if t.stream == "" {
		return nil
	}
	return &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: t.stream}
}

// EnableStreamInput is the UpdateTable request EnsureTable sends to enable
// the model's stream on an existing table; nil if the model has none.
func (t *Table) EnableStreamInput(name string) *dynamodb.UpdateTableInput {
	if t.stream == "" {
		return nil
	}
	return &dynamodb.UpdateTableInput{TableName: aws.String(name), StreamSpecification: t.streamSpec()}
}

// streamDifference compares an existing table's stream with the model's:
// a stream with another view is a difference (described), a missing one
// is to be enabled.
func (db *DB) streamDifference(d *types.TableDescription) (diff string, enable bool) {
	want := db.table.stream
	if want == "" {
		return "", false
	}
	if s := d.StreamSpecification; s != nil && aws.ToBool(s.StreamEnabled) {
		if s.StreamViewType == want {
			return "", false
		}
		return fmt.Sprintf("the stream's view is %s, the model wants %s: disable the stream (UpdateTable StreamEnabled false) and run EnsureTable again", s.StreamViewType, want), false
	}
	return "", true
}

// ensureStream enables the model's stream on an existing table d
// describes, unless it has it already; finishTable then waits for ACTIVE.
// A table with a stream the model does not declare keeps it: other
// consumers may read it.
func (db *DB) ensureStream(ctx context.Context, admin AdminClient, d *types.TableDescription) error {
	want := db.table.stream
	diff, enable := db.streamDifference(d)
	if diff != "" {
		return &SchemaMismatchError{Table: db.name, Differences: []string{diff}}
	}
	if !enable {
		return nil
	}
	if _, err := admin.UpdateTable(ctx, db.table.EnableStreamInput(db.name)); err != nil {
		// A concurrent EnsureTable may have enabled it meanwhile, which
		// DynamoDB refuses to do twice.
		out, derr := admin.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(db.name)})
		if derr == nil && out.Table.StreamSpecification != nil && aws.ToBool(out.Table.StreamSpecification.StreamEnabled) &&
			out.Table.StreamSpecification.StreamViewType == want {
			return nil
		}
		return opError("UpdateTable (enable stream) "+db.name, err)
	}
	return nil
}

// StreamARN is the ARN of the table's current stream (DescribeTable's
// LatestStreamArn), for stream.Read or a tool that reads the stream; the
// DB needs an admin client.
func (db *DB) StreamARN(ctx context.Context) (string, error) {
	admin, err := db.adminClient("StreamARN")
	if err != nil {
		return "", err
	}
	out, err := admin.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(db.name)})
	if err != nil {
		return "", opError("DescribeTable "+db.name, err)
	}
	arn := aws.ToString(out.Table.LatestStreamArn)
	if arn == "" || out.Table.StreamSpecification == nil || !aws.ToBool(out.Table.StreamSpecification.StreamEnabled) {
		return "", &InputError{Op: "StreamARN", Reason: "table " + db.name + " has no enabled stream (declare WithStream and run EnsureTable)"}
	}
	return arn, nil
}
