package stream_test

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/stream"
)

// An adopted table's records carry no type attribute: the keys say whose
// change it is, and an image whose keys parse as an Issue but whose
// attribute has the wrong type is a failed Issue record, never an unknown
// one that OnUnknown may skip.

type adoptIssue struct {
	Owner  string `dynamodbav:"owner"`
	Repo   string `dynamodbav:"repo"`
	Number int    `dynamodbav:"number"`
	Prio   int    `dynamodbav:"prio"`
}

var (
	adoptTable  = st.MustTable("GitHub", st.WithTypeAttribute("_type,keys"), st.WithStream(st.StreamNewAndOldImages))
	adoptIssues = st.MustDefine[adoptIssue](adoptTable, "Issue", st.Key("REPO#{Owner}#{Repo}", "ISSUE#{Number:7}"))
)

func adoptImage(sk string, attrs map[string]types.AttributeValue) map[string]types.AttributeValue {
	item := map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "REPO#o#r"}, "SK": &types.AttributeValueMemberS{Value: sk}}
	for k, v := range attrs {
		item[k] = v
	}
	return item
}

func TestStreamHandlerAdoptedWrongAttributeFailsTheRecord(t *testing.T) {
	bad := []map[string]types.AttributeValue{
		adoptImage("ISSUE#0000002", map[string]types.AttributeValue{"prio": &types.AttributeValueMemberS{Value: "high"}}),
		adoptImage("ISSUE#0000002", map[string]types.AttributeValue{"prio": &types.AttributeValueMemberN{Value: "99999999999999999999999"}}),
		adoptImage("ISSUE#0000002", map[string]types.AttributeValue{"number": &types.AttributeValueMemberN{Value: "10.0"}}),
	}
	for _, img := range bad {
		var unknown []string
		var failures []*stream.RecordError
		var seen []adoptIssue
		h := mustHandler(t, adoptTable,
			stream.OnUnknown(func(_ context.Context, rec stream.Record, _ error) error {
				unknown = append(unknown, rec.SequenceNumber)
				return nil // skip another application's items
			}),
			stream.OnFailure(func(_ context.Context, err *stream.RecordError) { failures = append(failures, err) }))
		stream.On(h, adoptIssues, func(_ context.Context, c stream.Change[adoptIssue]) error {
			seen = append(seen, *c.New)
			return nil
		})
		ev := lambdaEvent(t,
			streamsRecord(t, "INSERT", "1", nil, adoptImage("ISSUE#0000001", nil)),
			streamsRecord(t, "INSERT", "2", nil, adoptImage("LOCK", nil)),
			streamsRecord(t, "INSERT", "3", nil, img),
			streamsRecord(t, "INSERT", "4", nil, adoptImage("ISSUE#0000004", nil)),
		)
		resp, err := h.HandleLambda(context.Background(), ev)
		require.NoError(t, err)
		assert.Equal(t, []events.DynamoDBBatchItemFailure{{ItemIdentifier: "3"}}, resp.BatchItemFailures, "the Issue's record fails: %v", img)
		assert.Equal(t, []string{"2"}, unknown, "only the lock is of no entity")
		assert.Equal(t, []adoptIssue{{Owner: "o", Repo: "r", Number: 1}}, seen, "key fields parsed back; stops at the failure")
		require.Len(t, failures, 1)
		assert.Equal(t, "Issue", failures[0].Entity)
		var de *st.DecodeError
		require.ErrorAs(t, failures[0], &de)
		assert.NotEmpty(t, de.Attr)
		var ue *st.UnknownEntityError
		assert.False(t, errors.As(failures[0], &ue))

		// stream.Decode says the same.
		rec, err := stream.FromStreams(streamsRecord(t, "INSERT", "3", nil, img))
		require.NoError(t, err)
		_, err = stream.Decode(adoptIssues, rec)
		var de2 *st.DecodeError
		require.ErrorAs(t, err, &de2)
		assert.Equal(t, de.Attr, de2.Attr)
	}
}
