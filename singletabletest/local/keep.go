package local

import (
	"context"
	"os"
	"path/filepath"
	"time"
)

// A kept instance outlives the command that started it: `make ddb-start`
// (`singletable-local start`) starts one for a developer to iterate
// against, and every later start, and Main, reuse it until `stop`. Its
// state (pid, port, log, lock) is in a state dir, by default
// <cache dir>/run, or $SINGLETABLE_STATE.

// StateDir returns the kept instance's state dir.
func StateDir(o Options) string {
	if d := os.Getenv("SINGLETABLE_STATE"); d != "" {
		return d
	}
	return filepath.Join(o.withDefaults().CacheDir, "run")
}

// Keep returns the kept instance, started (and installed) if it is not
// running, and replaced if its JVM is alive but does not answer. Concurrent
// calls start one instance: they lock the state dir.
func Keep(ctx context.Context, o Options) (*Instance, error) {
	o = o.withDefaults()
	return keepIn(ctx, o, StateDir(o))
}

func keepIn(ctx context.Context, o Options, dir string) (*Instance, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	unlock, err := lockFile(filepath.Join(dir, "lock"))
	if err != nil {
		return nil, err
	}
	defer unlock()
	if inst, ok := running(dir); ok {
		o.logf("reusing DynamoDB Local on %s (pid %d)", inst.Endpoint, inst.PID)
		return inst, nil
	}
	if pid, err := readInt(filepath.Join(dir, "pid")); err == nil && isOurs(pid, dir) {
		// Alive but not answering: maybe only slow (a loaded machine).
		// Give it 10 s, then replace it.
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
			if inst, ok := running(dir); ok {
				o.logf("reusing DynamoDB Local on %s (pid %d)", inst.Endpoint, inst.PID)
				return inst, nil
			}
		}
		o.logf("DynamoDB Local (pid %d) does not answer: replacing it", pid)
		_ = kill(pid, nil)
	}
	_ = os.Remove(filepath.Join(dir, "pid"))
	_ = os.Remove(filepath.Join(dir, "port"))
	return startIn(ctx, o, dir)
}

// Kept returns the kept instance if it is running.
func Kept(o Options) (*Instance, bool) { return running(StateDir(o)) }

// StopKept stops the kept instance, if one is running.
func StopKept(o Options) error {
	dir := StateDir(o)
	if _, err := os.Stat(dir); err != nil {
		return nil
	}
	unlock, err := lockFile(filepath.Join(dir, "lock"))
	if err != nil {
		return err
	}
	defer unlock()
	if pid, err := readInt(filepath.Join(dir, "pid")); err == nil && isOurs(pid, dir) {
		if err := kill(pid, nil); err != nil {
			return err
		}
		o.withDefaults().logf("stopped DynamoDB Local (pid %d)", pid)
	}
	_ = os.Remove(filepath.Join(dir, "pid"))
	_ = os.Remove(filepath.Join(dir, "port"))
	return nil
}
