package ddblocal

import (
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/logging"
	"github.com/stretchr/testify/require"
)

// captureLogger records everything the SDK logs.
type captureLogger struct {
	mu    sync.Mutex
	lines []string
}

func (l *captureLogger) Logf(c logging.Classification, format string, v ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, string(c)+" "+fmt.Sprintf(format, v...))
}

func (l *captureLogger) Lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.lines...)
}

func str(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

func TestConfigRequiresEndpoint(t *testing.T) {
	t.Setenv(EndpointEnv, "")
	_, err := Config(context.Background())
	require.ErrorIs(t, err, ErrNoEndpoint)
	require.ErrorContains(t, err, "AWS_ENDPOINT_URL_DYNAMODB is not set")
	require.ErrorContains(t, err, "local.Main(m)")
	require.ErrorContains(t, err, "go run github.com/singletable/singletable/cmd/singletable-local -- <cmd>")

	_, err = Client(context.Background())
	require.ErrorIs(t, err, ErrNoEndpoint)

	t.Setenv(EndpointEnv, "127.0.0.1:8000")
	_, err = Config(context.Background())
	require.ErrorContains(t, err, "is not a URL")

	t.Setenv(EndpointEnv, "http://127.0.0.1:8000")
	t.Setenv("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS", "true")
	_, err = Config(context.Background())
	require.ErrorContains(t, err, "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS")
}

func TestConfigDefaults(t *testing.T) {
	t.Setenv(EndpointEnv, "http://127.0.0.1:8000")
	t.Setenv("AWS_ACCESS_KEY_ID", "")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "")
	t.Setenv("AWS_REGION", "")
	t.Setenv("AWS_DEFAULT_REGION", "")
	t.Setenv("AWS_PROFILE", "")
	t.Setenv("AWS_CONFIG_FILE", t.TempDir()+"/none")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", t.TempDir()+"/none")

	cfg, err := Config(context.Background())
	require.NoError(t, err)
	require.Equal(t, "us-east-1", cfg.Region)
	creds, err := cfg.Credentials.Retrieve(context.Background())
	require.NoError(t, err)
	require.Equal(t, "local", creds.AccessKeyID)

	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "secret")
	t.Setenv("AWS_REGION", "eu-west-1")
	cfg, err = Config(context.Background())
	require.NoError(t, err)
	require.Equal(t, "eu-west-1", cfg.Region)
	creds, err = cfg.Credentials.Retrieve(context.Background())
	require.NoError(t, err)
	require.Equal(t, "AKIDEXAMPLE", creds.AccessKeyID)
}

// TestCRC32Validation checks, against a fake endpoint, that responses without
// an X-Amz-Crc32 header log nothing while a wrong checksum is still reported.
func TestCRC32Validation(t *testing.T) {
	const okBody = `{"Item":{"PK":{"S":"a"}}}`
	const errBody = `{"__type":"com.amazonaws.dynamodb.v20120810#ResourceNotFoundException","Message":"Cannot do operations on a non-existent table"}`
	cases := []struct {
		name    string
		status  int
		body    string
		crc     string // X-Amz-Crc32 header; "" for none
		wantErr bool
		wantLog string // substring of the only logged line; "" for no log
	}{
		{name: "error without header", status: 400, body: errBody, wantErr: true},
		{name: "success without header", status: 200, body: okBody},
		{name: "success with right checksum", status: 200, body: okBody, crc: strconv.FormatUint(uint64(crc32.ChecksumIEEE([]byte(okBody))), 10)},
		{name: "error with right checksum", status: 400, body: errBody, crc: strconv.FormatUint(uint64(crc32.ChecksumIEEE([]byte(errBody))), 10), wantErr: true},
		{name: "success with wrong checksum", status: 200, body: okBody, crc: "12345", wantLog: "response did not match expected checksum, 12345,"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/x-amz-json-1.0")
				if tc.crc != "" {
					w.Header().Set("X-Amz-Crc32", tc.crc)
				}
				w.WriteHeader(tc.status)
				_, _ = w.Write([]byte(tc.body))
			}))
			defer srv.Close()
			t.Setenv(EndpointEnv, srv.URL)

			logger := &captureLogger{}
			c, err := Client(context.Background(), config.WithLogger(logger))
			require.NoError(t, err)
			out, err := c.GetItem(context.Background(), &dynamodb.GetItemInput{
				TableName: aws.String("t"),
				Key:       map[string]types.AttributeValue{"PK": str("a")},
			})
			if tc.wantErr {
				var notFound *types.ResourceNotFoundException
				require.True(t, errors.As(err, &notFound), "got %v", err)
			} else {
				require.NoError(t, err)
				require.Equal(t, str("a"), out.Item["PK"])
			}
			lines := logger.Lines()
			if tc.wantLog == "" {
				require.Empty(t, lines)
			} else {
				require.Len(t, lines, 1)
				require.Contains(t, lines[0], tc.wantLog)
			}
		})
	}
}

func TestUniqueName(t *testing.T) {
	valid := regexp.MustCompile(`^[a-zA-Z0-9_.-]{3,255}$`)
	seen := map[string]bool{}
	for range 1000 {
		n := UniqueName("orders")
		require.Regexp(t, valid, n)
		require.True(t, strings.HasPrefix(n, "orders-"), n)
		require.False(t, seen[n], "duplicate %s", n)
		seen[n] = true
	}
	for _, prefix := range []string{"", "a", "with space/slash:colon", "ünï", strings.Repeat("x", 1000)} {
		n := UniqueName(prefix)
		require.Regexp(t, valid, n, "prefix %q", prefix)
	}
	require.True(t, strings.HasPrefix(UniqueName("a b"), "a_b-"))
}
