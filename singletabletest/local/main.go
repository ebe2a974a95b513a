package local

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// EndpointEnv names the environment variable that points the SDK's
// DynamoDB client at DynamoDB Local.
const EndpointEnv = "AWS_ENDPOINT_URL_DYNAMODB"

// M is what Main runs: *testing.M.
type M interface{ Run() int }

// Main runs a package's tests against DynamoDB Local and exits with their
// status. Call it from the package's TestMain:
//
//	func TestMain(m *testing.M) { local.Main(m) }
//
// It finds an instance, in this order:
//
//  1. AWS_ENDPOINT_URL_DYNAMODB, when set (the singletable-local command,
//     `make test`, or a server of your own): used as it is;
//  2. the kept instance a developer started (`singletable-local start`),
//     when it runs;
//  3. under `go test`, one instance per `go test` run, shared by every
//     package's test binary (they run in parallel): the first starts it,
//     the others reuse it, and it stops when `go test` exits;
//  4. else (the test binary run by hand) a private instance, stopped when
//     the tests end.
//
// With SINGLETABLE_DDB_ENV_ONLY=1, only the first is used (this
// repository's check that its integration tests fail without DynamoDB
// Local sets it). Options come from the environment (FromEnv). If no
// instance can be had (no Java, say), Main prints why and what to do, and
// runs the tests anyway: the unit tests pass, and each test that needs
// DynamoDB Local fails.
func Main(m M) {
	os.Exit(run(m, FromEnv()))
}

func run(m M, o Options) int {
	inst, err := Ensure(context.Background(), o)
	if err != nil {
		// The tests run anyway: the unit tests pass, and each test that
		// needs DynamoDB Local fails (never skips) for want of it.
		fmt.Fprintf(os.Stderr, "singletable-local: no DynamoDB Local for the tests: %v\n", err)
		return m.Run()
	}
	defer inst.Stop()
	inst.Setenv()
	return m.Run()
}

// ErrEnvOnly is returned by Ensure when SINGLETABLE_DDB_ENV_ONLY is set
// and AWS_ENDPOINT_URL_DYNAMODB is not.
var ErrEnvOnly = errors.New("SINGLETABLE_DDB_ENV_ONLY is set: only the instance " + EndpointEnv + " names is used, and it is not set")

// Ensure returns an instance as Main finds one (see Main), and points the
// process's environment at it. Stop it when done: Stop stops only a
// private instance.
func Ensure(ctx context.Context, o Options) (*Instance, error) {
	o = o.withDefaults()
	if ep := strings.TrimSpace(os.Getenv(EndpointEnv)); ep != "" {
		pid, _ := strconv.Atoi(os.Getenv("SINGLETABLE_DDB_PID"))
		return &Instance{Endpoint: ep, PID: pid, Reused: true}, nil
	}
	if os.Getenv("SINGLETABLE_DDB_ENV_ONLY") != "" {
		return nil, ErrEnvOnly
	}
	if inst, ok := Kept(o); ok {
		inst.Setenv()
		return inst, nil
	}
	if gopid, ok := goTestParent(); ok {
		inst, err := sharedForRun(ctx, o, gopid)
		if err == nil {
			inst.Setenv()
		}
		return inst, err
	}
	inst, err := Start(ctx, o)
	if err == nil {
		inst.Setenv()
	}
	return inst, err
}

// goTestParent returns the pid of the `go` command that started this test
// binary, if one did (`go test` runs each package's binary as its child).
// It can tell only where /proc or ps can (Linux, macOS, the BSDs).
func goTestParent() (int, bool) {
	ppid := os.Getppid()
	if ppid <= 1 || runtime.GOOS == "windows" {
		return 0, false
	}
	var name string
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", ppid)); err == nil {
		name = strings.TrimSpace(string(b))
	} else if out, err := exec.Command("ps", "-o", "comm=", "-p", strconv.Itoa(ppid)).Output(); err == nil {
		name = filepath.Base(strings.TrimSpace(string(out)))
	}
	return ppid, name == "go"
}

// sharedForRun returns the instance of the `go test` run whose go command
// is gopid: started by the first test binary that asks, with a watchdog
// that stops it when that go command exits, and reused by the others.
func sharedForRun(ctx context.Context, o Options, gopid int) (*Instance, error) {
	dir := filepath.Join(o.CacheDir, "gotest", strconv.Itoa(gopid))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	unlock, err := lockFile(filepath.Join(dir, "lock"))
	if err != nil {
		return nil, err
	}
	defer unlock()
	if inst, ok := running(dir); ok {
		return inst, nil
	}
	inst, err := startIn(ctx, o, dir)
	if err != nil {
		return nil, err
	}
	if err := watch(gopid, inst.PID, dir); err != nil {
		_ = kill(inst.PID, inst.exited)
		return nil, err
	}
	return inst, nil
}

// watch starts a watchdog, in a session of its own, that stops the JVM
// jvm and removes dir once process gopid has exited (or the JVM has). A
// shell loop: the test binary that starts the instance may end long
// before the `go test` run does.
func watch(gopid, jvm int, dir string) error {
	script := `while kill -0 "$1" 2>/dev/null && kill -0 "$2" 2>/dev/null; do sleep 1; done
kill -TERM "$2" 2>/dev/null
i=0; while kill -0 "$2" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
kill -KILL "$2" 2>/dev/null
rm -rf "$3"`
	cmd := exec.Command("sh", "-c", script, "singletable-local-watch", strconv.Itoa(gopid), strconv.Itoa(jvm), dir)
	detach(cmd)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting the watchdog of the shared DynamoDB Local: %w", err)
	}
	return cmd.Process.Release()
}
