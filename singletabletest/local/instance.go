package local

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Instance is a running DynamoDB Local.
type Instance struct {
	// Endpoint is its URL, http://127.0.0.1:<Port>.
	Endpoint string
	Port     int
	// PID is its JVM's process id (0 when only its endpoint is known).
	PID int
	// Reused is true when the instance was already running.
	Reused bool
	// Install is how long finding or installing DynamoDB Local took, and
	// Startup how long from launching the JVM to its first answer; both 0
	// for a reused instance.
	Install, Startup time.Duration

	stateDir string
	exited   chan struct{} // closed when the JVM started here exits
	private  bool          // Stop also removes stateDir
}

// Env returns the environment that points the SDK (and this package's
// Main) at the instance: AWS_ENDPOINT_URL_DYNAMODB, SINGLETABLE_DDB_PID
// and dummy credentials and region, as KEY=VALUE.
func (i *Instance) Env() []string {
	env := []string{EndpointEnv + "=" + i.Endpoint}
	if i.PID > 0 {
		env = append(env, "SINGLETABLE_DDB_PID="+strconv.Itoa(i.PID))
	}
	return append(env, "AWS_ACCESS_KEY_ID=local", "AWS_SECRET_ACCESS_KEY=local", "AWS_REGION=us-east-1")
}

// Exports returns Env as shell `export` lines, one per line.
func (i *Instance) Exports() string {
	var b strings.Builder
	for _, kv := range i.Env() {
		b.WriteString("export " + kv + "\n")
	}
	return b.String()
}

// Setenv points this process at the instance: AWS_ENDPOINT_URL_DYNAMODB
// and SINGLETABLE_DDB_PID, and the dummy credentials and region unless the
// environment has its own. Clients built afterwards (LocalDB, Client,
// config.LoadDefaultConfig) and the commands it starts reach the instance.
func (i *Instance) Setenv() {
	for _, kv := range i.Env() {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY":
			if os.Getenv("AWS_ACCESS_KEY_ID") != "" && os.Getenv("AWS_SECRET_ACCESS_KEY") != "" {
				continue
			}
		case "AWS_REGION":
			if os.Getenv("AWS_REGION") != "" || os.Getenv("AWS_DEFAULT_REGION") != "" {
				continue
			}
		}
		os.Setenv(k, v)
	}
}

// Stop stops an instance started by Start: SIGTERM, then SIGKILL after
// 10 s. A reused instance, or one kept for others (Keep, Main), is left
// running.
func (i *Instance) Stop() error {
	if !i.private {
		return nil
	}
	err := kill(i.PID, i.exited)
	if err == nil {
		err = os.RemoveAll(i.stateDir)
	}
	return err
}

// Start starts a private DynamoDB Local on a free port, installing it
// first if needed (Install, FindJava), and returns once it answers. Stop
// it with Stop. Each has its own state dir, so concurrent ones never
// collide.
func Start(ctx context.Context, o Options) (*Instance, error) {
	o = o.withDefaults()
	dir, err := os.MkdirTemp("", "singletable-ddb.")
	if err != nil {
		return nil, err
	}
	inst, err := startIn(ctx, o, dir)
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	inst.private = true
	return inst, nil
}

// startIn installs if needed and starts an instance whose state (pid, port,
// log; its JVM's working directory) is dir.
func startIn(ctx context.Context, o Options, dir string) (*Instance, error) {
	t0 := time.Now()
	jar, err := Install(ctx, o)
	if err != nil {
		return nil, err
	}
	java, err := FindJava(ctx, o)
	if err != nil {
		return nil, err
	}
	install := time.Since(t0)
	for attempt := 1; ; attempt++ {
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		t1 := time.Now()
		inst, err := launch(ctx, o, java, jar, dir, port)
		if err == nil {
			inst.Install, inst.Startup = install, time.Since(t1)
			o.logf("DynamoDB Local %s on %s (pid %d, log %s, up in %s)", Version, inst.Endpoint, inst.PID,
				filepath.Join(dir, logName), inst.Startup.Round(time.Millisecond))
			return inst, nil
		}
		// It exited at once: most likely another process took the port.
		if errors.Is(err, errPortTaken) && attempt < 3 {
			o.logf("port %d was taken (attempt %d): trying another", port, attempt)
			continue
		}
		return nil, err
	}
}

const logName = "dynamodb-local.log"

var errPortTaken = errors.New("port taken")

// launch runs the JVM on port and waits until it answers.
func launch(ctx context.Context, o Options, java, jar, dir string, port int) (*Instance, error) {
	logPath := filepath.Join(dir, logName)
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	args := append(append([]string(nil), o.JavaOpts...),
		"-Djava.library.path="+filepath.Join(jar, libName), "-jar", filepath.Join(jar, jarName),
		// One in-memory database for every credential and region; no
		// telemetry to AWS (DDB_LOCAL_TELEMETRY=0 is a second switch).
		"-inMemory", "-sharedDb", "-disableTelemetry", "-port", strconv.Itoa(port))
	cmd := exec.Command(java, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "DDB_LOCAL_TELEMETRY=0")
	cmd.Stdout, cmd.Stderr = logf, logf
	// Its own session: a Ctrl-C meant for the tests does not kill it
	// behind the harness's back.
	detach(cmd)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", java, err)
	}
	inst := &Instance{Endpoint: fmt.Sprintf("http://127.0.0.1:%d", port), Port: port, PID: cmd.Process.Pid,
		stateDir: dir, exited: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(inst.exited) }()
	for _, f := range []struct{ name, v string }{{"pid", strconv.Itoa(inst.PID)}, {"port", strconv.Itoa(port)}} {
		if err := os.WriteFile(filepath.Join(dir, f.name), []byte(f.v+"\n"), 0o644); err != nil {
			_ = kill(inst.PID, inst.exited)
			return nil, err
		}
	}
	deadline := time.NewTimer(o.StartTimeout)
	defer deadline.Stop()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-inst.exited:
			tail := logTail(logPath)
			if strings.Contains(tail, "Address already in use") || strings.Contains(tail, "Failed to bind") {
				return nil, errPortTaken
			}
			return nil, fmt.Errorf("DynamoDB Local exited at start; the end of its log (%s):\n%s", logPath, tail)
		case <-ctx.Done():
			_ = kill(inst.PID, inst.exited)
			return nil, ctx.Err()
		case <-deadline.C:
			_ = kill(inst.PID, inst.exited)
			return nil, fmt.Errorf("DynamoDB Local did not answer on port %d within %s (SINGLETABLE_DDB_START_TIMEOUT); the end of its log:\n%s",
				port, o.StartTimeout, logTail(logPath))
		case <-tick.C:
			if answers(port) && listens(inst.PID, port) {
				return inst, nil
			}
		}
	}
}

// logTail returns the last 30 lines of the log at path.
func logTail(path string) string {
	b, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > 30 {
		lines = lines[len(lines)-30:]
	}
	return strings.Join(lines, "\n")
}

// kill ends pid: SIGTERM, then SIGKILL after 10 s. exited, when not nil,
// is closed when the process (a child of this one) has exited.
func kill(pid int, exited chan struct{}) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return nil
	}
	if err := terminate(p); err != nil {
		return nil // already gone
	}
	gone := func() bool {
		if exited != nil {
			select {
			case <-exited:
				return true
			default:
				return false
			}
		}
		return !alive(pid)
	}
	for range 200 {
		if gone() {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return p.Kill()
}

// freePort asks the OS for a TCP port free right now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// probe is the HTTP client that asks whether an instance answers: no proxy,
// a short timeout.
var probe = &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}

// answers reports whether an HTTP server answers on 127.0.0.1:port (DynamoDB
// Local answers GET / with 400: any status will do).
func answers(port int) bool {
	resp, err := probe.Get(fmt.Sprintf("http://127.0.0.1:%d/", port))
	if err != nil {
		return false
	}
	resp.Body.Close()
	return true
}

// listens reports whether process pid holds a socket listening on TCP
// port, so that another server that took the port cannot pass for the
// instance. Where /proc cannot tell (not Linux), it assumes so.
func listens(pid, port int) bool {
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return true
	}
	inodes := map[string]bool{}
	suffix := fmt.Sprintf(":%04X", port)
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(table)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			// Field 1 is the local address:port (hex), 3 the state (0A is
			// LISTEN), 9 the socket's inode.
			fs := strings.Fields(sc.Text())
			if len(fs) > 9 && strings.HasSuffix(fs[1], suffix) && fs[3] == "0A" {
				inodes[fs[9]] = true
			}
		}
		f.Close()
	}
	for _, fd := range fds {
		link, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
		if err == nil && strings.HasPrefix(link, "socket:[") && inodes[strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]")] {
			return true
		}
	}
	return false
}

// isOurs reports whether pid is alive and is a DynamoDB Local JVM started
// for state dir dir (its working directory): a stale pid file, left by a
// killed run or a reboot, may name another process once pids are reused.
func isOurs(pid int, dir string) bool {
	if pid <= 0 || !alive(pid) {
		return false
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return true // no /proc: alive is all that can be told cheaply
	}
	if !strings.Contains(string(cmdline), jarName) {
		return false
	}
	cwd, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid))
	if err != nil {
		return true
	}
	want, err := filepath.EvalSymlinks(dir)
	return err == nil && cwd == want
}

// running returns the live, answering instance recorded in state dir dir.
func running(dir string) (*Instance, bool) {
	pid, err1 := readInt(filepath.Join(dir, "pid"))
	port, err2 := readInt(filepath.Join(dir, "port"))
	if err1 != nil || err2 != nil || !isOurs(pid, dir) || !answers(port) || !listens(pid, port) {
		return nil, false
	}
	return &Instance{Endpoint: fmt.Sprintf("http://127.0.0.1:%d", port), Port: port, PID: pid, Reused: true, stateDir: dir}, true
}

func readInt(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(b)))
}
