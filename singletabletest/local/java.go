package local

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
)

// ErrNoJava is returned when no Java 17+ is found and Options.InstallJava
// is not set. Its message says what to run.
var ErrNoJava = errors.New("no Java 17+ found: DynamoDB Local runs on Java 17 or later")

// javaHint is what ErrNoJava's message tells the user to do.
const javaHint = `install one and rerun, e.g.
    sudo apt-get install -y openjdk-17-jre-headless   (Debian, Ubuntu)
    brew install openjdk@17                           (macOS)
  or point SINGLETABLE_JAVA at a java binary (Java 17+); or let this tool install
  it with apt-get (as root, or with sudo -n): SINGLETABLE_INSTALL_JAVA=1, or
  singletable-local -install-java`

// javaCandidates lists where Java is looked for, in order.
func (o Options) javaCandidates() []string {
	var c []string
	if o.Java != "" {
		c = append(c, o.Java)
	}
	if h := os.Getenv("JAVA_HOME"); h != "" {
		c = append(c, filepath.Join(h, "bin", "java"))
	}
	if p, err := exec.LookPath("java"); err == nil {
		c = append(c, p)
	}
	jvms, _ := filepath.Glob(jvmGlob)
	return append(c, jvms...)
}

// jvmGlob is where Debian's JVMs are; tests point it elsewhere.
var jvmGlob = "/usr/lib/jvm/java-*-openjdk*/bin/java"

var javaVersion = regexp.MustCompile(`version "(?:1\.)?(\d+)`)

// javaMajor runs bin -version and returns its major version (8, 17 ...).
func javaMajor(ctx context.Context, bin string) (int, error) {
	out, err := exec.CommandContext(ctx, bin, "-version").CombinedOutput()
	if err != nil {
		return 0, err
	}
	m := javaVersion.FindSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("%s -version: no version in %q", bin, bytes.TrimSpace(out))
	}
	return strconv.Atoi(string(m[1]))
}

// FindJava returns a Java 17+ binary: Options.Java, $JAVA_HOME/bin/java,
// java on PATH or /usr/lib/jvm/*. When there is none it installs one if
// o.InstallJava (Debian's openjdk-17-jre-headless, with apt-get, as root or
// with sudo -n) and fails with ErrNoJava otherwise.
func FindJava(ctx context.Context, o Options) (string, error) {
	o = o.withDefaults()
	if bin, ok := findJava(ctx, o); ok {
		return bin, nil
	}
	if !o.InstallJava {
		return "", fmt.Errorf("%w; looked at SINGLETABLE_JAVA, $JAVA_HOME/bin/java, java on PATH and /usr/lib/jvm: %s", ErrNoJava, javaHint)
	}
	o.logf("no Java 17+ found: installing openjdk-17-jre-headless with apt-get (asked for by -install-java / SINGLETABLE_INSTALL_JAVA)")
	if err := aptInstall(ctx, o, "openjdk-17-jre-headless"); err != nil {
		return "", err
	}
	if bin, ok := findJava(ctx, o); ok {
		return bin, nil
	}
	return "", fmt.Errorf("%w even after installing openjdk-17-jre-headless", ErrNoJava)
}

func findJava(ctx context.Context, o Options) (string, bool) {
	for _, bin := range o.javaCandidates() {
		if major, err := javaMajor(ctx, bin); err == nil && major >= 17 {
			return bin, true
		}
	}
	return "", false
}

// aptInstall installs Debian packages, as root or with non-interactive sudo.
func aptInstall(ctx context.Context, o Options, pkgs ...string) error {
	if _, err := exec.LookPath("apt-get"); err != nil {
		return fmt.Errorf("%w, and there is no apt-get here to install one: %s", ErrNoJava, javaHint)
	}
	var prefix []string
	if os.Geteuid() != 0 {
		if _, err := exec.LookPath("sudo"); err != nil {
			return fmt.Errorf("%w, and installing one needs root (not root, and no sudo): %s", ErrNoJava, javaHint)
		}
		prefix = []string{"sudo", "-n"}
	}
	run := func(args ...string) error {
		args = append(append(append([]string(nil), prefix...), "env", "DEBIAN_FRONTEND=noninteractive"), args...)
		o.logf("%v", args)
		cmd := exec.CommandContext(ctx, args[0], args[1:]...)
		cmd.Stdout, cmd.Stderr = o.Log, o.Log
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("%v: %w", args, err)
		}
		return nil
	}
	// Slim Debian images lack this directory and the JRE's postinst then fails.
	if err := run("mkdir", "-p", "/usr/share/man/man1"); err != nil {
		return err
	}
	if err := run("apt-get", "update", "-qq"); err != nil {
		return err
	}
	return run(append([]string{"apt-get", "install", "-y", "-qq", "--no-install-recommends"}, pkgs...)...)
}
