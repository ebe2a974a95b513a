package main

import (
	"os"
	"path/filepath"
	"testing"
)

// The command's arguments: flags, a subcommand, and the command after --,
// whose exit status is the command's. With AWS_ENDPOINT_URL_DYNAMODB set,
// run starts nothing (no JVM here).
func TestRunArguments(t *testing.T) {
	t.Setenv("AWS_ENDPOINT_URL_DYNAMODB", "http://127.0.0.1:1")
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"--", "sh", "-c", "exit 3"}, 3},
		{[]string{"run", "--", "sh", "-c", `[ "$AWS_ENDPOINT_URL_DYNAMODB" = http://127.0.0.1:1 ]`}, 0},
		{[]string{"-C", dir, "--", "sh", "-c", "touch here"}, 0},
		{[]string{"run"}, 2},
		{[]string{"bogus"}, 2},
		{[]string{"status", "extra"}, 2},
	} {
		if got := run(tc.args); got != tc.want {
			t.Errorf("run(%q) = %d, want %d", tc.args, got, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "here")); err != nil {
		t.Errorf("-C: the command did not run in %s: %v", dir, err)
	}
	t.Setenv("SINGLETABLE_DDB_EARLY", "")
	if got := run([]string{"wait"}); got != 1 {
		t.Errorf("wait outside run -early = %d, want 1", got)
	}
}
