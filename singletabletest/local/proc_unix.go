//go:build unix

package local

import (
	"os"
	"os/exec"
	"syscall"
)

// detach gives cmd a session of its own.
func detach(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }

func terminate(p *os.Process) error {
	err := p.Signal(syscall.SIGTERM)
	_ = p.Signal(syscall.SIGCONT) // in case it was stopped
	return err
}

func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

// lockFile holds an exclusive lock on path (flock, as flock(1) takes it, so
// the lock is shared with the shell scripts of earlier versions) until the
// returned function is called.
func lockFile(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}
