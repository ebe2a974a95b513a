package stream

import (
	"context"
	"fmt"
	"iter"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	streamtypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	st "github.com/singletable/singletable"
)

// Client is the part of the DynamoDB Streams API Read uses;
// *dynamodbstreams.Client satisfies it. For DynamoDB Local, point it at
// the DynamoDB endpoint: Local serves both APIs.
type Client interface {
	DescribeStream(ctx context.Context, in *dynamodbstreams.DescribeStreamInput, optFns ...func(*dynamodbstreams.Options)) (*dynamodbstreams.DescribeStreamOutput, error)
	GetShardIterator(ctx context.Context, in *dynamodbstreams.GetShardIteratorInput, optFns ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetShardIteratorOutput, error)
	GetRecords(ctx context.Context, in *dynamodbstreams.GetRecordsInput, optFns ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetRecordsOutput, error)
}

var _ Client = (*dynamodbstreams.Client)(nil)

// Read reads what the stream holds now, from the oldest record
// (TRIM_HORIZON) of every shard, a parent shard before its children, so
// that the records of each item come in order. A closed shard is read to
// its end, an open one until a read returns no records: Read is for
// development, tests and tools that catch up with a stream (on DynamoDB
// Local, say), not a consumer that follows it forever (use Lambda, or the
// Kinesis adapter, for that). A request that fails ends the iteration
// with its error. A record that cannot be converted (see FromStreams) is
// yielded with its error and as much of it as was read (its EventID and
// SequenceNumber at least, when it has them), and the iteration goes on to
// the records after it unless the caller stops: one record must not hide
// the rest of the stream (DynamoDB Local's TTL deletions are such records,
// see docs/streams.md). A nil client or an empty ARN is an
// *singletable.InputError, yielded before anything is sent.
func Read(ctx context.Context, client Client, streamARN string) iter.Seq2[Record, error] {
	return func(yield func(Record, error) bool) {
		switch {
		case client == nil:
			yield(Record{}, &st.InputError{Op: "stream.Read", Reason: "the client is nil"})
			return
		case streamARN == "":
			yield(Record{}, &st.InputError{Op: "stream.Read", Reason: "the stream ARN is empty"})
			return
		}
		shards, err := streamShards(ctx, client, streamARN)
		if err != nil {
			yield(Record{}, err)
			return
		}
		for _, sh := range shards {
			it, err := client.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{
				StreamArn: aws.String(streamARN), ShardId: sh.ShardId, ShardIteratorType: streamtypes.ShardIteratorTypeTrimHorizon,
			})
			if err != nil {
				yield(Record{}, fmt.Errorf("singletable: GetShardIterator %s: %w", aws.ToString(sh.ShardId), err))
				return
			}
			for pos := it.ShardIterator; pos != nil; {
				out, err := client.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: pos})
				if err != nil {
					yield(Record{}, fmt.Errorf("singletable: GetRecords %s: %w", aws.ToString(sh.ShardId), err))
					return
				}
				for _, r := range out.Records {
					if !yield(FromStreams(r)) {
						return
					}
				}
				if len(out.Records) == 0 && sh.SequenceNumberRange != nil && sh.SequenceNumberRange.EndingSequenceNumber == nil {
					break // an open shard, read up to now
				}
				pos = out.NextShardIterator
			}
		}
	}
}

// streamShards lists a stream's shards, each after its parent.
func streamShards(ctx context.Context, client Client, arn string) ([]streamtypes.Shard, error) {
	var all []streamtypes.Shard
	var start *string
	for {
		// A request of its own each page: the client may modify the one
		// it is given.
		in := &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn), ExclusiveStartShardId: start}
		out, err := client.DescribeStream(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("singletable: DescribeStream %s: %w", arn, err)
		}
		all = append(all, out.StreamDescription.Shards...)
		if out.StreamDescription.LastEvaluatedShardId == nil {
			break
		}
		start = out.StreamDescription.LastEvaluatedShardId
	}
	// Parents first: a shard whose parent is listed waits for it.
	listed := map[string]bool{}
	for _, sh := range all {
		listed[aws.ToString(sh.ShardId)] = true
	}
	done := map[string]bool{}
	out := make([]streamtypes.Shard, 0, len(all))
	for len(out) < len(all) {
		progress := false
		for _, sh := range all {
			id, parent := aws.ToString(sh.ShardId), aws.ToString(sh.ParentShardId)
			if done[id] || (parent != "" && listed[parent] && !done[parent]) {
				continue
			}
			done[id] = true
			out = append(out, sh)
			progress = true
		}
		if !progress {
			return nil, fmt.Errorf("singletable: DescribeStream %s: the shards' parents form a cycle", arn)
		}
	}
	return out, nil
}
