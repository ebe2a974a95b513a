package singletable_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	streamtypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/graph"
	"github.com/singletable/singletable/internal/golden"
	"github.com/singletable/singletable/internal/testmodel"
	"github.com/singletable/singletable/migrate"
	"github.com/singletable/singletable/singletabletest"
	"github.com/singletable/singletable/stream"
)

// The packages built on the core (migrate, graph) send through the same
// Client, so a Client may modify their requests too (see
// TestClientMayModifyRequests, which runs these cases).

type scribblePerson struct {
	ID        string `dynamodbav:"id"`
	Following int    `dynamodbav:"following"`
	Followers int    `dynamodbav:"followers"`
}

type scribbleFollow struct {
	Follower string `dynamodbav:"follower"`
	Followee string `dynamodbav:"followee"`
}

var (
	scribbleSocial  = st.MustTable("ScribbleSocial", st.WithGSI("Inverted", st.IndexKeys("SK", "PK")))
	scribblePeople  = st.MustDefine[scribblePerson](scribbleSocial, "Person", st.Key("USER#{ID}", "USER#{ID}"))
	scribbleEdges   = st.MustDefine[scribbleFollow](scribbleSocial, "Follow", st.Key("USER#{Follower}", "FOLLOWS#{Followee}"))
	scribbleFollows = graph.MustRelate("Follows", scribblePeople, scribbleEdges, scribblePeople,
		graph.FromField("Follower", "ID"), graph.ToField("Followee", "ID"), graph.InIndex("Inverted"),
		graph.CountOut("Following"), graph.CountIn("Followers"))
)

func scribblePackageCases() []scribbleCase {
	users := []testmodel.ShopUser{{ID: "u1", Name: "Al"}, {ID: "u2", Name: "Bo"}}
	// Two pages of users, one each: the second Scan, and the Put of each
	// user, are built after earlier requests were scribbled over.
	scanUsers := func(t *testing.T, mock *singletabletest.Client, plain *st.DB) {
		items := []map[string]types.AttributeValue{item(t, testmodel.ShopUsers, plain, users[0]), item(t, testmodel.ShopUsers, plain, users[1])}
		mock.ScanFunc = func(_ context.Context, in *dynamodb.ScanInput) (*dynamodb.ScanOutput, error) {
			if in.ExclusiveStartKey == nil {
				return &dynamodb.ScanOutput{Items: deepCopy(items[:1]), LastEvaluatedKey: deepCopy(items[0])}, nil
			}
			return &dynamodb.ScanOutput{Items: deepCopy(items[1:])}, nil
		}
	}
	edge := scribbleFollow{Follower: "alice", Followee: "bob"}
	return []scribbleCase{
		{name: "migrate.Run", answer: scanUsers, requests: 4, // two pages, a Put per user
			run: func(ctx context.Context, db *st.DB) error {
				rep, err := migrate.Run(ctx, db, testmodel.ShopUsers, func(_ context.Context, u *testmodel.ShopUser) error {
					u.Name += "!"
					return nil
				}, migrate.Segments(1), migrate.Concurrency(1))
				if err == nil && rep.Changed != 2 {
					err = fmt.Errorf("changed %d of 2", rep.Changed)
				}
				return err
			}},
		{name: "graph Link", model: scribbleSocial, requests: 1,
			run: func(ctx context.Context, db *st.DB) error {
				_, err := scribbleFollows.Link(ctx, db, edge)
				return err
			}},
		{name: "graph Unlink", model: scribbleSocial, requests: 1,
			run: func(ctx context.Context, db *st.DB) error {
				_, err := scribbleFollows.Unlink(ctx, db, edge)
				return err
			}},
		{name: "graph Has", model: scribbleSocial, requests: 1,
			run: func(ctx context.Context, db *st.DB) error {
				_, err := scribbleFollows.Has(ctx, db, edge)
				return err
			}},
		{name: "graph Out and In, paged", model: scribbleSocial, answer: func(t *testing.T, mock *singletabletest.Client, plain *st.DB) {
			last := item(t, scribbleEdges, plain, edge)
			mock.QueryFunc = func(_ context.Context, in *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
				return &dynamodb.QueryOutput{LastEvaluatedKey: paged(last, in.ExclusiveStartKey)}, nil
			}
		}, run: func(ctx context.Context, db *st.DB) error {
			for _, err := range scribbleFollows.OutAll(ctx, db, scribblePerson{ID: "alice"}) {
				if err != nil {
					return err
				}
			}
			for _, err := range scribbleFollows.InAll(ctx, db, scribblePerson{ID: "bob"}) {
				if err != nil {
					return err
				}
			}
			return nil
		}},
	}
}

// streamScribbler is a Streams client that answers a stream of two shards
// (listed on two DescribeStream pages), one record each, and then
// overwrites every field of each request it was given: a Client may.
type streamScribbler struct {
	mu   sync.Mutex
	sent []string
}

func (s *streamScribbler) note(in any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sent = append(s.sent, string(golden.JSON(in)))
}

func (s *streamScribbler) DescribeStream(_ context.Context, in *dynamodbstreams.DescribeStreamInput, _ ...func(*dynamodbstreams.Options)) (*dynamodbstreams.DescribeStreamOutput, error) {
	s.note(in)
	defer scribble(in)
	closed := &streamtypes.SequenceNumberRange{StartingSequenceNumber: aws.String("1"), EndingSequenceNumber: aws.String("9")}
	if in.ExclusiveStartShardId == nil {
		return &dynamodbstreams.DescribeStreamOutput{StreamDescription: &streamtypes.StreamDescription{
			Shards: []streamtypes.Shard{{ShardId: aws.String("s1"), SequenceNumberRange: closed}}, LastEvaluatedShardId: aws.String("s1"),
		}}, nil
	}
	return &dynamodbstreams.DescribeStreamOutput{StreamDescription: &streamtypes.StreamDescription{
		Shards: []streamtypes.Shard{{ShardId: aws.String("s2"), ParentShardId: aws.String("s1"), SequenceNumberRange: closed}},
	}}, nil
}

func (s *streamScribbler) GetShardIterator(_ context.Context, in *dynamodbstreams.GetShardIteratorInput, _ ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetShardIteratorOutput, error) {
	s.note(in)
	defer scribble(in)
	return &dynamodbstreams.GetShardIteratorOutput{ShardIterator: aws.String("it-" + aws.ToString(in.ShardId))}, nil
}

func (s *streamScribbler) GetRecords(_ context.Context, in *dynamodbstreams.GetRecordsInput, _ ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetRecordsOutput, error) {
	s.note(in)
	defer scribble(in)
	seq := aws.ToString(in.ShardIterator)
	return &dynamodbstreams.GetRecordsOutput{Records: []streamtypes.Record{{
		EventID: aws.String("ev-" + seq), EventName: streamtypes.OperationTypeRemove, EventSource: aws.String("aws:dynamodb"),
		Dynamodb: &streamtypes.StreamRecord{
			SequenceNumber: aws.String(seq), ApproximateCreationDateTime: aws.Time(time.Unix(1700000000, 0)),
			Keys: map[string]streamtypes.AttributeValue{
				"PK": &streamtypes.AttributeValueMemberS{Value: "USER#" + seq}, "SK": &streamtypes.AttributeValueMemberS{Value: "USER#" + seq},
			},
		},
	}}}, nil
}

// stream.Read under a Streams client that modifies each request once
// answered: its later requests (the second DescribeStream page, each
// shard's iterator and records) are the ones it would have sent, and it
// reads the stream twice the same way.
func TestStreamReadMayModifyRequests(t *testing.T) {
	var runs [2][]string
	for i := range runs {
		c := &streamScribbler{}
		var seqs []string
		for rec, err := range stream.Read(t.Context(), c, "arn:stream") {
			require.NoError(t, err)
			seqs = append(seqs, rec.SequenceNumber)
		}
		assert.Equal(t, []string{"it-s1", "it-s2"}, seqs, "both shards' records, in order")
		runs[i] = c.sent
	}
	require.Len(t, runs[0], 6, "2 DescribeStream pages, then an iterator and records per shard")
	assert.Equal(t, runs[0], runs[1])
	for _, r := range runs[0] {
		assert.NotContains(t, r, "scribbled", "no request carries what the client wrote")
	}
	assert.Contains(t, runs[0][1], `"ExclusiveStartShardId": "s1"`)
	assert.Contains(t, runs[0][1], `"StreamArn": "arn:stream"`)
}
