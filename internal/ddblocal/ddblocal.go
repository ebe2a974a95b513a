// Package ddblocal connects singletable's tests and examples, and the test
// kit's (singletabletest, singletabletest/local), to DynamoDB Local.
//
// The endpoint comes from AWS_ENDPOINT_URL_DYNAMODB, which the harness
// (singletabletest/local, behind cmd/singletable-local, `make test` and
// `make example`) sets. The SDK honours that variable
// natively; this package only refuses to run without it, so that a test can
// never reach a real AWS account by accident, and fills in dummy credentials
// and a region when the environment has none.
//
// See docs/dynamodb-local.md.
package ddblocal

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	smithy "github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// EndpointEnv names the environment variable that points the SDK's DynamoDB
// client at DynamoDB Local.
const EndpointEnv = "AWS_ENDPOINT_URL_DYNAMODB"

// ErrNoEndpoint is returned by Config and Client when EndpointEnv is not set.
var ErrNoEndpoint = errors.New(EndpointEnv + " is not set: start DynamoDB Local from the package's TestMain " +
	"(func TestMain(m *testing.M) { local.Main(m) }, package github.com/singletable/singletable/singletabletest/local), " +
	"or run the command through `go run github.com/singletable/singletable/cmd/singletable-local -- <cmd>` " +
	"(in this repository: make test, or eval \"$(make -s ddb-start)\")")

// Dummy credentials and region used when the environment has none. DynamoDB
// Local (started with -sharedDb) accepts any.
const (
	dummyAccessKey = "local"
	dummySecretKey = "local"
	dummyRegion    = "us-east-1"
)

// Config loads an aws.Config for DynamoDB Local with config.LoadDefaultConfig.
//
// It fails unless AWS_ENDPOINT_URL_DYNAMODB is set. Unless the environment
// sets AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, static dummy credentials
// are used (no profile, SSO or instance metadata lookups); unless it sets
// AWS_REGION or AWS_DEFAULT_REGION, the region is us-east-1. optFns are
// applied after those defaults, so a caller can override them, or add a logger
// with config.WithLogger.
//
// The returned config carries an API option that keeps the DynamoDB client's
// CRC32 response validation from logging spurious warnings for DynamoDB
// Local's error responses (see docs/dynamodb-local.md).
func Config(ctx context.Context, optFns ...func(*config.LoadOptions) error) (aws.Config, error) {
	endpoint := strings.TrimSpace(os.Getenv(EndpointEnv))
	if endpoint == "" {
		return aws.Config{}, ErrNoEndpoint
	}
	return ConfigFor(ctx, endpoint, optFns...)
}

// ConfigFor is Config for the instance at endpoint, whatever
// AWS_ENDPOINT_URL_DYNAMODB says.
func ConfigFor(ctx context.Context, endpoint string, optFns ...func(*config.LoadOptions) error) (aws.Config, error) {
	if u, err := url.Parse(endpoint); err != nil || u.Scheme == "" || u.Host == "" {
		return aws.Config{}, fmt.Errorf("%s=%q is not a URL such as http://127.0.0.1:8000", EndpointEnv, endpoint)
	}
	if v, _ := strconv.ParseBool(os.Getenv("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS")); v {
		return aws.Config{}, fmt.Errorf("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS is set: the SDK would ignore %s and talk to real AWS", EndpointEnv)
	}

	var opts []func(*config.LoadOptions) error
	if os.Getenv("AWS_ACCESS_KEY_ID") == "" || os.Getenv("AWS_SECRET_ACCESS_KEY") == "" {
		opts = append(opts, config.WithCredentialsProvider(
			credentials.NewStaticCredentialsProvider(dummyAccessKey, dummySecretKey, "")))
	}
	if os.Getenv("AWS_REGION") == "" && os.Getenv("AWS_DEFAULT_REGION") == "" {
		opts = append(opts, config.WithRegion(dummyRegion))
	}
	opts = append(opts, optFns...)

	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return aws.Config{}, fmt.Errorf("ddblocal: load AWS config: %w", err)
	}
	// The same endpoint as the environment's, set explicitly so that
	// ConfigFor reaches the instance it was given.
	cfg.BaseEndpoint = aws.String(endpoint)
	cfg.APIOptions = append(cfg.APIOptions, replaceCRC32Validation)
	return cfg, nil
}

// ChecksumFix is a dynamodb.Options function that makes the client check
// a response's CRC32 only when the response carries one (see
// replaceCRC32Validation); Config's clients have it already.
func ChecksumFix(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, replaceCRC32Validation)
}

// Client returns a DynamoDB client for DynamoDB Local, built from Config.
func Client(ctx context.Context, optFns ...func(*config.LoadOptions) error) (*dynamodb.Client, error) {
	cfg, err := Config(ctx, optFns...)
	if err != nil {
		return nil, err
	}
	return dynamodb.NewFromConfig(cfg), nil
}

var (
	runID   = newRunID()
	counter atomic.Uint64
)

// newRunID returns a short string that differs between processes: the start
// time in seconds (base 36) and 3 random bytes.
func newRunID() string {
	var b [3]byte
	if _, err := rand.Read(b[:]); err != nil {
		// crypto/rand does not fail on supported platforms; fall back to the pid.
		return strconv.FormatInt(time.Now().Unix(), 36) + strconv.Itoa(os.Getpid())
	}
	return strconv.FormatInt(time.Now().Unix(), 36) + hex.EncodeToString(b[:])
}

// maxPrefix keeps UniqueName under DynamoDB's 255-character limit.
const maxPrefix = 200

// UniqueName returns a table name that is unique per call and per process:
// prefix, a per-process id and a counter, e.g. "orders-t4k2qz1a2b3c-7".
// Characters that DynamoDB does not allow in table names are replaced by
// '_'; the result always has 3 to 255 characters of [a-zA-Z0-9_.-].
func UniqueName(prefix string) string {
	var b strings.Builder
	for _, r := range prefix {
		if b.Len() >= maxPrefix {
			break
		}
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '.', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		b.WriteString("t")
	}
	fmt.Fprintf(&b, "-%s-%d", runID, counter.Add(1))
	return b.String()
}

// --- CRC32 response validation ------------------------------------------------

// checksumMiddlewareID is the ID of the DynamoDB client's CRC32 response
// validation middleware (service/dynamodb/internal/customizations).
const checksumMiddlewareID = "DynamoDB:ResponseChecksumValidation"

const crc32Header = "X-Amz-Crc32"

// replaceCRC32Validation swaps the DynamoDB client's CRC32 validation
// middleware for one that validates only responses that carry an
// X-Amz-Crc32 header.
//
// The SDK's middleware ignores whether the header is present and, when it is
// absent, compares the body's CRC32 with 0; closing the body then fails and
// the SDK logs "WARN failed to close HTTP response body, this may affect
// connection reuse: response did not match expected checksum, 0, N".
// DynamoDB Local sends the header on every 2xx response but on no error
// response, so every expected error (a failed condition, a cancelled
// transaction, a missing table) printed that warning. Responses that carry the
// header are validated exactly as before, and a mismatch is still logged.
//
// Stacks without that middleware (other services, or a client built with
// DisableValidateResponseChecksum) are left alone.
func replaceCRC32Validation(stack *middleware.Stack) error {
	if _, ok := stack.Deserialize.Get(checksumMiddlewareID); !ok {
		return nil
	}
	_, err := stack.Deserialize.Swap(checksumMiddlewareID, crc32Validation{})
	return err
}

type crc32Validation struct{}

func (crc32Validation) ID() string { return checksumMiddlewareID }

func (crc32Validation) HandleDeserialize(ctx context.Context, in middleware.DeserializeInput, next middleware.DeserializeHandler) (
	middleware.DeserializeOutput, middleware.Metadata, error,
) {
	out, md, err := next.HandleDeserialize(ctx, in)
	if err != nil {
		return out, md, err
	}
	resp, ok := out.RawResponse.(*smithyhttp.Response)
	if !ok {
		return out, md, &smithy.DeserializationError{
			Err: fmt.Errorf("unknown response type %T", out.RawResponse),
		}
	}
	v := resp.Header.Get(crc32Header)
	if v == "" {
		return out, md, nil // nothing to validate against
	}
	want, err := strconv.ParseUint(v, 10, 32)
	if err != nil {
		return out, md, &smithy.DeserializationError{
			Err: fmt.Errorf("unable to parse checksum header %s %q: %w", crc32Header, v, err),
		}
	}
	h := crc32.NewIEEE()
	resp.Body = &crc32Body{Reader: io.TeeReader(resp.Body, h), closer: resp.Body, want: uint32(want), hash: h}
	return out, md, nil
}

// crc32Body computes the CRC32 of what is read through it and compares it
// with the expected value on Close, as the SDK's own validator does.
type crc32Body struct {
	io.Reader
	closer io.Closer
	want   uint32
	hash   hash.Hash32
}

func (b *crc32Body) Close() error {
	if got := b.hash.Sum32(); got != b.want {
		_ = b.closer.Close()
		return fmt.Errorf("response did not match expected checksum, %d, %d", b.want, got)
	}
	return b.closer.Close()
}
