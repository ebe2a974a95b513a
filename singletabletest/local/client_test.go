package local_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/logging"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/singletable/singletable/singletabletest/local"
)

type lines struct {
	mu sync.Mutex
	l  []string
}

func (l *lines) Logf(c logging.Classification, format string, v ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.l = append(l.l, string(c)+" "+fmt.Sprintf(format, v...))
}

// A dev server's client, built the usual way, logs the checksum warning on
// an error answered without X-Amz-Crc32 (as DynamoDB Local answers every
// error); with local.ChecksumFix it does not.
func TestChecksumFixForDevServers(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		w.WriteHeader(400)
		_, _ = w.Write([]byte(`{"__type":"com.amazonaws.dynamodb.v20120810#ResourceNotFoundException","Message":"no table"}`))
	}))
	defer srv.Close()
	t.Setenv("AWS_ENDPOINT_URL_DYNAMODB", srv.URL)
	for _, fix := range []bool{false, true} {
		log := &lines{}
		cfg, err := config.LoadDefaultConfig(context.Background(), config.WithRegion("us-east-1"), config.WithLogger(log),
			config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("a", "b", "")))
		require.NoError(t, err)
		var opts []func(*dynamodb.Options)
		if fix {
			opts = append(opts, local.ChecksumFix)
		}
		_, err = dynamodb.NewFromConfig(cfg, opts...).GetItem(context.Background(), &dynamodb.GetItemInput{
			TableName: aws.String("t"), Key: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "a"}}})
		var nf *types.ResourceNotFoundException
		require.ErrorAs(t, err, &nf)
		if fix {
			assert.Empty(t, log.l)
		} else {
			require.Len(t, log.l, 1, "the SDK's warning, which the fix removes")
			assert.Contains(t, log.l[0], "response did not match expected checksum")
		}
	}
}
